import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The audit tables are declared once (`AuditTables`); before, each driver declared them in its
/// own SQL and numbered the migrations apart. Databases an earlier Sluice migrated
/// (`Tests/Fixtures/audit-tables`) must take new runs without migrating again, and a database
/// migrated now must have the same tables and record the numbers the earlier Sluice looks for.
@Suite("The audit tables of databases an earlier Sluice migrated")
struct AuditTablesUpgradeTests {
  static let fixtures = Repository.path("Tests/Fixtures/audit-tables")
  static let auditTables = ["sluice_runs", "sluice_rejects", "sluice_inputs"]

  /// `identifier` of every row of `sluice_migrations`, sorted.
  static func migrations(_ store: some Store) throws -> [String] {
    let select = try store.prepare("SELECT identifier FROM sluice_migrations ORDER BY identifier")
    var identifiers: [String] = []
    while try select.step() {
      if case .text(let identifier)? = select.columnValue(0) { identifiers.append(identifier) }
    }
    return identifiers
  }

  /// Each column of `table` as `name type notnull pk`, and its indexes, in SQLite.
  static func shape(of table: String, in connection: SQLiteConnection) throws -> [String] {
    let columns = try connection.prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)")
    try columns.bind([.text(table)])
    var shape: [String] = []
    while try columns.step() {
      shape.append((0..<Int32(4)).map { "\(columns.columnValue($0).map { "\($0)" } ?? "NULL")" }.joined(separator: " "))
    }
    let indexes = try connection.prepare("SELECT name FROM pragma_index_list(?1) ORDER BY name")
    try indexes.bind([.text(table)])
    while try indexes.step() { shape.append("index \(indexes.columnValue(0).map { "\($0)" } ?? "")") }
    return shape
  }

  @Test func aSQLiteDatabaseMigratedUnderTheOldNumbersTakesNewRunsWithoutMigratingAgain() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    try FileManager.default.copyItem(atPath: Self.fixtures + "/fruits-sqlite-78f7516.sqlite", toPath: database)
    let before = try Self.migrations(SQLiteConnection(path: database))
    #expect(before.contains("sluice-audit-4"))

    // The earlier Sluice's ledger is read: the sample's content was loaded by run 1.
    let incremental = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database, "--incremental"])
    #expect(incremental.status == 0, "\(incremental.stderr)")
    // "unchanged since run 1" where the clone is where the fixture was made, else "same content
    // as …/SampleData/fruits.json.gz loaded by run 1".
    #expect(
      incremental.stderr.contains("1 of 1 input(s) skipped, their content already loaded")
        && incremental.stderr.contains("run 1)"),
      "the fixture's ledger holds SampleData/fruits.json.gz as of 78f7516: \(incremental.stderr)")
    let run = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database])
    #expect(run.status == 0, "\(run.stderr)")
    // `sluice-audit-3` (the ledger) and `-4` (rows_deleted) are this driver's former numbers of
    // `sluice-audit-inputs` and `sluice-audit-rows-deleted`: nothing is applied again; only the
    // remote inputs' columns, which came later, are added.
    #expect(
      try Self.migrations(SQLiteConnection(path: database)) == (before + ["sluice-audit-inputs-remote"]).sorted())
    let runs = try SluiceCommand.run(["runs", database])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(runs.stdout.split(separator: "\n").count == 4, "a header and the three runs:\n\(runs.stdout)")
  }

  @Test func aSQLiteDatabaseFromBeforeTheLedgerGainsItUnderItsNewNameAndItsFormerNumber() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    try FileManager.default.copyItem(atPath: Self.fixtures + "/fruits-sqlite-78f7516.sqlite", toPath: database)
    // As a release before the ledger and the snapshots left it.
    try SQLiteConnection(path: database).execute(
      """
      DROP TABLE sluice_inputs;
      ALTER TABLE sluice_runs DROP COLUMN rows_deleted;
      DELETE FROM sluice_migrations WHERE identifier IN ('sluice-audit-3', 'sluice-audit-4');
      """)
    let run = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database])
    #expect(run.status == 0, "\(run.stderr)")
    let connection = try SQLiteConnection(path: database)
    let applied = try Self.migrations(connection)
    for identifier in ["sluice-audit-inputs", "sluice-audit-3", "sluice-audit-rows-deleted", "sluice-audit-4"] {
      #expect(applied.contains(identifier), "\(identifier) in \(applied)")
    }
    #expect(try connection.scalarInt("SELECT count(*) FROM sluice_inputs") == 1)
    #expect(try connection.scalarInt("SELECT count(*) FROM sluice_runs WHERE rows_deleted IS NULL") == 2)
  }

  @Test func aNewSQLiteDatabaseHasTheTablesAnEarlierSluiceMadeAndItsNumbers() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("new.sqlite")
    let run = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database])
    #expect(run.status == 0, "\(run.stderr)")
    let new = try SQLiteConnection(path: database)
    let fixture = Self.fixtures + "/fruits-sqlite-78f7516.sqlite"
    let old = try SQLiteConnection(path: fixture, options: .init(readOnly: true))
    for table in Self.auditTables {
      var shape = try Self.shape(of: table, in: new)
      if table == "sluice_inputs" {
        // The remote inputs' ETag and Last-Modified came after that Sluice: nullable text.
        let added = shape.filter { $0.contains("etag") || $0.contains("last_modified") }
        #expect(added.count == 2 && added.allSatisfy { $0.contains("TEXT") && !$0.contains("index") }, "\(added)")
        shape.removeAll { added.contains($0) }
      }
      #expect(try shape == Self.shape(of: table, in: old), "\(table)")
    }
    // STRICT, as before, so a value of the wrong type is refused rather than stored.
    #expect(try new.scalarInt("SELECT count(*) FROM pragma_table_list WHERE name LIKE 'sluice_%' AND strict = 1") == 4)
    // An earlier Sluice finds the numbers it looks for, and applies nothing twice.
    let applied = try Self.migrations(new)
    for identifier in (1...4).map({ "sluice-audit-\($0)" }) {
      #expect(applied.contains(identifier), "\(identifier) in \(applied)")
    }
    #expect(!applied.contains("sluice-audit-lanes"), "SQLite loads in no lanes")
  }

  /// The PostgreSQL dump of a schema an earlier Sluice wrote, restored as `schema`.
  static func restoreLegacyDump(into schema: PostgreSQLSchema) throws {
    let dump = try String(contentsOfFile: fixtures + "/fruits-postgresql-78f7516.sql", encoding: .utf8)
    try PostgreSQLServer.connect().execute(dump.replacingOccurrences(of: "legacy_audit", with: schema.name))
  }

  /// Each column of the audit tables as `table.column type nullable`, in PostgreSQL.
  static func shape(of schema: PostgreSQLSchema) throws -> [String] {
    let store = try schema.connect()
    let select = try store.prepare(
      """
      SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
      FROM information_schema.columns
      WHERE table_schema = $1 AND table_name IN ('sluice_runs', 'sluice_rejects', 'sluice_inputs', 'sluice_run_lanes')
      ORDER BY table_name, ordinal_position
      """)
    try select.bind([.text(schema.name)])
    var shape: [String] = []
    while try select.step() { if case .text(let line)? = select.columnValue(0) { shape.append(line) } }
    return shape
  }

  @Test(.enabled(if: PostgreSQLServer.isAvailable, "needs SLUICE_TEST_POSTGRES_URL (.ci/with-postgres)"))
  func aPostgreSQLSchemaMigratedUnderTheOldNumbersTakesNewRunsWithoutMigratingAgain() throws {
    let schema = PostgreSQLSchema()
    try Self.restoreLegacyDump(into: schema)
    let before = try Self.migrations(schema.connect())
    #expect(before.contains("sluice-audit-5"))
    let arguments = ["run", "Pipelines/fruits.json", "--db", schema.url, "--db-schema", schema.name]
    let incremental = try SluiceCommand.run(arguments + ["--incremental"])
    #expect(incremental.status == 0, "\(incremental.stderr)")
    // Both of the dump's runs loaded the sample: either may be named, and the path only where
    // the clone is where the dump was made.
    #expect(
      incremental.stderr.contains("1 of 1 input(s) skipped, their content already loaded")
        && (incremental.stderr.contains("run 1)") || incremental.stderr.contains("run 2)")),
      "\(incremental.stderr)")
    let run = try SluiceCommand.run(arguments)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try Self.migrations(schema.connect()) == (before + ["sluice-audit-inputs-remote"]).sorted())
    // The identity goes on from the dump's two runs.
    #expect(try schema.connect().scalarInt("SELECT max(run_id) FROM sluice_runs") == 4)
  }

  @Test(.enabled(if: PostgreSQLServer.isAvailable, "needs SLUICE_TEST_POSTGRES_URL (.ci/with-postgres)"))
  func aNewPostgreSQLSchemaHasTheTablesAnEarlierSluiceMadeAndItsNumbers() throws {
    let legacy = PostgreSQLSchema()
    try Self.restoreLegacyDump(into: legacy)
    let schema = PostgreSQLSchema()
    let run = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", schema.url, "--db-schema", schema.name])
    #expect(run.status == 0, "\(run.stderr)")
    // The one difference: the integers the lanes and the ledger's positions had are bigint, as
    // every integer the engine declares.
    var widened = try Self.shape(of: legacy).map {
      $0.replacingOccurrences(of: " integer ", with: " bigint ")
    }
    // And the remote inputs' ETag and Last-Modified, which came after that Sluice.
    let ledgerEnd = (widened.lastIndex { $0.hasPrefix("sluice_inputs.") } ?? widened.count - 1) + 1
    widened.insert(contentsOf: ["sluice_inputs.etag text YES", "sluice_inputs.last_modified text YES"], at: ledgerEnd)
    #expect(try Self.shape(of: schema) == widened)
    let applied = try Self.migrations(schema.connect())
    for identifier in (1...5).map({ "sluice-audit-\($0)" }) + ["sluice-audit-lanes", "sluice-audit-inputs"] {
      #expect(applied.contains(identifier), "\(identifier) in \(applied)")
    }
  }
}
