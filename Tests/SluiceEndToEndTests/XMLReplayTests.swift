import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// A rejected XML record goes to the rejects file as the JSON text Sluice read it as, marked
/// `xml`, and `sluice replay` reads it back with XML's rules: scalars as text, repeated
/// elements as arrays.
@Suite("XML rejects, quarantined and replayed")
struct XMLReplayTests {
  static let orders = """
    <?xml version="1.0" encoding="UTF-8"?>
    <orders>
    <order orderId="1"><amount>5</amount><currency>EUR</currency><status>pending</status><createdAt>2023-01-01T00:00:40Z</createdAt><customer id="7"><name>Ana &amp; Bo</name></customer><items><item><sku>S1</sku><qty>2</qty><priceMinor>1</priceMinor></item></items></order>
    <order orderId="2"><amount>6</amount><currency>EUR</currency><status>pending</status><createdAt>2023-01-01T00:00:41Z</createdAt><customer id="7"><name>Ana &amp; Bo</name></customer><items><item><sku>S2</sku><qty>1</qty><priceMinor>1</priceMinor></item>
    <item><sku>S3</sku><qty>many</qty><priceMinor>1</priceMinor></item></items></order>
    </orders>

    """

  @Test func aRejectedXMLRecordIsReplayedWithXMLRules() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write("orders.xml", Self.orders)
    let database = scratch.file("orders.sqlite")
    let rejects = scratch.file("rejects.ndjson")
    let run = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--input", input, "--format", "xml", "--record-path", "orders.order",
      "--policy", "lenient", "--db", database, "--rejects", rejects,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    // The issue points into the XML: the second order's second item, on line 5, at its <qty>.
    let qty = try #require(Self.orders.utf8.firstRange(of: "<qty>many".utf8))
    let offset = Self.orders.utf8.distance(from: Self.orders.utf8.startIndex, to: qty.lowerBound)
    #expect(run.stderr.contains("decode record 2 (line 5, byte \(offset)) items[1].qty: typeMismatch"), "\(run.stderr)")

    let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 1)
    let entry = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    #expect(entry["format"] as? String == "xml")
    #expect(entry["ordinal"] as? Int == 2)
    let record = try #require(entry["record"] as? String)
    #expect(record.contains(#""item":{"sku":"S2""#))

    // Fixed by hand, as an operator would, and replayed.
    let fixed = String(lines[0]).replacingOccurrences(of: #"\"qty\":\"many\""#, with: #"\"qty\":\"3\""#)
    #expect(fixed != String(lines[0]))
    try fixed.appending("\n").write(toFile: rejects, atomically: true, encoding: .utf8)
    let replay = try SluiceCommand.run(["replay", "Pipelines/orders.json", "--rejects", rejects, "--db", database])
    #expect(replay.status == 0, "\(replay.stderr)")
    let items = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(
      "SELECT order_id || ':' || line || ':' || sku || ':' || qty FROM order_items ORDER BY order_id, line")
    var rows: [String] = []
    while try items.step() { rows.append(items.columnText(0) ?? "") }
    #expect(rows == ["1:1:S1:2", "2:1:S2:1", "2:2:S3:3"])
  }

  /// What `jq` or a hand fix naturally makes of a quarantined order's items: a JSON array.
  /// Issue 21, finding 1: one element trapped (SIGILL) in the key sweep, two loaded with four
  /// spurious `unknownField` warnings.
  @Test(arguments: [1, 2])
  func aRecordWhoseItemsBecameAJSONArrayReplaysAsItsJSONSays(items: Int) throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write("orders.xml", Self.orders)
    let database = scratch.file("orders.sqlite")
    let rejects = scratch.file("rejects.ndjson")
    let run = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--input", input, "--format", "xml", "--record-path", "orders.order",
      "--policy", "lenient", "--db", database, "--rejects", rejects,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let line = try #require(try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n").first)
    var entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(entry["format"] as? String == "xml")
    // As `jq '.items = [...]'` leaves it: the other fields as they were, the items last.
    let text = try #require(entry["record"] as? String)
    let itemsKey = try #require(text.range(of: #""items":"#))
    #expect(text.hasSuffix("}}}"))
    let array = (1...items).map { #"{"sku":"S\#($0 + 1)","qty":"\#($0 + 2)","priceMinor":"1"}"# }
    entry["record"] = text[..<itemsKey.upperBound] + "[" + array.joined(separator: ",") + "]}"
    try (String(decoding: try JSONSerialization.data(withJSONObject: entry), as: UTF8.self) + "\n")
      .write(toFile: rejects, atomically: true, encoding: .utf8)

    let report = scratch.file("replay.json")
    let replay = try SluiceCommand.run([
      "replay", "Pipelines/orders.json", "--rejects", rejects, "--db", database, "--report", report,
    ])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(!replay.stderr.contains("unknownField"), "\(replay.stderr)")
    let summary = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
    #expect((summary["issueCounts"] as? [String: Any])?.isEmpty ?? true, "\(summary["issueCounts"] ?? "")")
    let rows = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(
      "SELECT order_id || ':' || line || ':' || sku || ':' || qty FROM order_items ORDER BY order_id, line")
    var loaded: [String] = []
    while try rows.step() { loaded.append(rows.columnText(0) ?? "") }
    #expect(loaded == ["1:1:S1:2"] + (1...items).map { "2:\($0):S\($0 + 1):\($0 + 2)" })
  }
}
