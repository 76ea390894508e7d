import Foundation
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// PostgreSQL's bulk writer lets the tables' foreign keys check references a record does not
/// resolve itself. The row writer writes record by record, so a record naming a row that a
/// later record of the same batch brings is an orphan there; copied table by table, that row
/// would already be in. Such a batch goes row by row, and both stores agree.
@Suite(
  "PostgreSQL: a reference to a row a later record brings",
  .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"))
struct PostgreSQLForwardReferenceTests {
  let directory: TemporaryDirectory
  let sqlitePath: String
  let schema = PostgreSQLSchema()

  init() throws {
    directory = try TemporaryDirectory()
    sqlitePath = directory.file("projects.sqlite")
  }

  /// The same lines into SQLite and into PostgreSQL.
  func run(_ name: String, _ lines: [String], policy: Policy) throws -> (sqlite: RunReport, postgreSQL: RunReport) {
    let input = try directory.write("\(name).ndjson", lines.joined(separator: "\n") + "\n")
    var configuration = PipelineConfiguration(
      name: name, input: input, format: .ndjson, policy: policy, database: .sqlite(sqlitePath), conflict: .upsert)
    configuration.reportPath = nil
    return (
      try Pipeline(dataset: ProjectsDataset(), configuration: configuration.counted).run(),
      try Pipeline(dataset: ProjectsDataset(), configuration: schema.aim(configuration).counted).run()
    )
  }

  static func places(_ report: RunReport) -> [String] {
    report.issues.map { "\($0.code.rawValue) \($0.path) line \($0.location.map { String($0.line) } ?? "-")" }
  }

  func tables() throws -> (sqlite: TableRows, postgreSQL: TableRows) {
    (
      try TableRows(sqlite: sqlitePath, tables: ProjectsDataset().schema.tableNames),
      try schema.rows(of: ProjectsDataset().schema.tableNames)
    )
  }

  @Test func aBatchNamingARowALaterRecordBringsGoesRowByRowAsTheRowWriterWritesIt() throws {
    let first = try run("people", [project("p0", owner: "alice", people: [alice, bob])], policy: .strict)
    #expect(first.postgreSQL.status == .succeeded, "\(first.postgreSQL.failure?.message ?? "")")

    // Carol owns p1 before the record that brings her: an orphan, record by record.
    let lines = [
      project("p1", owner: "carol", tasks: [("Plan", "alice")]),
      project("p2", owner: "alice", people: [("carol", "Carol", nil)], tasks: [("Build", "carol")]),
    ]
    let reports = try run("forward", lines, policy: Policy(preset: .lenient))
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(Self.places(reports.postgreSQL) == ["orphanReference owner line 1"])
    #expect(Self.places(reports.postgreSQL) == Self.places(reports.sqlite))
    #expect(reports.postgreSQL.rowsWritten == reports.sqlite.rowsWritten)
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect(writes.tables["projects"] == nil, "\(writes)")
    #expect(writes.rowByRow >= 1, "\(writes)")
    var (sqlite, postgreSQL) = try tables()
    #expect(postgreSQL == sqlite)

    // Projects and tasks naming people the tables have, and no record bringing people: the
    // foreign keys check them, in bulk.
    let known = (3..<40).map { project("p\($0)", owner: $0 % 2 == 0 ? "alice" : "carol", tasks: [("Ship", "bob")]) }
    let bulk = try run("known", known, policy: .strict)
    #expect(bulk.postgreSQL.status == .succeeded, "\(bulk.postgreSQL.failure?.message ?? "")")
    #expect(bulk.postgreSQL.rowsWritten == bulk.sqlite.rowsWritten)
    let bulkWrites = try #require(bulk.postgreSQL.bulkWrites)
    #expect((bulkWrites.tables["projects"]?.copied ?? 0) >= 1, "\(bulkWrites)")
    #expect(bulkWrites.rowByRow == 0, "\(bulkWrites)")
    (sqlite, postgreSQL) = try tables()
    #expect(postgreSQL == sqlite)
  }
}
