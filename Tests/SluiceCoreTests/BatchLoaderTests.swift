import Foundation
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// The load stage's one seam (`BatchLoader`): a batch in, one outcome per record out, in order —
/// the same outcomes whether the store writes the batch in bulk (PostgreSQL's `COPY`) or record
/// by record (SQLite, a batch the bulk writer refuses, one whose row breaks a constraint, one the
/// run asks to go record by record).
@Suite("Batch loader")
struct BatchLoaderTests {
  static let boxes = Table(
    "boxes", key: ["box_id"],
    columns: [.integer("box_id"), .integer("weight", checks: [.atLeast(1)])])
  static let schema = Schema([boxes])

  private static func box(_ id: Int, weight: Int) -> RecordRows {
    var rows = RecordRows()
    rows.add(boxes, Int64(id), Int64(weight))
    return rows
  }

  private static func location(_ ordinal: Int) -> RecordLocation {
    RecordLocation(ordinal: ordinal, byteOffset: Int64(ordinal * 10), line: ordinal)
  }

  /// What became of each record, as text: `written`, `kept` or the codes of its issues.
  private static func load(
    _ batches: [[RecordRows]], into store: any Store, conflict: ConflictPolicy = .upsert, rowByRow: Bool = false
  ) throws -> (outcomes: [String], loader: BatchLoader) {
    let loader = try BatchLoader(
      store: store, schema: schema, conflict: conflict, savepoints: try store.makeSavepoints())
    var outcomes: [String] = []
    var ordinal = 0
    for batch in batches {
      try loader.begin(batch, rowByRow: rowByRow)
      for rows in batch {
        ordinal += 1
        switch try loader.write(rows, at: location(ordinal)) {
        case .written(let kept, let warnings):
          #expect(warnings.isEmpty)
          outcomes.append(kept ? "kept" : "written")
        case .rejected(let issues):
          outcomes.append(issues.map { "\($0.code.rawValue) at \($0.location?.ordinal ?? 0)" }.joined(separator: ", "))
        }
      }
    }
    return (outcomes, loader)
  }

  private static let batches = [
    [box(1, weight: 5), box(2, weight: 7)],
    // A row breaks the weight check: the batch goes record by record, and only it is rejected.
    [box(3, weight: 2), box(4, weight: 0), box(5, weight: 9)],
    [box(1, weight: 6)],
  ]
  private static let expected = ["written", "written", "written", "constraint at 4", "written", "written"]

  private static func migrate(_ store: some Store) throws {
    _ = try Migrator.migrate(store, schema.migrations(dialect: store.dialect))
  }

  @Test func sqliteWritesRecordByRecordAndRejectsOnlyTheRecordThatBreaksAConstraint() throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteConnection(path: directory.file("boxes.sqlite"))
    try Self.migrate(store)
    let (outcomes, loader) = try store.withTransaction { try Self.load(Self.batches, into: store) }
    #expect(outcomes == Self.expected)
    #expect(loader.writesInBulk == false)
    #expect(loader.rowsWritten == ["boxes": 5])
    #expect(loader.totals.bulkWrites == nil)
    #expect(try store.scalarInt("SELECT sum(weight) FROM boxes") == 6 + 7 + 2 + 9)

    // `ignore`: a record whose key is there keeps the old row and says so.
    let (kept, _) = try store.withTransaction {
      try Self.load([[Self.box(2, weight: 1)]], into: store, conflict: .ignore)
    }
    #expect(kept == ["kept"])
  }

  @Test(
    "PostgreSQL writes a batch in bulk, and falls back record by record with the same outcomes",
    .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"),
    arguments: [false, true])
  func postgreSQLAgreesWithSQLite(rowByRow: Bool) throws {
    let schema = PostgreSQLSchema()
    try PostgreSQLServer.connect().execute("CREATE SCHEMA \"\(schema.name)\"")
    let store = try schema.connect()
    try Self.migrate(store)
    let (outcomes, loader) = try store.withTransaction {
      try Self.load(Self.batches, into: store, rowByRow: rowByRow)
    }
    #expect(outcomes == Self.expected)
    #expect(loader.writesInBulk)
    #expect(loader.rowsWritten == ["boxes": 5])
    let writes = try #require(loader.totals.bulkWrites)
    // Asked to go record by record, every batch does; else only the one with the bad row.
    #expect(writes.rowByRow == (rowByRow ? 3 : 1))
    #expect((writes.tables["boxes"] == nil) == rowByRow)
    #expect(try store.scalarInt("SELECT sum(weight)::bigint FROM boxes") == 6 + 7 + 2 + 9)
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
  static let owners = Table("owners", key: ["owner_id"], columns: [.integer("owner_id")], onConflict: .upsert)
  static let pets = Table(
    "pets", key: ["pet_id"],
    columns: [.integer("pet_id"), .text("name"), .reference("owner_id", to: owners, field: "owner")])

  private static func plan(_ store: any Store) throws -> RowWriter.Plan {
    try RowWriter.Plan(table: pets, policy: .upsert, children: [], store: store, sql: TableSQL(dialect: store.dialect))
  }

  @Test func sqliteInsertsThenUpdates() throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteConnection(path: directory.file("pets.sqlite"))
    _ = try Migrator.migrate(store, Schema([Self.owners, Self.pets]).migrations(dialect: store.dialect))
    #expect(store.dialect.prefersInsertThenUpdate)
    let plan = try Self.plan(store)
    #expect(plan.updateChanged != nil && plan.upsert == nil)
  }

  @Test(
    .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"))
  func postgreSQLUpsertsInOneStatement() throws {
    let schema = PostgreSQLSchema()
    try PostgreSQLServer.connect().execute("CREATE SCHEMA \"\(schema.name)\"")
    let store = try schema.connect()
    _ = try Migrator.migrate(store, Schema([Self.owners, Self.pets]).migrations(dialect: store.dialect))
    #expect(!store.dialect.prefersInsertThenUpdate)
    let plan = try Self.plan(store)
    #expect(plan.updateChanged == nil && plan.upsert != nil)
  }
}
