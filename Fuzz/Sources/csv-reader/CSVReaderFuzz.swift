// Fuzz target `csv-reader`: CSVRecordReader over an in-memory source, then every record it
// hands out decoded into the devices DTO under CSV's conventions.
//
// Input: one control byte, then the file.
//   bits 0-1  dialect: csv; tsv; `;` with empty fields null; csv without a header, the columns
//             given (`id`, `name`, `latitude`, `longitude`, `site.code`)
//   bit  2    small limits (row 256 bytes, field 32 bytes)
//   bit  3    unknown fields reported
//   bit  4    the encoding declared UTF-16LE (a file starting with FF FE or FE FF is UTF-16 by
//             its mark whatever this bit)
//
// Every row is read until nil or a fatal error (a bad header); recoverable errors are skipped
// and reading goes on. Invariants checked (each a crash when broken):
//   - the outcome (records with their tapes, raw rows and places; errors with their codes,
//     places, paths and raw rows) is the same whether the source hands out the whole file or 1,
//     7 or 4096 bytes at a time, through a buffer of 4 bytes, 4 KiB or 64 KiB;
//   - records and recoverable errors carry ordinals 1, 2, 3, …;
//   - a record's raw row, and a recoverable error's, is the input's bytes at its offset, and
//     its line is 1 + the line breaks before it (CRLF counted once); in a UTF-16 input, the row
//     is the UTF-8 of the input's code units from its offset (U+FFFD for each malformed one), and
//     the line breaks are code units;
//   - a record's tape text (what replay of XML-like tapes reads) is one valid JSON document;
//   - decoding issues and unknown fields point inside the record's row.
import Foundation
import FuzzSupport
import SluiceCatalog
@_spi(Internals) import SluiceCore

private let dialects: [CSVDialect] = [
  .csv, .tsv, CSVDialect(delimiter: UInt8(ascii: ";"), emptyIsNull: true),
  CSVDialect(hasHeader: false, columns: ["id", "name", "latitude", "longitude", "site.code"]),
]
private let utf16LE = try? CSVEncoding(name: "utf-16le")
private let smallLimits = CSVRecordReader.Limits(maxRecordBytes: 256, maxFieldBytes: 32)
private let readings: [(chunk: Int, buffer: Int)] = [(.max, 1 << 16), (1, 4), (7, 4096), (4096, 4)]

private enum Entry: Equatable {
  case record(location: RecordLocation, row: [UInt8], tape: [UInt8], offsets: [UInt32], lines: [UInt32])
  case error(code: IssueCode, location: RecordLocation, path: String, row: [UInt8]?, recoverable: Bool)
}

private func read(_ file: [UInt8], dialect: CSVDialect, limits: CSVRecordReader.Limits, chunk: Int, buffer: Int)
  -> ([Entry], [RawRecord])
{
  let reader = CSVRecordReader(
    source: MemoryByteSource(file, chunk: chunk), dialect: dialect, limits: limits, bufferSize: buffer)
  var entries: [Entry] = []
  var records: [RawRecord] = []
  while true {
    do {
      guard let record = try reader.next() else { break }
      let tape = record.tape ?? RecordTape()
      entries.append(
        .record(
          location: record.location, row: record.bytes, tape: tape.bytes, offsets: tape.sourceOffsets,
          lines: tape.sourceLines))
      records.append(record)
    } catch let error as RecordReadError {
      entries.append(
        .error(
          code: error.code, location: error.location, path: error.path, row: error.rawRecord,
          recoverable: error.isRecoverable))
      if !error.isRecoverable { break }
    } catch {
      fuzzCheck(false, "not a RecordReadError: \(error)")
    }
    fuzzCheck(entries.count <= file.count + 1, "more entries than bytes")
  }
  return (entries, records)
}

/// How a UTF-16 input is read: its byte order, and where its text starts (after the mark).
private struct UTF16Layout {
  var bigEndian: Bool
  var start: Int

  /// The layout of `file` under the declared encoding, nil when it is not read as UTF-16 (or
  /// is refused: UTF-32, or a mark of the order not declared).
  init?(_ file: [UInt8], declared: Bool) {
    if file.starts(with: [0xFF, 0xFE, 0, 0]) || file.starts(with: [0, 0, 0xFE, 0xFF]) { return nil }
    if file.starts(with: [0xFF, 0xFE]) {
      (bigEndian, start) = (false, 2)
    } else if file.starts(with: [0xFE, 0xFF]) {
      guard !declared else { return nil }
      (bigEndian, start) = (true, 2)
    } else {
      guard declared else { return nil }
      (bigEndian, start) = (false, 0)
    }
  }

  func unit(_ file: [UInt8], at index: Int) -> UInt16 {
    bigEndian ? UInt16(file[index]) << 8 | UInt16(file[index + 1]) : UInt16(file[index + 1]) << 8 | UInt16(file[index])
  }

  /// The UTF-8 of the code units from `offset` to the end, U+FFFD for each malformed one.
  func utf8(_ file: [UInt8], from offset: Int) -> [UInt8] {
    var output: [UInt8] = []
    var index = offset
    while index < file.count {
      guard index + 1 < file.count else {
        output += [0xEF, 0xBF, 0xBD]
        break
      }
      let unit = unit(file, at: index)
      var scalar = Unicode.Scalar(unit)
      index += 2
      if (0xD800..<0xDC00).contains(unit), index + 1 < file.count {
        let low = self.unit(file, at: index)
        if (0xDC00..<0xE000).contains(low) {
          scalar = Unicode.Scalar(0x10000 + (UInt32(unit) - 0xD800) << 10 + (UInt32(low) - 0xDC00))
          index += 2
        }
      }
      output += Array(String(scalar ?? "\u{FFFD}").utf8)
    }
    return output
  }

  /// The line of the code unit at `offset`: 1 + the LF and CR units before it, CRLF once.
  func line(at offset: Int, in file: [UInt8]) -> Int {
    var line = 1
    var index = start
    while index + 1 < file.count && index < offset {
      let unit = unit(file, at: index)
      let next = index + 3 < file.count ? self.unit(file, at: index + 2) : 0
      if unit == 0x0A || (unit == 0x0D && next != 0x0A) { line += 1 }
      index += 2
    }
    return line
  }
}

/// The line of the byte at `offset`: 1 + the line breaks before it, CRLF counted once.
private func line(at offset: Int, in file: [UInt8], utf16: UTF16Layout?) -> Int {
  if let utf16 { return utf16.line(at: offset, in: file) }
  var line = 1
  var index = 0
  while index < offset {
    if file[index] == 0x0A || (file[index] == 0x0D && (index + 1 >= file.count || file[index + 1] != 0x0A)) {
      line += 1
    }
    index += 1
  }
  return line
}

private func checkPlace(_ location: RecordLocation, row: [UInt8]?, in file: [UInt8], utf16: UTF16Layout?) {
  let offset = Int(location.byteOffset)
  fuzzCheck(offset >= 0 && offset <= file.count, "offset outside the input")
  fuzzCheck(location.line == line(at: offset, in: file, utf16: utf16), "line is not that of the offset")
  if let utf16, let row {
    fuzzCheck(utf16.utf8(file, from: offset).starts(with: row), "row is not the input's code units")
  } else if let row {
    fuzzCheck(offset + row.count <= file.count, "row runs past the input")
    fuzzCheck(sameBytes(Array(file[offset..<offset + row.count]), row), "row is not the input's bytes")
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSVReader(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let input = fuzzBytes(start, count)
  guard let control = input.first else { return 0 }
  let file = Array(input.dropFirst())
  var dialect = dialects[Int(control & 3)]
  if control & 16 != 0 { dialect.encoding = utf16LE }
  let utf16 = UTF16Layout(file, declared: control & 16 != 0)
  let limits = control & 4 != 0 ? smallLimits : CSVRecordReader.Limits()
  let (entries, records) = read(file, dialect: dialect, limits: limits, chunk: .max, buffer: 1 << 16)
  for reading in readings.dropFirst() {
    let (other, _) = read(file, dialect: dialect, limits: limits, chunk: reading.chunk, buffer: reading.buffer)
    fuzzCheck(other == entries, "the outcome depends on chunk \(reading.chunk), buffer \(reading.buffer)")
  }
  var ordinal = 0
  for entry in entries {
    switch entry {
    case .record(let location, let row, let tape, _, _):
      ordinal += 1
      fuzzCheck(location.ordinal == ordinal, "record ordinals are not 1, 2, 3, …")
      checkPlace(location, row: row, in: file, utf16: utf16)
      let json = JSONRecordReader(source: MemoryByteSource(tape), layout: .document)
      fuzzCheck((try? json.next()) != nil, "a record's tape is not one JSON document")
    case .error(_, let location, _, _, let recoverable):
      guard recoverable else { continue }
      ordinal += 1
      fuzzCheck(location.ordinal == ordinal, "error ordinals are not 1, 2, 3, …")
      // A row's error points at a byte of the row (a field, a stray quote) or at the row itself.
      fuzzCheck(
        location.line == line(at: Int(location.byteOffset), in: file, utf16: utf16),
        "an error's line is not its offset's")
    }
  }
  let decoder = SluiceDecoder(options: .init(reportsUnknownFields: control & 8 != 0))
  for record in records {
    var diagnostics = DecodeDiagnostics()
    // In UTF-16 a row's UTF-8 byte stands for at most 2 bytes of the input.
    let end = record.location.byteOffset + Int64(record.bytes.count) * (utf16 == nil ? 1 : 2)
    do {
      let device = try decoder.decode(DeviceDTO.self, from: record, diagnostics: &diagnostics)
      observe(device.name.utf8.count)
    } catch {
      let place = record.location(at: error.byteOffset)
      fuzzCheck(place.byteOffset >= record.location.byteOffset && place.byteOffset <= end, "issue outside its row")
      fuzzCheck(place.line >= record.location.line, "issue above its row")
    }
    for unknown in diagnostics.unknownFields {
      let place = record.location(at: unknown.byteOffset)
      fuzzCheck(
        place.byteOffset >= record.location.byteOffset && place.byteOffset <= end, "unknown field outside its row")
    }
  }
  observe(entries.count)
  return 0
}
