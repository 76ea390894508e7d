import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// One record of many parts, in each shape that once took time quadratic in the record (issue
/// 21, finding 7): an object of unknown keys, an XML element of unknown attributes, a Telegram
/// text of entity objects, an order of many items. Here only that each loads, whole and right;
/// that the time is linear is `Benchmarks/record-scaling`'s to check (no timing in `swift test`).
@Suite("One huge record, in each shape, loads whole", .tags(.slow))
struct HugeRecordTests {
  static let parts = 20_000
  static let orderHead =
    #"{"orderId":"1","amount":100,"currency":"EUR","status":"pending","#
    + #""createdAt":"2023-01-01T00:00:00Z","customer":{"id":7,"name":"Ana"},"#

  /// Runs `sluice run SPEC --input INPUT` into a fresh database in `scratch`; returns the
  /// database and the report.
  private func run(
    _ arguments: [String], input: String, name: String, in scratch: TemporaryDirectory
  ) throws -> (database: String, report: [String: Any]) {
    let path = try scratch.write(name, input)
    let database = scratch.file("huge.sqlite")
    let report = scratch.file("report.json")
    let result = try SluiceCommand.run(
      arguments + ["--input", path, "--db", database, "--report", report, "--no-progress"])
    #expect(result.status == 0, "\(result.stderr.suffix(2_000))")
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
    return (database, try #require(json as? [String: Any]))
  }

  private func rows(_ database: String, _ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var rows: [String] = []
    while try statement.step() { rows.append(statement.columnText(0) ?? "") }
    return rows
  }

  /// The report's count of `code` and its first sample issue.
  private func issues(_ report: [String: Any], _ code: String) -> (count: Int, first: [String: Any]?) {
    let count = (report["issueCounts"] as? [String: Any])?[code] as? Int ?? 0
    let samples = (report["issues"] as? [[String: Any]]) ?? []
    return (count, samples.first { $0["code"] as? String == code })
  }

  @Test func anObjectWithTwentyThousandUnknownKeysLoadsAndReportsEachKey() throws {
    let keys = (0..<Self.parts).map { #""x\#($0)":\#($0 % 10)"# }.joined(separator: ",")
    let line = Self.orderHead + #""items":[{"sku":"S1","qty":1,"priceMinor":1}],"# + keys + "}\n"
    let scratch = try TemporaryDirectory()
    let (database, report) = try run(
      ["run", "Pipelines/orders-lenient.json", "--format", "ndjson"], input: "\n" + line, name: "orders.ndjson",
      in: scratch)
    #expect(try rows(database, "SELECT order_id FROM orders") == ["1"])
    let (count, first) = issues(report, "unknownField")
    #expect(count == Self.parts)
    #expect(first?["path"] as? String == "x0")
    let location = first?["location"] as? [String: Any]
    let offset = try #require(line.utf8.firstRange(of: #""x0""#.utf8))
    #expect(
      location?["byteOffset"] as? Int == 1 + line.utf8.distance(from: line.utf8.startIndex, to: offset.lowerBound))
    #expect(location?["line"] as? Int == 2)
  }

  /// 9,000: under the 10,000 attributes an element may carry (`tooManyAttributes` past that).
  @Test func anXMLElementWithNineThousandUnknownAttributesLoadsAndReportsEachName() throws {
    let attributes = (0..<9_000).map { #"a\#($0)="\#($0 % 10)""# }.joined(separator: " ")
    let document = """
      <?xml version="1.0" encoding="UTF-8"?>
      <orders>
      <order orderId="1" \(attributes)><amount>100</amount><currency>EUR</currency><status>pending</status>\
      <createdAt>2023-01-01T00:00:00Z</createdAt><customer id="7"><name>Ana</name></customer>\
      <items><item><sku>S1</sku><qty>1</qty><priceMinor>1</priceMinor></item></items></order>
      </orders>

      """
    let scratch = try TemporaryDirectory()
    let (database, report) = try run(
      ["run", "Pipelines/orders.json", "--format", "xml", "--record-path", "orders.order", "--policy", "lenient"],
      input: document, name: "orders.xml", in: scratch)
    #expect(try rows(database, "SELECT order_id || ':' || sku FROM order_items") == ["1:S1"])
    let (count, first) = issues(report, "unknownField")
    #expect(count == 9_000)
    #expect(first?["path"] as? String == "a0")
    #expect((first?["location"] as? [String: Any])?["line"] as? Int == 3)
  }

  @Test func aTelegramTextOfTwentyThousandEntitiesLoadsAsOneText() throws {
    let entities = (0..<Self.parts).map { #"{"type":"bold","text":"\#($0 % 10)"}"# }.joined(separator: ",")
    let chat =
      #"{"name":"Huge","type":"personal_chat","id":1,"messages":[{"id":1,"type":"message","#
      + #""date":"2023-11-14T22:13:20","date_unixtime":"1700000000","from":"Ana","from_id":"user1","#
      + #""text":["#
      + entities + "]}]}"
    let scratch = try TemporaryDirectory()
    let (database, _) = try run(["run", "Pipelines/telegram.json"], input: chat, name: "result.json", in: scratch)
    let expected = (0..<Self.parts).map { String($0 % 10) }.joined()
    #expect(try rows(database, "SELECT text FROM text_messages") == [expected])
  }

  @Test func anOrderOfTwentyThousandItemsLoadsEveryItemInOrder() throws {
    let items = (0..<Self.parts).map { #"{"sku":"S\#($0)","qty":\#($0 % 9 + 1),"priceMinor":\#($0)}"# }
    let document = "[" + Self.orderHead + #""items":["# + items.joined(separator: ",") + "]}]"
    let scratch = try TemporaryDirectory()
    let (database, _) = try run(["run", "Pipelines/orders.json"], input: document, name: "orders.json", in: scratch)
    #expect(
      try rows(
        database, "SELECT count(*) || ':' || min(line) || ':' || max(line) || ':' || sum(price_minor) FROM order_items")
        == ["\(Self.parts):1:\(Self.parts):\(Self.parts * (Self.parts - 1) / 2)"])
    #expect(try rows(database, "SELECT sku FROM order_items WHERE line = \(Self.parts)") == ["S\(Self.parts - 1)"])
  }
}
