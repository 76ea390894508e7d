import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The real `sluice` binary on the committed order samples and specs: the exit codes a nightly
/// job and a migration see.
@Suite("sluice command line on orders, end to end")
struct OrdersCommandTests {
  private func strings(_ database: String, _ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var rows: [String] = []
    while try statement.step() { rows.append(statement.columnText(0) ?? "NULL") }
    return rows
  }

  /// A fingerprint of every order row and item row.
  private func fingerprint(_ database: String) throws -> [String] {
    try strings(
      database,
      """
      SELECT count(*) || '|' || total(amount_minor) || '|' || max(order_id) FROM orders
      UNION ALL SELECT count(*) || '|' || total(qty * price_minor) FROM order_items
      UNION ALL SELECT count(*) || '|' || group_concat(name, ',') FROM customers
      """)
  }

  @Test func strictRunOnBrokenOrdersExits65AndTheLenientSpecExits0() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("orders.sqlite")
    let nightly = try SluiceCommand.run(
      ["run", "Pipelines/orders.json", "--db", database, "--report", scratch.file("n.json")])
    #expect(nightly.status == 0, "\(nightly.stderr)")
    #expect(nightly.stdout.contains("orders: 2000 rows"))
    let before = try fingerprint(database)

    let strict = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--input", "SampleData/orders-broken.ndjson.gz", "--format", "ndjson",
      "--db", database, "--report", scratch.file("s.json"),
    ])
    #expect(strict.status == 65)
    #expect(strict.stderr.contains("strict policy: decode rejected record 18 (line 18): status: nullValue"))
    #expect(strict.stdout.isEmpty)
    #expect(try fingerprint(database) == before)

    let lenient = try SluiceCommand.run([
      "run", "Pipelines/orders-lenient.json", "--db", database, "--report", scratch.file("l.json"),
      "--rejects", scratch.file("rejects.ndjson"),
    ])
    #expect(lenient.status == 0, "\(lenient.stderr)")
    #expect(lenient.stderr.contains("issues: 11"))
    #expect(lenient.stderr.contains("map record 54 (line 54, byte 17588) status: unsupportedEnumValue"))
    #expect(
      try strings(database, "SELECT status FROM sluice_runs ORDER BY run_id") == ["succeeded", "failed", "succeeded"])
    #expect(try strings(database, "SELECT count(*) FROM orders WHERE order_id = '108'") == ["1"])
  }
}
