import CZlib
import Foundation
import SluiceCLI
@_spi(Internals) import SluiceCore
import SluiceSQLite

/// A fresh directory per test, removed when the value goes away.
public final class TemporaryDirectory {
  public let path: String

  public init() throws {
    path = NSTemporaryDirectory() + "sluice-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// Writes `bytes` to a file in the directory and returns its path.
  public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
    let file = (path as NSString).appendingPathComponent(name)
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    return file
  }

  public func write(_ name: String, _ text: String) throws -> String {
    try write(name, Array(text.utf8))
  }

  public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

/// Real gzip members written with zlib's deflate (window bits 15 + 16 selects the gzip wrapper).
public enum Gzip {
  public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer {
      deflateEnd(stream)
      stream.deallocate()
    }
    precondition(sluice_deflateInit2(stream, level, 15 + 16) == Z_OK)
    var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(bytes.count))) + 64)
    var input = bytes
    let produced = input.withUnsafeMutableBufferPointer { source in
      output.withUnsafeMutableBufferPointer { target in
        stream.pointee.next_in = source.baseAddress
        stream.pointee.avail_in = uInt(source.count)
        stream.pointee.next_out = target.baseAddress
        stream.pointee.avail_out = uInt(target.count)
        precondition(deflate(stream, Z_FINISH) == Z_STREAM_END)
        return target.count - Int(stream.pointee.avail_out)
      }
    }
    return Array(output[0..<produced])
  }

  public static func compress(_ text: String) -> [UInt8] { compress(Array(text.utf8)) }
}

/// The third-party corpus: real inputs nobody here wrote (Tests/Corpus/README.md).
public enum Corpus {
  /// `Tests/Corpus` in the repository: the real files the tests read, each group with its
  /// `SOURCE.md` (origin, commit, licence), so that a clone with nothing beside it passes.
  public static let root: String = Repository.path("Tests/Corpus")

  public static func files(in group: String) -> [String] {
    let directory = (root as NSString).appendingPathComponent(group)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.sorted().map { (directory as NSString).appendingPathComponent($0) }
  }
}

extension JSONRecordReader {
  /// Reads every record, stopping at the first unrecoverable error.
  public func readAll() throws -> [RawRecord] {
    var records: [RawRecord] = []
    while let record = try next() { records.append(record) }
    return records
  }
}

extension RawRecord {
  public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// The repository's root, for tests that read committed files (SampleData, Pipelines).
public enum Repository {
  public static let root: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  public static func path(_ relative: String) -> String {
    (root as NSString).appendingPathComponent(relative)
  }
}

extension AnyDataset {
  /// Runs a pipeline whose every input is this dataset's records (`Pipeline`, for tests).
  public func run(_ configuration: PipelineConfiguration) throws -> RunReport {
    try Pipeline(datasets: configuration.inputs.map { _ in self }, configuration: configuration).run()
  }
}

extension PipelineConfiguration {
  /// The configuration with the tables' rows counted after the commit (`tableRows`), as the
  /// tests that check a table's size ask for.
  public var counted: PipelineConfiguration {
    var configuration = self
    configuration.countsTableRows = true
    return configuration
  }
}

extension RunReport {
  /// The code `sluice` would exit with for this report (the command line's one mapping).
  public var exitCode: Int32 { ExitCode.of(self) }
}
