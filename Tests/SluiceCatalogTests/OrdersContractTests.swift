import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The orders contract (seed 002, item 10) beyond the shape every dataset's has
/// (`ContractManifestTests` runs Fixtures/orders against Fixtures/contracts.json): drift, legacy
/// scalars, and what the valid fixtures load.
@Suite("Orders contract fixtures")
struct OrdersContractTests {
  static let fixtures = ContractFixtures.directory("orders")

  static var legacy: Policy {
    var policy = Policy.lenient
    policy.legacyScalars = true
    return policy
  }

  private func fixture(_ name: String) -> URL { Self.fixtures.appendingPathComponent(name) }

  private func validFiles() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: fixture("valid").path).sorted()
  }

  /// Runs one fixture as a one-record array through every stage but the load.
  private func validate(_ file: URL, policy: Policy) throws -> RunReport {
    try ContractFixtures.validate(file, with: OrdersDataset(), policy: policy)
  }

  /// Loads one fixture into a fresh database and returns it, with the directory that keeps it.
  private func load(_ file: URL, policy: Policy = .strict) throws -> (RunReport, SQLiteConnection, TemporaryDirectory) {
    let directory = try TemporaryDirectory()
    let bytes = Array("[".utf8) + Array(try Data(contentsOf: file)) + Array("]".utf8)
    let input = try directory.write("fixture.json", bytes)
    let configuration = PipelineConfiguration(
      name: file.lastPathComponent, input: input, policy: policy, database: .sqlite(directory.file("orders.sqlite")))
    let report = try Pipeline(dataset: OrdersDataset(), configuration: configuration.counted).run()
    return (report, try SQLiteConnection(path: directory.file("orders.sqlite")), directory)
  }

  private func text(_ db: SQLiteConnection, _ sql: String) throws -> String? {
    let statement = try db.prepare(sql)
    guard try statement.step() else { return nil }
    return statement.columnText(0)
  }

  /// A one-record fixture that is rejected leaves nothing to load; without this knob such a
  /// lenient run fails (issue 8, finding 9).
  static var lenientAllowingNothingLoaded: Policy {
    var policy = Policy.lenient
    policy.allowsNothingLoaded = true
    return policy
  }

  @Test func unknownStatusIsReportedAsDriftAndNeverLoaded() throws {
    let (report, db, directory) = try load(
      fixture("invalid/005-unknown-status.json"), policy: Self.lenientAllowingNothingLoaded)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .succeeded)
    #expect(report.drift.unsupportedEnumValues == [.init(path: "status", count: 1, firstRecord: 1)])
    #expect(try db.scalarInt("SELECT count(*) FROM orders") == 0)
    #expect(try db.scalarInt("SELECT count(*) FROM order_statuses WHERE name = 'refunded'") == 0)
  }

  @Test func numericOrderIDIsConvertedAndCountedUnderLegacyScalars() throws {
    let file = fixture("invalid/009-numeric-order-id.json")
    let dry = try validate(file, policy: Self.legacy)
    #expect(dry.status == .succeeded, "\(dry.issues)")
    #expect(dry.coercions == 1)

    let (report, db, directory) = try load(file, policy: Self.legacy)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .succeeded, "\(report.issues)")
    #expect(report.exitCode == 0)
    #expect(report.coercions == 1)
    #expect(report.issues.isEmpty)
    #expect(try text(db, "SELECT typeof(order_id) || ':' || order_id FROM orders") == "text:5")
    #expect(try text(db, "SELECT typeof(order_id) || ':' || order_id FROM order_items WHERE line = 1") == "text:5")
  }

  @Test func numericOrderIDIsSkippedUnderLenientWithoutLegacyScalars() throws {
    let (report, db, directory) = try load(
      fixture("invalid/009-numeric-order-id.json"), policy: Self.lenientAllowingNothingLoaded)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .succeeded)
    #expect(report.statistics(for: .decode).rejected == 1)
    #expect(report.issues.map(\.code) == [.typeMismatch])
    #expect(report.issues.first?.path == "orderId")
    #expect(report.coercions == 0)
    #expect(try db.scalarInt("SELECT count(*) FROM orders") == 0)
  }

  @Test func unknownFieldIsOnlyAWarningUnderTheDefaultPolicy() throws {
    let report = try validate(fixture("invalid/016-unknown-field.json"), policy: .strict)
    #expect(report.status == .succeeded)
    let warning = try #require(report.issues.first)
    #expect(warning.severity == .warning)
    #expect(warning.code == .unknownField)
    #expect(warning.path == "items[1].discountMinor")
    #expect(report.drift.unknownFields == [.init(path: "items[].discountMinor", count: 1, firstRecord: 1)])
  }

  @Test func validFixturesLoadWithTheirValuesIntact() throws {
    for file in try validFiles() {
      let (report, db, directory) = try load(fixture("valid/\(file)"))
      defer { withExtendedLifetime(directory) {} }
      #expect(report.status == .succeeded, "\(file): \(report.issues)")
      #expect(report.tableRows == ["orders": 1, "order_items": 2, "customers": 1, "order_statuses": 3], "\(file)")
      #expect(try text(db, "SELECT name FROM customers WHERE customer_id = 42") == "Zoë Müller", "\(file)")
    }

    let (_, max, maxDirectory) = try load(fixture("valid/002-amount-int64-max.json"))
    defer { withExtendedLifetime(maxDirectory) {} }
    #expect(try max.scalarInt("SELECT amount_minor FROM orders") == Int64.max)

    let (_, min, minDirectory) = try load(fixture("valid/008-amount-int64-min.json"))
    defer { withExtendedLifetime(minDirectory) {} }
    #expect(try min.scalarInt("SELECT amount_minor FROM orders") == Int64.min)

    let (_, wide, wideDirectory) = try load(fixture("valid/003-amount-beyond-int32.json"))
    defer { withExtendedLifetime(wideDirectory) {} }
    #expect(try wide.scalarInt("SELECT amount_minor FROM orders") == 4_294_967_296_123)
    #expect(try wide.scalarInt("SELECT price_minor FROM order_items WHERE line = 2") == 2_147_483_648)

    let (_, zeros, zerosDirectory) = try load(fixture("valid/004-leading-zeros-id.json"))
    defer { withExtendedLifetime(zerosDirectory) {} }
    #expect(try text(zeros, "SELECT order_id FROM orders") == "000000000000042")
    #expect(try zeros.scalarInt("SELECT count(*) FROM order_items WHERE order_id = '000000000000042'") == 2)

    let (_, stamped, stampedDirectory) = try load(fixture("valid/005-fractional-seconds.json"))
    defer { withExtendedLifetime(stampedDirectory) {} }
    #expect(try text(stamped, "SELECT created_at FROM orders") == "2023-01-01T00:00:05.123Z")
    #expect(try stamped.scalarInt("SELECT unixepoch(created_at) FROM orders") == 1_672_531_205)

    let (_, offset, offsetDirectory) = try load(fixture("valid/007-offset-and-milliseconds.json"))
    defer { withExtendedLifetime(offsetDirectory) {} }
    #expect(try text(offset, "SELECT created_at FROM orders") == "2022-12-31T23:00:05.002Z")

    let (_, full, fullDirectory) = try load(fixture("valid/001-full.json"))
    defer { withExtendedLifetime(fullDirectory) {} }
    #expect(try text(full, "SELECT created_at FROM orders") == "2023-01-01T00:00:05.000Z")
    #expect(
      try text(
        full,
        """
        SELECT o.order_id || '|' || o.amount_minor || '|' || o.currency || '|' || s.name || '|' || o.customer_id
        FROM orders o JOIN order_statuses s ON s.id = o.status_id
        """) == "0000000005|123456|EUR|completed|42")
    #expect(
      try text(
        full,
        """
        SELECT group_concat(line || ':' || sku || ':' || qty || ':' || price_minor, ' ')
        FROM (SELECT * FROM order_items ORDER BY line)
        """) == "1:SKU-01234:2:1999 2:SKU-05678:1:119458")
  }
}
