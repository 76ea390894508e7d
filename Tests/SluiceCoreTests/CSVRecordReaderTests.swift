import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

// The CSV reader case by case (RFC 4180, the dialect, the bounds, the issues), then rows through
// the decoder: text parsed into a DTO's types, nested names, and each issue at its field's byte
// offset and line. Every reading is checked to be the same whatever the chunk sizes.

// MARK: - Helpers

/// What a reader made of an input: each record's tape text, raw row and location, or each
/// error's code, path, location and raw row; the same whatever the chunk sizes.
private struct Outcome: Equatable, CustomStringConvertible {
  enum Entry: Equatable {
    case record(json: String, row: String, location: RecordLocation)
    case issue(code: IssueCode, path: String, location: RecordLocation, row: String?, recoverable: Bool)
  }
  var entries: [Entry] = []

  var description: String { entries.map { "\($0)" }.joined(separator: "\n") }
  var records: [String] {
    entries.compactMap { if case .record(let json, _, _) = $0 { json } else { nil } }
  }
}

private func read(
  _ bytes: [UInt8], dialect: CSVDialect = .csv, limits: CSVRecordReader.Limits = .init(), chunk: Int = .max,
  bufferSize: Int = 1 << 16
) -> Outcome {
  let reader = CSVRecordReader(
    source: MemoryByteSource(bytes, chunk: chunk), dialect: dialect, limits: limits, bufferSize: bufferSize)
  var outcome = Outcome()
  while true {
    do {
      guard let record = try reader.next() else { break }
      outcome.entries.append(
        .record(
          json: String(decoding: record.tape?.bytes ?? [], as: UTF8.self),
          row: String(decoding: record.bytes, as: UTF8.self), location: record.location))
    } catch let error as RecordReadError {
      outcome.entries.append(
        .issue(
          code: error.code, path: error.path, location: error.location,
          row: error.rawRecord.map { String(decoding: $0, as: UTF8.self) }, recoverable: error.isRecoverable))
      if !error.isRecoverable { break }
    } catch {
      Issue.record("unexpected \(error)")
      break
    }
  }
  return outcome
}

private func read(_ text: String, dialect: CSVDialect = .csv, limits: CSVRecordReader.Limits = .init()) -> Outcome {
  let bytes = Array(text.utf8)
  let whole = read(bytes, dialect: dialect, limits: limits)
  // The same reading through every buffer boundary.
  for (chunk, buffer) in [(1, 4), (7, 7), (4096, 4096), (3, 1 << 16)] {
    let pieces = read(bytes, dialect: dialect, limits: limits, chunk: chunk, bufferSize: buffer)
    #expect(pieces == whole, "chunk \(chunk), buffer \(buffer):\n\(pieces)\n≠\n\(whole)")
  }
  return whole
}

private func at(_ ordinal: Int, _ byteOffset: Int64, line: Int, column: Int? = nil) -> RecordLocation {
  RecordLocation(ordinal: ordinal, byteOffset: byteOffset, line: line, column: column)
}

private struct Device: Decodable, Equatable {
  var id: Int
  var name: String
  var latitude: Decimal
  var active: Bool
}

private struct Customer: Decodable, Equatable {
  var id: String
  var name: String?
}

private struct Order: Decodable, Equatable {
  var id: Int
  var customer: Customer
  var note: String?
}

private func decode<T: Decodable>(_ type: T.Type, _ text: String, dialect: CSVDialect = .csv) throws -> [T] {
  let reader = CSVRecordReader(source: MemoryByteSource(text), dialect: dialect)
  let decoder = SluiceDecoder()
  var values: [T] = []
  while let record = try reader.next() {
    var diagnostics = DecodeDiagnostics()
    values.append(try decoder.decode(type, from: record, diagnostics: &diagnostics))
  }
  return values
}

// MARK: - Tests

@Suite("CSV record reader: RFC 4180, dialects, bounds and issues in their place")
struct CSVRecordReaderTests {
  @Test func rowsBecomeFlatRecordsKeyedByTheHeaderWithTheirRawRowAndLocation() {
    let outcome = read("id,name\n1,Ann\n2,Bob\n")
    #expect(
      outcome.entries == [
        .record(json: #"{"id":"1","name":"Ann"}"#, row: "1,Ann", location: at(1, 8, line: 2)),
        .record(json: #"{"id":"2","name":"Bob"}"#, row: "2,Bob", location: at(2, 14, line: 3)),
      ])
  }

  @Test func quotedFieldsHoldDelimitersDoubledQuotesAndLineBreaksWhoseLinesCount() {
    let outcome = read("a,b,c\n\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\"\n3,4,5\n")
    #expect(
      outcome.entries == [
        .record(
          json: #"{"a":"x,y","b":"say \"hi\"","c":"two\nlines"}"#, row: "\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\"",
          location: at(1, 6, line: 2)),
        .record(json: #"{"a":"3","b":"4","c":"5"}"#, row: "3,4,5", location: at(2, 37, line: 4)),
      ])
  }

  @Test func lineEndsLFCRLFAndCRReadAlikeAndCountOneLineEach() {
    let lf = read("a,b\n1,2\n3,4\n")
    let crlf = read("a,b\r\n1,2\r\n3,4\r\n")
    let cr = read("a,b\r1,2\r3,4\r")
    #expect(lf.records == [#"{"a":"1","b":"2"}"#, #"{"a":"3","b":"4"}"#])
    #expect(crlf.records == lf.records)
    #expect(cr.records == lf.records)
    #expect(crlf.entries.last == .record(json: #"{"a":"3","b":"4"}"#, row: "3,4", location: at(2, 10, line: 3)))
    #expect(cr.entries.last == .record(json: #"{"a":"3","b":"4"}"#, row: "3,4", location: at(2, 8, line: 3)))
    // A CRLF inside a quoted field is kept, and is one line.
    let quoted = read("a,b\r\n\"1\r\n2\",x\r\n3,4")
    #expect(quoted.entries.last == .record(json: #"{"a":"3","b":"4"}"#, row: "3,4", location: at(2, 15, line: 4)))
    #expect(quoted.records.first == #"{"a":"1\r\n2","b":"x"}"#)
  }

  @Test func aByteOrderMarkIsSkippedAndOffsetsStayTheStreams() {
    let outcome = read("\u{FEFF}id\n7\n")
    #expect(outcome.entries == [.record(json: #"{"id":"7"}"#, row: "7", location: at(1, 6, line: 2))])
  }

  @Test func blankLinesAreNoRowsAndTheLastRowNeedsNoLineBreak() {
    // Of two columns or more: in a file of one column a blank line is its empty field.
    let outcome = read("a,b\n\n1,x\n\r\n\n2,y")
    #expect(outcome.records == [#"{"a":"1","b":"x"}"#, #"{"a":"2","b":"y"}"#])
    #expect(read("").entries.isEmpty)
    #expect(read("a,b\n").entries.isEmpty)
  }

  @Test func emptyFieldsAreTextOrNullAsTheDialectSaysAndQuotedEmptyStaysText() {
    let text = "a,b,c\n,\"\",x\n"
    #expect(read(text).records == [#"{"a":"","b":"","c":"x"}"#])
    #expect(read(text, dialect: CSVDialect(emptyIsNull: true)).records == [#"{"a":null,"b":"","c":"x"}"#])
  }

  @Test func tsvSemicolonsAndGivenColumnsAreDialects() {
    #expect(read("a\tb\n1\t2,3\n", dialect: .tsv).records == [#"{"a":"1","b":"2,3"}"#])
    #expect(
      read("a;b\n1;\"2;3\"\n", dialect: CSVDialect(delimiter: UInt8(ascii: ";"))).records == [#"{"a":"1","b":"2;3"}"#])
    #expect(
      read("1,2\n", dialect: CSVDialect(hasHeader: false, columns: ["x", "y"])).records == [#"{"x":"1","y":"2"}"#])
    // A header row replaced by the given columns.
    #expect(read("a,b\n1,2\n", dialect: CSVDialect(columns: ["x", "y"])).records == [#"{"x":"1","y":"2"}"#])
    #expect(read("a,b\n'1,2',3\n", dialect: CSVDialect(quote: UInt8(ascii: "'"))).records == [#"{"a":"1,2","b":"3"}"#])
  }

  @Test func headerNamesWithDotsFillNestedObjectsAndAnyCharacterIsEscaped() {
    #expect(
      read("customer.id,id,customer.name,\"q\"\"\\\"\n7,1,Ann,x\n").records == [
        #"{"customer":{"id":"7","name":"Ann"},"id":"1","q\"\\":"x"}"#
      ])
  }

  @Test func aRowWithTooManyOrTooFewFieldsIsARecoverableIssueWithItsRow() {
    let outcome = read("a,b\n1,2,3\n4\n5,6\n")
    #expect(
      outcome.entries == [
        .issue(code: .fieldCount, path: "", location: at(1, 4, line: 2), row: "1,2,3", recoverable: true),
        .issue(code: .fieldCount, path: "", location: at(2, 10, line: 3), row: "4", recoverable: true),
        .record(json: #"{"a":"5","b":"6"}"#, row: "5,6", location: at(3, 12, line: 4)),
      ])
  }

  @Test func aStrayQuoteIsAnIssueAtItsByteAndTheRowIsKeptWhole() {
    let outcome = read("a,b\n1,x\"y\n\"q\"z,2\n3,4\n")
    #expect(
      outcome.entries == [
        .issue(code: .syntax, path: "b", location: at(1, 7, line: 2, column: 2), row: "1,x\"y", recoverable: true),
        .issue(code: .syntax, path: "a", location: at(2, 12, line: 3, column: 1), row: "\"q\"z,2", recoverable: true),
        .record(json: #"{"a":"3","b":"4"}"#, row: "3,4", location: at(3, 17, line: 4)),
      ])
  }

  @Test func aQuotedFieldThatNeverEndsIsAnIssueAtItsOpeningQuote() {
    let outcome = read("a,b\n1,\"open\n2,3\n")
    #expect(
      outcome.entries == [
        .issue(code: .syntax, path: "", location: at(1, 6, line: 2), row: "1,\"open\n2,3\n", recoverable: true)
      ])
  }

  @Test func invalidUTF8IsAnIssueAtItsFieldNeverOtherText() {
    let bytes = Array("a,b\n1,".utf8) + [0xE9] + Array("t\u{E9}\n2,ok\n".utf8)
    let outcome = read(bytes)
    guard case .issue(let code, let path, let location, _, true) = outcome.entries.first else {
      Issue.record("\(outcome)")
      return
    }
    #expect(code == .syntax && path == "b" && location == at(1, 6, line: 2, column: 2))
    #expect(outcome.records == [#"{"a":"2","b":"ok"}"#])
  }

  /// (A blank or repeated name is read as a name of its own: `CSVLegacyReaderTests`.)
  @Test func aHeaderThatNamesAFieldAsBothValueAndObjectOrIsBrokenIsRefused() {
    for header in ["a,a.b\n1,2\n", "a.b,a\n1,2\n", "a..b\n1\n", "a,\"b\n1,2\n", "a\"b\n1\n"] {
      guard case .issue(.syntax, _, _, _, false) = read(header).entries.first else {
        Issue.record("\(header): \(read(header))")
        continue
      }
    }
    #expect(
      read("x\n", dialect: CSVDialect(hasHeader: false)).entries.first.map {
        if case .issue = $0 { true } else { false }
      } == true)
    // UTF-32 is refused before any row (UTF-16 is read: CSVUTF16Tests).
    let utf32: [UInt8] = [0xFF, 0xFE, 0, 0, 0x61, 0, 0, 0]
    #expect(read(utf32).entries.count == 1)
  }

  @Test func aFieldOrRowPastItsBoundIsReportedAndTheNextRowIsRead() {
    let limits = CSVRecordReader.Limits(maxRecordBytes: 64, maxFieldBytes: 16)
    let long = String(repeating: "x", count: 17)
    let outcome = read("a,b\n1,\(long)\n\(String(repeating: "1", count: 70)),2\n3,4\n", limits: limits)
    #expect(
      outcome.entries == [
        .issue(code: .valueTooLarge, path: "b", location: at(1, 6, line: 2, column: 2), row: nil, recoverable: true),
        .issue(code: .recordTooLarge, path: "", location: at(2, 24, line: 3), row: nil, recoverable: true),
        .record(json: #"{"a":"3","b":"4"}"#, row: "3,4", location: at(3, 97, line: 4)),
      ])
  }

  @Test func textDecodesIntoTheDTOsTypesUnderTheStrictRules() throws {
    let devices = try decode(Device.self, "id,name,latitude,active\n1,Pump,52.52,true\n2,\"Valve, east\",-0.5,0\n")
    #expect(
      devices == [
        Device(id: 1, name: "Pump", latitude: Decimal(string: "52.52")!, active: true),
        Device(id: 2, name: "Valve, east", latitude: Decimal(string: "-0.5")!, active: false),
      ])
    let orders = try decode(
      Order.self, "id,customer.id,customer.name,note\n1,007,,\n", dialect: CSVDialect(emptyIsNull: true))
    #expect(orders == [Order(id: 1, customer: Customer(id: "007", name: nil), note: nil)])
  }

  @Test func aValueThatDoesNotDecodeIsAnIssueAtItsFieldsLineAndOffsetNamingItsHeader() throws {
    let text = "id,name,latitude,active\n1,\"Pump\non two lines\",north,true\n"
    let reader = CSVRecordReader(source: MemoryByteSource(text))
    let record = try #require(try reader.next())
    var diagnostics = DecodeDiagnostics()
    do {
      _ = try SluiceDecoder().decode(Device.self, from: record, diagnostics: &diagnostics)
      Issue.record("decoded")
    } catch {
      #expect(error.code == .typeMismatch)
      #expect(error.path == "latitude")
      let location = record.location(at: error.byteOffset)
      #expect(location == at(1, 46, line: 3))
      // With the field's path, the location says its column too: latitude is the third.
      #expect(record.location(at: error.byteOffset, path: error.path) == at(1, 46, line: 3, column: 3))
    }
  }

  @Test func anIssueIsAtItsFieldsLineEvenWhereNestedColumnsAreRegrouped() throws {
    // The tape holds `b`'s fields together, so its source offsets do not grow in node order.
    struct Row: Decodable {
      var a: Int
      var b: Customer
      var c: Int
    }
    let text = "a,b.id,c,b.name\n1,x,\"bad\nvalue\",y\n"
    let reader = CSVRecordReader(source: MemoryByteSource(text))
    let record = try #require(try reader.next())
    var diagnostics = DecodeDiagnostics()
    do {
      _ = try SluiceDecoder().decode(Row.self, from: record, diagnostics: &diagnostics)
      Issue.record("decoded")
    } catch {
      #expect(error.path == "c")
      #expect(record.location(at: error.byteOffset) == at(1, 20, line: 2))
    }
  }
}

extension CSVRecordReaderTests {
  @Test func aColumnTheDTODoesNotKnowIsAnUnknownFieldAtItsField() throws {
    let text = "id,name,latitude,site.code,active\n1,Pump,52.5,7,true\n"
    let reader = CSVRecordReader(source: MemoryByteSource(text))
    let record = try #require(try reader.next())
    var diagnostics = DecodeDiagnostics()
    _ = try SluiceDecoder().decode(Device.self, from: record, diagnostics: &diagnostics)
    #expect(diagnostics.unknownFields.map(\.path) == ["site"])
    #expect(record.locations(at: diagnostics.unknownFields.map(\.byteOffset)) == [at(1, 46, line: 2)])
  }
}

extension CSVRecordReaderTests {
  @Test func aDeclaredSingleByteEncodingIsConvertedAndAnUndefinedByteIsAnIssueAtItsField() throws {
    let dialect = CSVDialect(delimiter: UInt8(ascii: ";"), encoding: try CSVEncoding(name: "WINDOWS-1252"))
    // "Café;€5", then a price whose byte 0x81 Windows-1252 leaves undefined.
    let bytes =
      Array("name;price\r\n".utf8) + [0x43, 0x61, 0x66, 0xE9, 0x3B, 0x80, 0x35] + Array("\r\nx;".utf8) + [0x81]
      + Array("\r\n\"a\r\nb\";1\r\n".utf8)
    let outcome = read(bytes, dialect: dialect)
    #expect(read(bytes, dialect: dialect, chunk: 1, bufferSize: 4) == outcome)
    #expect(
      outcome.entries == [
        .record(json: #"{"name":"Café","price":"€5"}"#, row: "Café;€5", location: at(1, 12, line: 2)),
        .issue(
          code: .syntax, path: "price", location: at(2, 23, line: 3, column: 2), row: "x;\u{FFFD}", recoverable: true),
        .record(json: #"{"name":"a\r\nb","price":"1"}"#, row: "\"a\r\nb\";1", location: at(3, 26, line: 4)),
      ])
  }

  @Test func anEncodingIconvDoesNotKnowOrThatKeepsNoASCIIIsRefused() {
    for name in ["no-such-encoding", "UTF-32", "ISO-2022-JP", "EBCDIC-US"] {
      #expect(throws: CSVEncoding.Problem.self, "\(name)") { try CSVEncoding(name: name) }
    }
    #expect((try? CSVEncoding(name: "ISO-8859-15")) != nil)
    #expect((try? CSVEncoding(name: "koi8-r")) != nil)
    #expect((try? CSVEncoding(name: "SHIFT_JIS"))?.isMultiByte == true)
  }
}

/// The quadratic cases, tens of megabytes through the reader: seconds, not milliseconds.
@Suite("CSV record reader: huge fields and rows", .tags(.slow))
struct CSVHugeInputTests {
  @Test func tenMegabytesOfQuotesAndAMillionColumnsAreLinearAndBounded() throws {
    // A field of 10 MB of doubled quotes: past the field bound, skipped; the next row is read.
    var quotes = Array("a\n\"".utf8)
    quotes += [UInt8](repeating: UInt8(ascii: "\""), count: 10_000_000)
    quotes += Array("\"\nok\n".utf8)
    let limits = CSVRecordReader.Limits(maxRecordBytes: 8 << 20, maxFieldBytes: 1 << 20)
    let start = ContinuousClock.now
    let outcome = read(quotes, limits: limits)
    #expect(outcome.entries.count == 2)
    #expect(outcome.records == [#"{"a":"ok"}"#])
    // A million empty columns under a header of two: a row of the wrong width.
    let wide = Array("a,b\n".utf8) + [UInt8](repeating: UInt8(ascii: ","), count: 1_000_000) + Array("\n1,2\n".utf8)
    let wideOutcome = read(wide)
    #expect(wideOutcome.entries.count == 2)
    if case .issue(let code, _, _, _, _) = wideOutcome.entries.first { #expect(code == .fieldCount) }
    // A header of the most columns a CSV may have and a row: read, keyed by their names.
    let columns = CSVHeader.maxColumns
    let names = (0..<columns).map { "c\($0)" }.joined(separator: ",")
    let values = [String](repeating: "1", count: columns).joined(separator: ",")
    let reader = CSVRecordReader(source: MemoryByteSource("\(names)\n\(values)\n"))
    let record = try #require(try reader.next())
    #expect(record.tape?.nodes.count == 2 * columns + 1)
    // A million: refused at the header, without a name or a field kept for each.
    let million = (0..<1_000_000).map { "c\($0)" }.joined(separator: ",")
    #expect(throws: RecordReadError.self) {
      try CSVRecordReader(source: MemoryByteSource("\(million)\n\(values)\n")).next()
    }
    #expect(ContinuousClock.now - start < .seconds(60))
  }
}
