import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `sluice plan` and checkpointed runs on the real cluster, over the orders (reference tables
/// and distributed ones). A plan — into freshly laid-out tables, again over the loaded ones, and
/// of another export over them — changes nothing on the cluster (every table's rows, the audit
/// tables and their sequence, no table left behind); the run right after it reports exactly the
/// plan's counts, which are also the same run's on plain PostgreSQL (rows written included), and
/// makes exactly the changes the plan listed. A checkpointed run killed at a chunk's commit has
/// committed those chunks, and `--resume` ends it with exactly the rows and report of the
/// uninterrupted run, and no checkpoint left.
@Suite(
  "Citus plans and checkpointed runs", .serialized, .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct CitusPlanAndResumeTests {
  let citus: CitusPipelineTests
  var scratch: TemporaryDirectory { citus.scratch }

  init() throws { citus = try CitusPipelineTests() }

  /// The audit tables a run records itself in.
  static let auditTables = ["sluice_runs", "sluice_rejects", "sluice_inputs", "sluice_migrations"]

  /// The relations of `schema` on the coordinator (tables, indexes, sequences, with each
  /// sequence's last value), and the plans' copies anywhere: what a plan must leave as it found.
  ///
  /// Only the schema's own sequences are opened for their last value: the `pg_sequences` view
  /// opens every sequence of the database, and one that a test running beside this one drops
  /// meanwhile fails the query ("could not open relation with OID …", seen in CI).
  static func relations(in schema: PostgreSQLSchema) throws -> [String] {
    let store = try CitusCluster.connect()
    let statement = try store.prepare(
      """
      SELECT c.relname || ' ' || c.relkind::text
        || coalesce(' ' || CASE WHEN c.relkind = 'S' AND n.nspname = $1 THEN pg_sequence_last_value(c.oid)::text END, '')
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 OR c.relname LIKE 'sluice\\_plan\\_%' ORDER BY 1
      """)
    try statement.bind(.text(schema.name), at: 1)
    defer { statement.reset() }
    var relations: [String] = []
    while try statement.step() {
      if case .text(let relation)? = statement.columnValue(0) { relations.append(relation) }
    }
    return relations
  }

  /// Each row of `table` by its key columns' values, as a plan compares them.
  static func rowsByKey(_ schema: PostgreSQLSchema, _ table: Table) throws -> [String: String] {
    let store = try schema.connect()
    let columns = table.allColumns.map(\.name)
    let statement = try store.prepare(
      "SELECT \(columns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \"\(table.name)\"")
    defer { statement.reset() }
    var rows: [String: String] = [:]
    while try statement.step() {
      var key: [String] = []
      var all: [String] = []
      for (index, column) in columns.enumerated() {
        let text = statement.columnValue(Int32(index)).map { "\($0)" } ?? "NULL"
        all.append(text)
        if table.key.contains(column) { key.append(text) }
      }
      rows[key.joined(separator: "\u{1}")] = all.joined(separator: "\u{1}")
    }
    return rows
  }

  static func snapshot(_ schema: PostgreSQLSchema, _ tables: [Table]) throws -> [String: [String: String]] {
    var rows: [String: [String: String]] = [:]
    for table in tables { rows[table.name] = try rowsByKey(schema, table) }
    return rows
  }

  func report(_ path: String) throws -> RunReport {
    try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test func aPlanChangesNothingOnTheClusterAndTheRunAfterItMakesExactlyItsChanges() throws {
    let tables = try CitusPipelineTests.schemasToPrint(for: ["orders"]).tables + Self.auditTables
    let planned = try PlanCommandTests().schemaTables("orders.json")
    let schema = CitusCluster.schema()
    try citus.layOut(["orders"], in: schema)
    let target = ["--db", schema.url, "--db-schema", schema.name]
    // The same runs on plain PostgreSQL (without that server, SQLite), whose reports they match.
    let plain = PostgreSQLServer.isAvailable ? PostgreSQLSchema() : nil
    let reference =
      plain.map { ["--db", $0.url, "--db-schema", $0.name] } ?? ["--db", scratch.file("reference.sqlite")]
    let broken = [
      "--input", Repository.path("SampleData/orders-broken.ndjson.gz"), "--format", "ndjson", "--policy", "lenient",
    ]
    let passes: [(name: String, extra: [String], changes: ClosedRange<Int>)] = [
      ("into the laid-out tables", [], 1...Int.max), ("again over the loaded ones", [], 0...0),
      ("of the broken export over them", broken, 1...Int.max),
    ]
    for pass in passes {
      let rows = try schema.rows(of: tables)
      let relations = try Self.relations(in: schema)
      let planPath = scratch.file("plan-\(UUID().uuidString).json")
      let plan = try SluiceCommand.run(
        ["plan", "Pipelines/orders.json", "--report", planPath] + target + pass.extra)
      #expect(plan.status == 0, "\(pass.name): \(plan.stderr)")
      #expect(try schema.rows(of: tables) == rows, "\(pass.name): the plan changed rows")
      #expect(try Self.relations(in: schema) == relations, "\(pass.name): the plan left tables or used the sequence")
      let planReport = try report(planPath)
      let changes = try #require(planReport.plan, "\(pass.name)")
      #expect(pass.changes.contains(changes.changes), "\(pass.name): \(changes.changes) changes")

      let before = try Self.snapshot(schema, planned)
      let runPath = scratch.file("run-\(UUID().uuidString).json")
      let run = try SluiceCommand.run(["run", "Pipelines/orders.json", "--report", runPath] + target + pass.extra)
      #expect(run.status == plan.status, "\(pass.name): \(run.stderr)")
      let (plannedCounts, ranCounts) = (
        PlanCommandTests.counts(planReport), PlanCommandTests.counts(try report(runPath))
      )
      #expect(
        plannedCounts == ranCounts,
        "\(pass.name): \(CheckpointCommandTests.difference(plannedCounts, from: ranCounts))")
      let referencePath = scratch.file("reference-\(UUID().uuidString).json")
      let referenceRun = try SluiceCommand.run(
        ["run", "Pipelines/orders.json", "--report", referencePath] + reference + pass.extra)
      #expect(referenceRun.status == run.status, "\(pass.name): \(referenceRun.stderr)")
      let referenceCounts = PlanCommandTests.counts(try report(referencePath))
      #expect(
        ranCounts == referenceCounts,
        "\(pass.name): \(CheckpointCommandTests.difference(ranCounts, from: referenceCounts))")
      let after = try Self.snapshot(schema, planned)
      let actual = PlanCommandTests.actualChanges(before: before, after: after)
      for table in changes.tables {
        #expect(
          actual[table.table] == "insert \(table.inserts) update \(table.updates) delete \(table.deletes)",
          "\(pass.name): \(table.table)")
        #expect(table.inserts + table.updates + table.unchanged == after[table.table]?.count, "\(pass.name)")
      }
    }
  }

  @Test func aCheckpointedRunKilledAtAChunkCommitAndResumedEndsAsTheUninterruptedRun() throws {
    let tables = try CitusPipelineTests.schemasToPrint(for: ["orders"]).tables
    let checkpoints = try CheckpointCommandTests()
    let whole = CitusCluster.schema()
    let chunked = CitusCluster.schema()
    for schema in [whole, chunked] { try citus.layOut(["orders"], in: schema) }
    func arguments(_ schema: PostgreSQLSchema, _ name: String, _ extra: [String]) -> [String] {
      [
        "run", "Pipelines/orders.json", "--db", schema.url, "--db-schema", schema.name, "--report",
        scratch.file("\(name).json"), "--rejects", scratch.file("\(name)-rejects.ndjson"),
      ] + extra
    }
    func outcome(_ name: String, _ schema: PostgreSQLSchema) throws -> CheckpointCommandTests.Outcome {
      try checkpoints.outcome(
        database: scratch.file("unused.sqlite"), report: scratch.file("\(name).json"),
        rejects: scratch.file("\(name)-rejects.ndjson"), rows: schema.rows(of: tables))
    }
    let uninterrupted = try SluiceCommand.run(arguments(whole, "whole", []))
    try #require(uninterrupted.status == 0, "\(uninterrupted.stderr)")

    // 2000 orders in chunks of about 500: killed just after the second chunk's commit.
    let killed = try SluiceBinary.run(
      arguments(chunked, "chunked", ["--checkpoint-every", "500", "--test-kill-at", "chunk-2"]))
    #expect(killed.status == SIGKILL, "\(killed.stderr)")
    let committed = try chunked.rows(of: ["orders"]).count("orders")
    #expect(committed > 0 && committed < 2000, "\(committed) orders committed")
    let store = try chunked.connect()
    #expect(try store.scalarInt("SELECT chunk FROM sluice_checkpoints WHERE pipeline = 'orders'") == 2)
    #expect(try store.scalarInt("SELECT records FROM sluice_checkpoints WHERE pipeline = 'orders'") == Int64(committed))

    let resumed = try SluiceCommand.run(arguments(chunked, "chunked", ["--resume"]))
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let (resumedOutcome, wholeOutcome) = (try outcome("chunked", chunked), try outcome("whole", whole))
    #expect(resumedOutcome.rows == wholeOutcome.rows)
    #expect(resumedOutcome.rejects == wholeOutcome.rejects)
    #expect(
      resumedOutcome.report == wholeOutcome.report,
      "\(CheckpointCommandTests.difference(resumedOutcome.report, from: wholeOutcome.report))")
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_checkpoints") == 0)
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_checkpoint_keys") == 0)
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'succeeded'") == 1)
  }
}
