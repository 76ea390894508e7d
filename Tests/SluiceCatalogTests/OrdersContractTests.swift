import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The orders contract (seed 002, item 10): every fixture under Fixtures/orders/valid passes
/// every stage; every fixture under invalid/ fails at the expected stage with the expected code
/// and field path — money and identifiers at their bounds, an unknown status, broken items.
@Suite("Orders contract fixtures")
struct OrdersContractTests {
  static let fixtures = ContractFixtures.directory("orders")

  struct Expectation: Sendable, CustomTestStringConvertible {
    var file: String
    var stage: Stage
    var code: IssueCode
    var path: String
    var policy: Policy = .strict
    /// The offending value, when the fixture has one an issue might quote.
    var value: String? = nil
    var testDescription: String { file }
  }

  static var rejectUnknown: Policy { ContractFixtures.strictRejectingUnknownFields }

  static var legacy: Policy {
    var policy = Policy.lenient
    policy.legacyScalars = true
    return policy
  }

  static let invalid: [Expectation] = [
    .init(file: "001-null-status.json", stage: .decode, code: .nullValue, path: "status"),
    .init(file: "002-null-amount.json", stage: .decode, code: .nullValue, path: "amount"),
    .init(file: "003-missing-currency.json", stage: .decode, code: .missingField, path: "currency"),
    .init(file: "004-missing-items.json", stage: .decode, code: .missingField, path: "items"),
    .init(file: "005-unknown-status.json", stage: .map, code: .unsupportedEnumValue, path: "status", value: "refunded"),
    .init(
      file: "006-amount-beyond-int64-max.json", stage: .decode, code: .outOfRange, path: "amount",
      value: "9223372036854775808"),
    .init(
      file: "007-amount-below-int64-min.json", stage: .decode, code: .outOfRange, path: "amount",
      value: "-9223372036854775809"),
    .init(file: "008-fractional-amount.json", stage: .decode, code: .typeMismatch, path: "amount", value: "1234.5"),
    .init(file: "009-numeric-order-id.json", stage: .decode, code: .typeMismatch, path: "orderId"),
    .init(file: "010-empty-items.json", stage: .validate, code: .invalidValue, path: "items"),
    .init(file: "011-zero-quantity.json", stage: .validate, code: .outOfRange, path: "items[0].qty"),
    .init(file: "012-negative-price.json", stage: .validate, code: .outOfRange, path: "items[1].priceMinor", value: "-100"),
    .init(file: "013-lowercase-currency.json", stage: .validate, code: .invalidValue, path: "currency", value: "eur"),
    .init(file: "014-impossible-date.json", stage: .decode, code: .invalidDate, path: "createdAt", value: "2023-02-30"),
    .init(file: "015-non-integer-quantity.json", stage: .decode, code: .typeMismatch, path: "items[0].qty", value: "2.5"),
    .init(
      file: "016-unknown-field.json", stage: .decode, code: .unknownField, path: "items[1].discountMinor",
      policy: rejectUnknown),
    .init(file: "017-blank-order-id.json", stage: .validate, code: .invalidValue, path: "orderId"),
    .init(file: "018-customer-id-as-text.json", stage: .decode, code: .typeMismatch, path: "customer.id"),
    .init(file: "019-missing-customer-name.json", stage: .decode, code: .missingField, path: "customer.name"),
  ]

  /// Values every fixture carries, none of which an issue may quote.
  static let privateValues = ["Zoë", "Müller", "SKU-0", "0000000005", "123456", "119458", "EUR"]

  /// Whether `text` quotes `value` as a whole number or word (so an Int64 bound such as
  /// `-9223372036854775808` in a message does not count as quoting `9223372036854775808`).
  static func quotes(_ text: String, _ value: String) -> Bool {
    let edge = "[-+.0-9A-Za-z]"
    return text.range(
      of: "(?<!\(edge))\(NSRegularExpression.escapedPattern(for: value))(?!\(edge))", options: .regularExpression) != nil
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

  @Test func everyInvalidFixtureHasAnExpectation() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: fixture("invalid").path)
    #expect(Set(files) == Set(Self.invalid.map(\.file)))
    #expect(Self.invalid.count == Set(Self.invalid.map(\.file)).count)
  }

  @Test(arguments: try FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent("valid").path).sorted())
  func validFixturePassesEveryStage(file: String) throws {
    let report = try validate(fixture("valid/\(file)"), policy: Self.rejectUnknown)
    #expect(report.status == .succeeded, "\(report.issues)")
    #expect(report.statistics(for: .map).recordsOut == 1)
    #expect(report.issues.isEmpty)
  }

  @Test(arguments: invalid)
  func invalidFixtureFailsAtItsStageWithItsCode(expectation: Expectation) throws {
    let report = try validate(fixture("invalid/\(expectation.file)"), policy: expectation.policy)
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    let errors = report.issues.filter { $0.severity == .error }
    #expect(errors.count == 1, "\(errors)")
    let issue = try #require(errors.first)
    #expect(issue.stage == expectation.stage)
    #expect(issue.code == expectation.code)
    #expect(issue.path == expectation.path)
    #expect(issue.location?.ordinal == 1)
    #expect(report.statistics(for: expectation.stage).rejected == 1)
  }

  @Test func valuesNeverAppearInIssues() throws {
    for expectation in Self.invalid {
      let report = try validate(fixture("invalid/\(expectation.file)"), policy: expectation.policy)
      let texts = report.issues.map(\.description) + [report.failure?.message ?? "", report.summary()]
      #expect(!report.issues.isEmpty)
      for text in texts {
        for value in Self.privateValues + (expectation.value.map { [$0] } ?? []) {
          #expect(!Self.quotes(text, value), "\(expectation.file) quotes \(value): \(text)")
        }
      }
    }
  }

  /// A one-record fixture that is rejected leaves nothing to load; without this knob such a
  /// lenient run fails (issue 8, finding 9).
  static var lenientAllowingNothingLoaded: Policy {
    var policy = Policy.lenient
    policy.allowsNothingLoaded = true
    return policy
  }

  @Test func unknownStatusIsReportedAsDriftAndNeverLoaded() throws {
    let (report, db, directory) = try load(fixture("invalid/005-unknown-status.json"), policy: Self.lenientAllowingNothingLoaded)
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
    let (report, db, directory) = try load(fixture("invalid/009-numeric-order-id.json"), policy: Self.lenientAllowingNothingLoaded)
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
