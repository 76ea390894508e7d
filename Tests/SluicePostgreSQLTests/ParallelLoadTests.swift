import Foundation
import SluiceCatalog
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Synchronization
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluicePostgreSQL

/// How `--jobs` splits a run's inputs into lanes: by the tables their datasets share or link.
@Suite("Parallel loads: lanes")
struct LanePlanTests {
  static func schemas(_ names: [String]) -> [Schema] {
    names.compactMap { Catalog.dataset(named: $0)?.schema }
  }

  @Test func inputsOfDatasetsThatShareNoTableGetALaneEach() {
    let plan = LanePlan(schemas: Self.schemas(["fruits", "orders", "messages"]))
    #expect(plan.lanes == [[0], [1], [2]])
    #expect(plan.laneOfTable["fruits"] == 0)
    #expect(plan.laneOfTable["recipes"] == 0)
    #expect(plan.laneOfTable["orders"] == 1)
  }

  @Test func alertsShareTheLaneOfTheDevicesTheyReferenceAndKeepInputOrder() {
    let plan = LanePlan(schemas: Self.schemas(["devices", "fruits", "alerts", "orders"]))
    #expect(plan.lanes == [[0, 2], [1], [3]])
    #expect(plan.laneOfTable["alerts"] == plan.laneOfTable["devices"])
  }

  @Test func theFilesOfOneDatasetShareALane() {
    // A glob's files are inputs of one dataset: the same tables, so one lane, in order.
    let plan = LanePlan(schemas: Self.schemas(["orders", "fruits", "orders", "orders"]))
    #expect(plan.lanes == [[0, 2, 3], [1]])
  }

  @Test func aRunOfOneLaneOrOneJobOrSQLiteLoadsSerially() throws {
    let datasets = ["devices", "alerts"].compactMap { Catalog.dataset(named: $0) }
    var configuration = PipelineConfiguration(
      name: "devices", inputs: [PipelineInput(path: "/a.json"), PipelineInput(path: "/b.json")],
      database: .postgreSQL("postgresql://nobody@/x"))
    configuration.parallelism.jobs = 4
    #expect(try PipelineRunner(configuration: configuration, datasets: datasets).lanePlan == nil)
    let independent = ["fruits", "orders"].compactMap { Catalog.dataset(named: $0) }
    #expect(try PipelineRunner(configuration: configuration, datasets: independent).lanePlan?.lanes == [[0], [1]])
    configuration.database = .sqlite("/tmp/shop.sqlite")
    #expect(try PipelineRunner(configuration: configuration, datasets: independent).lanePlan == nil)
    configuration.database = .postgreSQL("postgresql://nobody@/x")
    configuration.parallelism.jobs = 1
    #expect(try PipelineRunner(configuration: configuration, datasets: independent).lanePlan == nil)
  }
}

/// `--jobs N` against a real server: the same tables, report and rejects file as a serial load,
/// the same failures, and nothing committed when any lane fails. Needs a server.
@Suite(
  "Parallel loads: PostgreSQL",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct ParallelLoadTests {
  /// Three independent inputs with bad records: fruits, orders (legacy scalars) and messages.
  static let messyInputs = [
    PipelineInput(dataset: "fruits", path: Repository.path("SampleData/fruits-broken.ndjson.gz"), format: .ndjson),
    PipelineInput(dataset: "orders", path: Repository.path("SampleData/orders-broken.ndjson.gz"), format: .ndjson),
    PipelineInput(dataset: "messages", path: Repository.path("SampleData/messages.ndjson.gz"), format: .ndjson),
  ]
  /// Every table of the three datasets, lookups included.
  static let tables: [String] = {
    var names: [String] = []
    for dataset in datasets(messyInputs) { names += dataset.schema.tableNames.filter { !names.contains($0) } }
    return names
  }()
  /// The tables records write (not the enums' lookup tables).
  static let dataTables = datasets(messyInputs).flatMap { $0.schema.tables.map(\.name) }

  static var lenient: Policy {
    var policy = Policy(preset: .lenient)
    policy.legacyScalars = true
    policy.lenientArrays = true
    return policy
  }

  static func datasets(_ inputs: [PipelineInput]) -> [AnyDataset] {
    inputs.compactMap { $0.dataset.flatMap(Catalog.dataset(named:)) }
  }

  /// One run of `inputs` into `schema` with `jobs` connections.
  static func run(
    _ inputs: [PipelineInput], into schema: PostgreSQLSchema, jobs: Int, policy: Policy = lenient,
    conflict: ConflictPolicy = .upsert, commit: PipelineConfiguration.LaneCommit = .automatic, rejects: String? = nil,
    report: String? = nil, sampleLimit: Int = 100
  ) throws -> RunReport {
    var configuration = PipelineConfiguration(
      name: "parallel", inputs: inputs, policy: policy, database: .sqlite(""), conflict: conflict, reportPath: report,
      rejectsPath: rejects, issueSampleLimit: sampleLimit)
    configuration.parallelism.jobs = jobs
    configuration.parallelism.commit = commit
    return try Pipeline(datasets: datasets(inputs), configuration: schema.aim(configuration).counted).run()
  }

  /// What a report says about the data, times and the database's name aside: the outcome,
  /// every input's section, issue counts, drift, checks, quarantined records.
  static func essence(_ report: RunReport) -> [String] {
    var lines = report.outcome
    for input in report.inputs {
      lines.append("input \(input.path) \(input.dataset) opened \(input.opened) bytes \(input.compressedBytes)")
      lines += input.stages.map {
        "  \($0.stage.rawValue) in \($0.recordsIn) out \($0.recordsOut) rejected \($0.rejected) warnings \($0.warnings) kept \($0.kept) skipped \($0.skipped)"
      }
      lines += input.issueCounts.sorted { $0.key < $1.key }.map { "  issues \($0.key) \($0.value)" }
      lines += input.rowsWritten.sorted { $0.key < $1.key }.map { "  written \($0.key) \($0.value)" }
    }
    lines += report.issueCounts.sorted { $0.key < $1.key }.map { "issues \($0.key) \($0.value)" }
    lines += report.issues.map { "issue input \($0.input ?? "-") \($0.code.rawValue) at \($0.location?.ordinal ?? -1)" }
    lines += report.checks.map { "check \($0.name) \($0.failures) \($0.warnings)" }
    lines.append(
      "drift \(report.drift.unknownFields.count) \(report.drift.unsupportedEnumValues.count) \(report.drift.otherCount)"
    )
    lines.append("coercions \(report.coercions) quarantined \(report.quarantined)")
    return lines
  }

  @Test(
    "a lenient load over three connections equals a serial one",
    arguments: [
      PipelineConfiguration.LaneCommit.automatic, .ordered,
    ])
  func aParallelLoadEqualsASerialOne(commit: PipelineConfiguration.LaneCommit) throws {
    let directory = try TemporaryDirectory()
    let serialSchema = PostgreSQLSchema()
    let parallelSchema = PostgreSQLSchema()
    // Few samples per code, so which issues a report keeps depends on the inputs' order.
    let serial = try Self.run(
      Self.messyInputs, into: serialSchema, jobs: 1, rejects: directory.file("serial.ndjson"), sampleLimit: 3)
    let jobs = commit == .ordered ? 2 : 3
    let parallel = try Self.run(
      Self.messyInputs, into: parallelSchema, jobs: jobs, commit: commit, rejects: directory.file("parallel.ndjson"),
      report: directory.file("parallel.json"), sampleLimit: 3)
    #expect(serial.status == .succeeded, "\(serial.failure?.message ?? "")")
    #expect(parallel.status == .succeeded, "\(parallel.failure?.message ?? "")")
    #expect(serial.quarantined > 0 && !serial.issues.isEmpty, "the sample data has bad records")
    #expect(Self.essence(parallel) == Self.essence(serial))
    #expect(serial.parallel == nil)
    #expect(
      parallel.parallel
        == .init(connections: jobs, lanes: 3, commit: commit == .ordered ? "ordered" : "two-phase"))
    #expect(try serialSchema.rows(of: Self.tables) == parallelSchema.rows(of: Self.tables))
    #expect(try parallelSchema.rows(of: Self.tables).count("orders") > 0)
    let serialRejects = try String(contentsOfFile: directory.file("serial.ndjson"), encoding: .utf8)
    let parallelRejects = try String(contentsOfFile: directory.file("parallel.ndjson"), encoding: .utf8)
    #expect(!serialRejects.isEmpty)
    #expect(parallelRejects == serialRejects)
    // The deferred indexes were built, and every migration is recorded, as in the serial run.
    #expect(try Self.indexes(in: parallelSchema) == Self.indexes(in: serialSchema))
    #expect(try Set(["orders_by_customer", "messages_by_conversation"]).isSubset(of: Self.indexes(in: parallelSchema)))
    #expect(
      try parallelSchema.rows(of: ["sluice_migrations"]).tables["sluice_migrations"]?.count
        == serialSchema.rows(of: ["sluice_migrations"]).tables["sluice_migrations"]?.count)
    // The report on disk says how it loaded; `parallel` is an additive key.
    let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: directory.file("parallel.json"))))
    #expect(decoded.parallel == parallel.parallel)
    // Both prepared transactions, if any, were committed: none is left behind.
    let store = try PostgreSQLServer.connect()
    #expect(
      try store.scalarInt("SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'sluice:%:\(parallelSchema.name):%'")
        == 0)
    let audit = try parallelSchema.connect()
    #expect(try audit.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'succeeded'") == 1)
    // Its row is the run's, and each lane transaction left its own.
    #expect(try audit.scalarInt("SELECT count(*) FROM sluice_runs") == 1)
    #expect(try audit.scalarInt("SELECT count(*) FROM sluice_run_lanes") == Int64(jobs))
  }

  /// The names of the indexes of a schema's tables.
  static func indexes(in schema: PostgreSQLSchema) throws -> [String] {
    let store = try PostgreSQLServer.connect()
    let statement = try store.prepare("SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname")
    try statement.bind(.text(schema.name), at: 1)
    var names: [String] = []
    while try statement.step() {
      if case .text(let name)? = statement.columnValue(0) { names.append(name) }
    }
    return names
  }

  @Test(
    "a strict failure in one lane leaves the database as it was, with a serial run's message",
    arguments: [
      PipelineConfiguration.LaneCommit.automatic, .ordered,
    ])
  func aStrictFailureInOneLaneRollsBackEveryLane(commit: PipelineConfiguration.LaneCommit) throws {
    let serialSchema = PostgreSQLSchema()
    let parallelSchema = PostgreSQLSchema()
    let good = [
      PipelineInput(dataset: "fruits", path: Repository.path("SampleData/fruits.json.gz"), recordPath: ["fruits"]),
      PipelineInput(dataset: "orders", path: Repository.path("SampleData/orders.json.gz")),
    ]
    // Loaded first, so "as it was" has rows to keep.
    let first = try Self.run(good, into: parallelSchema, jobs: 2, policy: .strict)
    #expect(first.status == .succeeded, "\(first.failure?.message ?? "")")
    let existing = Self.datasets(good).flatMap(\.schema.tableNames)
    let before = try parallelSchema.rows(of: existing)
    // Input 1 breaks the strict policy, and so does input 2: the serial run reports input 1.
    let bad = [
      good[0],
      PipelineInput(dataset: "orders", path: Repository.path("SampleData/orders-broken.ndjson.gz"), format: .ndjson),
      PipelineInput(dataset: "messages", path: Repository.path("SampleData/messages.ndjson.gz"), format: .ndjson),
    ]
    let serial = try Self.run(bad, into: serialSchema, jobs: 1, policy: .strict)
    let parallel = try Self.run(bad, into: parallelSchema, jobs: 3, policy: .strict, commit: commit)
    #expect(serial.failure?.kind == .data)
    #expect(parallel.failure?.kind == .data)
    #expect(parallel.exitCode == 65)
    #expect(parallel.failure?.message == serial.failure?.message)
    #expect(parallel.failure?.message.contains("orders-broken") == true)
    #expect(parallel.committed == false)
    #expect(try parallelSchema.rows(of: existing) == before)
    // The messages' tables are new: migrated before the lanes, committed, and empty.
    let messages = try parallelSchema.rows(of: Catalog.dataset(named: "messages")?.schema.tables.map(\.name) ?? [])
    #expect(!messages.tables.isEmpty)
    #expect(messages.tables.keys.allSatisfy { messages.count($0) == 0 })
    let audit = try parallelSchema.connect()
    #expect(try audit.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'failed'") == 1)
    let store = try PostgreSQLServer.connect()
    #expect(
      try store.scalarInt("SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'sluice:%:\(parallelSchema.name):%'")
        == 0)
  }

  @Test func aFailedFirstParallelRunLeavesOnlyEmptyTables() throws {
    let schema = PostgreSQLSchema()
    let bad = [
      PipelineInput(dataset: "fruits", path: Repository.path("SampleData/fruits.json.gz"), recordPath: ["fruits"]),
      PipelineInput(dataset: "orders", path: Repository.path("SampleData/orders-broken.ndjson.gz"), format: .ndjson),
    ]
    let report = try Self.run(bad, into: schema, jobs: 2, policy: .strict)
    #expect(report.failure?.kind == .data)
    // The schema was migrated in a transaction of its own before the lanes: the tables exist,
    // with no rows.
    let rows = try schema.rows(of: ["fruits", "recipes", "orders"])
    #expect(rows.tables.count == 3)
    #expect(["fruits", "recipes", "orders"].allSatisfy { rows.count($0) == 0 })
  }

  @Test func theErrorBudgetSpansEveryLane() throws {
    let serialSchema = PostgreSQLSchema()
    let parallelSchema = PostgreSQLSchema()
    let inputs = Array(Self.messyInputs.prefix(2))
    // How many each input rejects when nothing limits them.
    let free = try Self.run(inputs, into: PostgreSQLSchema(), jobs: 1)
    let perInput = free.inputs.map { $0.stages.map(\.rejected).reduce(0, +) }
    #expect(perInput.allSatisfy { $0 > 0 }, "\(perInput)")
    var budget = Self.lenient
    // More than either input rejects alone, fewer than both together.
    budget.maxRejects = (perInput.max() ?? 0)
    let serial = try Self.run(inputs, into: serialSchema, jobs: 1, policy: budget)
    let parallel = try Self.run(inputs, into: parallelSchema, jobs: 2, policy: budget)
    #expect(serial.failure?.kind == .data)
    #expect(parallel.failure?.message == serial.failure?.message)
    #expect(parallel.failure?.message.contains("error budget exceeded") == true)
    let rows = try parallelSchema.rows(of: Self.dataTables)
    #expect(Self.dataTables.allSatisfy { rows.count($0) == 0 }, "\(rows)")
  }

  /// Rejects of a later input, counted early by a faster lane, never spend the budget of an
  /// earlier one: here a serial run fails on input 1's broken document (input 0 rejects only 3
  /// records), however fast input 2's 10 rejects come.
  @Test func aLaterInputsRejectsDoNotSpendTheBudgetOfAnEarlierOne() throws {
    let directory = try TemporaryDirectory()
    let good = (1...3000).map { #"{"id": "dev-\#($0)", "name": "Pump \#($0)", "latitude": 1.5, "longitude": 2.5}"# }
    let devices = try directory.write(
      "devices.ndjson", (good + Array(repeating: #"{"id": 5}"#, count: 3)).joined(separator: "\n"))
    let orders = try directory.write("orders.json", #"[{"id": "o-1", "customer": {"#)
    let fruits = try directory.write(
      "fruits.ndjson", Array(repeating: #"{"fruitID": 1}"#, count: 10).joined(separator: "\n"))
    let inputs = [
      PipelineInput(dataset: "devices", path: devices, format: .ndjson),
      PipelineInput(dataset: "orders", path: orders),
      PipelineInput(dataset: "fruits", path: fruits, format: .ndjson),
    ]
    var budget = Policy(preset: .lenient)
    budget.maxRejects = 5
    let serial = try Self.run(inputs, into: PostgreSQLSchema(), jobs: 1, policy: budget)
    let parallel = try Self.run(inputs, into: PostgreSQLSchema(), jobs: 3, policy: budget)
    #expect(serial.failure?.message.contains("is malformed") == true, "\(serial.failure?.message ?? "")")
    #expect(parallel.failure?.message == serial.failure?.message)
    // Input 2 alone spends it: lenient, the serial run reads inputs 0 and 2 and fails on budget.
    let withoutBroken = [inputs[0], inputs[2]]
    let serialBudget = try Self.run(withoutBroken, into: PostgreSQLSchema(), jobs: 1, policy: budget)
    let parallelBudget = try Self.run(withoutBroken, into: PostgreSQLSchema(), jobs: 2, policy: budget)
    #expect(serialBudget.failure?.message.contains("error budget exceeded") == true)
    #expect(parallelBudget.failure?.message == serialBudget.failure?.message)
  }

  @Test func devicesAndTheirAlertsShareALaneAndResolveTheirReferences() throws {
    let serialSchema = PostgreSQLSchema()
    let parallelSchema = PostgreSQLSchema()
    let inputs = [
      PipelineInput(dataset: "devices", path: Repository.path("SampleData/devices/devices.json")),
      PipelineInput(dataset: "fruits", path: Repository.path("SampleData/fruits.json.gz"), recordPath: ["fruits"]),
      PipelineInput(dataset: "alerts", path: Repository.path("SampleData/devices/alerts.json")),
    ]
    let serial = try Self.run(inputs, into: serialSchema, jobs: 1, policy: .strict)
    let parallel = try Self.run(inputs, into: parallelSchema, jobs: 3, policy: .strict)
    #expect(serial.status == .succeeded, "\(serial.failure?.message ?? "")")
    #expect(parallel.status == .succeeded, "\(parallel.failure?.message ?? "")")
    #expect(parallel.parallel?.lanes == 2)
    #expect(parallel.parallel?.connections == 2)
    #expect(Self.essence(parallel) == Self.essence(serial))
    let tables = Array(serial.tableRows.keys)
    #expect(tables.contains("alerts"))
    #expect(try parallelSchema.rows(of: tables) == serialSchema.rows(of: tables))
    #expect(try parallelSchema.rows(of: ["alerts"]).count("alerts") > 0)
  }

  @Test func aParallelRerunThatIgnoresExistingRowsWritesNone() throws {
    let schema = PostgreSQLSchema()
    let inputs = Array(Self.messyInputs.prefix(2))
    let first = try Self.run(inputs, into: schema, jobs: 2, conflict: .ignore)
    #expect(first.status == .succeeded, "\(first.failure?.message ?? "")")
    let before = try schema.rows(of: Self.tables)
    let second = try Self.run(inputs, into: schema, jobs: 2, conflict: .ignore)
    #expect(second.status == .succeeded, "\(second.failure?.message ?? "")")
    #expect(second.parallel?.connections == 2)
    #expect(second.rowsWritten.values.allSatisfy { $0 == 0 }, "\(second.rowsWritten)")
    #expect(try schema.rows(of: Self.tables) == before)
  }

  @Test func theProgressHandlerSeesEveryLanesRecords() throws {
    let schema = PostgreSQLSchema()
    let seen = Mutex<[RunProgress]>([])
    var configuration = PipelineConfiguration(
      name: "progress", inputs: Self.messyInputs, policy: Self.lenient, database: .sqlite(""))
    configuration.parallelism.jobs = 3
    configuration.progressInterval = 0
    configuration.progress = { progress in seen.withLock { $0.append(progress) } }
    let report = try Pipeline(
      datasets: Self.datasets(Self.messyInputs), configuration: schema.aim(configuration).counted
    ).run()
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    let ticks = seen.withLock { $0 }
    #expect(!ticks.isEmpty)
    // The last tick comes after every lane's last batch: it counts every record of the run.
    #expect(ticks.map(\.recordsRead).max() == report.statistics(for: .read).recordsIn)
    #expect(ticks.allSatisfy { $0.inputCount == 3 && $0.mode == .run })
  }

  /// The server ends every connection of the run after its first batch: exit 74 naming the
  /// server, nothing committed.
  @Test func aLostConnectionFailsTheRunWith74AndCommitsNothing() throws {
    let schema = PostgreSQLSchema()
    let application = "sluice_jobs_" + UUID().uuidString.prefix(8).lowercased()
    let killed = Atomic<Bool>(false)
    var configuration = PipelineConfiguration(
      name: "lost", inputs: Self.messyInputs, policy: Self.lenient, database: .sqlite(""))
    configuration = schema.aim(configuration)
    configuration.database.location += "&application_name=\(application)"
    configuration.parallelism.jobs = 3
    configuration.progressInterval = 0
    configuration.progress = { _ in
      guard !killed.exchange(true, ordering: .relaxed) else { return }
      _ = try? PostgreSQLServer.connect().scalarInt(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(application)'")
    }
    let report = try Pipeline(datasets: Self.datasets(Self.messyInputs), configuration: configuration.counted).run()
    let didKill = killed.load(ordering: .relaxed)
    #expect(didKill)
    #expect(report.exitCode == 74, "\(report.failure?.message ?? "")")
    #expect(report.failure?.message.contains("PostgreSQL at host") == true, "\(report.failure?.message ?? "")")
    #expect(report.committed == false)
    let rows = try schema.rows(of: Self.dataTables)
    #expect(Self.dataTables.allSatisfy { rows.count($0) == 0 }, "\(rows)")
  }

  /// The two-phase primitives a parallel run commits with: a prepared transaction is invisible
  /// until committed, from any connection, and a rolled-back one leaves nothing; one that used a
  /// temporary table cannot be prepared, which is why lanes then stage in ordinary tables.
  @Test func preparedTransactionsCommitFromAnyConnectionOrRollBack() throws {
    let schema = PostgreSQLSchema()
    let first = try schema.connect()
    try first.withTransaction { try first.execute("CREATE TABLE t (n integer PRIMARY KEY)") }
    let other = try schema.connect()
    // Not `sluice…`: `sluice recover`, tested at the same time, would take it for a run's.
    let tag = "test-sluice-" + UUID().uuidString.prefix(8).lowercased()
    try first.beginTransaction()
    try first.execute("INSERT INTO t VALUES (1)")
    try first.prepareTransaction("\(tag)-1")
    #expect(try other.scalarInt("SELECT count(*) FROM t") == 0)
    try other.commitPrepared("\(tag)-1")
    #expect(try other.scalarInt("SELECT count(*) FROM t") == 1)
    try first.beginTransaction()
    try first.execute("INSERT INTO t VALUES (2)")
    try first.prepareTransaction("\(tag)-2")
    try first.rollbackPrepared("\(tag)-2")
    #expect(try other.scalarInt("SELECT count(*) FROM t") == 1)
    #expect(try other.scalarInt("SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE '\(tag)%'") == 0)
    try first.beginTransaction()
    try first.execute("CREATE TEMP TABLE scratch (n integer)")
    #expect(throws: PostgreSQLError.self) { try first.prepareTransaction("\(tag)-3") }
    first.rollbackTransaction()
    #expect(try other.scalarInt("SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE '\(tag)%'") == 0)
  }

  @Test func jobsWithSQLiteLoadSerially() throws {
    let directory = try TemporaryDirectory()
    func run(jobs: Int, file: String) throws -> RunReport {
      var configuration = PipelineConfiguration(
        name: "sqlite", inputs: Self.messyInputs, policy: Self.lenient, database: .sqlite(directory.file(file)))
      configuration.parallelism.jobs = jobs
      return try Pipeline(datasets: Self.datasets(Self.messyInputs), configuration: configuration.counted).run()
    }
    let serial = try run(jobs: 1, file: "serial.sqlite")
    let parallel = try run(jobs: 3, file: "parallel.sqlite")
    #expect(parallel.status == .succeeded)
    #expect(parallel.parallel == nil)
    #expect(Self.essence(parallel) == Self.essence(serial))
    #expect(
      try TableRows(sqlite: directory.file("parallel.sqlite"), tables: Self.tables)
        == TableRows(sqlite: directory.file("serial.sqlite"), tables: Self.tables))
  }
}
