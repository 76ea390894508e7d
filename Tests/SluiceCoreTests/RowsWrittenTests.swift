import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// `rowsWritten` counts only what committed records wrote: for a run that only inserts, it is the
/// difference between the tables' counts after and before, even when lenient records are rolled
/// back half-way (a duplicate order whose new customer was already written).
@Suite("Rows written")
struct RowsWrittenTests {
  /// The orders declared in `Examples/datasets/orders.dataset.json` (customers shared by their
  /// orders, items, an enum-owned lookup): the engine's counts on no catalog's dataset.
  static func orders() throws -> AnyDataset {
    try DatasetFile.load(Repository.path("Examples/datasets/orders.dataset.json"))
  }
  static let tables = ["customers", "orders", "order_items", "order_statuses"]

  static func order(_ id: String, customer: Int, name: String, items: Int = 1) -> String {
    let lines = (0..<items).map { #"{"sku":"S\#($0)","qty":1,"priceMinor":100}"# }
    return
      #"{"orderId":"\#(id)","amount":100,"currency":"EUR","status":"pending","createdAt":"2023-01-01T00:00:00Z","customer":{"id":\#(customer),"name":"\#(name)"},"items":[\#(lines.joined(separator: ","))]}"#
  }

  /// Runs `lines` leniently with `conflict: .fail` and returns the report and the count deltas.
  private func run(_ lines: [String], into directory: TemporaryDirectory, name: String) throws
    -> (report: RunReport, deltas: [String: Int])
  {
    let database = directory.file("orders.sqlite")
    let before = try DatabaseSnapshot(of: database, tables: Self.tables)
    let input = try directory.write(name, lines.joined(separator: "\n") + "\n")
    let configuration = PipelineConfiguration(
      name: "orders", input: input, format: .ndjson, policy: .lenient, database: .sqlite(database), conflict: .fail)
    let report = try RowsWrittenTests.orders().run(configuration)
    let after = try DatabaseSnapshot(of: database, tables: Self.tables)
    let deltas = Dictionary(uniqueKeysWithValues: Self.tables.map { ($0, after.count($0) - before.count($0)) })
    return (report, deltas)
  }

  private func expectCountsMatchDeltas(_ report: RunReport, _ deltas: [String: Int]) {
    for table in Self.tables {
      #expect(report.rowsWritten[table, default: 0] == deltas[table], "\(table)")
    }
  }

  @Test func rowsWrittenEqualTableDeltasWhenRecordsAreRolledBack() throws {
    let directory = try TemporaryDirectory()
    let first = try run(
      [
        Self.order("A", customer: 1, name: "Ann", items: 2),
        Self.order("B", customer: 2, name: "Bo"),
        // Customer 3 is new: written, then the order's key fails and the savepoint takes it back.
        Self.order("A", customer: 3, name: "Cy", items: 4),
        Self.order("C", customer: 1, name: "Ann", items: 3),
      ], into: directory, name: "first.ndjson")
    #expect(first.report.exitCode == 0, "\(first.report.failure?.message ?? "")")
    #expect(first.report.issues.map(\.code) == [.constraint])
    #expect(first.report.statistics(for: .load).rejected == 1)
    #expect(first.deltas == ["customers": 2, "orders": 3, "order_items": 6, "order_statuses": 3])
    expectCountsMatchDeltas(first.report, first.deltas)

    // A second run into the now non-empty database: warm tables, customers that exist.
    let second = try run(
      [
        Self.order("D", customer: 4, name: "Di"),
        Self.order("B", customer: 5, name: "Ed", items: 2),
        Self.order("E", customer: 2, name: "Bo", items: 2),
        Self.order("E", customer: 6, name: "Flo"),
        Self.order("F", customer: 1, name: "Ann"),
      ], into: directory, name: "second.ndjson")
    #expect(second.report.exitCode == 0, "\(second.report.failure?.message ?? "")")
    #expect(second.report.issues.map(\.code) == [.constraint, .constraint])
    #expect(second.deltas == ["customers": 1, "orders": 3, "order_items": 4, "order_statuses": 0])
    expectCountsMatchDeltas(second.report, second.deltas)
  }
}
