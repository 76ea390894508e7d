import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// Databases whose tables the engine did not create under today's migration names — made by an
/// earlier Sluice with hand-written DDL, or by hand from `sluice schema` — are adopted, not
/// broken; a table of the same name with another shape stops the run before any write.
@Suite("Existing tables are adopted")
struct SchemaAdoptionTests {
  /// The orders schema as the previous release (c41d384) created it, with its migration names.
  static let previousReleaseSchema = """
    CREATE TABLE sluice_migrations (
      identifier TEXT PRIMARY KEY,
      applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ) STRICT;
    INSERT INTO sluice_migrations (identifier) VALUES ('orders-1-create'), ('orders-2-index-by-customer');
    CREATE TABLE order_statuses (
      id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, is_final INTEGER NOT NULL,
      retired INTEGER NOT NULL DEFAULT 0 CHECK (retired IN (0, 1))) STRICT;
    CREATE TABLE customers (customer_id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL) STRICT;
    CREATE TABLE orders (
      order_id TEXT NOT NULL PRIMARY KEY, amount_minor INTEGER NOT NULL,
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      status_id INTEGER NOT NULL REFERENCES order_statuses (id), created_at TEXT NOT NULL,
      customer_id INTEGER NOT NULL REFERENCES customers (customer_id)) STRICT;
    CREATE TABLE order_items (
      order_id TEXT NOT NULL REFERENCES orders (order_id) ON DELETE CASCADE,
      line INTEGER NOT NULL CHECK (line >= 1), sku TEXT NOT NULL, qty INTEGER NOT NULL CHECK (qty >= 1),
      price_minor INTEGER NOT NULL CHECK (price_minor >= 0), PRIMARY KEY (order_id, line)) STRICT, WITHOUT ROWID;
    CREATE INDEX orders_by_customer ON orders (customer_id);
    INSERT INTO order_statuses VALUES (1, 'pending', 0, 0), (2, 'completed', 1, 0), (3, 'cancelled', 1, 0);
    INSERT INTO customers VALUES (7, 'Seven');
    INSERT INTO orders VALUES ('OLD-1', 100, 'EUR', 1, '2023-01-01T00:00:00.000Z', 7);
    INSERT INTO order_items VALUES ('OLD-1', 1, 'SKU', 1, 100);
    """

  private func run(_ database: String, _ lines: [String], in directory: TemporaryDirectory) throws -> RunReport {
    let input = try directory.write("orders-\(UUID().uuidString).ndjson", lines.joined(separator: "\n") + "\n")
    let configuration = PipelineConfiguration(
      name: "orders", input: input, format: .ndjson, database: .sqlite(database))
    return try RowsWrittenTests.orders().run(configuration.counted)
  }

  @Test func aDatabaseOfThePreviousReleaseKeepsLoading() throws {
    let directory = try TemporaryDirectory()
    let database = directory.file("orders.sqlite")
    try SQLiteConnection(path: database).execute(Self.previousReleaseSchema)
    let report = try run(
      database,
      [
        RowsWrittenTests.order("NEW-1", customer: 7, name: "Seven"),
        RowsWrittenTests.order("NEW-2", customer: 8, name: "Eight"),
      ], in: directory)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.rowsWritten["orders"] == 2)
    let db = try SQLiteConnection(path: database, options: .init(readOnly: true))
    #expect(try db.scalarInt("SELECT count(*) FROM orders") == 3)
    #expect(try db.scalarInt("SELECT count(*) FROM customers") == 2)
    #expect(try db.scalarInt("SELECT count(*) FROM order_statuses") == 3)
    // Each of today's migrations is recorded as applied, none ran again.
    #expect(
      try db.scalarInt(
        "SELECT count(*) FROM sluice_migrations WHERE identifier IN ('create table orders', 'create table order_items', 'create table customers', 'create table order_statuses', 'create index orders_by_customer')"
      ) == 5)
    // Constraints of the old DDL still hold and are still reported as issues.
    let broken = try run(database, [RowsWrittenTests.order("NEW-1", customer: 7, name: "Seven")], in: directory)
    #expect(broken.exitCode == 0)
    let duplicate = PipelineConfiguration(
      name: "orders",
      input: try directory.write("dup.ndjson", RowsWrittenTests.order("NEW-1", customer: 7, name: "Seven") + "\n"),
      format: .ndjson, database: .sqlite(database), conflict: .fail)
    let failed = try RowsWrittenTests.orders().run(duplicate.counted)
    #expect(failed.exitCode == 65)
    #expect(failed.issues.first?.message == "orders: a row with this key exists already (primary key order_id)")
    #expect(failed.issues.first?.path == "orderId")
  }

  @Test func aTableOfTheSameNameWithAnotherShapeStopsTheRunBeforeAnyWrite() throws {
    let directory = try TemporaryDirectory()
    let database = directory.file("orders.sqlite")
    try SQLiteConnection(path: database).execute("CREATE TABLE orders (order_id TEXT PRIMARY KEY, total REAL)")
    let report = try run(database, [RowsWrittenTests.order("A", customer: 1, name: "One")], in: directory)
    #expect(report.exitCode == 73)
    let message = try #require(report.failure?.message)
    #expect(
      message.contains(
        "table orders exists without column(s) amount_minor, currency, status_id, created_at, customer_id"))
    let db = try SQLiteConnection(path: database, options: .init(readOnly: true))
    #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'customers'") == 0)
    #expect(try db.scalarInt("SELECT count(*) FROM orders") == 0)
  }

  @Test func tablesCreatedByHandFromSluiceSchemaAreAdopted() throws {
    let directory = try TemporaryDirectory()
    let database = directory.file("orders.sqlite")
    let ddl = try RowsWrittenTests.orders().schema.migrations(dialect: SQLiteDialect()).map(\.sql).joined(
      separator: "\n")
    try SQLiteConnection(path: database).execute(ddl)
    let report = try run(database, [RowsWrittenTests.order("A", customer: 1, name: "One")], in: directory)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.tableRows["orders"] == 1)
  }
}
