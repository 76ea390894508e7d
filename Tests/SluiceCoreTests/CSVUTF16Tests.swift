import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

// UTF-16 CSV, by its byte order mark or declared: rows read as from UTF-8, offsets in the file's
// own bytes, malformed UTF-16 an issue at its field; the same whatever the chunk sizes.

private enum Entry: Equatable {
  case record(json: String, row: String, location: RecordLocation)
  case issue(code: IssueCode, path: String, location: RecordLocation, row: String?, recoverable: Bool)
}

private func readOnce(_ bytes: [UInt8], dialect: CSVDialect, chunk: Int, bufferSize: Int) -> [Entry] {
  let reader = CSVRecordReader(
    source: MemoryByteSource(bytes, chunk: chunk), dialect: dialect, bufferSize: bufferSize)
  var entries: [Entry] = []
  while true {
    do {
      guard let record = try reader.next() else { break }
      entries.append(
        .record(
          json: String(decoding: record.tape?.bytes ?? [], as: UTF8.self),
          row: String(decoding: record.bytes, as: UTF8.self), location: record.location))
    } catch let error as RecordReadError {
      entries.append(
        .issue(
          code: error.code, path: error.path, location: error.location,
          row: error.rawRecord.map { String(decoding: $0, as: UTF8.self) }, recoverable: error.isRecoverable))
      if !error.isRecoverable { break }
    } catch {
      Issue.record("unexpected \(error)")
      break
    }
  }
  return entries
}

/// The reading of `bytes`, checked to be the same through every chunk and buffer size (a buffer
/// of 4 bytes holds one character of any length).
private func read(_ bytes: [UInt8], dialect: CSVDialect = .csv) -> [Entry] {
  let whole = readOnce(bytes, dialect: dialect, chunk: .max, bufferSize: 1 << 16)
  for (chunk, buffer) in [(1, 4), (2, 5), (3, 4), (5, 7), (7, 6), (4096, 4096)] {
    let pieces = readOnce(bytes, dialect: dialect, chunk: chunk, bufferSize: buffer)
    #expect(pieces == whole, "chunk \(chunk), buffer \(buffer)")
  }
  return whole
}

private func utf16LE(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
private func utf16BE(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }

private func at(_ ordinal: Int, _ byteOffset: Int, line: Int, column: Int? = nil) -> RecordLocation {
  RecordLocation(ordinal: ordinal, byteOffset: Int64(byteOffset), line: line, column: column)
}

private func dialect(_ encoding: String, delimiter: Character = ",") throws -> CSVDialect {
  CSVDialect(delimiter: UInt8(ascii: delimiter.unicodeScalars.first ?? ","), encoding: try CSVEncoding(name: encoding))
}

@Suite("CSV record reader: UTF-16 by its byte order mark or declared")
struct CSVUTF16Tests {
  /// CRLF rows, a non-BMP character (a surrogate pair), a quoted field over two lines, and a
  /// stray quote whose offset must be the file's.
  static let text =
    "id,name,note\r\n1,\u{1F600} smile,\"two\r\nlines\"\r\n2,Ünïcödé,x\"y\r\n3,€,\"a,b\"\r\n"

  @Test func aLittleEndianFileWithItsMarkReadsAsUTF8WithTheFilesOffsetsAndLines() {
    let bytes = [0xFF, 0xFE] + utf16LE(Self.text)
    // Offsets in the file: 2 bytes of mark, then 2 bytes per code unit (4 for the emoji).
    func offset(_ prefix: String) -> Int { 2 + prefix.utf16.count * 2 }
    let row1 = "id,name,note\r\n"
    let row2 = row1 + "1,\u{1F600} smile,\"two\r\nlines\"\r\n"
    let row3 = row2 + "2,Ünïcödé,x\"y\r\n"
    #expect(
      read(bytes) == [
        .record(
          json: #"{"id":"1","name":"😀 smile","note":"two\r\nlines"}"#, row: "1,😀 smile,\"two\r\nlines\"",
          location: at(1, offset(row1), line: 2)),
        .issue(
          code: .syntax, path: "note", location: at(2, offset(row2 + "2,Ünïcödé,x"), line: 4, column: 3),
          row: "2,Ünïcödé,x\"y", recoverable: true),
        .record(
          json: #"{"id":"3","name":"€","note":"a,b"}"#, row: "3,€,\"a,b\"", location: at(3, offset(row3), line: 5)),
      ])
  }

  @Test func aBigEndianFileOrADeclaredByteOrderReadsTheSame() throws {
    let little = read([0xFF, 0xFE] + utf16LE(Self.text))
    let big = read([0xFE, 0xFF] + utf16BE(Self.text))
    #expect(big == little)
    // Declared, without a mark: every offset 2 bytes earlier.
    func shifted(_ entries: [Entry]) -> [Entry] {
      entries.map {
        switch $0 {
        case .record(let json, let row, var location):
          location.byteOffset -= 2
          return .record(json: json, row: row, location: location)
        case .issue(let code, let path, var location, let row, let recoverable):
          location.byteOffset -= 2
          return .issue(code: code, path: path, location: location, row: row, recoverable: recoverable)
        }
      }
    }
    #expect(read(utf16LE(Self.text), dialect: try dialect("UTF-16LE")) == shifted(little))
    #expect(read(utf16BE(Self.text), dialect: try dialect("utf-16be")) == shifted(little))
    // `utf-16`: the mark says which; big-endian without one (RFC 2781).
    #expect(read(utf16BE(Self.text), dialect: try dialect("utf-16")) == shifted(little))
    #expect(read([0xFF, 0xFE] + utf16LE(Self.text), dialect: try dialect("utf-16")) == little)
    // A declared order skips its own mark.
    #expect(read([0xFF, 0xFE] + utf16LE(Self.text), dialect: try dialect("utf-16le")) == little)
  }

  @Test func aTabSeparatedUTF16FileReadsWithItsDialect() throws {
    let bytes = [0xFF, 0xFE] + utf16LE("a\tb\r\nx y\tz\r\n")
    #expect(
      read(bytes, dialect: .tsv) == [
        .record(json: #"{"a":"x y","b":"z"}"#, row: "x y\tz", location: at(1, 12, line: 2))
      ])
  }

  @Test func aMarkOnlyFileAndAHeaderOnlyFileHoldNoRows() {
    #expect(read([0xFF, 0xFE]).isEmpty)
    #expect(read([0xFE, 0xFF]).isEmpty)
    #expect(read([0xFF, 0xFE] + utf16LE("a,b\r\n")).isEmpty)
  }

  @Test func anOddLengthFileEndsInAnIssueAtItsLastField() {
    // The last code unit lost its second byte: the field holding it is an issue, at its place.
    let bytes = [0xFF, 0xFE] + utf16LE("a,b\n1,ok\n2,x") + [0x79]
    #expect(
      read(bytes) == [
        .record(json: #"{"a":"1","b":"ok"}"#, row: "1,ok", location: at(1, 10, line: 2)),
        .issue(
          code: .syntax, path: "b", location: at(2, 24, line: 3, column: 2), row: "2,x\u{FFFD}", recoverable: true),
      ])
  }

  @Test func anUnpairedSurrogateIsAnIssueAtItsFieldAndTheNextRowIsRead() {
    // A high surrogate followed by a comma, then a low surrogate alone.
    let bytes =
      [0xFF, 0xFE] + utf16LE("a,b\n1,") + [0x3D, 0xD8] + utf16LE(",\n") + utf16LE("2,") + [0x00, 0xDE]
      + utf16LE("\n3,\u{1F600}\n")
    let entries = read(bytes)
    #expect(
      entries == [
        .issue(code: .fieldCount, path: "", location: at(1, 10, line: 2), row: "1,\u{FFFD},", recoverable: true),
        .issue(code: .syntax, path: "b", location: at(2, 24, line: 3, column: 2), row: "2,\u{FFFD}", recoverable: true),
        .record(json: #"{"a":"3","b":"😀"}"#, row: "3,😀", location: at(3, 28, line: 4)),
      ])
    // The message names the character, never the value.
    do {
      _ = try CSVRecordReader(source: MemoryByteSource([0xFF, 0xFE] + utf16LE("a\nok") + [0x00, 0xDC])).next()
    } catch let error as RecordReadError {
      #expect(error.message.contains("character 3 of the field") && !error.message.contains("ok"))
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  @Test func utf32AMismatchedMarkAndUTF16WithoutAMarkAreRefusedWithAHint() throws {
    func refusal(_ bytes: [UInt8], _ dialect: CSVDialect = .csv) -> String? {
      guard case .issue(_, _, _, _, false)? = read(bytes, dialect: dialect).first else { return nil }
      do {
        _ = try CSVRecordReader(source: MemoryByteSource(bytes), dialect: dialect).next()
      } catch let error as RecordReadError {
        return error.message
      } catch {}
      return nil
    }
    #expect(refusal([0xFF, 0xFE, 0, 0, 0x61, 0, 0, 0])?.contains("UTF-32") == true)
    #expect(refusal([0, 0, 0xFE, 0xFF, 0, 0, 0, 0x61])?.contains("UTF-32") == true)
    #expect(refusal(utf16LE("a,b\n1,2\n"))?.contains("utf-16le") == true)
    #expect(refusal([0xFE, 0xFF] + utf16BE("a\n"), try dialect("utf-16le"))?.contains("big-endian") == true)
    #expect(refusal([0xFF, 0xFE] + utf16LE("a\n"), try dialect("utf-16be"))?.contains("little-endian") == true)
    #expect(refusal([0xFF, 0xFE] + utf16LE("a\n"), try dialect("windows-1252"))?.contains("windows-1252") == true)
    #expect(
      refusal([0xEF, 0xBB, 0xBF] + Array("a\n".utf8), try dialect("utf-16"))?.contains("UTF-8 byte order") == true)
  }

  @Test func theEncodingNamesUTF16AreAcceptedAndUTF32IsNot() throws {
    for name in ["UTF-16", "utf16", "utf-16le", "UTF_16BE"] {
      #expect(try CSVEncoding(name: name).utf16 != nil, "\(name)")
    }
    #expect(throws: CSVEncoding.Problem.self) { try CSVEncoding(name: "UTF-32") }
  }

  @Test func rowsDecodeIntoADTOAndAnIssueNamesItsLineAndFileOffset() throws {
    struct Row: Decodable, Equatable {
      var id: Int
      var name: String
    }
    let bytes = [0xFF, 0xFE] + utf16LE("id,name\r\n1,Zoë\r\n2x,Ann\r\n")
    let reader = CSVRecordReader(source: MemoryByteSource(bytes))
    var diagnostics = DecodeDiagnostics()
    let first = try #require(try reader.next())
    #expect(try SluiceDecoder().decode(Row.self, from: first, diagnostics: &diagnostics) == Row(id: 1, name: "Zoë"))
    let second = try #require(try reader.next())
    do {
      _ = try SluiceDecoder().decode(Row.self, from: second, diagnostics: &diagnostics)
      Issue.record("2x decoded as an Int")
    } catch {
      #expect(error.code == .typeMismatch && error.path == "id")
      // The mark, "id,name\r\n" and "1,Zoë\r\n": 16 code units.
      #expect(second.location(at: error.byteOffset) == at(2, 2 + 16 * 2, line: 3))
    }
  }
}
