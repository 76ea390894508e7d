/// Reads the records of a quarantine file (`--rejects` output) back, for `sluice replay`.
///
/// Each line's `record` text is checked as one JSON document again, so a record that is still
/// malformed is reported as such. Locations are those of the quarantine file: ordinal and line
/// of the entry.
@_spi(Internals) public final class QuarantineReader: RecordReader {
  private struct Entry: Decodable {
    var record: String
    var format: String?
    var csv: QuarantineWriter.CSVEntry?
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
    let bytes = Array(entry.record.utf8)
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
