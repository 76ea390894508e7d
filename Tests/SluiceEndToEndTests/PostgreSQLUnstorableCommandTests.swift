import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The exit codes of runs whose records hold what PostgreSQL cannot store: the real binary, the
/// real server. A lenient run skips the record (0), a strict one fails on its data (65); neither
/// is an I/O error (74), and each leaves its audit row.
@Suite(
  "PostgreSQL: unstorable values on the command line",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLUnstorableCommandTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  static func order(_ number: Int, id: String? = nil, extra: String = "") -> String {
    let key = id ?? String(format: "%04d", number)
    return
      #"{\#(extra)"orderId": "\#(key)", "amount": 100, "currency": "EUR", "status": "pending", "createdAt": "2023-01-01T00:00:03Z", "customer": {"id": \#(number), "name": "Ada"}, "items": [{"sku": "S-\#(number)", "qty": 1, "priceMinor": 100}]}"#
  }

  /// 3,000 letters and digits from a fixed sequence: no compressor brings them under 2,704 bytes.
  static let longKey: String = {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    var state: UInt64 = 4711
    return String(
      (0..<3_000).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return alphabet[Int((state >> 33) % UInt64(alphabet.count))]
      })
  }()

  func load(_ lines: [String], policy: String, into schema: PostgreSQLSchema) throws -> SluiceBinary.Result {
    let input = try scratch.write("orders-\(UUID().uuidString).ndjson", lines.joined(separator: "\n"))
    return try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--input", input, "--format", "ndjson", "--policy", policy,
      "--db", schema.url, "--db-schema", schema.name, "--report", scratch.file("report.json"),
    ])
  }

  func statuses(_ schema: PostgreSQLSchema) throws -> [String] {
    let statement = try schema.connect().prepare("SELECT status FROM sluice_runs ORDER BY run_id")
    var statuses: [String] = []
    while try statement.step() {
      if case .text(let status)? = statement.columnValue(0) { statuses.append(status) }
    }
    return statuses
  }

  @Test(arguments: ["lenient", "strict"])
  func anUnknownKeyWithANulCharacterLoadsTheRunAndItsAuditRow(policy: String) throws {
    let schema = PostgreSQLSchema()
    let result = try load(
      [Self.order(1), Self.order(2, extra: #""bad\u0000key": 1, "#), Self.order(3)], policy: policy, into: schema)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("orders: 3 rows"))
    #expect(try statuses(schema) == ["succeeded"])
    let runs = try SluiceCommand.run(["runs", schema.url, "--db-schema", schema.name, "1"])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(runs.stdout.contains(#"bad\u0000key"#), "\(runs.stdout)")
  }

  @Test func aKeyTooLargeForTheBTreeIsSkippedLenientAndIs65Strict() throws {
    let lines = [Self.order(1), Self.order(2, id: Self.longKey), Self.order(3)]
    let lenient = PostgreSQLSchema()
    let skipped = try load(lines, policy: "lenient", into: lenient)
    #expect(skipped.status == 0, "\(skipped.stderr)")
    #expect(skipped.stdout.contains("orders: 2 rows"))
    #expect(skipped.stderr.contains("load record 2 (line 2, byte "))
    #expect(skipped.stderr.contains("orderId: constraint: orders: a value of order_id is too large for an index"))
    #expect(!skipped.stderr.contains(Self.longKey.prefix(16)))
    #expect(try statuses(lenient) == ["succeeded"])

    let strict = PostgreSQLSchema()
    let failed = try load(lines, policy: "strict", into: strict)
    #expect(failed.status == 65, "\(failed.stderr)")
    #expect(failed.stderr.contains("strict policy: load rejected record 2 (line 2): orderId: constraint"))
    #expect(try statuses(strict) == ["failed"])
    #expect(try strict.rows(of: ["orders"]).count("orders") == 0)
  }
}
