import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Staged runs into PostgreSQL (`--stage`): the chunks go to a schema of the run
/// (`sluice_stage_<schema>`) that readers of the target never see, and the run is published in
/// one transaction — killed anywhere, the target is exactly as it was until the publication,
/// and the resume publishes exactly the uninterrupted run.
@Suite(
  "Staged runs into PostgreSQL: resumable and all-or-nothing", .tags(.slow),
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLStagedRunTests {
  let tests: CheckpointCommandTests

  init() throws { tests = try CheckpointCommandTests() }

  var scratch: TemporaryDirectory { tests.scratch }

  /// A target schema, with its staging schema dropped when the test ends.
  final class Target {
    let schema = PostgreSQLSchema()
    var staging: String { "sluice_stage_" + schema.name }
    deinit { _ = try? PostgreSQLServer.connect().execute("DROP SCHEMA IF EXISTS \"\(staging)\" CASCADE") }

    /// In process, but for a kill (`--test-kill-at`), which needs `sluice-faults` of its own.
    func run(_ spec: String, _ extra: [String]) throws -> SluiceBinary.Result {
      let arguments = ["run", spec, "--db", schema.url, "--db-schema", schema.name] + extra
      return try extra.contains("--test-kill-at") ? SluiceBinary.run(arguments) : SluiceCommand.run(arguments)
    }

    func start(_ spec: String, _ extra: [String]) throws -> Process {
      try SluiceBinary.start(["run", spec, "--db", schema.url, "--db-schema", schema.name] + extra)
    }

    /// The rows and the audit, as a reader of the target sees them.
    func state() throws -> String {
      let store = try schema.connect()
      let runs = try store.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'succeeded'") ?? -1
      let inputs = try store.scalarInt("SELECT count(*) FROM sluice_inputs") ?? -1
      return "\(try schema.rows(of: CheckpointCommandTests.tables)) runs \(runs) inputs \(inputs)"
    }

    func stagingExists() throws -> Bool {
      let store = try PostgreSQLServer.connect()
      let statement = try store.prepare("SELECT 1 FROM pg_namespace WHERE nspname = $1")
      try statement.bind(.text(staging), at: 1)
      return try statement.step()
    }
  }

  /// The first 600 orders of the input, loaded earlier: the target's state before tonight's run.
  func earlier() throws -> String {
    try scratch.write(
      "earlier.ndjson",
      try String(contentsOfFile: scratch.file("orders.ndjson"), encoding: .utf8).split(separator: "\n").prefix(600)
        .joined(separator: "\n") + "\n")
  }

  @Test func aStagedRunKilledAnywhereLeavesTheTargetAsItWasAndItsResumePublishesIt() throws {
    try tests.input()
    let spec = try tests.spec()
    let earlier = try earlier()
    let reference = Target()
    #expect(try reference.run(spec, ["--input", earlier]).status == 0)
    let old = try reference.state()
    #expect(try reference.run(spec, []).status == 0)
    let new = try reference.state()
    #expect(new != old)

    // Just after the copy (nothing committed: the resume stages afresh), after chunks, inside
    // the publication.
    for point in ["chunk-0", "chunk-1", "chunk-3", "publish"] {
      let target = Target()
      #expect(try target.run(spec, ["--input", earlier]).status == 0)
      let killed = try target.run(spec, ["--stage", "--checkpoint-every", "300", "--test-kill-at", point])
      #expect(killed.status == SIGKILL, "\(point): \(killed.stderr)")
      #expect(try target.state() == old, "\(point): the target changed before the publication")
      #expect(try target.stagingExists(), "\(point)")
      let runs = try SluiceCommand.run(["runs", target.schema.url, "--db-schema", target.schema.name])
      #expect(runs.status == 0)
      #expect(runs.stderr.contains("is unfinished in schema \(target.staging)"), "\(point): \(runs.stderr)")
      if point.hasPrefix("chunk-"), point != "chunk-0" {
        #expect(runs.stderr.contains("in it, pipeline pipeline: a checkpointed run"), "\(point)")
      }
      if point == "publish" { #expect(runs.stderr.contains("--resume only publishes it")) }
      let again = try target.run(spec, ["--stage"])
      #expect(again.status == 65, "\(point): \(again.stderr)")
      #expect(again.stderr.contains("is unfinished (schema \(target.staging))"), "\(point): \(again.stderr)")
      let resumed = try target.run(spec, ["--stage", "--resume"])
      #expect(resumed.status == 0, "\(point): \(resumed.stderr)")
      #expect(try target.state() == new, "\(point)")
      #expect(try !target.stagingExists(), "\(point): the staging schema is left")
      #expect(try target.schema.connect().scalarInt("SELECT count(*) FROM sluice_checkpoints") == 0)
    }

    // And at random moments: whatever the kill hit, the target is the old state or the new one,
    // and resuming (or, when nothing was staged yet, starting over) ends in the new one.
    let timing = Target()
    let started = Date()
    #expect(try timing.run(spec, ["--stage"]).status == 0)
    let duration = Date().timeIntervalSince(started)
    for attempt in 0..<8 {
      let target = Target()
      #expect(try target.run(spec, ["--input", earlier]).status == 0)
      let process = try target.start(spec, ["--stage", "--checkpoint-every", "300"])
      usleep(useconds_t(Double.random(in: 0.01...max(duration, 0.05)) * 1_000_000))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let now = try target.state()
      #expect(now == old || now == new, "attempt \(attempt): a mixed state")
      if try target.stagingExists() {
        let resumed = try target.run(spec, ["--stage", "--resume"])
        #expect(resumed.status == 0, "attempt \(attempt): \(resumed.stderr)")
      } else if now == old {
        #expect(try target.run(spec, ["--stage"]).status == 0)
      }
      #expect(try target.state() == new, "attempt \(attempt)")
    }
  }

  /// Killed after the publication's commit, before the report and rejects were renamed into
  /// place: `--stage --resume` finds the run's finished checkpoint in the target and puts them
  /// there, exactly as the uninterrupted run's.
  @Test func aStagedRunKilledAfterItsPublicationHasItsOutputsPutInPlaceByTheResume() throws {
    try tests.input()
    let spec = try tests.spec()
    func outputs(_ name: String) -> [String] {
      ["--report", scratch.file("\(name).json"), "--rejects", scratch.file("\(name)-rejects.ndjson")]
    }
    func outcome(_ name: String, _ target: Target) throws -> CheckpointCommandTests.Outcome {
      var result = try tests.outcome(
        database: tests.scratch.file("unused.sqlite"), report: scratch.file("\(name).json"),
        rejects: scratch.file("\(name)-rejects.ndjson"), rows: target.schema.rows(of: CheckpointCommandTests.tables))
      result.report = result.report.replacingOccurrences(of: target.schema.name, with: "S")
      return result
    }
    let reference = Target()
    #expect(try reference.run(spec, outputs("reference")).status == 0)
    let target = Target()
    let killed = try target.run(spec, ["--stage", "--test-kill-at", "finished"] + outputs("staged"))
    #expect(killed.status == SIGKILL, "\(killed.stderr)")
    #expect(try !target.stagingExists())
    #expect(!FileManager.default.fileExists(atPath: scratch.file("staged.json")))
    let resumed = try target.run(spec, ["--stage", "--resume"] + outputs("staged"))
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(try outcome("staged", target) == outcome("reference", reference))
    #expect(try target.schema.connect().scalarInt("SELECT count(*) FROM sluice_checkpoints") == 0)
  }

  /// Into a schema with no tables yet: the tables are created by the publication, with their
  /// keys, indexes and foreign keys, and are ordinary (logged) tables.
  @Test func aFirstStagedLoadCreatesTheTablesAtThePublication() throws {
    try tests.input()
    let spec = try tests.spec()
    let reference = Target()
    #expect(try reference.run(spec, []).status == 0)
    let target = Target()
    let killed = try target.run(spec, ["--stage", "--checkpoint-every", "300", "--test-kill-at", "chunk-2"])
    #expect(killed.status == SIGKILL)
    let admin = try PostgreSQLServer.connect()
    let visible = try admin.prepare(
      "SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = 'orders'")
    try visible.bind(.text(target.schema.name), at: 1)
    #expect(try visible.step() && visible.columnValue(0) == .integer(0), "the target has the run's tables already")
    visible.reset()
    let runs = try SluiceCommand.run(["runs", target.schema.url, "--db-schema", target.schema.name])
    #expect(runs.status == 66, "\(runs.stderr)")
    #expect(runs.stderr.contains("is unfinished in schema \(target.staging)"), "\(runs.stderr)")
    let resumed = try target.run(spec, ["--stage", "--resume"])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(try target.state() == reference.state())
    // The same constraints as a plain run's tables, and no unlogged table left.
    func definitions(_ schema: String) throws -> [String] {
      let statement = try admin.prepare(
        """
        SELECT t.relname || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid) || ' ' || t.relpersistence::text
        FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = $1 ORDER BY 1
        """)
      try statement.bind(.text(schema), at: 1)
      var rows: [String] = []
      while try statement.step() {
        // Without the schema's name, and without the checkpoint tables a plain run has not made.
        if case .text(let text)? = statement.columnValue(0), !text.hasPrefix("sluice_checkpoint") {
          rows.append(text.replacingOccurrences(of: schema + ".", with: ""))
        }
      }
      return rows
    }
    let constraints = try definitions(target.schema.name)
    let plain = try definitions(reference.schema.name)
    #expect(constraints == plain, "\(Set(constraints).symmetricDifference(plain).sorted())")
    #expect(constraints.contains { $0.hasPrefix("order_items order_items_order_id_fkey FOREIGN KEY") })
    #expect(constraints.allSatisfy { $0.hasSuffix(" p") }, "\(constraints)")
    // The audit's identity goes on after the published runs.
    #expect(try target.run(spec, []).status == 0)
    #expect(try target.schema.connect().scalarInt("SELECT max(run_id) FROM sluice_runs") == 2)
  }

  @Test func aTargetWrittenWhileStagedIsNotOverwritten() throws {
    try tests.input()
    let spec = try tests.spec()
    let target = Target()
    #expect(try target.run(spec, ["--input", try earlier()]).status == 0)
    let killed = try target.run(spec, ["--stage", "--checkpoint-every", "300", "--test-kill-at", "chunk-1"])
    #expect(killed.status == SIGKILL)
    // Another process writes to the target meanwhile.
    try target.schema.connect().execute("UPDATE customers SET name = 'Renamed' WHERE customer_id = 3")
    let before = try target.state()
    let resumed = try target.run(spec, ["--stage", "--resume"])
    #expect(resumed.status == 65, "\(resumed.stderr)")
    #expect(resumed.stderr.contains("customers in schema \(target.schema.name) changed while the run was staged"))
    #expect(try target.state() == before)
    let again = try target.run(spec, ["--stage", "--restart"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try target.schema.connect().scalarInt("SELECT count(*) FROM orders") == 1_792)
    #expect(try !target.stagingExists())
  }

  /// A crash of the server empties unlogged tables (here: as the server's recovery does, by
  /// truncating them): the staged rows are gone, and a resume says so rather than publish a
  /// target without them.
  @Test func stagedRowsLostToAServerCrashAreNotPublished() throws {
    try tests.input()
    let spec = try tests.spec()
    let target = Target()
    #expect(try target.run(spec, ["--input", try earlier()]).status == 0)
    let old = try target.state()
    #expect(
      try target.run(spec, ["--stage", "--checkpoint-every", "300", "--test-kill-at", "chunk-2"]).status == SIGKILL)
    let admin = try PostgreSQLServer.connect()
    let unlogged = try admin.prepare(
      "SELECT string_agg(format('%I.%I', n.nspname, c.relname), ', ') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relpersistence = 'u'"
    )
    try unlogged.bind(.text(target.staging), at: 1)
    guard try unlogged.step(), case .text(let list)? = unlogged.columnValue(0) else {
      Issue.record("the staging schema has no unlogged table")
      return
    }
    unlogged.reset()
    try admin.execute("TRUNCATE \(list) CASCADE")
    // The operator's first command after the crash says there is nothing to resume, and what to run.
    let runs = try SluiceCommand.run(["runs", target.schema.url, "--db-schema", target.schema.name])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(
      runs.stderr.contains("and its staged rows were lost: the server restarted after a crash")
        && runs.stderr.contains("'sluice run SPEC --stage --restart' stages it again"), "\(runs.stderr)")
    #expect(!runs.stderr.contains("--stage --resume' finishes"), "\(runs.stderr)")
    let resumed = try target.run(spec, ["--stage", "--resume"])
    #expect(resumed.status == 74, "\(resumed.stderr)")
    #expect(resumed.stderr.contains("were lost: the server restarted after a crash"))
    #expect(try target.state() == old)
    #expect(try target.run(spec, ["--stage", "--restart"]).status == 0)
  }
}
