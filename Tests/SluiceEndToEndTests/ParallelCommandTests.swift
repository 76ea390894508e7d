import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice run --jobs N` as a user runs it: the real binary, a real server, exit codes and the
/// summary's account of the lanes.
@Suite(
  "Parallel loads on the command line",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct ParallelCommandTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  func run(_ arguments: [String], environment: [String: String] = [:]) throws -> SluiceBinary.Result {
    // The environment (PGPASSWORD) is the process's: only a process of its own has another.
    if environment.isEmpty { return try SluiceCommand.run(arguments) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: SluiceBinary.path)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: Repository.root)
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    return try SluiceBinary.capture(process)
  }

  /// A spec of three independent inputs; `orders` names the orders file (a broken one fails a
  /// strict run).
  func spec(orders: String = "SampleData/orders.json.gz", ordersFormat: String = "json") throws -> String {
    let root = Repository.root
    return try scratch.write(
      "three.json",
      """
      {
        "inputs": [
          {"dataset": "fruits", "input": "\(root)/SampleData/fruits.json.gz", "recordPath": "fruits"},
          {"dataset": "orders", "input": "\(root)/\(orders)", "format": "\(ordersFormat)"},
          {"dataset": "devices", "input": "\(root)/SampleData/devices/devices.json"}
        ],
        "policy": "strict",
        "database": "\(scratch.file("unused.sqlite"))"
      }
      """)
  }

  @Test func jobsLoadsIndependentInputsOverSeveralConnectionsInOneRun() throws {
    let schema = PostgreSQLSchema()
    let serialSchema = PostgreSQLSchema()
    let spec = try spec()
    let result = try run([
      "run", spec, "--db", schema.url, "--db-schema", schema.name, "--jobs", "2", "--report", scratch.file("p.json"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("parallel: 3 lanes over 2 connections, two-phase commit"))
    let serial = try run([
      "run", spec, "--db", serialSchema.url, "--db-schema", serialSchema.name, "--report", scratch.file("s.json"),
    ])
    #expect(serial.status == 0, "\(serial.stderr)")
    #expect(!serial.stderr.contains("parallel:"))
    let tables = ["fruits", "recipes", "orders", "devices"]
    #expect(try schema.rows(of: tables) == serialSchema.rows(of: tables))
    #expect(try schema.rows(of: tables).count("orders") > 0)
    // The input ledger of a parallel run is the serial run's: a row per input, in input order,
    // with the same digests and counts.
    let ledger = "SELECT position, dataset, status, sha256, records_read, records_loaded FROM sluice_inputs"
    #expect(try schema.rows(of: ["sluice_inputs"]).count("sluice_inputs") == 3)
    #expect(try ledgerRows(schema, ledger) == ledgerRows(serialSchema, ledger))
    // The ordered commit, forced as the tests force it, loads the same.
    let ordered = PostgreSQLSchema()
    let third = try run(
      [
        "run", spec, "--db", ordered.url, "--db-schema", ordered.name, "--jobs", "3", "--lane-commit", "ordered",
        "--report", scratch.file("o.json"),
      ])
    #expect(third.status == 0, "\(third.stderr)")
    #expect(third.stderr.contains("parallel: 3 lanes over 3 connections, ordered commit"))
    #expect(try ordered.rows(of: tables) == serialSchema.rows(of: tables))
  }

  private func ledgerRows(_ schema: PostgreSQLSchema, _ query: String) throws -> [String] {
    let statement = try schema.connect().prepare(query + " ORDER BY position")
    var rows: [String] = []
    while try statement.step() {
      rows.append(
        (0..<6).map { "\(statement.columnValue(Int32($0)).map { "\($0)" } ?? "NULL")" }.joined(separator: "|"))
    }
    return rows
  }

  @Test func aStrictFailureExitsWith65AndTheSerialRunsReason() throws {
    let schema = PostgreSQLSchema()
    let spec = try spec(orders: "SampleData/orders-broken.ndjson.gz", ordersFormat: "ndjson")
    let parallel = try run([
      "run", spec, "--db", schema.url, "--db-schema", schema.name, "--jobs", "3", "--report", scratch.file("p.json"),
    ])
    let serialSchema = PostgreSQLSchema()
    let serial = try run([
      "run", spec, "--db", serialSchema.url, "--db-schema", serialSchema.name, "--report", scratch.file("s.json"),
    ])
    #expect(parallel.status == 65)
    #expect(serial.status == 65)
    let reason = { (stderr: String) in stderr.split(separator: "\n").first { $0.contains("reason:") } }
    #expect(reason(parallel.stderr) != nil)
    #expect(reason(parallel.stderr) == reason(serial.stderr))
    let rows = try schema.rows(of: ["fruits", "orders", "devices"])
    #expect(rows.count("fruits") == 0 && rows.count("orders") == 0 && rows.count("devices") == 0)
  }

  @Test func badJobsAreAUsageErrorAndSQLiteLoadsSerially() throws {
    let spec = try spec()
    let zero = try run(["run", spec, "--jobs", "0"])
    #expect(zero.status == 64)
    #expect(zero.stderr.contains("--jobs must be a whole number from 1 to"))
    let sqlite = try run(["run", spec, "--jobs", "2", "--report", scratch.file("q.json")])
    #expect(sqlite.status == 0, "\(sqlite.stderr)")
    #expect(sqlite.stderr.contains("--jobs applies to a database server that loads in lanes (PostgreSQL)"))
    #expect(!sqlite.stderr.contains("parallel:"))
  }

  /// A checkpointed run commits chunk by chunk on one connection: `--jobs` with it is refused,
  /// naming both, before anything is opened.
  @Test func jobsWithACheckpointedRunIsRefusedNamingBoth() throws {
    let spec = try spec()
    let schema = PostgreSQLSchema()
    let chunked = try run([
      "run", spec, "--db", schema.url, "--db-schema", schema.name, "--jobs", "2", "--checkpoint-every", "50",
      "--report", scratch.file("chunked.json"),
    ])
    #expect(chunked.status == 64, "\(chunked.stderr)")
    #expect(
      chunked.stderr.contains(
        "--jobs 2 and --checkpoint-every do not go together: a checkpointed run commits chunk by chunk on one connection, so the inputs would load one after another; drop one"
      ),
      "\(chunked.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("chunked.json")))
  }

  @Test func aConnectionThatFailsIsExit74NamingTheHostNeverThePassword() throws {
    let role = "sluice_jobs_" + UUID().uuidString.prefix(8).lowercased()
    let admin = try PostgreSQLServer.connect()
    try admin.execute("CREATE ROLE \(role) LOGIN PASSWORD 'right-horse-battery'")
    defer { try? admin.execute("DROP ROLE IF EXISTS \(role)") }
    let url = "postgresql://\(role)@127.0.0.1:\(PostgreSQLServer.port)/sluice"
    let result = try run(
      ["run", try spec(), "--db", url, "--jobs", "2", "--report", scratch.file("r.json")],
      environment: ["PGPASSWORD": "wrong-staple-4711"])
    #expect(result.status == 74)
    #expect(result.stderr.contains("host 127.0.0.1, port \(PostgreSQLServer.port)"))
    #expect(!result.stderr.contains("wrong-staple-4711"))
  }
}
