import CZlib
import Foundation
@testable import SluiceCore

/// A fresh directory per test, removed when the value goes away.
final class TemporaryDirectory {
  let path: String

  init() throws {
    path = NSTemporaryDirectory() + "sluice-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// Writes `bytes` to a file in the directory and returns its path.
  func write(_ name: String, _ bytes: [UInt8]) throws -> String {
    let file = (path as NSString).appendingPathComponent(name)
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    return file
  }

  func write(_ name: String, _ text: String) throws -> String {
    try write(name, Array(text.utf8))
  }

  func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

/// Real gzip members written with zlib's deflate (window bits 15 + 16 selects the gzip wrapper).
enum Gzip {
  static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
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

  static func compress(_ text: String) -> [UInt8] { compress(Array(text.utf8)) }
}

/// A byte source over memory that hands out at most `chunk` bytes per read, to exercise every
/// buffer boundary of the readers.
final class MemorySource: ByteSource {
  private let bytes: [UInt8]
  private let chunk: Int
  private var offset = 0

  init(_ bytes: [UInt8], chunk: Int = .max) {
    self.bytes = bytes
    self.chunk = chunk
  }

  convenience init(_ text: String, chunk: Int = .max) { self.init(Array(text.utf8), chunk: chunk) }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let n = min(buffer.count, chunk, bytes.count - offset)
    guard n > 0 else { return 0 }
    bytes.withUnsafeBytes { source in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + n]))
    }
    offset += n
    return n
  }
}

/// The shared corpus, read in place (never copied into the repository).
enum Corpus {
  static let root: String = {
    // Tests/SluiceCoreTests/Support/TestFiles.swift → the repository → ../shared/corpus
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
  }()

  static func files(in group: String) -> [String] {
    let directory = (root as NSString).appendingPathComponent(group)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.sorted().map { (directory as NSString).appendingPathComponent($0) }
  }
}

extension JSONRecordReader {
  /// Reads every record, stopping at the first unrecoverable error.
  func readAll() throws -> [RawRecord] {
    var records: [RawRecord] = []
    while let record = try next() { records.append(record) }
    return records
  }
}

extension RawRecord {
  var text: String { String(decoding: bytes, as: UTF8.self) }
}
