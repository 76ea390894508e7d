import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluiceInspect

/// The CSV reader, the encoding sniffer and the format sniffer on the hostile inputs of issue 55:
/// a UTF-8 file with a stray byte, a Latin-1 file with a few pairs that happen to be valid UTF-8,
/// an empty encoding name, a second byte order mark, a single column's empty lines, and one NDJSON
/// line nested past a record's depth.
@Suite("CSV, encodings and inspect on hostile input")
struct CSVHostileInputTests {
  /// Every row the reader reads: its tape as JSON text, or its error.
  private static func read(_ bytes: [UInt8], dialect: CSVDialect = .csv) -> [Result<String, RecordReadError>] {
    let reader = CSVRecordReader(source: MemoryByteSource(bytes), dialect: dialect)
    var rows: [Result<String, RecordReadError>] = []
    while true {
      do {
        guard let record = try reader.next() else { break }
        rows.append(.success(String(decoding: record.tape?.bytes ?? [], as: UTF8.self)))
      } catch let error as RecordReadError {
        rows.append(.failure(error))
        if !error.isRecoverable { break }
      } catch {
        Issue.record("unexpected \(error)")
        break
      }
    }
    return rows
  }

  // MARK: - Finding 6: which encoding a file is in

  @Test func aUTF8FileWithOneStrayByteIsSniffedAsUTF8() throws {
    var bytes = Array("id,name\n".utf8)
    for index in 1...199 { bytes += Array("\(index),José Müller\n".utf8) }
    bytes += Array("200,Jos".utf8) + [0xE9] + Array("\n".utf8)
    let sniff = try CSVSniffer.sniff(bytes, isComplete: true, format: nil, options: CSVDialectOptions())
    #expect(sniff.encodingName == "utf-8")
    #expect(sniff.dialect.encoding == nil)
    #expect(sniff.encodingConfidence == .guess)
    #expect(sniff.encodingReason.contains("mostly valid UTF-8: 398 multi-byte characters, 1 byte(s)"))
    #expect(sniff.encodingReason.contains("the first at line 201"))
  }

  /// The rule's two sides: 20 valid characters for each stray byte is UTF-8; 19 is not.
  @Test func twentyValidCharactersForEachStrayByteIsUTF8AndNineteenIsNot() {
    func text(valid: Int) -> [UInt8] {
      Array("id,name\n".utf8) + Array(repeating: Array("1,é\n".utf8), count: valid).flatMap { $0 }
        + Array("2,".utf8) + [0xE9] + Array("\n".utf8)
    }
    #expect(CSVSniffer.guessEncoding(text(valid: 20), isComplete: true).name == "utf-8")
    #expect(CSVSniffer.guessEncoding(text(valid: 19), isComplete: true).name == "iso-8859-1")
    #expect(CSVSniffer.guessEncoding(text(valid: 40) + [0xFC], isComplete: true).name == "utf-8")
    #expect(CSVSniffer.guessEncoding(text(valid: 39) + [0xFC], isComplete: true).name == "iso-8859-1")
  }

  /// A genuine Latin-1 export stays Latin-1, even when a few of its byte pairs happen to be
  /// valid UTF-8 (`Ã©` is C3 A9 in Latin-1, which UTF-8 reads as `é`).
  @Test func aLatin1FileWithAFewPairsThatAreValidUTF8StaysLatin1() throws {
    var text = "id,name\n"
    for index in 1...60 { text += "\(index),\(index % 20 == 0 ? "Ã©tÃ©" : "José Müller")\n" }
    let bytes = Array(try #require(text.data(using: .isoLatin1)))
    let sniff = try CSVSniffer.sniff(bytes, isComplete: true, format: nil, options: CSVDialectOptions())
    #expect(sniff.encodingName == "iso-8859-1")
    #expect(sniff.dialect.encoding?.name == "iso-8859-1")
  }

  // MARK: - Finding 9: the small gaps

  @Test(arguments: ["", " ", "\t"])
  func anEncodingWithoutANameIsRefused(name: String) {
    let problem = #expect(throws: CSVEncoding.Problem.self) { try CSVEncoding(name: name) }
    #expect(
      problem?.message == "an encoding needs a name: utf-8, utf-16, windows-1252, iso-8859-1 (iconv -l lists them)")
  }

  /// A second UTF-8 byte order mark (a file saved twice with one) would be the start of the first
  /// column's name, and that column would match no field: refused, at the header, by name.
  @Test func aSecondByteOrderMarkIsAHeaderErrorNotPartOfAName() throws {
    let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
    let rows = Self.read(mark + mark + Array("id,name\n1,a\n".utf8))
    #expect(rows.count == 1)
    guard case .failure(let error) = rows.first else {
      Issue.record("read \(rows)")
      return
    }
    #expect(error.code == .syntax)
    #expect(!error.isRecoverable)
    #expect(error.location.line == 1 && error.location.byteOffset == 3 && error.location.column == 1)
    #expect(error.path == "")
    #expect(
      error.message
        == "the header: column 1's name starts with a byte order mark (U+FEFF): the file has a second one, or its header was pasted with one; remove it"
    )
    // The same mark inside a later column's name, or in UTF-16, is refused alike.
    let later = Self.read(Array("id,".utf8) + mark + Array("name\n1,a\n".utf8))
    guard case .failure(let laterError) = later.first else {
      Issue.record("read \(later)")
      return
    }
    #expect(laterError.message.hasPrefix("the header: column 2's name starts with a byte order mark"))
    #expect(laterError.location.byteOffset == 3 && laterError.location.column == 2)
    let utf16 = "\u{FEFF}\u{FEFF}id,name\n1,a\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    guard case .failure(let utf16Error) = Self.read(utf16).first else {
      Issue.record("read UTF-16")
      return
    }
    #expect(utf16Error.message.hasPrefix("the header: column 1's name starts with a byte order mark"))
    #expect(utf16Error.location.byteOffset == 2)
  }

  /// In a file of one column an empty line is a row whose one field is empty (RFC 4180: a record
  /// is a line; PostgreSQL's CSV reads it as NULL): null under `empty: null`, "" otherwise. With
  /// two columns or more an empty line cannot be a row of the header's width, and is skipped.
  // MARK: - Finding 8: a header or a row of more columns than any table has

  /// A header of more than `CSVHeader.maxColumns` names is refused at the column past the
  /// limit, before a name, a step or a look-up entry is made for each (a million columns took
  /// 300 MiB); one at the limit is read.
  @Test func aHeaderOfMoreColumnsThanTheLimitIsRefusedAtTheColumnPastIt() throws {
    let limit = CSVHeader.maxColumns
    func header(_ count: Int) -> [UInt8] {
      Array(((0..<count).map { "c\($0)" }.joined(separator: ",") + "\n").utf8)
    }
    let over = Self.read(header(limit + 1) + Array("1\n".utf8))
    #expect(over.count == 1)
    guard case .failure(let error) = over.first else {
      Issue.record("read \(over.count) rows")
      return
    }
    #expect(error.code == .fieldCount)
    #expect(!error.isRecoverable)
    #expect(error.message == "the header: more than \(limit) fields, the most a CSV row may have")
    #expect(error.location.line == 1 && error.location.column == limit + 1)
    // The byte offset is where column 65,537's name starts.
    #expect(error.location.byteOffset == Int64(header(limit).count))
    let atLimit = Self.read(header(limit) + Array(("1" + String(repeating: ",", count: limit - 1) + "\n").utf8))
    #expect(atLimit.count == 1)
    if case .failure(let error) = atLimit.first { Issue.record("a header at the limit was refused: \(error)") }
  }

  /// A data row of more fields than the limit is given up as a `fieldCount` issue at its line,
  /// without keeping its fields, and the next row is read.
  @Test func aRowOfMoreFieldsThanTheLimitIsAFieldCountIssueAndReadingGoesOn() throws {
    let limit = CSVHeader.maxColumns
    let wide = "9" + String(repeating: ",", count: limit + 10) + "\n"
    let rows = Self.read(Array(("id,name\n1,a\n" + wide + "2,b\n").utf8))
    #expect(rows.count == 3)
    guard rows.count == 3, case .failure(let error) = rows[1] else {
      Issue.record("read \(rows.count) rows")
      return
    }
    #expect(error.code == .fieldCount && error.isRecoverable)
    #expect(error.location.line == 3 && error.location.column == limit + 1)
    #expect(error.path == "column \(limit + 1)")
    #expect(try rows[2].get() == #"{"id":"2","name":"b"}"#)
  }

  @Test func aSingleColumnFilesEmptyLineIsARecordOfOneEmptyField() {
    let text = Array("name\nA\n\nB\r\n\r\nC".utf8)
    var nulls = CSVDialect.csv
    nulls.emptyIsNull = true
    let asNull = Self.read(text, dialect: nulls).map { try? $0.get() }
    #expect(asNull == [#"{"name":"A"}"#, #"{"name":null}"#, #"{"name":"B"}"#, #"{"name":null}"#, #"{"name":"C"}"#])
    let asText = Self.read(text).map { try? $0.get() }
    #expect(asText == [#"{"name":"A"}"#, #"{"name":""}"#, #"{"name":"B"}"#, #"{"name":""}"#, #"{"name":"C"}"#])
    // Empty lines before the header are not rows; with two columns, blank lines are skipped.
    #expect(Self.read(Array("\n\nname\nA\n".utf8)).map { try? $0.get() } == [#"{"name":"A"}"#])
    #expect(
      Self.read(Array("a,b\n1,2\n\n3,4\n".utf8)).map { try? $0.get() } == [
        #"{"a":"1","b":"2"}"#, #"{"a":"3","b":"4"}"#,
      ])
  }

  /// One NDJSON line nested past a record's depth, alone in its file: it is a line, which the
  /// record pass reports (`nestingTooDeep`, line 1), not a document "without an array of
  /// objects" — as `--format ndjson` already said.
  @Test func aSingleNDJSONLineNestedPastARecordsDepthIsInspectedAsNDJSON() throws {
    let scratch = try TemporaryDirectory()
    let deep = String(repeating: #"{"a":"#, count: 300) + "1" + String(repeating: "}", count: 300) + "\n"
    let file = try scratch.write("deep.ndjson", deep)
    let inspection = try Inspector.inspect(path: file)
    #expect(inspection.format == .ndjson)
    #expect(inspection.records == 0)
    #expect(inspection.skippedRecords == 1)
    let skipped = try #require(inspection.firstSkippedRecord)
    #expect(skipped.code == .nestingTooDeep)
    #expect(skipped.location.line == 1)
    // A document spread over lines is still one JSON document.
    let spread = try scratch.write("deep.json", deep.replacingOccurrences(of: ":", with: ":\n"))
    let refused = #expect(throws: InspectionError.self) { try Inspector.inspect(path: spread) }
    #expect(refused?.code == .noRecordPath)
  }
}
