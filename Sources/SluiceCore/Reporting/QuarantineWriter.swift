import Foundation

/// Writes rejected records to an NDJSON quarantine file: one line per record with its raw text
/// and its issues, so it can be fixed and replayed (`sluice replay`).
///
/// This is the one place Sluice writes record values, because the user asked for it with
/// `--rejects`. Lines are buffered and flushed in blocks; memory stays bounded.
final class QuarantineWriter {
  struct Entry: Codable {
    var ordinal: Int
    var line: Int
    var byteOffset: Int64
    var input: String
    var issues: [Issue]
    /// The record's text as read; invalid UTF-8 (only possible in a malformed line) is replaced.
    var record: String
  }

  private let handle: FileHandle
  private let input: String
  private var buffer = Data()
  private let encoder: JSONEncoder
  private(set) var count = 0

  init(path: String, input: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    if !directory.isEmpty {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    guard FileManager.default.createFile(atPath: path, contents: nil) else {
      throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
    }
    handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    self.input = input
    encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  }

  func write(location: RecordLocation, bytes: [UInt8], issues: [Issue]) throws {
    let entry = Entry(
      ordinal: location.ordinal, line: location.line, byteOffset: location.byteOffset, input: input,
      issues: issues, record: String(decoding: bytes, as: UTF8.self))
    buffer.append(try encoder.encode(entry))
    buffer.append(0x0A)
    count += 1
    if buffer.count >= 1 << 20 { try flush() }
  }

  func flush() throws {
    guard !buffer.isEmpty else { return }
    try handle.write(contentsOf: buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  func close() throws {
    try flush()
    try handle.close()
  }
}
