import Foundation

/// Writes rejected records to an NDJSON quarantine file: one line per record with its raw text
/// and its issues, so it can be fixed and replayed (`sluice replay`).
///
/// This is the one place Sluice writes record values, because the user asked for it with
/// `--rejects`. Lines go through an `OutputFile`, buffered and flushed in blocks, so memory stays bounded
/// and the file is complete or absent, never half-written.
package final class QuarantineWriter {
  package struct Entry: Codable {
    var ordinal: Int
    var line: Int
    var byteOffset: Int64
    var input: String
    var issues: [Issue]
    /// The record's text as read; invalid UTF-8 (only possible in a malformed line) is replaced.
    /// An XML record is written as the JSON text its tape holds (`format` is then `xml`).
    var record: String
    /// `xml` when `record` is an XML record's JSON text, which replay reads with XML's rules
    /// (every scalar text, repeated keys as arrays); absent for JSON.
    var format: String?
  }

  package let file: OutputFile
  /// The input whose records are being written (it changes as a run reads its inputs in turn).
  var input: String
  /// The format of the input being read: an XML input's records are written as JSON text.
  var format: PipelineConfiguration.Format
  private let encoder: JSONEncoder
  package private(set) var count = 0
  /// Bytes written so far: where the next record's line begins.
  var byteCount: Int { file.byteCount }

  package init(file: OutputFile, input: String, format: PipelineConfiguration.Format = .json) {
    self.file = file
    self.input = input
    self.format = format
    encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  }

  func write(location: RecordLocation, bytes: [UInt8], issues: [Issue]) throws {
    let entry = Entry(
      ordinal: location.ordinal, line: location.line, byteOffset: location.byteOffset, input: input,
      issues: issues, record: String(decoding: bytes, as: UTF8.self), format: format == .xml ? format.rawValue : nil)
    try file.write(try encoder.encode(entry))
    try file.write(CollectionOfOne(0x0A))
    count += 1
  }

  /// Adds `records` lines written by another writer (a lane's), already in `file`.
  package func countCopied(_ records: Int) { count += records }

  /// Takes over the first `records` records (`bytes` bytes) an interrupted run of which this one
  /// is the resumption quarantined in the file at `path`.
  func takeOver(records: Int, bytes: Int, from path: String) throws(OutputError) {
    try file.append(prefix: bytes, ofFileAt: path)
    count += records
  }
}
