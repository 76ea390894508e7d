import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The loader skips the upsert of a customer it has just written with the same name; a record
/// rolled back by its savepoint must never leave that shortcut believing a write that is gone.
@Suite("Orders loader")
struct OrdersLoaderTests {
  static func order(_ id: String, customer: Int, name: String) -> String {
    #"{"orderId":"\#(id)","amount":100,"currency":"EUR","status":"pending","createdAt":"2023-01-01T00:00:00Z","customer":{"id":\#(customer),"name":"\#(name)"},"items":[{"sku":"S","qty":1,"priceMinor":100}]}"#
  }

  @Test func rolledBackRecordDoesNotPoisonTheCustomerShortcut() throws {
    let directory = try TemporaryDirectory()
    let lines = [
      Self.order("A", customer: 5, name: "First"),
      // Fails on the order's primary key after its customer rows were written: rolled back.
      Self.order("A", customer: 5, name: "Second"),
      Self.order("B", customer: 6, name: "New"),
      Self.order("B", customer: 7, name: "Gone"),
      Self.order("C", customer: 7, name: "Gone"),
      Self.order("D", customer: 5, name: "Second"),
    ]
    let input = try directory.write("orders.ndjson", lines.joined(separator: "\n") + "\n")
    let database = directory.file("orders.sqlite")
    let configuration = PipelineConfiguration(
      name: "orders", input: input, format: .ndjson, policy: .lenient, database: .sqlite(database), conflict: .fail)
    let report = try Pipeline(dataset: OrdersDataset(), configuration: configuration).run()
    #expect(report.status == .succeeded)
    #expect(report.issues.map(\.code) == [.constraint, .constraint])
    let db = try SQLiteConnection(path: database, options: .init(readOnly: true))
    let names = try db.prepare("SELECT customer_id, name FROM customers ORDER BY customer_id")
    var rows: [String] = []
    while try names.step() { rows.append("\(names.columnInt64(0)) \(names.columnText(1) ?? "")") }
    #expect(rows == ["5 Second", "6 New", "7 Gone"])
    #expect(try db.scalarInt("SELECT count(*) FROM orders") == 4)
    #expect(try db.scalarInt("SELECT count(*) FROM pragma_foreign_key_check") == 0)
    // The customer index was built after this first load, and recorded.
    #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'orders_by_customer'") == 1)
    #expect(
      try db.scalarInt("SELECT count(*) FROM sluice_migrations WHERE identifier = 'create index orders_by_customer'")
        == 1)
  }
}
