import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice plan` through the command line: the whole run, then a rollback. On every committed
/// pipeline, a plan changes nothing (the SQLite file byte for byte; a file that did not exist
/// is not left behind), and the run right after it reports exactly the plan's counts and makes
/// exactly the changes the plan listed — first into a new database, then again over the loaded
/// one.
@Suite("Plans: what a run would change, and the run that follows agrees", .tags(.slow))
struct PlanCommandTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  static var pipelines: [String] {
    let directory = Repository.path("Pipelines")
    return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") }
      .sorted()
  }

  /// The report fields a plan and the run after it must share.
  static func counts(_ report: RunReport) -> String {
    var lines = [report.status.rawValue]
    lines += report.stages.map {
      "\($0.stage.rawValue) \($0.recordsIn) \($0.recordsOut) \($0.rejected) \($0.warnings) \($0.skipped) \($0.kept)"
    }
    lines += report.issueCounts.sorted { $0.key < $1.key }.map { "issue \($0.key) \($0.value)" }
    lines += report.rowsWritten.sorted { $0.key < $1.key }.map { "written \($0.key) \($0.value)" }
    lines += (report.rowsDeleted ?? [:]).sorted { $0.key < $1.key }.map { "deleted \($0.key) \($0.value)" }
    lines.append("failure \(report.failure?.message ?? "-")")
    return lines.joined(separator: "\n")
  }

  /// Each table's rows keyed by its key columns' text, from a SQLite file.
  static func rowsByKey(_ database: String, _ table: Table) throws -> [String: String] {
    guard FileManager.default.fileExists(atPath: database) else { return [:] }
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
    guard try connection.columns(of: table.name) != nil else { return [:] }
    let columns = table.allColumns.map(\.name)
    let statement = try connection.prepare(
      "SELECT \(columns.map { "quote(\"\($0)\")" }.joined(separator: ", ")) FROM \"\(table.name)\"")
    var rows: [String: String] = [:]
    while try statement.step() {
      var key: [String] = []
      var all: [String] = []
      for (index, column) in columns.enumerated() {
        let text = statement.columnText(Int32(index)) ?? "NULL"
        all.append(text)
        if table.key.contains(column) { key.append(text) }
      }
      rows[key.joined(separator: "\u{1}")] = all.joined(separator: "\u{1}")
    }
    return rows
  }

  /// What running changed in each table, as a plan counts it.
  static func actualChanges(before: [String: [String: String]], after: [String: [String: String]]) -> [String: String] {
    var result: [String: String] = [:]
    for (table, now) in after {
      let then = before[table] ?? [:]
      let inserts = now.keys.filter { then[$0] == nil }.count
      let deletes = then.keys.filter { now[$0] == nil }.count
      let updates = now.filter { key, row in then[key].map { $0 != row } ?? false }.count
      result[table] = "insert \(inserts) update \(updates) delete \(deletes)"
    }
    return result
  }

  func schemaTables(_ spec: String) throws -> [Table] {
    let parsed = try PipelineSpec(contentsOf: Repository.path("Pipelines/\(spec)"))
    var seen = Set<String>()
    return try parsed.datasets(in: Catalog.datasets).flatMap { $0.schema.tables }.filter {
      seen.insert($0.name).inserted
    }
  }

  func snapshot(_ database: String, _ tables: [Table]) throws -> [String: [String: String]] {
    var rows: [String: [String: String]] = [:]
    for table in tables { rows[table.name] = try Self.rowsByKey(database, table) }
    return rows
  }

  func plan(_ spec: String, _ database: String, _ extra: [String] = []) throws -> (SluiceBinary.Result, RunReport) {
    let report = scratch.file("plan-\(UUID().uuidString).json")
    let result = try SluiceCommand.run(["plan", "Pipelines/\(spec)", "--db", database, "--report", report] + extra)
    return (result, try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report))))
  }

  func run(_ spec: String, _ database: String) throws -> (SluiceBinary.Result, RunReport) {
    let report = scratch.file("run-\(UUID().uuidString).json")
    let result = try SluiceCommand.run([
      "run", "Pipelines/\(spec)", "--db", database, "--report", report, "--rejects", scratch.file("rejects.ndjson"),
      "--junit", scratch.file("junit.xml"), "--html", scratch.file("run.html"),
    ])
    return (result, try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report))))
  }

  @Test(arguments: pipelines)
  func aRunAfterAPlanReportsAndChangesExactlyWhatThePlanSaid(_ spec: String) throws {
    let database = scratch.file("\(spec).sqlite")
    let tables = try schemaTables(spec)
    for pass in ["into a new database", "again over the loaded one"] {
      let existed = FileManager.default.fileExists(atPath: database)
      let bytes = existed ? try Data(contentsOf: URL(fileURLWithPath: database)) : nil
      let (planned, plan) = try plan(spec, database)
      // Nothing written: the file as it was, or still no file.
      if let bytes {
        #expect(
          try Data(contentsOf: URL(fileURLWithPath: database)) == bytes, "\(spec) \(pass): the plan changed the file")
      } else {
        #expect(!FileManager.default.fileExists(atPath: database), "\(spec) \(pass): the plan left a database file")
      }
      let before = try snapshot(database, tables)
      let (ran, report) = try run(spec, database)
      #expect(ran.status == planned.status, "\(spec) \(pass): plan exited \(planned.status), run \(ran.status)")
      #expect(Self.counts(plan) == Self.counts(report), "\(spec) \(pass)")
      guard report.committed, let changes = plan.plan else { continue }
      let actual = Self.actualChanges(before: before, after: try snapshot(database, tables))
      for table in changes.tables {
        #expect(
          actual[table.table] == "insert \(table.inserts) update \(table.updates) delete \(table.deletes)",
          "\(spec) \(pass): \(table.table)")
        #expect(
          table.inserts + table.updates + table.unchanged
            == (try Self.rowsByKey(database, tables.first { $0.name == table.table }!).count))
      }
    }
  }

  @Test func theGateFailsAPlanThatWouldChangeTooMuchAndTheJSONSaysWhy() throws {
    let database = scratch.file("orders.sqlite")
    let first = try SluiceCommand.run(["plan", "Pipelines/orders.json", "--db", database, "--max-changes", "100"])
    #expect(first.status == 1)
    #expect(first.stderr.contains("more than --max-changes 100"))
    #expect(!FileManager.default.fileExists(atPath: database))
    #expect(try SluiceCommand.run(["run", "Pipelines/orders.json", "--db", database]).status == 0)
    let again = try SluiceCommand.run([
      "plan", "Pipelines/orders.json", "--db", database, "--max-changes", "0%", "--json",
    ])
    #expect(again.status == 0, "\(again.stderr)")
    let decoded = try JSONDecoder().decode(RunPlan.self, from: Data(again.stdout.utf8))
    #expect(decoded.changes == 0)
    #expect(decoded.tables.map(\.table) == ["customers", "orders", "order_items"])
    #expect(decoded.exceedsMaxChanges == false)
    #expect(decoded.pendingMigrations.isEmpty)
    let bad = try SluiceCommand.run(["plan", "Pipelines/orders.json", "--db", database, "--max-changes", "lots"])
    #expect(bad.status == 64)
  }

  @Test func aPlanAgainstALockedDatabaseExits74AndChangesNothing() throws {
    let database = scratch.file("orders.sqlite")
    #expect(try SluiceCommand.run(["run", "Pipelines/orders.json", "--db", database]).status == 0)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: database))
    let holder = try SQLiteConnection(path: database, options: .init(readOnly: false, create: false))
    try holder.execute("BEGIN IMMEDIATE")
    let locked = try SluiceCommand.run(["plan", "Pipelines/orders.json", "--db", database, "--busy-timeout", "0.2"])
    try holder.execute("ROLLBACK")
    #expect(locked.status == 74)
    #expect(locked.stderr.contains("locked"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == bytes)
    let runs = try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt(
      "SELECT count(*) FROM sluice_runs")
    #expect(runs == 1, "a plan records no run, not even a failed one")
  }

  /// A plan writes inside a transaction it rolls back, so it needs what a run needs: a file it
  /// may write and a directory where SQLite may write its journal. Where this user has neither,
  /// it says so before it starts (exit 73), not with the SQL of its first write; what only
  /// reads (`validate --db`, `runs`) works there. Run as `nobody` when the tests run as root,
  /// for whom permissions do not hold.
  @Test(arguments: [true, false])
  func aPlanWhereThisUserCannotWriteSaysWhatItNeeds(fileIsWritable: Bool) throws {
    let directory = scratch.file("readonly")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    let database = (directory as NSString).appendingPathComponent("orders.sqlite")
    // All in the scratch folder, which the other user can read (a CI clone may sit in a folder
    // only root can enter): the input, the binary, and a spec that names no report — what only
    // reads must have nothing to write.
    let input = scratch.file("orders.json.gz")
    try FileManager.default.copyItem(atPath: Repository.path("SampleData/orders.json.gz"), toPath: input)
    let binary = scratch.file("sluice")
    try FileManager.default.copyItem(atPath: SluiceBinary.path, toPath: binary)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path)
    let spec = try scratch.write(
      "orders.json", #"{"dataset": "orders", "input": "\#(input)", "database": "\#(database)"}"#)
    #expect(try SluiceCommand.run(["run", spec]).status == 0)
    try FileManager.default.setAttributes([.posixPermissions: fileIsWritable ? 0o666 : 0o444], ofItemAtPath: database)
    try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory)
    defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory) }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: database))
    let asUser = getuid() == 0 ? "runuser -u nobody -- " : ""
    func sluice(_ arguments: String) throws -> SluiceBinary.Result {
      try SluiceBinary.shell("\(asUser)'\(binary)' \(arguments)", in: "/")
    }
    let plan = try sluice("plan '\(spec)'")
    #expect(plan.status == 73, "\(plan.stderr)")
    let reason =
      fileIsWritable
      ? "its directory is read-only to this user, and SQLite writes a journal beside the database (orders.sqlite-journal)"
      : "the file is read-only to this user"
    #expect(plan.stderr.contains("cannot write database \(database): \(reason)"), "\(plan.stderr)")
    #expect(plan.stderr.contains("'sluice validate --db' and 'sluice runs' only read"), "\(plan.stderr)")
    #expect(!plan.stderr.contains("UPDATE"), "\(plan.stderr)")
    let validate = try sluice("validate '\(spec)' --db '\(database)'")
    #expect(validate.status == 0, "\(validate.stderr)")
    let runs = try sluice("runs '\(database)'")
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == bytes)
  }

  @Test func thePlanIsInTheHTMLReport() throws {
    let html = scratch.file("plan.html")
    let database = scratch.file("fruits.sqlite")
    #expect(try SluiceCommand.run(["plan", "Pipelines/fruits.json", "--db", database, "--html", html]).status == 0)
    let page = try String(contentsOfFile: html, encoding: .utf8)
    #expect(page.contains("<section id=\"plan\">"))
    #expect(page.contains("<code>fruits</code> (new)"))
    #expect(page.contains("migration(s) pending"))
  }
}

/// A plan on PostgreSQL leaves no row, no audit entry and no sequence value behind.
@Suite(
  "Plans on PostgreSQL",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLPlanCommandTests {
  @Test func aPlanChangesNoRowNoAuditEntryAndNoSequence() throws {
    let schema = PostgreSQLSchema()
    func sluice(_ command: String, _ extra: [String] = []) throws -> SluiceBinary.Result {
      try SluiceCommand.run([command, "Pipelines/orders.json", "--db", schema.url, "--db-schema", schema.name] + extra)
    }
    let tables = ["orders", "order_items", "customers", "order_statuses", "sluice_runs", "sluice_inputs"]
    #expect(try sluice("run").status == 0)
    let store = try schema.connect()
    let sequence = try store.scalarInt("SELECT last_value FROM sluice_runs_run_id_seq")
    let before = try schema.rows(of: tables)
    let planned = try sluice(
      "plan",
      ["--input", Repository.path("SampleData/orders-broken.ndjson.gz"), "--format", "ndjson", "--policy", "lenient"])
    #expect(planned.status == 0, "\(planned.stderr)")
    #expect(planned.stdout.contains("would change"))
    #expect(try schema.rows(of: tables) == before)
    #expect(try store.scalarInt("SELECT last_value FROM sluice_runs_run_id_seq") == sequence)
    // A plan into a schema that does not exist yet leaves none.
    let fresh = PostgreSQLSchema()
    let first = try SluiceCommand.run(["plan", "Pipelines/orders.json", "--db", fresh.url, "--db-schema", fresh.name])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(try !fresh.exists())
  }
}
