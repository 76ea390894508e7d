import Foundation
import SluiceCatalog
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Synchronization
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluicePostgreSQL

/// The commit of a parallel run when something breaks in it, against a real server with real
/// faults: a `PREPARE` the server refuses, connections the server terminates between the steps
/// (`pg_terminate_backend`, from the commit's own points), an ordered commit that fails part-way.
/// Whatever breaks, the database never holds a partial run whose row says it succeeded, and what
/// this process could not finish `PostgreSQLRecovery` finishes by the run's row.
@Suite(
  "Parallel loads: the commit under faults",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct LaneCommitTests {
  /// Three independent inputs, three lanes: fruits, orders, devices.
  static let inputs = [
    PipelineInput(dataset: "fruits", path: Repository.path("SampleData/fruits.json.gz"), recordPath: ["fruits"]),
    PipelineInput(dataset: "orders", path: Repository.path("SampleData/orders.json.gz")),
    PipelineInput(dataset: "devices", path: Repository.path("SampleData/devices/devices.json")),
  ]
  static let tables = ["fruits", "recipes", "customers", "orders", "order_items", "devices"]
  static let datasets = inputs.compactMap { $0.dataset.flatMap(Catalog.dataset(named:)) }

  /// Loads the three inputs over three connections, calling `hook` at each point of the commit.
  static func run(
    into schema: PostgreSQLSchema, commit: PipelineConfiguration.LaneCommit = .twoPhase,
    hook: (@Sendable (LaneCommitPoint, [Int32]) -> Void)? = nil
  ) throws -> RunReport {
    var configuration = PipelineConfiguration(name: "three", inputs: inputs, policy: .strict, database: .sqlite(""))
    configuration.parallelism.jobs = 3
    configuration.parallelism.commit = commit
    configuration.faults.laneCommit = hook
    return try Pipeline(datasets: datasets, configuration: schema.aim(configuration)).run()
  }

  /// Ends server processes and waits (up to 5 s each) until they are gone.
  static func terminate(_ pids: [Int32]) {
    guard let admin = try? PostgreSQLServer.connect() else { return }
    for pid in pids { _ = try? admin.scalarInt("SELECT pg_terminate_backend(\(pid), 5000)::int") }
  }

  /// The three inputs loaded serially into a schema of their own: what a whole run holds.
  static func whole() throws -> TableRows {
    let schema = PostgreSQLSchema()
    var configuration = PipelineConfiguration(name: "three", inputs: inputs, policy: .strict, database: .sqlite(""))
    configuration.parallelism.jobs = 1
    let report = try Pipeline(datasets: datasets, configuration: schema.aim(configuration)).run()
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    return try schema.rows(of: tables)
  }

  static func statuses(_ schema: PostgreSQLSchema) throws -> [String] {
    let statement = try schema.connect().prepare("SELECT status FROM sluice_runs ORDER BY run_id")
    var statuses: [String] = []
    while try statement.step() {
      if case .text(let status)? = statement.columnValue(0) { statuses.append(status) }
    }
    return statuses
  }

  static func prepared(_ schema: PostgreSQLSchema) throws -> Int64? {
    try PostgreSQLServer.connect().scalarInt(
      "SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'sluice:%:\(schema.name):%'")
  }

  static func isEmpty(_ schema: PostgreSQLSchema) throws -> Bool {
    let rows = try schema.rows(of: tables)
    return tables.allSatisfy { rows.count($0) == 0 }
  }

  enum PrepareFault: String, CaseIterable {
    /// Another transaction is prepared under lane 2's id: the server refuses the second.
    case idInUse
    /// Lane 3's connection is ended after lane 2 was prepared.
    case connectionEnded
  }

  @Test(arguments: PrepareFault.allCases)
  func aFailedPrepareRollsBackEveryLaneAndRecordsTheFailure(fault: PrepareFault) throws {
    let schema = PostgreSQLSchema()
    let admin = try PostgreSQLServer.connect()
    var blocker: String?
    if fault == .idInUse {
      // A fresh schema's first run is run 1.
      let database = try #require(try TableRows.text(admin, "SELECT current_database()::text").first)
      let gid = LaneTransactionID(database: database, schema: schema.name, runID: 1, lane: 2, lanes: 3).description
      let other = try PostgreSQLServer.connect()
      try other.execute("BEGIN")
      try other.execute("PREPARE TRANSACTION '\(gid)'")
      blocker = gid
    }
    defer { if let blocker { try? admin.execute("ROLLBACK PREPARED '\(blocker)'") } }
    let report = try Self.run(into: schema) { point, pids in
      if fault == .connectionEnded, point == .prepared(2) { Self.terminate([pids[3]]) }
    }
    #expect(report.exitCode == 74)
    #expect(report.committed == false)
    let message = report.failure?.message ?? ""
    #expect(message.contains("lane transaction \(fault == .idInUse ? 2 : 3) of 3 could not be prepared"), "\(message)")
    #expect(message.contains("nothing of it was committed"), "\(message)")
    #expect(try Self.isEmpty(schema))
    #expect(try Self.statuses(schema) == ["failed"])
    // Nothing of the run is left prepared (the blocker is not the run's).
    #expect(try Self.prepared(schema) == (fault == .idInUse ? 1 : 0))
  }

  /// Every connection of the run is ended after the decision (before any lane committed, or
  /// after the first): the rest cannot be committed by this process. The run says so (74), the
  /// row says `committing`, and the recovery commits the rest, by the row's decision.
  @Test(arguments: [LaneCommitPoint.decided, .committed(1)])
  func aLostCommitPreparedIsFinishedByTheRecovery(point: LaneCommitPoint) throws {
    let schema = PostgreSQLSchema()
    let ended = Atomic<Bool>(false)
    let report = try Self.run(into: schema) { reached, pids in
      if reached == point, !ended.exchange(true, ordering: .relaxed) { Self.terminate(pids) }
    }
    #expect(report.exitCode == 74)
    let message = report.failure?.message ?? ""
    #expect(message.contains("the commit was decided (sluice_runs says committing)"), "\(message)")
    #expect(message.contains("sluice recover"), "\(message)")
    #expect(try Self.statuses(schema) == ["committing"])
    #expect(try Self.prepared(schema) == (point == .decided ? 3 : 2))

    let recovery = try PostgreSQLRecovery(url: schema.url, schema: schema.name)
    let scan = try recovery.scan()
    let run = try #require(scan.runs.first)
    #expect(scan.runs.count == 1)
    #expect(run.action == .commit)
    #expect(run.isDecided)
    #expect(run.prepared.count == (point == .decided ? 3 : 2))
    #expect(try recovery.recover(run).contains("every lane is committed: succeeded"))
    #expect(try Self.statuses(schema) == ["succeeded"])
    #expect(try Self.prepared(schema) == 0)
    #expect(try schema.rows(of: Self.tables) == Self.whole())
    #expect(try recovery.scan().needsRecovery == false)
  }

  /// The coordinating connection is ended just before it records the decision: whether the
  /// decision was recorded, the row alone says — read on a lane's connection with the
  /// compare-and-set of a roll-back — so the run is rolled back, never half committed.
  @Test func aDecisionThatCannotBeRecordedRollsTheRunBack() throws {
    let schema = PostgreSQLSchema()
    let report = try Self.run(into: schema) { point, pids in
      if point == .prepared(3) { Self.terminate([pids[0]]) }
    }
    #expect(report.exitCode == 74)
    let message = report.failure?.message ?? ""
    #expect(message.contains("the commit decision could not be recorded"), "\(message)")
    #expect(message.contains("nothing of it was committed"), "\(message)")
    #expect(try Self.isEmpty(schema))
    #expect(try Self.statuses(schema) == ["failed"])
    #expect(try Self.prepared(schema) == 0)
  }

  /// Ordered (no prepared transactions): lane 2's connection ends after lane 1 committed. Lane 1's
  /// rows stay, lanes 2 and 3 are rolled back, and the row says `partial`, naming what was
  /// committed — never `succeeded`.
  @Test func anOrderedCommitFailingPartWayIsRecordedAsPartial() throws {
    let schema = PostgreSQLSchema()
    let report = try Self.run(into: schema, commit: .ordered) { point, pids in
      if point == .committed(1) { Self.terminate([pids[2]]) }
    }
    #expect(report.exitCode == 74)
    #expect(report.parallel == nil || report.committed == false)
    let message = report.failure?.message ?? ""
    #expect(message.contains("the commit of lane transaction 2 of 3 failed"), "\(message)")
    #expect(try Self.statuses(schema) == ["partial"])
    // Which input lane 1 loaded depends on which connection took it: its row says.
    let committed = try TableRows.text(schema.connect(), "SELECT inputs->>0 FROM sluice_run_lanes")
    #expect(committed.count == 1)
    let input = try #require(committed.first)
    #expect(message.contains("only lane transaction(s) 1 of 3 were committed (inputs: \(input))"), "\(message)")
    let rows = try schema.rows(of: Self.tables)
    for (path, table, count) in [
      (Self.inputs[0].path, "fruits", 48), (Self.inputs[1].path, "orders", 2000), (Self.inputs[2].path, "devices", 8),
    ] {
      #expect(rows.count(table) == (path == input ? count : 0), "\(table)")
    }
    let failure = try #require(try TableRows.text(schema.connect(), "SELECT failure FROM sluice_runs").first)
    #expect(failure.contains("only lane transaction(s) 1 of 3 were committed"))
    // Settled already: nothing for the recovery to do.
    #expect(try PostgreSQLRecovery(url: schema.url, schema: schema.name).scan().needsRecovery == false)
  }

  /// A run in progress holds its lock: the recovery lists it as such and leaves it alone, even
  /// with its lanes prepared and no decision yet.
  @Test func theRecoveryLeavesARunInProgressAlone() throws {
    let schema = PostgreSQLSchema()
    let seen = Mutex<[String]>([])
    let (url, name) = (schema.url, schema.name)
    let report = try Self.run(into: schema) { point, _ in
      guard point == .prepared(3), let recovery = try? PostgreSQLRecovery(url: url, schema: name),
        let run = try? recovery.scan().runs.first
      else { return }
      seen.withLock { $0 = [run.summary, (try? recovery.recover(run)) ?? "error"] }
    }
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    let lines = seen.withLock { $0 }
    #expect(lines.count == 2)
    #expect(lines.first?.contains("in progress") == true, "\(lines)")
    #expect(lines.last?.contains("left alone") == true, "\(lines)")
    #expect(try Self.statuses(schema) == ["succeeded"])
    #expect(try schema.rows(of: Self.tables) == Self.whole())
  }
}

extension TableRows {
  /// The first column of each row of a query, as text.
  static func text(_ store: PostgreSQLStore, _ sql: String) throws -> [String] {
    let statement = try store.prepare(sql)
    var texts: [String] = []
    while try statement.step() {
      if case .text(let text)? = statement.columnValue(0) { texts.append(text) }
    }
    return texts
  }
}
