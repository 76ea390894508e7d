/// Reads the records of a quarantine file (`--rejects` output) back, for `sluice replay`.
///
/// Each line's `record` text is checked as one JSON document again, so a record that is still
/// malformed is reported as such. Locations are those of the quarantine file: ordinal and line
/// of the entry.
///
/// A record whose bytes were not valid Unicode (a byte its encoding does not define, an
/// unpaired UTF-16 surrogate, invalid UTF-8) keeps them as `\udcXX` escapes: while one is
/// left, the entry is refused with its first issue, as the first run rejected it, never read as
/// other text. A file written before the escapes has U+FFFD in their place: such an entry
/// (U+FFFD in the record, an issue about the encoding) is refused the same way.
@_spi(Internals) public final class QuarantineReader: RecordReader {
  private struct Entry: Decodable {
    var format: String?
    var csv: QuarantineCSVEntry?
    var issues: [OriginalIssue]?
    var bytesEscaped: Bool?
  }

  /// What replay needs of an entry's issue to reject its record again: read loosely, so a
  /// hand-edited issue never makes the entry unreadable.
  private struct OriginalIssue: Decodable {
    var stage: String?
    var code: String?
    var path: String?
    var message: String?
  }

  private let lines: JSONRecordReader
  private let decoder = SluiceDecoder(options: .init(reportsUnknownFields: false))
  public private(set) var recordCount = 0

  public init(source: any ByteSource) {
    lines = JSONRecordReader(source: source, layout: .lines)
  }

  public func next() throws -> RawRecord? {
    guard let line = try lines.next() else { return nil }
    recordCount += 1
    var diagnostics = DecodeDiagnostics()
    let entry: Entry
    do {
      entry = try decoder.decode(Entry.self, from: line, diagnostics: &diagnostics)
    } catch {
      throw RecordReadError(
        code: .syntax,
        message: "not a quarantine entry: \(error.path.isEmpty ? "" : error.path + ": ")\(error.message)",
        location: line.location, isRecoverable: true)
    }
    let bytes = try record(of: line)
    try refuseInvalidText(bytes, of: entry, at: line.location)
    if entry.format == "csv" { return try csvRecord(bytes, entry: entry, location: line.location) }
    do {
      let check = JSONRecordReader(source: MemoryByteSource(bytes), layout: .document)
      _ = try check.next()
    } catch var error as RecordReadError {
      error.location = line.location
      error.isRecoverable = true
      throw error
    }
    guard let format = entry.format else { return RawRecord(location: line.location, bytes: bytes) }
    guard format == RecordFormat.xml.rawValue else {
      throw RecordReadError(
        code: .syntax, message: "not a quarantine entry: unknown format '\(format)'", location: line.location,
        isRecoverable: true)
    }
    var tape = RecordTape()
    do {
      try tape.loadJSON(bytes, origin: .xml)
    } catch {
      throw RecordReadError(code: error.code, message: error.message, location: line.location, isRecoverable: true)
    }
    return RawRecord(location: line.location, tape: tape)
  }

  /// The bytes of the entry's `record`, its `\udcXX` escapes given back as the bytes they
  /// stand for (`JSONString.decodeKeepingBytes`).
  private func record(of line: RawRecord) throws -> [UInt8] {
    var tape = RecordTape()
    func notAnEntry(_ why: String) -> RecordReadError {
      RecordReadError(
        code: .syntax, message: "not a quarantine entry: record: \(why)", location: line.location, isRecoverable: true)
    }
    do {
      try tape.loadJSON(line.bytes)
    } catch {
      throw notAnEntry(error.message)
    }
    var member = 1
    while member < tape.end(of: 0) {
      if tape.keyString(member) == "record" {
        guard tape.nodes[member + 1].tag == RecordTape.Node.string else { throw notAnEntry("expected a string") }
        guard let bytes = JSONString.decodeKeepingBytes(tape.bytes[tape.textRange(of: member + 1)]) else {
          throw notAnEntry("an invalid \\u escape (an unpaired surrogate other than a kept byte's \\udc80…\\udcff)")
        }
        return bytes
      }
      member = tape.end(of: member + 1)
    }
    throw notAnEntry("missing")
  }

  /// Refuses a record whose text is not valid Unicode — bytes kept as escapes, or (in a file
  /// written before them) U+FFFD where the entry's issue says the encoding failed — with the
  /// entry's first issue, so that it is rejected again as the first run rejected it.
  private func refuseInvalidText(_ bytes: [UInt8], of entry: Entry, at location: RecordLocation) throws {
    let original = entry.issues?.first { $0.stage == Stage.read.rawValue } ?? entry.issues?.first
    if String(validating: bytes, as: UTF8.self) == nil {
      throw refusal(
        original, at: location,
        otherwise: "the record holds bytes that are not UTF-8 (\\udcXX escapes); replace them to replay it")
    }
    guard entry.bytesEscaped != true, bytes.firstRange(of: [0xEF, 0xBF, 0xBD]) != nil,
      let original, original.stage == Stage.read.rawValue, original.code == IssueCode.syntax.rawValue,
      let message = original.message,
      ["does not define", "invalid UTF-8", "malformed UTF-16"].contains(where: { message.contains($0) })
    else { return }
    throw refusal(original, at: location, otherwise: message)
  }

  private func refusal(_ issue: OriginalIssue?, at location: RecordLocation, otherwise message: String)
    -> RecordReadError
  {
    var error = RecordReadError(
      code: issue?.code.map { IssueCode(rawValue: $0) } ?? .syntax, message: issue?.message ?? message,
      location: location, isRecoverable: true)
    error.path = issue?.path ?? ""
    return error
  }

  /// A rejected CSV row, read again alone under its columns and dialect.
  private func csvRecord(_ bytes: [UInt8], entry: Entry, location: RecordLocation) throws -> RawRecord {
    guard let dialect = entry.csv?.dialect else {
      throw RecordReadError(
        code: .syntax, message: "not a quarantine entry: a CSV row without its columns and dialect",
        location: location, isRecoverable: true)
    }
    let reader = CSVRecordReader(source: MemoryByteSource(bytes), dialect: dialect)
    do {
      guard let record = try reader.next() else {
        throw RecordReadError(code: .syntax, message: "an empty CSV row", location: location, isRecoverable: true)
      }
      guard try reader.next() == nil else {
        throw RecordReadError(
          code: .syntax, message: "more than one CSV row in one entry", location: location, isRecoverable: true)
      }
      // Where each value sat in the original file is not in the entry: as for a replayed XML
      // record, offsets are those of the tape's JSON text, on the entry's line.
      guard var tape = record.tape else { return record }
      tape.sourceOffsets = []
      tape.sourceLines = []
      return RawRecord(location: location, tape: tape)
    } catch var error as RecordReadError {
      error.location = location
      error.isRecoverable = true
      throw error
    }
  }
}
