import Foundation
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluicePostgreSQL

// Child tables of child tables (NestedOrdersDataset, in SluiceTestSupport) on PostgreSQL and
// Citus, against the rows SQLite has (NestedTableTests, in SluiceCoreTests, on SQLite alone).

/// How `sluice schema --dialect citus` lays the nested orders out: no server needed.
@Suite("Citus: the layout of child tables of child tables")
struct CitusNestedLayoutTests {
  @Test func citusDistributesEveryDepthByTheTopLevelKeyBesideItsRecord() {
    let placements = CitusLayout.placements(of: NestedOrdersDataset().schema.tables)
    #expect(placements["orders"] == .distributed(column: "order_id", colocateWith: nil))
    for table in ["order_lines", "line_taxes", "tax_parts", "part_tags"] {
      #expect(placements[table] == .distributed(column: "order_id", colocateWith: "orders"), "\(table)")
    }
  }
}

/// The same loads into PostgreSQL: its bulk writer (copied straight in, then staged for the
/// re-import) and its row writer leave the rows SQLite has.
@Suite(
  "PostgreSQL: child tables of child tables",
  .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"))
struct PostgreSQLNestedTableTests {
  @Test(arguments: [ConflictPolicy.upsert, .replace, .ignore])
  func theBulkWriterReplacesARecordsRowsAtEveryDepthAsSQLiteDoes(conflict: ConflictPolicy) throws {
    let sqlite = try NestedDatabase()
    let schema = PostgreSQLSchema()
    let many = (0..<30).map {
      NestedOrdersDataset.order("m\($0)", [("a", [(1, [("p", ["x", "y"]), ("q", [])])]), ("b", [(2, [])])])
    }
    let runs: [(String, [String])] = [
      ("first", NestedOrdersDataset.first + many), ("changed", [NestedOrdersDataset.changed] + many),
      ("same", [NestedOrdersDataset.changed]),
      ("twice", [NestedOrdersDataset.first[0], NestedOrdersDataset.changed, NestedOrdersDataset.first[1]]),
    ]
    for (name, lines) in runs {
      let configuration = try sqlite.configuration(name, lines, conflict: conflict)
      let expected = try sqlite.run(configuration)
      let report = try Pipeline(dataset: NestedOrdersDataset(), configuration: schema.aim(configuration)).run()
      #expect(report.status == .succeeded, "\(name): \(report.failure?.message ?? "")")
      #expect(report.rowsWritten == expected.rowsWritten, "\(name)")
      let writes = report.bulkWrites?.tables["orders"]
      if name == "first" { #expect((writes?.copied ?? 0) >= 1, "\(name): \(String(describing: writes))") }
      if name == "changed" { #expect((writes?.staged ?? 0) >= 1, "\(name): \(String(describing: writes))") }
      #expect(try schema.rows(of: NestedOrdersDataset.tableNames) == sqlite.rows(), "\(name)")
    }
    #expect(try sqlite.orphans() == 0)
    let tags = try schema.rows(of: ["part_tags"])
    // Under ignore, o1 keeps its first rows.
    #expect(tags.count("part_tags") == (conflict == .ignore ? 67 : 62))
  }

  @Test func aStagedRunPublishesWhatSQLiteHas() throws {
    let sqlite = try NestedDatabase()
    let schema = PostgreSQLSchema()
    let more = (0..<5).map { NestedOrdersDataset.order("s\($0)", [("a", [(1, [("p", ["x"])])])]) }
    for (name, lines) in [
      ("first", NestedOrdersDataset.first + more), ("changed", [NestedOrdersDataset.changed] + more.prefix(3)),
    ] {
      var configuration = try sqlite.configuration(name, lines, conflict: .upsert)
      _ = try sqlite.run(configuration)
      configuration.checkpointing = .init(recordsPerChunk: 2, staged: true)
      let report = try Pipeline(dataset: NestedOrdersDataset(), configuration: schema.aim(configuration)).run()
      #expect(report.status == .succeeded, "\(name): \(report.failure?.message ?? "")")
      #expect(try schema.rows(of: NestedOrdersDataset.tableNames) == sqlite.rows(), "\(name)")
    }
  }

  @Test func anIssueAboutAGrandchildIsFoundRowByRowAsInSQLite() throws {
    let sqlite = try NestedDatabase()
    let schema = PostgreSQLSchema()
    let bad = NestedOrdersDataset.order("o4", [("a", [(1, [("", [])])])])
    let configuration = try sqlite.configuration(
      "bad", NestedOrdersDataset.first + [bad], conflict: .upsert, policy: Policy(preset: .lenient))
    let expected = try sqlite.run(configuration)
    let report = try Pipeline(dataset: NestedOrdersDataset(), configuration: schema.aim(configuration)).run()
    #expect(report.issues.map(\.code) == [.constraint])
    #expect(report.issues.map(\.path) == expected.issues.map(\.path))
    #expect(try schema.rows(of: NestedOrdersDataset.tableNames) == sqlite.rows())
  }
}

/// On Citus, laid out as `sluice schema --dialect citus` prints it: every depth distributed by
/// the order's key, colocated with the orders, and loaded and replaced as SQLite does.
@Suite(
  "Citus: child tables of child tables", .serialized, .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct CitusNestedTableTests {
  @Test func everyDepthSitsBesideItsRecordAndIsReplacedWithIt() throws {
    let sqlite = try NestedDatabase()
    let schema = CitusCluster.schema()
    let declared = NestedOrdersDataset().schema
    let dialect = PostgreSQLDialect()
    let script =
      declared.migrations(dialect: dialect).map(\.sql)
      + CitusLayout().statements(for: declared, named: "nested", among: [declared], dialect: dialect)
    let applied = try CitusCluster.psql(script.joined(separator: "\n"), in: schema)
    try #require(applied.status == 0, "\(applied.stderr)")
    let layout = try CitusCluster.layout(of: NestedOrdersDataset.tableNames, in: schema)
    #expect(layout["orders"] == "distributed by 'order_id'")
    for table in ["order_lines", "line_taxes", "tax_parts", "part_tags"] {
      #expect(layout[table] == "distributed by 'order_id' colocated with orders", "\(table)")
    }
    let many = (0..<20).map { NestedOrdersDataset.order("m\($0)", [("a", [(1, [("p", ["x", "y"])])])]) }
    for (name, lines) in [
      ("first", NestedOrdersDataset.first + many), ("changed", [NestedOrdersDataset.changed] + many),
    ] {
      let configuration = try sqlite.configuration(name, lines, conflict: .upsert)
      let expected = try sqlite.run(configuration)
      let report = try Pipeline(dataset: NestedOrdersDataset(), configuration: schema.aim(configuration)).run()
      #expect(report.status == .succeeded, "\(name): \(report.failure?.message ?? "")")
      #expect(report.rowsWritten == expected.rowsWritten, "\(name)")
      #expect(try schema.rows(of: NestedOrdersDataset.tableNames) == sqlite.rows(), "\(name)")
    }
  }
}
