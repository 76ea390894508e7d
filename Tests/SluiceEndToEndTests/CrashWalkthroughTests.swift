import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The walk-throughs of docs/operations.md ("After a crash: what `sluice runs` says, and what to
/// run next"), each done as written there: the crash (a process of the binary, killed), `sluice
/// runs`, the command its output names, and the state that command ends in (in process).
@Suite("After a crash: the operator's walk-throughs", .tags(.slow))
struct CrashWalkthroughTests {
  /// The orders input, spec and reference run of the checkpoint tests.
  let orders: CheckpointCommandTests

  init() throws { orders = try CheckpointCommandTests() }

  var scratch: TemporaryDirectory { orders.scratch }

  /// `count` fruits as NDJSON with long recipes: enough changed pages that SQLite spills them
  /// into the database file long before the run's commit (its page cache is 16 MiB).
  func bigFruits(count: Int) throws -> String {
    let description = String(repeating: "Slice, season and serve. ", count: 16)
    var text = ""
    text.reserveCapacity(count * 1_600)
    for index in 0..<count {
      text += #"{"fruitID": "big\#(index)", "name": "Fruit \#(index)", "color": "c\#(index % 7)", "recipes": ["#
      text += (0..<3).map {
        #"{"title": "Recipe \#($0) of \#(index)", "description": "\#(description)", "videoTutorial": "https://example.com/\#(index)/\#($0)"}"#
      }
      .joined(separator: ",")
      text += "]}\n"
    }
    return try scratch.write("big.ndjson", text)
  }

  static func size(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
  }

  /// A SQLite run killed once SQLite has spilled pages of its transaction into the database
  /// file: `sluice runs` rolls the hot journal back, says so and names the run to run again; run
  /// again, it loads everything.
  @Test func aSQLiteRunKilledLeavingAHotJournal() throws {
    let database = scratch.file("nightly.sqlite")
    #expect(try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database]).status == 0)
    let input = try bigFruits(count: 30_000)
    let command = ["run", "Pipelines/fruits.json", "--input", input, "--format", "ndjson", "--db", database]
    let before = Self.size(database)
    let process = try SluiceBinary.start(command)
    // Killed once the database file has grown by 2 MB: pages of the open transaction, spilled.
    while process.isRunning && Self.size(database) < before + 2_000_000 { usleep(5_000) }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    try #require(process.terminationReason == .uncaughtSignal, "the run ended before it could be killed")
    let journal = try Data(contentsOf: URL(fileURLWithPath: database + "-journal"))
    try #require(journal.starts(with: [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]), "the journal is not hot")

    let runs = try SluiceCommand.run(["runs", database])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(
      runs.stderr.contains(
        "a transaction left unfinished by a process that crashed (its hot journal \(database)-journal) was found and rolled back"
      ), "\(runs.stderr)")
    #expect(runs.stderr.contains("run it again ('sluice run SPEC'"), "\(runs.stderr)")
    #expect(runs.stdout.split(separator: "\n").count == 2, "only the run before the crash: \(runs.stdout)")
    #expect(!FileManager.default.fileExists(atPath: database + "-journal"))

    let again = try SluiceCommand.run(command)
    #expect(again.status == 0, "\(again.stderr)")
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
    #expect(try connection.scalarInt("SELECT count(*) FROM fruits WHERE fruit_id LIKE 'big%'") == 30_000)
    #expect(try connection.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'succeeded'") == 2)
    let after = try SluiceCommand.run(["runs", database])
    #expect(after.stderr.isEmpty, "\(after.stderr)")
  }

  /// A checkpointed run killed after its second chunk: `sluice runs` names the unfinished run
  /// and `--resume`; the nightly command with `--resume` ends as the uninterrupted run.
  @Test func aCheckpointedRunKilled() throws {
    try orders.input()
    let spec = try orders.spec()
    let expected = try orders.reference(spec)
    let nightly = orders.arguments(spec, "nightly", ["--checkpoint-every", "300"])
    let killed = try SluiceBinary.run(nightly + ["--test-kill-at", "chunk-2"])
    #expect(killed.status == SIGKILL)

    let database = scratch.file("nightly.sqlite")
    let runs = try SluiceCommand.run(["runs", database])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(runs.stderr.contains("pipeline pipeline: a checkpointed run started"), "\(runs.stderr)")
    #expect(runs.stderr.contains("2 chunk(s) committed"), "\(runs.stderr)")
    #expect(runs.stderr.contains("'sluice run SPEC --resume' goes on in"), "\(runs.stderr)")

    let resumed = try SluiceCommand.run(nightly + ["--resume"])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let result = try orders.outcome(
      database: database, report: scratch.file("nightly.json"), rejects: scratch.file("nightly-rejects.ndjson"))
    #expect(result == expected)
    let after = try SluiceCommand.run(["runs", database])
    #expect(!after.stderr.contains("unfinished"), "\(after.stderr)")
  }

  /// A staged run killed after its second chunk: the target is as it was, `sluice runs` names
  /// the side database and `--stage --resume`, which publishes the whole run.
  @Test func aStagedRunKilled() throws {
    try orders.input()
    let spec = try orders.spec()
    let expected = try orders.reference(spec)
    let database = scratch.file("shop.sqlite")
    #expect(try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database]).status == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: database))
    let staged = orders.arguments(spec, "shop", ["--stage"])
    let killed = try SluiceBinary.run(staged + ["--checkpoint-every", "300", "--test-kill-at", "chunk-2"])
    #expect(killed.status == SIGKILL)
    #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)

    let runs = try SluiceCommand.run(["runs", database])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(
      runs.stderr.contains("a staged run into \(database) is unfinished in \(database).sluice-stage"), "\(runs.stderr)")
    #expect(runs.stderr.contains("'sluice run SPEC --stage --resume' finishes and publishes it"), "\(runs.stderr)")

    let resumed = try SluiceCommand.run(staged + ["--resume"])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let result = try orders.outcome(
      database: database, report: scratch.file("shop.json"), rejects: scratch.file("shop-rejects.ndjson"))
    #expect(result == expected)
    #expect(!FileManager.default.fileExists(atPath: database + ".sluice-stage"))
    let fruits = try SQLiteConnection(path: database, options: .init(readOnly: true))
    #expect(try fruits.scalarInt("SELECT count(*) FROM fruits") == 48)
    let after = try SluiceCommand.run(["runs", database])
    #expect(!after.stderr.contains("unfinished"), "\(after.stderr)")
  }
}

/// The PostgreSQL walk-throughs: the server gone mid-run, and a `--jobs` run interrupted while
/// committing its lanes.
@Suite(
  "After a crash: the operator's walk-throughs on PostgreSQL", .tags(.slow),
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLCrashWalkthroughTests {
  /// A stopping server ends every session — `pg_ctl stop` terminates the backends — and here
  /// the run's session is ended so (`pg_terminate_backend`) once two chunks are committed, so
  /// that the other tests using the server go on. The run exits 74; once the server is back,
  /// `sluice runs` names the unfinished run and `--resume`, which ends with the rows of the
  /// run uninterrupted.
  @Test func thePostgreSQLServerStoppedMidRun() throws {
    let orders = try CheckpointCommandTests()
    try orders.input(count: 6_000)
    let spec = try orders.spec()
    let reference = PostgreSQLSchema()
    let nightly = PostgreSQLSchema()
    #expect(try SluiceCommand.run(["run", spec, "--db", reference.url, "--db-schema", reference.name]).status == 0)
    let command = ["run", spec, "--db", nightly.url, "--db-schema", nightly.name, "--checkpoint-every", "300"]
    let (terminated, status) = try CheckpointCommandTests.runEndedBySessionAfterTwoChunks(
      ["run", spec, "--checkpoint-every", "300"], into: nightly)
    try #require(terminated, "the run ended before its second chunk could be interrupted")
    #expect(status == 74)

    let runs = try SluiceCommand.run(["runs", nightly.url, "--db-schema", nightly.name])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(runs.stderr.contains("pipeline pipeline: a checkpointed run started"), "\(runs.stderr)")
    #expect(runs.stderr.contains("'sluice run SPEC --resume' goes on in"), "\(runs.stderr)")

    let resumed = try SluiceCommand.run(command + ["--resume"])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(try nightly.rows(of: CheckpointCommandTests.tables) == reference.rows(of: CheckpointCommandTests.tables))
    let after = try SluiceCommand.run(["runs", nightly.url, "--db-schema", nightly.name])
    #expect(!after.stderr.contains("unfinished"), "\(after.stderr)")
  }

  /// A `--jobs 3` run killed once its commit was decided, before any lane committed:
  /// `sluice runs` says the run is in doubt and names `sluice recover`; `recover` lists it,
  /// `recover --apply` commits it whole, and `sluice runs` then shows it succeeded.
  @Test func aJobsRunInterruptedWhileCommitting() throws {
    let recover = try RecoverCommandTests()
    let schema = PostgreSQLSchema()
    let serial = PostgreSQLSchema()
    #expect(try recover.load(serial, jobs: 1).status == 0)
    let killed = try recover.loadKilled(schema, at: "decided", options: ["--lane-commit", "two-phase"])
    #expect(killed.terminationReason == .uncaughtSignal)

    let runs = try SluiceCommand.run(["runs", schema.url, "--db-schema", schema.name])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(runs.stderr.contains("run 1 (schema \(schema.name)) was interrupted and is in doubt"), "\(runs.stderr)")
    #expect(
      runs.stderr.contains("'sluice recover \(schema.url) --db-schema \(schema.name)' says so, and --apply settles it"),
      "\(runs.stderr)")

    let listed = try SluiceCommand.run(["recover", schema.url, "--db-schema", schema.name])
    #expect(listed.status == 1, "\(listed.stderr)")
    #expect(listed.stderr.contains("--apply"), "\(listed.stderr)")
    let applied = try SluiceCommand.run(["recover", schema.url, "--db-schema", schema.name, "--apply"])
    #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
    #expect(try schema.rows(of: RecoverCommandTests.tables) == serial.rows(of: RecoverCommandTests.tables))
    #expect(try recover.status(schema) == ["succeeded"])
    let after = try SluiceCommand.run(["runs", schema.url, "--db-schema", schema.name])
    #expect(!after.stderr.contains("in doubt"), "\(after.stderr)")
  }
}
