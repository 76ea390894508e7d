import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// The load stage's one seam (`BatchLoader`): a batch in, one outcome per record out, in order —
/// the same outcomes whether the store writes the batch in bulk (PostgreSQL's `COPY`, SQLite's
/// multi-row `INSERT`s) or record by record (a batch the bulk writer refuses, one whose row breaks
/// a constraint, one the run asks to go record by record). Here on SQLite; the same boxes (BoxBatches, in
/// SluiceTestSupport) go into PostgreSQL in SluicePostgreSQLTests.
@Suite("Batch loader")
struct BatchLoaderTests {
  @Test func sqliteRejectsOnlyTheRecordThatBreaksAConstraint() throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteConnection(path: directory.file("boxes.sqlite"))
    try BoxBatches.migrate(store)
    let (outcomes, loader) = try store.withTransaction { try BoxBatches.load(BoxBatches.batches, into: store) }
    #expect(outcomes == BoxBatches.expected)
    // In bulk (a multi-row upsert), but for the batch with the culprit and the one after it.
    #expect(loader.writesInBulk)
    #expect(loader.rowsWritten == ["boxes": 5])
    #expect(loader.totals.bulkWrites == RunReport.BulkWrites(tables: ["boxes": .init(staged: 1)], rowByRow: 2))
    #expect(try store.scalarInt("SELECT sum(weight) FROM boxes") == 6 + 7 + 2 + 9)

    // `ignore`: a record whose key is there keeps the old row and says so.
    let (kept, _) = try store.withTransaction {
      try BoxBatches.load([[BoxBatches.box(2, weight: 1)]], into: store, conflict: .ignore)
    }
    #expect(kept == ["kept"])
  }

  @Test func totalsSumLookupsAndBulkWritesAcrossLoaders() {
    var totals = LoadTotals()
    totals.add(["people": RunReport.ReferenceLookups(keys: 150, queries: 2)])
    var other = LoadTotals()
    other.add(["people": RunReport.ReferenceLookups(keys: 10, queries: 1)])
    other.add(RunReport.BulkWrites(tables: ["boxes": .init(copied: 4)], rowByRow: 1))
    totals.add(other)
    totals.add(RunReport.BulkWrites(tables: ["boxes": .init(copied: 6, staged: 1)], rowByRow: 0))
    #expect(totals.referenceLookups == ["people": RunReport.ReferenceLookups(keys: 160, queries: 3)])
    #expect(totals.bulkWrites == RunReport.BulkWrites(tables: ["boxes": .init(copied: 10, staged: 1)], rowByRow: 1))
    #expect(LoadTotals().bulkWrites == nil && LoadTotals().referenceLookups.isEmpty)
  }
}

/// How the row writer upserts a row into a table with foreign keys, by dialect: SQLite inserts
/// and then updates where a column differs (its upsert pays a statement journal per row);
/// PostgreSQL keeps the one `INSERT … ON CONFLICT DO UPDATE` (two statements would be two round
/// trips).
@Suite("Row writer: upsert by dialect")
struct UpsertByDialectTests {
  private static func plan(_ store: any Store) throws -> RowWriter.Plan {
    try RowWriter.Plan(
      table: PetsAndOwners.pets, policy: .upsert, children: [], store: store, sql: TableSQL(dialect: store.dialect))
  }

  @Test func sqliteInsertsThenUpdates() throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteConnection(path: directory.file("pets.sqlite"))
    _ = try Migrator.migrate(store, PetsAndOwners.schema.migrations(dialect: store.dialect))
    #expect(store.dialect.prefersInsertThenUpdate)
    let plan = try Self.plan(store)
    #expect(plan.updateChanged != nil && plan.upsert == nil)
  }
}
