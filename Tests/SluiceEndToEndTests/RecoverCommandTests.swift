import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice run --jobs 3` killed with SIGKILL at each point of its commit (`--test-kill-at`, an
/// option of the tests' build of the binary, `sluice-faults`, makes it kill itself there, as
/// `kill -9` would), then `sluice runs` and
/// `sluice recover` as a person would use them: after `recover --apply` the database holds the
/// whole run or nothing of it, and `sluice runs` says which.
@Suite(
  "sluice recover",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"),
  .tags(.slow))
struct RecoverCommandTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  func sluice(_ arguments: [String], environment: [String: String] = [:]) throws -> (SluiceBinary.Result, Process) {
    let process = Process()
    process.executableURL = SluiceBinary.executable(for: arguments)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: Repository.root)
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    let result = try SluiceBinary.capture(process)
    return (result, process)
  }

  func run(_ arguments: [String], environment: [String: String] = [:]) throws -> SluiceBinary.Result {
    // Only what is killed or needs another environment runs a process of its own.
    if environment.isEmpty && !arguments.contains("--test-kill-at") { return try SluiceCommand.run(arguments) }
    return try sluice(arguments, environment: environment).0
  }

  /// Three independent inputs: three lanes.
  func spec() throws -> String {
    let root = Repository.root
    return try scratch.write(
      "three.json",
      """
      {
        "inputs": [
          {"dataset": "fruits", "input": "\(root)/SampleData/fruits.json.gz", "recordPath": "fruits"},
          {"dataset": "orders", "input": "\(root)/SampleData/orders.json.gz"},
          {"dataset": "devices", "input": "\(root)/SampleData/devices/devices.json"}
        ],
        "policy": "strict",
        "database": "\(scratch.file("unused.sqlite"))"
      }
      """)
  }

  static let tables = ["fruits", "recipes", "customers", "orders", "order_items", "devices"]

  func loadArguments(_ schema: PostgreSQLSchema, jobs: Int, options: [String]) throws -> [String] {
    [
      "run", try spec(), "--db", schema.url, "--db-schema", schema.name, "--jobs", "\(jobs)", "--report",
      scratch.file("r.json"),
    ] + options
  }

  /// The three inputs loaded into `schema`, in process.
  func load(_ schema: PostgreSQLSchema, jobs: Int = 3, options: [String] = []) throws -> SluiceBinary.Result {
    try run(loadArguments(schema, jobs: jobs, options: options))
  }

  /// The three inputs loaded into `schema` by `sluice-faults`, killed at `point`: the process, to
  /// see how it ended.
  func loadKilled(_ schema: PostgreSQLSchema, at point: String, options: [String] = []) throws -> Process {
    try sluice(loadArguments(schema, jobs: 3, options: ["--test-kill-at", point] + options)).1
  }

  /// The run's status in `sluice runs --json`.
  func status(_ schema: PostgreSQLSchema) throws -> [String] {
    let listed = try run(["runs", schema.url, "--db-schema", schema.name, "--json"])
    let runs = try JSONDecoder().decode([RecordedRun].self, from: Data(listed.stdout.utf8))
    return runs.map(\.status)
  }

  /// Where the kill comes, and what recovering must make of the run: committed whole when the
  /// decision was recorded, rolled back otherwise.
  @Test(arguments: [
    ("prepared-1", "two-phase", false), ("prepared-3", "two-phase", false), ("decided", "two-phase", true),
    ("committed-1", "two-phase", true), ("committed-3", "two-phase", true), ("decided", "ordered", false),
    ("committed-1", "ordered", false), ("committed-3", "ordered", true),
  ])
  func aRunKilledWhileCommittingIsRecoveredWholeOrNotAtAll(point: String, commit: String, whole: Bool) throws {
    let schema = PostgreSQLSchema()
    let serial = PostgreSQLSchema()
    #expect(try load(serial, jobs: 1).status == 0)
    let killed = try loadKilled(schema, at: point, options: ["--lane-commit", commit])
    #expect(killed.terminationReason == .uncaughtSignal)
    #expect(killed.terminationStatus == SIGKILL)

    // `sluice runs` says the run is in doubt and names `sluice recover`.
    let runs = try run(["runs", schema.url, "--db-schema", schema.name])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(runs.stderr.contains("run 1 (schema \(schema.name)) was interrupted and is in doubt"), "\(runs.stderr)")
    #expect(runs.stderr.contains("sluice recover"))
    #expect(try status(schema) != ["succeeded"])

    let listed = try run(["recover", schema.url, "--db-schema", schema.name])
    #expect(listed.status == 1, "\(listed.stderr)")
    #expect(listed.stdout.contains("run 1 in schema \(schema.name); 3 lane transaction(s)"), "\(listed.stdout)")
    #expect(listed.stdout.contains(whole ? "commit decided" : "sluice_runs"), "\(listed.stdout)")
    #expect(listed.stderr.contains("--apply"))

    let applied = try run(["recover", schema.url, "--db-schema", schema.name, "--apply"])
    #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
    let rows = try schema.rows(of: Self.tables)
    if whole {
      #expect(rows == (try serial.rows(of: Self.tables)))
      #expect(try status(schema) == ["succeeded"])
    } else if commit == "ordered" && point == "committed-1" {
      // Lane 1 was committed before the kill: the run is partial, and says which input it holds.
      #expect(try status(schema) == ["partial"])
      let detail = try run(["runs", schema.url, "--db-schema", schema.name, "1"])
      #expect(detail.stdout.contains("only lane transaction(s) 1 of 3 were committed"), "\(detail.stdout)")
      #expect(Self.tables.filter { rows.count($0) > 0 }.count >= 1)
    } else {
      #expect(Self.tables.allSatisfy { rows.count($0) == 0 }, "\(rows)")
      #expect(try status(schema) == ["failed"])
    }
    let again = try run(["recover", schema.url, "--db-schema", schema.name])
    #expect(again.status == 0, "\(again.stdout)")
    #expect(again.stderr.contains("no interrupted parallel run to recover"))
    let after = try run(["runs", schema.url, "--db-schema", schema.name])
    #expect(!after.stderr.contains("in doubt"))
  }

  /// Prepared lanes of a killed run hold their locks: a later run into the same tables waits
  /// for them in vain, fails with 74 as before, and says what holds them and what settles it.
  @Test func aLaterRunThatMeetsTheLocksOfPreparedLanesNamesSluiceRecover() throws {
    let schema = PostgreSQLSchema()
    let killed = try loadKilled(schema, at: "prepared-3")
    #expect(killed.terminationStatus == SIGKILL)
    let blocked = try run([
      "run", try spec(), "--db", schema.url, "--db-schema", schema.name, "--jobs", "3", "--busy-timeout", "1",
      "--report", scratch.file("blocked.json"),
    ])
    #expect(blocked.status == 74, "\(blocked.stderr)")
    #expect(blocked.stderr.contains("is locked by another process"))
    #expect(
      blocked.stderr.contains("prepared transaction(s) of an interrupted parallel run (--jobs) hold locks"),
      "\(blocked.stderr)")
    #expect(blocked.stderr.contains("sluice recover \(schema.url)"))
    let applied = try run(["recover", schema.url, "--db-schema", schema.name, "--apply"])
    #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
    let loaded = try load(schema)
    #expect(loaded.status == 0, "\(loaded.stderr)")
    #expect(try schema.rows(of: ["orders"]).count("orders") == 2000)
  }

  @Test func recoverTakesOnlyAPostgreSQLDatabaseAndSaysWhenThereIsNothingToDo() throws {
    let sqlite = try run(["recover", scratch.file("shop.sqlite")])
    #expect(sqlite.status == 64)
    #expect(sqlite.stderr.contains("recover applies to a database server whose runs commit in lanes (PostgreSQL"))
    let schema = PostgreSQLSchema()
    #expect(try load(schema).status == 0)
    let nothing = try run(["recover", schema.url, "--db-schema", schema.name])
    #expect(nothing.status == 0, "\(nothing.stderr)")
    #expect(nothing.stdout.isEmpty)
    #expect(nothing.stderr.contains("no interrupted parallel run to recover"))
    let help = try run(["--help"])
    #expect(help.stdout.contains("sluice recover DB"))
  }
}
