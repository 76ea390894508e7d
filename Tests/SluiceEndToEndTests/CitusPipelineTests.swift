import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Every committed pipeline on a real Citus cluster (`.ci/with-citus`), into tables laid out by
/// `sluice schema --dialect citus`: the first run ends as the same run on plain PostgreSQL (or,
/// without that server, SQLite) does — the same exit status and, table by table, the same rows
/// (and, against PostgreSQL, the same rows written) —
/// a failed one leaves the cluster as it was, and a second run changes nothing.
@Suite(
  "Citus pipelines on a real cluster", .serialized, .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct CitusPipelineTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  /// Every pipeline spec in Pipelines/.
  static func pipelines() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: Repository.path("Pipelines"))
      .filter { $0.hasSuffix(".json") }.sorted().map { "Pipelines/" + $0 }
  }

  /// Pipelines that load on top of another's rows (patches need their profiles).
  static let loadedFirst = ["Pipelines/profile-patches.json": "Pipelines/profiles.json"]

  /// The datasets a spec loads, in order: its `dataset`, or each input's.
  static func datasets(of pipeline: String) throws -> [String] {
    let data = try Data(contentsOf: URL(fileURLWithPath: Repository.path(pipeline)))
    let spec = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let inputs = spec["inputs"] as? [[String: Any]] ?? [spec]
    return inputs.compactMap { $0["dataset"] as? String }
  }

  /// The datasets whose printed schemas create a pipeline's tables once each: those whose tables
  /// no other dataset of the pipeline creates as well as more (alerts' schema holds devices).
  static func schemasToPrint(for datasets: [String]) throws -> (names: [String], tables: [String]) {
    let tables = try datasets.map { name in
      Set(try #require(Catalog.dataset(named: name), "unknown dataset \(name)").schema.tableNames)
    }
    var names: [String] = []
    var chosen: [Set<String>] = []
    for (index, name) in datasets.enumerated() {
      let own = tables[index]
      if tables.contains(where: { own.isStrictSubset(of: $0) }) || chosen.contains(own) { continue }
      #expect(chosen.allSatisfy { $0.isDisjoint(with: own) }, "\(name) shares tables with another dataset")
      names.append(name)
      chosen.append(own)
    }
    var ordered: [String] = []
    for name in datasets.flatMap({ Catalog.dataset(named: $0)?.schema.tableNames ?? [] })
    where !ordered.contains(name) {
      ordered.append(name)
    }
    return (names, ordered)
  }

  /// Lays a pipeline's tables out in a new schema on the cluster, as a user would.
  func layOut(_ datasets: [String], in schema: PostgreSQLSchema) throws {
    for dataset in datasets {
      let printed = try SluiceCommand.run(["schema", dataset, "--dialect", "citus"])
      try #require(printed.status == 0, "\(printed.stderr)")
      let applied = try CitusCluster.psql(printed.stdout, in: schema)
      try #require(applied.status == 0, "\(dataset): \(applied.stderr)")
    }
  }

  func run(_ pipeline: String, into target: [String], _ extra: [String] = [], report: String? = nil) throws
    -> SluiceBinary.Result
  {
    try SluiceCommand.run(
      ["run", pipeline, "--report", report ?? scratch.file("report-\(UUID().uuidString).json")] + target + extra)
  }

  /// The rows a run's report says it wrote, per table.
  func rowsWritten(_ report: String) throws -> [String: Int] {
    let data = try Data(contentsOf: URL(fileURLWithPath: report))
    let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return json["rowsWritten"] as? [String: Int] ?? [:]
  }

  /// The same load on plain PostgreSQL when the tests have that server, else into SQLite: its
  /// exit status and rows.
  func reference(_ pipeline: String, tables: [String]) throws -> (
    status: Int32, rows: TableRows, written: [String: Int]?
  ) {
    if PostgreSQLServer.isAvailable {
      let plain = PostgreSQLSchema()
      let target = ["--db", plain.url, "--db-schema", plain.name]
      if let first = Self.loadedFirst[pipeline] { try #require(try run(first, into: target).status == 0) }
      let report = scratch.file("reference-\(UUID().uuidString).json")
      let result = try run(pipeline, into: target, report: report)
      return (result.status, try plain.rows(of: tables), try rowsWritten(report))
    }
    let path = scratch.file("reference-\(UUID().uuidString).sqlite")
    if let first = Self.loadedFirst[pipeline] { try #require(try run(first, into: ["--db", path]).status == 0) }
    let result = try run(pipeline, into: ["--db", path])
    // Without a PostgreSQL server only the rows are compared (the counts are checked against
    // PostgreSQL's).
    return (result.status, try TableRows(sqlite: path, tables: tables), nil)
  }

  @Test(arguments: try pipelines())
  func aPipelineLoadsIntoTheClusterAsIntoPostgreSQLAndRepeatsWithoutAChange(pipeline: String) throws {
    let (datasets, tables) = try Self.schemasToPrint(for: try Self.datasets(of: pipeline))
    let schema = CitusCluster.schema()
    try layOut(datasets, in: schema)
    let target = ["--db", schema.url, "--db-schema", schema.name]
    if let first = Self.loadedFirst[pipeline] {
      let loaded = try run(first, into: target)
      try #require(loaded.status == 0, "\(loaded.stderr)")
    }
    let before = try schema.rows(of: tables)

    let firstReport = scratch.file("first-\(UUID().uuidString).json")
    let first = try run(pipeline, into: target, report: firstReport)
    let loaded = try schema.rows(of: tables)
    let reference = try reference(pipeline, tables: tables)
    #expect(first.status == reference.status, "\(first.stderr)")
    // The rows written, table by table, as plain PostgreSQL's report says (Citus's command tags
    // once counted rows an upsert met unchanged).
    if let written = reference.written { #expect(try rowsWritten(firstReport) == written) }
    if first.status != 0 {
      // A failed run (the strict messages sample holds a bad record) leaves the cluster as it
      // was, and the reference without a row (in a schema it did not even create).
      #expect(loaded == before)
      #expect(tables.allSatisfy { reference.rows.count($0) == 0 && loaded.count($0) == 0 }, "\(reference.rows)")
    } else {
      #expect(loaded == reference.rows)
      #expect(loaded != before)
    }

    let again = try run(pipeline, into: target)
    #expect(again.status == first.status, "\(again.stderr)")
    #expect(try schema.rows(of: tables) == loaded)

    // The runs are recorded in the coordinator's own tables, which Citus leaves local.
    let store = try schema.connect()
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_runs") == (Self.loadedFirst[pipeline] == nil ? 2 : 3))
    let audit = try CitusCluster.layout(of: ["sluice_runs", "sluice_rejects", "sluice_migrations"], in: schema)
    #expect(audit.values.allSatisfy { $0 == "local" }, "\(audit)")
  }

  /// The fruits go to shards on both workers, each worker holding some: rows really sit there.
  @Test func loadedRowsSitOnBothWorkers() throws {
    let schema = CitusCluster.schema()
    try layOut(["fruits"], in: schema)
    let result = try run("Pipelines/fruits.json", into: ["--db", schema.url, "--db-schema", schema.name])
    try #require(result.status == 0, "\(result.stderr)")
    for table in ["fruits", "recipes"] {
      let rows = try CitusCluster.rowsPerWorker(of: table, in: schema)
      #expect(rows.count == 2, "\(table): \(rows)")
      #expect(rows.values.allSatisfy { $0 > 0 }, "\(table): \(rows)")
      #expect(rows.values.reduce(0, +) == Int64(try schema.rows(of: [table]).count(table)))
    }
  }

  /// A distributed COPY meeting known keys is refused with XX000, and the row writer's insert
  /// with the shard's constraint (`fruits_pkey_102034`): a strict `fail` re-run is a constraint
  /// issue on the key, named as on PostgreSQL, and leaves every row as it was.
  @Test func aStrictRunBreakingAKeyFailsWithTheConstraintNamedAndChangesNothing() throws {
    let schema = CitusCluster.schema()
    try layOut(["fruits"], in: schema)
    let target = ["--db", schema.url, "--db-schema", schema.name]
    try #require(try run("Pipelines/fruits.json", into: target).status == 0)
    let loaded = try schema.rows(of: ["fruits", "recipes"])
    let report = scratch.file("fail.json")
    let result = try SluiceCommand.run(
      ["run", "Pipelines/fruits.json", "--on-conflict", "fail", "--report", report] + target)
    #expect(result.status == 65, "\(result.stderr)")
    let issues = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report))).issues
    let issue = try #require(issues.first)
    #expect(issue.stage == .load)
    #expect(issue.code == .constraint)
    #expect(issue.path == "fruitID")
    #expect(issue.location?.line == 2)
    #expect(issue.message == "fruits: a row with this key exists already (primary key fruit_id)")
    #expect(try schema.rows(of: ["fruits", "recipes"]) == loaded)
  }

  /// `--stage` is refused on Citus before anything is staged: its staged copies would be local
  /// tables of the coordinator, not distributed ones.
  @Test func aStagedRunIsRefusedOnTheClusterBeforeItStagesAnything() throws {
    let schema = CitusCluster.schema()
    try layOut(["fruits"], in: schema)
    let target = ["--db", schema.url, "--db-schema", schema.name]
    let result = try run("Pipelines/fruits.json", into: target, ["--stage"])
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("--stage is not built for Citus"), "\(result.stderr)")
    #expect(try schema.rows(of: ["fruits"]).tables["fruits"]?.count == 1, "rows were loaded")
    let staged = try schema.connect().scalarInt(
      "SELECT count(*) FROM pg_namespace WHERE nspname = 'sluice_stage_\(schema.name)'")
    #expect(staged == 0)
  }

  /// Under the lenient policy each record meeting a known key is its own constraint issue (a
  /// savepoint per record, rolled back on the cluster), as on PostgreSQL; with every record
  /// rejected the run fails and the cluster keeps its rows.
  @Test func aLenientRunRejectsEachKnownKeyAsOnPostgreSQL() throws {
    let schema = CitusCluster.schema()
    try layOut(["fruits"], in: schema)
    let target = ["--db", schema.url, "--db-schema", schema.name]
    try #require(try run("Pipelines/fruits.json", into: target).status == 0)
    let loaded = try schema.rows(of: ["fruits", "recipes"])
    let report = scratch.file("lenient.json")
    let result = try SluiceCommand.run(
      ["run", "Pipelines/fruits-lenient.json", "--on-conflict", "fail", "--report", report] + target)
    #expect(result.status == 65, "\(result.stderr)")
    let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    #expect(decoded.issueCounts["constraint"] == 25)
    let issue = try #require(decoded.issues.first { $0.code == .constraint })
    #expect(issue.stage == .load)
    #expect(issue.path == "fruitID")
    #expect(issue.message == "fruits: a row with this key exists already (primary key fruit_id)")
    #expect(try schema.rows(of: ["fruits", "recipes"]) == loaded)
  }

  /// `--jobs 2` on the cluster: its lanes commit in order (Citus refuses a client's PREPARE
  /// TRANSACTION after distributed writes, which the automatic choice once made and failed on),
  /// with the rows of one connection's run.
  @Test func aJobsRunCommitsItsLanesInOrderWithTheRowsOfASerialRun() throws {
    let tables = ["fruits", "recipes", "orders", "order_items", "customers", "order_statuses"]
    let serial = CitusCluster.schema()
    let lanes = CitusCluster.schema()
    for schema in [serial, lanes] { try layOut(["fruits", "orders"], in: schema) }
    let one = try run("Pipelines/fruits-and-orders.json", into: ["--db", serial.url, "--db-schema", serial.name])
    try #require(one.status == 0, "\(one.stderr)")
    let two = try run(
      "Pipelines/fruits-and-orders.json", into: ["--db", lanes.url, "--db-schema", lanes.name], ["--jobs", "2"])
    #expect(two.status == 0, "\(two.stderr)")
    #expect(try lanes.rows(of: tables) == serial.rows(of: tables))
    let store = try lanes.connect()
    let commit = try store.prepare("SELECT lane_commit FROM sluice_runs")
    defer { commit.reset() }
    #expect(try commit.step())
    #expect(commit.columnValue(0) == .text("ordered"))
    // Two-phase, asked for, is refused before anything is loaded, not at its PREPARE.
    let refused = CitusCluster.schema()
    try layOut(["fruits", "orders"], in: refused)
    let asked = try run(
      "Pipelines/fruits-and-orders.json", into: ["--db", refused.url, "--db-schema", refused.name],
      ["--jobs", "2", "--lane-commit", "two-phase"])
    #expect(asked.status == 64, "\(asked.stderr)")
    #expect(asked.stderr.contains("--lane-commit two-phase is refused on Citus"), "\(asked.stderr)")
    #expect(try refused.rows(of: ["fruits"]).tables["fruits"]?.count == 1, "fruits were loaded")
  }

  /// Chat messages whose senders and conversations are merged (a name given by some messages,
  /// left alone by others, renamed by a few) go in bulk on the cluster — one `INSERT … ON
  /// CONFLICT` per round and mask — with plain PostgreSQL's rows and counts of rows written, on a
  /// first run and on a second that names the same keys with other names.
  @Test func mergedSendersAndConversationsGoInBulkWithPostgreSQLsRowsAndCounts() throws {
    let tables = ["conversations", "senders", "messages", "text_messages"]
    func messages(_ count: Int, first: Int, names: [String]) -> String {
      (first..<first + count).map { index in
        var fields = [
          #""id":"\#(index)""#, #""conversationId":"c\#(index % 7)""#, #""type":"text""#,
          #""sender":"u\#(index % 25)""#, #""sentAt":"2024-05-01T09:00:00Z""#, #""text":"m\#(index)""#,
        ]
        // Renamed every 100 messages: a few rounds per key and batch.
        let name = names[(index / 100) % names.count]
        if index % 3 == 0 { fields.append(#""senderName":"\#(name) \#(index % 25)""#) }
        if index % 5 == 0 { fields.append(#""conversationName":"\#(name)""#) }
        return "{" + fields.joined(separator: ",") + "}"
      }.joined(separator: "\n") + "\n"
    }
    let schema = CitusCluster.schema()
    try layOut(["messages"], in: schema)
    let plain = PostgreSQLServer.isAvailable ? PostgreSQLSchema() : nil
    for (round, names) in [(1, ["Ana", "Bo"]), (2, ["Ana", "Cy", "Di"])] {
      let input = scratch.file("merged-\(round).ndjson")
      try messages(3000, first: (round - 1) * 1000, names: names).write(
        toFile: input, atomically: true, encoding: .utf8)
      let report = scratch.file("merged-\(round).json")
      let loaded = try run(
        "Pipelines/messages-lenient.json", into: ["--db", schema.url, "--db-schema", schema.name],
        ["--input", input], report: report)
      try #require(loaded.status == 0, "\(loaded.stderr)")
      let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
      let writes = try #require(decoded.bulkWrites)
      #expect((writes.tables["senders"]?.staged ?? 0) >= 1, "\(writes)")
      #expect((writes.tables["conversations"]?.staged ?? 0) >= 1, "\(writes)")
      #expect(writes.rowByRow == 0, "\(writes)")
      #expect((decoded.rowsWritten["senders"] ?? 0) > 0)
      guard let plain else { continue }
      let reference = scratch.file("merged-plain-\(round).json")
      let plainRun = try run(
        "Pipelines/messages-lenient.json", into: ["--db", plain.url, "--db-schema", plain.name], ["--input", input],
        report: reference)
      try #require(plainRun.status == 0, "\(plainRun.stderr)")
      #expect(try rowsWritten(report) == rowsWritten(reference), "round \(round)")
      #expect(try schema.rows(of: tables) == plain.rows(of: tables), "round \(round)")
    }
  }
}
