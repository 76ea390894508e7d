import Foundation
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluicePostgreSQL

/// The load stage's one seam (`BatchLoader`) on PostgreSQL: the batch written in bulk (`COPY`),
/// or record by record where a row breaks a constraint or the run asks, with the outcomes SQLite
/// gives (BatchLoaderTests, in SluiceCoreTests, on the same boxes).
@Suite("PostgreSQL: batch loader")
struct PostgreSQLBatchLoaderTests {
  @Test(
    "PostgreSQL writes a batch in bulk, and falls back record by record with the same outcomes",
    .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"),
    arguments: [false, true])
  func postgreSQLAgreesWithSQLite(rowByRow: Bool) throws {
    let schema = PostgreSQLSchema()
    try PostgreSQLServer.connect().execute("CREATE SCHEMA \"\(schema.name)\"")
    let store = try schema.connect()
    try BoxBatches.migrate(store)
    let (outcomes, loader) = try store.withTransaction {
      try BoxBatches.load(BoxBatches.batches, into: store, rowByRow: rowByRow)
    }
    #expect(outcomes == BoxBatches.expected)
    #expect(loader.writesInBulk)
    #expect(loader.rowsWritten == ["boxes": 5])
    let writes = try #require(loader.totals.bulkWrites)
    // Asked to go record by record, every batch does; else only the one with the bad row.
    #expect(writes.rowByRow == (rowByRow ? 3 : 1))
    #expect((writes.tables["boxes"] == nil) == rowByRow)
    #expect(try store.scalarInt("SELECT sum(weight)::bigint FROM boxes") == 6 + 7 + 2 + 9)
  }
}

/// How the row writer upserts a row into a table with foreign keys on PostgreSQL: the one
/// `INSERT … ON CONFLICT DO UPDATE` (two statements would be two round trips), where SQLite
/// inserts and then updates (UpsertByDialectTests, in SluiceCoreTests).
@Suite("PostgreSQL: row writer upsert")
struct PostgreSQLUpsertTests {
  @Test(
    .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"))
  func postgreSQLUpsertsInOneStatement() throws {
    let schema = PostgreSQLSchema()
    try PostgreSQLServer.connect().execute("CREATE SCHEMA \"\(schema.name)\"")
    let store = try schema.connect()
    _ = try Migrator.migrate(store, PetsAndOwners.schema.migrations(dialect: store.dialect))
    #expect(!store.dialect.prefersInsertThenUpdate)
    let plan = try RowWriter.Plan(
      table: PetsAndOwners.pets, policy: .upsert, children: [], store: store, sql: TableSQL(dialect: store.dialect))
    #expect(plan.updateChanged == nil && plan.upsert != nil)
  }
}
