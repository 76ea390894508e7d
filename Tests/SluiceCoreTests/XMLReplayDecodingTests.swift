import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

// A rejected XML record is quarantined as JSON text and replayed with XML's rules. Fixed by hand
// or with `jq`, that text can hold what the XML reader never makes: real JSON arrays. They
// decode as their JSON says — elements indexed as in JSON, no spurious unknown fields — or fail
// as a record issue with a path, never a trap (issue 21, finding 1: one element trapped in the
// key sweep, two raised four spurious `unknownField`s).

// MARK: - DTOs

private struct Item: Decodable, Equatable {
  var sku: String
  var qty: Int
  var priceMinor: Int64
}

private struct Order: Decodable, Equatable {
  var orderId: String
  var currency: String
  var items: [Item]
}

private struct Grid: Decodable, Equatable {
  var rows: [[Int]]
}

private struct Tags: Decodable, Equatable {
  var tags: [String]
}

private struct Optionals: Decodable, Equatable {
  var items: [Item]?
}

// MARK: - Helpers

private let head = #"{"orderId":"2","currency":"EUR","#

/// The record of a rejects line `{"format":"xml","record":…}`, read back by `QuarantineReader`
/// as `sluice replay` reads it.
private func replayed(_ record: String, format: String? = "xml") throws -> RawRecord {
  var entry: [String: String] = ["record": record]
  if let format { entry["format"] = format }
  let line = try JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys]) + Data("\n".utf8)
  let reader = QuarantineReader(source: MemoryByteSource(Array(line)))
  return try #require(try reader.next())
}

private func decode<T: Decodable>(
  _ type: T.Type, _ record: String, format: String? = "xml"
) throws -> (value: T, unknown: [String]) {
  let raw = try replayed(record, format: format)
  var diagnostics = DecodeDiagnostics()
  let value = try SluiceDecoder().decode(type, from: raw, diagnostics: &diagnostics)
  return (value, diagnostics.unknownFields.map(\.path))
}

/// Decodes `record` expecting a failure: its code, its path, and its byte offset — that of
/// `needle`'s first byte in the record's JSON text.
private func expectFailure<T: Decodable>(
  _ type: T.Type, _ record: String, code: IssueCode, path: String, at needle: String,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let raw = try replayed(record)
  var diagnostics = DecodeDiagnostics()
  do {
    _ = try SluiceDecoder().decode(type, from: raw, diagnostics: &diagnostics)
    Issue.record("decoded \(record); expected \(code) at \(path)", sourceLocation: sourceLocation)
  } catch {
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.path == path, "\(error)", sourceLocation: sourceLocation)
    let offset = try #require(record.utf8.firstRange(of: needle.utf8), sourceLocation: sourceLocation)
    #expect(
      error.byteOffset == record.utf8.distance(from: record.utf8.startIndex, to: offset.lowerBound), "\(error)",
      sourceLocation: sourceLocation)
  }
}

// MARK: - Tests

@Suite("Replayed XML records holding JSON arrays")
struct XMLReplayDecodingTests {
  fileprivate static let one = Item(sku: "S1", qty: 2, priceMinor: 1)
  fileprivate static let two = Item(sku: "S2", qty: 3, priceMinor: 4)

  @Test func aOneElementArrayDecodesAsItsOneItemWithoutUnknownFields() throws {
    let (order, unknown) = try decode(
      Order.self, head + #""items":[{"sku":"S1","qty":"2","priceMinor":"1"}]}"#)
    #expect(order.items == [Self.one])
    #expect(unknown.isEmpty)
  }

  @Test func aTwoElementArrayDecodesBothItemsWithoutUnknownFields() throws {
    let (order, unknown) = try decode(
      Order.self,
      head + #""items":[{"sku":"S1","qty":"2","priceMinor":"1"},{"sku":"S2","qty":"3","priceMinor":"4"}]}"#)
    #expect(order.items == [Self.one, Self.two])
    #expect(unknown.isEmpty)
  }

  @Test func anEmptyArrayIsNoItems() throws {
    let (order, unknown) = try decode(Order.self, head + #""items":[]}"#)
    #expect(order.items.isEmpty)
    #expect(unknown.isEmpty)
  }

  @Test func anArrayOfScalarsDecodesWithXMLsTextRules() throws {
    let (tags, unknown) = try decode(Tags.self, #"{"tags":["a","b","c"]}"#)
    #expect(tags.tags == ["a", "b", "c"])
    #expect(unknown.isEmpty)
    // Scalars are text in XML: numbers in strings read as numbers, as an element's text would.
    let (grid, quiet) = try decode(Grid.self, #"{"rows":[["1","2"],[],["3"]]}"#)
    #expect(grid.rows == [[1, 2], [], [3]])
    #expect(quiet.isEmpty)
  }

  @Test func unknownFieldsInsideAnArraysElementsAreIndexedAsInJSON() throws {
    let (order, unknown) = try decode(
      Order.self,
      head
        + #""items":[{"sku":"S1","qty":"2","priceMinor":"1"},"#
        + #"{"sku":"S2","qty":"3","priceMinor":"4","note":"x","note":"y"}],"#
        + #""extra":{"a":"1"}}"#)
    #expect(order.items == [Self.one, Self.two])
    // XML's rule: an unknown name once per object, even when it repeats.
    #expect(unknown == ["extra", "items[1].note"])
  }

  @Test func aNestedArrayWhereItemsAreExpectedIsATypeMismatchAtItsIndex() throws {
    try expectFailure(
      Order.self, head + #""items":[{"sku":"S1","qty":"2","priceMinor":"1"},[{"sku":"S2"}]]}"#,
      code: .typeMismatch, path: "items[1]", at: #"[{"sku":"S2"#)
  }

  @Test func anArrayOfScalarsWhereItemsAreExpectedIsATypeMismatchAtItsIndex() throws {
    try expectFailure(
      Order.self, head + #""items":["S1","S2"]}"#, code: .typeMismatch, path: "items[0]", at: #""S1""#)
  }

  @Test func aFailureInsideAnElementNamesItsIndex() throws {
    try expectFailure(
      Order.self,
      head + #""items":[{"sku":"S1","qty":"2","priceMinor":"1"},{"sku":"S2","qty":"many","priceMinor":"4"}]}"#,
      code: .typeMismatch, path: "items[1].qty", at: #""many""#)
  }

  @Test func anArrayWhereOneValueIsExpectedIsATypeMismatch() throws {
    try expectFailure(
      Order.self, #"{"orderId":"2","currency":["EUR"],"items":[]}"#, code: .typeMismatch, path: "currency",
      at: #"["EUR"]"#)
  }

  @Test func aWrapperWhoseItemIsAnArrayIsARecordIssueWithAPath() throws {
    // `{"items":{"item":[…]}}`: the wrapper's one child is an array, not an item, and the wrapper
    // is no item either.
    try expectFailure(
      Order.self, head + #""items":{"item":[{"sku":"S1","qty":"2","priceMinor":"1"}]}}"#,
      code: .missingField, path: "items[0].sku", at: #"{"item":["#)
  }

  @Test func aKeySpelledWithAnEscapeIsTheSameNameAndADuplicate() throws {
    // `sk\u0075` is `sku`: one field twice, as in JSON, not an unknown field beside it.
    try expectFailure(
      Order.self, head + #""items":[{"sku":"S1","sk\u0075":"S9","qty":"2","priceMinor":"1"}]}"#,
      code: .duplicateKey, path: "items[0].sku", at: #""sk\u0075""#)
  }

  @Test func aNullArrayIsNoArrayAsInJSON() throws {
    // Found by the replay fuzz target: the XML reading failed (`nullValue` at `items[0]`) where
    // the JSON reading gave nil.
    let (value, unknown) = try decode(Optionals.self, #"{"items":null}"#)
    #expect(value.items == nil)
    #expect(unknown.isEmpty)
    #expect(try decode(Optionals.self, #"{"items":[]}"#).value.items == [])
  }

  @Test func theSameRecordWithoutTheXMLMarkIsPlainJSON() throws {
    // A JSON pipeline's rejects line: scalars typed, so the quoted numbers are type mismatches.
    let raw = try replayed(head + #""items":[{"sku":"S1","qty":2,"priceMinor":1}]}"#, format: nil)
    var diagnostics = DecodeDiagnostics()
    let order = try SluiceDecoder().decode(Order.self, from: raw, diagnostics: &diagnostics)
    #expect(order.items == [Self.one])
    #expect(diagnostics.unknownFields.isEmpty)
  }
}
