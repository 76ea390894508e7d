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
    /// The record's text as read. An XML record is written as the JSON text its tape holds
    /// (`format` is then `xml`). A record whose bytes are not valid UTF-8 (a line or row
    /// rejected for it) keeps them: each bad byte is the escape `\udcXX` (`bytesEscaped`).
    var record: String
    /// True when `record` holds bytes that are not UTF-8 as `\udcXX` escapes, which replay
    /// refuses with the entry's first issue until they are replaced; absent otherwise, and in
    /// files written before (whose records had U+FFFD in place of such bytes).
    var bytesEscaped: Bool?
    /// `xml` when `record` is an XML record's JSON text, which replay reads with XML's rules
    /// (every scalar text, repeated keys as arrays); `csv` when it is a CSV row as written;
    /// absent for JSON.
    var format: String?
    /// A CSV row's columns and dialect: what reading the row alone again needs.
    var csv: QuarantineCSVEntry?
  }

  package let file: OutputFile
  /// The input whose records are being written (it changes as a run reads its inputs in turn).
  var input: String
  /// The format of the input being read: an XML input's records are written as JSON text.
  var format: PipelineConfiguration.Format
  /// A CSV input's dialect and its reader's columns, set when such an input is opened.
  var csv: (dialect: CSVDialect, columns: CSVColumns)?
  private let encoder: JSONEncoder
  /// The running SHA-256 of the file's first `hashedBytes` bytes (`digestSoFar`).
  private let hasher = SHA256()
  private var hashedBytes = 0
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
    let text = String(validating: bytes, as: UTF8.self)
    let entry = Entry(
      ordinal: location.ordinal, line: location.line, byteOffset: location.byteOffset, input: input,
      issues: issues, record: text ?? "", bytesEscaped: text == nil ? true : nil, format: entryFormat,
      csv: csv.flatMap { csv in csv.columns.value.map { QuarantineCSVEntry(columns: $0, dialect: csv.dialect) } })
    var line = try encoder.encode(entry)
    if text == nil {
      // No Swift string holds the bytes: the record goes in as escapes, in place of the empty
      // one the encoder wrote — the line's last member, the keys being sorted.
      let empty = Array(#""record":""}"#.utf8)
      guard line.count >= empty.count, Array(line.suffix(empty.count)) == empty else {
        preconditionFailure("a quarantine entry's last member is its record")
      }
      line.removeLast(2)
      line.append(contentsOf: Array(JSONString.escapedKeepingBytes(bytes).utf8))
      line.append(contentsOf: Array(#""}"#.utf8))
    }
    try file.write(line)
    try file.write(CollectionOfOne(0x0A))
    count += 1
  }

  /// The entries' `format`: what replay needs to know to read `record`.
  private var entryFormat: String? {
    switch format {
    case .json, .ndjson: nil
    case .xml: "xml"
    case .csv, .tsv: "csv"
    }
  }

  /// The SHA-256 of the bytes written so far (read back from the staging file: lines copied
  /// from elsewhere count too), for a checkpoint: a resumed run takes over only a file that
  /// begins with exactly these bytes. Nil for a stream, or when they cannot be read back.
  func digestSoFar() -> String? {
    guard let staging = file.stagingPath, (try? file.flush()) != nil,
      Self.feed(hasher, from: staging, range: hashedBytes..<byteCount)
    else { return nil }
    hashedBytes = byteCount
    return SHA256.hex(hasher.digestSoFar())
  }

  /// The SHA-256 of the first `count` bytes of the file at `path`, or nil when it has fewer or
  /// cannot be read.
  static func digest(ofFirst count: Int, ofFileAt path: String) -> String? {
    let hasher = SHA256()
    guard feed(hasher, from: path, range: 0..<count) else { return nil }
    return SHA256.hex(hasher.finish())
  }

  /// Feeds the bytes `range` of the file at `path` to `hasher`; false when they cannot be read.
  private static func feed(_ hasher: SHA256, from path: String, range: Range<Int>) -> Bool {
    guard !range.isEmpty else { return true }
    let source = open(path, O_RDONLY | O_CLOEXEC)
    guard source >= 0 else { return false }
    defer { close(source) }
    var chunk = [UInt8](repeating: 0, count: min(1 << 20, range.count))
    var offset = range.lowerBound
    while offset < range.upperBound {
      let wanted = min(chunk.count, range.upperBound - offset)
      let read = chunk.withUnsafeMutableBytes { pread(source, $0.baseAddress, wanted, off_t(offset)) }
      guard read > 0 else { return false }
      chunk.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<read])) }
      offset += read
    }
    return true
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
