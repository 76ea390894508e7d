import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

/// A Citus cluster of one test's own — `.ci/with-citus` started for it, a coordinator and two
/// workers — which the test may stop and start (`SLUICE_TEST_CITUS_CONTROL`) without disturbing
/// the suites that share the cluster `.ci/run` started. Torn down when the value goes away.
final class PrivateCitusCluster {
  let url: String
  private let control: String
  private let process: Process
  private let handshake: String
  private let scratch: TemporaryDirectory

  init() throws {
    scratch = try TemporaryDirectory()
    handshake = scratch.file("cluster")
    process = Process()
    process.executableURL = URL(fileURLWithPath: Repository.path(".ci/with-citus"))
    // The command writes where the cluster is, then holds it until the file is gone.
    process.arguments = [
      "bash", "-c",
      #"printf '%s\n%s\n' "$SLUICE_TEST_CITUS_URL" "$SLUICE_TEST_CITUS_CONTROL" > "$HANDSHAKE.new" && mv "$HANDSHAKE.new" "$HANDSHAKE"; while [ -e "$HANDSHAKE" ]; do sleep 0.2; done"#,
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["HANDSHAKE"] = handshake
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: Self.log(scratch)))
    try process.run()
    // Up to three minutes for three servers on a loaded machine; the wait is no assertion.
    var lines: [String] = []
    for _ in 0..<900 where process.isRunning {
      if let text = try? String(contentsOfFile: handshake, encoding: .utf8) {
        lines = text.split(separator: "\n").map(String.init)
        break
      }
      Thread.sleep(forTimeInterval: 0.2)
    }
    guard lines.count == 2 else {
      let log = (try? String(contentsOfFile: Self.log(scratch), encoding: .utf8)) ?? ""
      try? FileManager.default.removeItem(atPath: handshake)
      process.waitUntilExit()
      throw PostgreSQLError(sqlState: "08001", message: "the private Citus cluster did not start: \(log)", server: "")
    }
    url = lines[0]
    control = lines[1]
  }

  private static func log(_ scratch: TemporaryDirectory) -> String {
    let path = scratch.file("with-citus.log")
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    return path
  }

  deinit {
    try? FileManager.default.removeItem(atPath: handshake)
    process.waitUntilExit()
  }

  /// `stop` (at once, as a crash), `start` or `restart` a node: `coordinator`, `worker1`, `worker2`.
  func control(_ action: String, _ node: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: control)
    process.arguments = [action, node]
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "\(action) \(node)")
  }

  func schema(laidOutFor datasets: [String]) throws -> PostgreSQLSchema {
    let schema = PostgreSQLSchema(url: url)
    for dataset in datasets {
      let printed = try SluiceCommand.run(["schema", dataset, "--dialect", "citus"])
      let applied = try CitusCluster.psql(printed.stdout, in: schema)
      try #require(applied.status == 0, "\(applied.stderr)")
    }
    return schema
  }

  /// Polls `sql`, an integer query on the coordinator, until it answers nonzero; false when it
  /// never did within about a minute.
  func waitFor(_ sql: String) throws -> Bool {
    let store = try PostgreSQLStore(url: url)
    for _ in 0..<300 {
      if try store.scalarInt(sql) ?? 0 > 0 { return true }
      Thread.sleep(forTimeInterval: 0.2)
    }
    return false
  }
}

/// Faults of a cluster under a run, on a cluster of the test's own: a worker that is down when a
/// run starts, or stops in the middle of one, fails the run with 74 and leaves nothing of it
/// visible; a coordinator restarted between two runs changes nothing for the second.
@Suite("Citus faults", .serialized, .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct CitusFaultTests {
  static let tables = ["fruits", "recipes", "orders", "order_items", "customers"]

  func run(_ pipeline: String, into schema: PostgreSQLSchema, _ extra: [String] = []) throws -> SluiceBinary.Result {
    try SluiceCommand.run(["run", pipeline, "--db", schema.url, "--db-schema", schema.name] + extra)
  }

  @Test func aWorkerDownOrStoppingFailsTheRunWith74AndNothingOfItIsVisible() throws {
    let cluster = try PrivateCitusCluster()
    let schema = try cluster.schema(laidOutFor: ["fruits", "orders"])

    // Down at the start: the first write to it fails, the run is an I/O error.
    try cluster.control("stop", "worker2")
    let down = try run("Pipelines/fruits-and-orders.json", into: schema)
    #expect(down.status == 74, "\(down.stderr)")
    #expect(down.stderr.contains("connection to the remote node"), "\(down.stderr)")
    try cluster.control("start", "worker2")
    let empty = try schema.rows(of: Self.tables)
    #expect(Self.tables.allSatisfy { empty.count($0) == 0 }, "\(empty)")

    // Stopped mid-run: the fruits went to both workers, the orders wait for a lock another
    // session holds; worker2 stops, the lock goes, the run fails and its fruits are gone too.
    let locker = Process()
    locker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    locker.arguments = [
      "psql", "-X", "-q", "-d", schema.url, "-c",
      "BEGIN; LOCK TABLE \"\(schema.name)\".orders IN EXCLUSIVE MODE; SELECT pg_sleep(600)",
    ]
    locker.standardOutput = FileHandle.nullDevice
    locker.standardError = FileHandle.nullDevice
    try locker.run()
    defer { if locker.isRunning { locker.terminate() } }
    try #require(
      try cluster.waitFor(
        "SELECT count(*) FROM pg_locks WHERE relation = '\"\(schema.name)\".orders'::regclass AND mode = 'ExclusiveLock' AND granted"
      ))
    let loading = SluiceCommand.start([
      "run", "Pipelines/fruits-and-orders.json", "--db", schema.url, "--db-schema", schema.name,
      "--busy-timeout", "120",
    ])
    try #require(
      try cluster.waitFor(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'sluice' AND wait_event_type = 'Lock'"))
    try cluster.control("stop", "worker2")
    _ = try cluster.waitFor(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' AND pid <> pg_backend_pid()"
    )
    let stopped = try loading.finished()
    #expect(stopped.status == 74, "\(stopped.stderr)")
    try cluster.control("start", "worker2")
    let after = try schema.rows(of: Self.tables)
    #expect(Self.tables.allSatisfy { after.count($0) == 0 }, "\(after)")

    // The coordinator restarted between two runs: the second sees the first's rows and
    // changes nothing.
    let first = try run("Pipelines/fruits-and-orders.json", into: schema)
    try #require(first.status == 0, "\(first.stderr)")
    let loaded = try schema.rows(of: Self.tables)
    try cluster.control("restart", "coordinator")
    let second = try run("Pipelines/fruits-and-orders.json", into: schema)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(try schema.rows(of: Self.tables) == loaded)
    #expect(loaded.count("fruits") == 48)
  }
}
