import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice schema --dialect postgresql` and `sluice runs postgresql://…` on the real binary and
/// the real server: the printed DDL runs as it is and a run adopts its tables; the history reads
/// back as SQLite's does, from the schema named or the URL's search_path, without writing.
@Suite(
  "PostgreSQL schema DDL and run history",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLSchemaAndRunsTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  /// Every dataset the binary knows: the first word of each line under `sluice --help`'s DATASETS.
  static func catalogDatasets() throws -> [String] {
    let lines = try SluiceCommand.run(["--help"]).stdout.split(separator: "\n", omittingEmptySubsequences: false)
    let start = try #require(lines.firstIndex { $0.hasPrefix("DATASETS") })
    return lines[(start + 1)...].prefix { $0.hasPrefix("  ") }.compactMap {
      $0.split(separator: " ").first.map(String.init)
    }
  }

  func run(_ arguments: [String], environment: [String: String] = [:]) throws -> SluiceBinary.Result {
    let isLoad = arguments.first == "run"
    let arguments = isLoad ? arguments + ["--report", scratch.file("report-\(UUID().uuidString).json")] : arguments
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

  /// The migration identifiers the DDL names in its `-- identifier` comments.
  func identifiers(in ddl: String) -> [String] {
    ddl.split(separator: "\n").filter { $0.hasPrefix("-- ") }.map { String($0.dropFirst(3)) }
  }

  /// Runs `sluice schema DATASET --dialect postgresql` and executes what it prints in a new schema.
  func createFromDDL(_ dataset: String, in schema: PostgreSQLSchema) throws -> String {
    let printed = try run(["schema", dataset, "--dialect", "postgresql"])
    try #require(printed.status == 0, "\(printed.stderr)")
    try PostgreSQLServer.connect().execute("CREATE SCHEMA \"\(schema.name)\"")
    try schema.connect().execute(printed.stdout)
    return printed.stdout
  }

  // MARK: - sluice schema --dialect postgresql

  @Test func thePostgreSQLDDLOfEveryCatalogDatasetRunsOnTheServer() throws {
    let datasets = try Self.catalogDatasets()
    try #require(datasets.count >= 20, "\(datasets)")
    for dataset in datasets {
      let schema = PostgreSQLSchema()
      let ddl = try createFromDDL(dataset, in: schema)
      #expect(!ddl.contains("STRICT") && !ddl.contains("WITHOUT ROWID"), "\(dataset)")
      // Every table the DDL names exists, lookups included.
      let tables = identifiers(in: ddl).filter { $0.hasPrefix("create table ") }.map { String($0.dropFirst(13)) }
      #expect(!tables.isEmpty, "\(dataset)")
      let store = try schema.connect()
      for table in tables {
        #expect(try store.columns(of: table) != nil, "\(dataset): \(table)")
      }
    }
  }

  @Test func theSQLiteDialectIsTheDefaultAndAnUnknownDialectIsAUsageError() throws {
    let plain = try run(["schema", "orders"])
    let sqlite = try run(["schema", "orders", "--dialect", "sqlite"])
    #expect(plain.status == 0 && plain.stdout == sqlite.stdout)
    #expect(plain.stdout.contains("STRICT"))
    let postgres = try run(["schema", "--dialect=postgresql", "orders"])
    #expect(postgres.stdout.contains("timestamptz") && !postgres.stdout.contains("STRICT"))
    let unknown = try run(["schema", "orders", "--dialect", "oracle"])
    #expect(unknown.status == 64)
    #expect(unknown.stderr.contains("unknown dialect 'oracle'; known: sqlite, postgresql"))
  }

  /// The tables made by hand from the DDL are adopted: the run applies no CREATE (which would
  /// fail, the tables exist), records every migration, and loads the same rows as a run into a
  /// schema of its own.
  @Test(arguments: [
    ("fruits", "Pipelines/fruits.json", ["fruits", "recipes"]),
    ("orders", "Pipelines/orders.json", ["orders", "order_items", "customers"]),
    ("alerts", "Pipelines/devices.json", ["devices", "alerts"]),
    (
      "messages", "Pipelines/messages-lenient.json",
      ["messages", "conversations", "senders", "text_messages", "message_attachments"]
    ),
    ("profiles", "Pipelines/profiles.json", ["profiles"]),
    (
      "stackexchange-posthistory", "Pipelines/stackexchange.json",
      ["users", "posts", "post_tags", "comments", "votes", "post_history"]
    ),
    ("slack-messages", "Pipelines/slack.json", ["messages", "conversations", "senders", "text_messages"]),
    ("discord", "Pipelines/discord.json", ["messages", "conversations", "senders", "text_messages"]),
    ("mattermost", "Pipelines/mattermost.json", ["messages", "conversations", "senders", "text_messages"]),
    ("messenger", "Pipelines/messenger.json", ["messages", "conversations", "senders", "text_messages"]),
    ("telegram", "Pipelines/telegram.json", ["messages", "conversations", "senders", "text_messages"]),
  ])
  func aRunAdoptsTablesCreatedFromThePrintedDDL(dataset: String, pipeline: String, tables: [String]) throws {
    let handMade = PostgreSQLSchema()
    let ddl = try createFromDDL(dataset, in: handMade)
    let adopted = try run(["run", pipeline, "--db", handMade.url, "--db-schema", handMade.name])
    #expect(adopted.status == 0, "\(adopted.stderr)")
    let store = try handMade.connect()
    for identifier in identifiers(in: ddl) {
      let check = try store.prepare("SELECT 1 FROM sluice_migrations WHERE identifier = $1")
      try check.bind(.text(identifier), at: 1)
      #expect(try check.step(), "\(dataset): \(identifier) not recorded")
    }
    let own = PostgreSQLSchema()
    let created = try run(["run", pipeline, "--db", own.url, "--db-schema", own.name])
    #expect(created.status == 0, "\(created.stderr)")
    let rows = try handMade.rows(of: tables)
    #expect(rows.tables.keys.count == tables.count, "\(rows.tables.keys)")
    #expect(rows == (try own.rows(of: tables)))
  }

  // MARK: - sluice runs postgresql://…

  /// The same four runs into a SQLite file and into a PostgreSQL schema: 1 the clean fruits, 2
  /// the lenient fruits with rejects, 3 a strict run that fails, 4 the lenient orders.
  func loadHistory(into database: String, schema: String?) throws {
    let runs: [([String], Int32)] = [
      (["run", "Pipelines/fruits.json"], 0),
      (["run", "Pipelines/fruits-lenient.json"], 0),
      (["run", "Pipelines/fruits.json", "--input", "SampleData/fruits-broken.ndjson.gz", "--format", "ndjson"], 65),
      (["run", "Pipelines/orders-lenient.json"], 0),
    ]
    for (arguments, status) in runs {
      let result = try run(arguments + ["--db", database] + (schema.map { ["--db-schema", $0] } ?? []))
      try #require(result.status == status, "\(arguments): \(result.stderr)")
    }
  }

  /// `runs --json` without what differs between two loads of the same data: ids and times.
  func comparable(_ json: String) throws -> String {
    func strip(_ value: Any) -> Any {
      if var object = value as? [String: Any] {
        for key in ["runId", "startedAt", "finishedAt", "durationSeconds", "seconds"] { object[key] = nil }
        return object.mapValues(strip)
      }
      if let array = value as? [Any] { return array.map(strip) }
      return value
    }
    let object = strip(try JSONSerialization.jsonObject(with: Data(json.utf8)))
    return String(
      decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted]),
      as: UTF8.self)
  }

  /// Text output with times and durations masked.
  func masked(_ text: String) -> String {
    var text = text
    for pattern in [#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#, #"\d+\.\d+s\b"#] {
      text = text.replacingOccurrences(of: pattern, with: "·", options: .regularExpression)
    }
    return text.split(separator: "\n").map {
      $0.replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression)
    }
    .joined(separator: "\n")
  }

  @Test func runsOnPostgreSQLPrintsWhatSQLitePrintsForTheSameRuns() throws {
    let sqlite = scratch.file("history.sqlite")
    try loadHistory(into: sqlite, schema: nil)
    let schema = PostgreSQLSchema()
    try loadHistory(into: schema.url, schema: schema.name)
    let target = ["--db-schema", schema.name]

    let fromSQLite = try run(["runs", sqlite, "--json"])
    let fromServer = try run(["runs", schema.url, "--json"] + target)
    #expect(fromServer.status == 0, "\(fromServer.stderr)")
    #expect(try comparable(fromServer.stdout) == (try comparable(fromSQLite.stdout)))
    let runs = try #require(try JSONSerialization.jsonObject(with: Data(fromServer.stdout.utf8)) as? [[String: Any]])
    #expect(runs.count == 4)
    #expect((runs.first?["startedAt"] as? String)?.hasSuffix("Z") == true)

    let listSQLite = try run(["runs", sqlite, "--last", "3"])
    let listServer = try run(["runs", schema.url, "--last", "3"] + target)
    #expect(listServer.status == 0, "\(listServer.stderr)")
    #expect(masked(listServer.stdout) == masked(listSQLite.stdout))
    #expect(listServer.stdout.split(separator: "\n").count == 4)

    // One run, by the ids each store gave it (the lenient fruits, second of four).
    let ids = runs.compactMap { $0["runId"] as? Int }
    let sqliteRuns = try #require(
      try JSONSerialization.jsonObject(with: Data(fromSQLite.stdout.utf8)) as? [[String: Any]])
    let sqliteIDs = sqliteRuns.compactMap { $0["runId"] as? Int }
    for index in [1, 2] {
      let server = try run(["runs", schema.url, "\(ids[index])", "--json"] + target)
      let file = try run(["runs", sqlite, "\(sqliteIDs[index])", "--json"])
      #expect(server.status == 0, "\(server.stderr)")
      #expect(try comparable(server.stdout) == (try comparable(file.stdout)))
      let serverText = try run(["runs", schema.url, "\(ids[index])"] + target)
      let fileText = try run(["runs", sqlite, "\(sqliteIDs[index])"])
      #expect(
        masked(serverText.stdout).replacingOccurrences(of: "run \(ids[index]):", with: "run ·:")
          == masked(fileText.stdout).replacingOccurrences(of: "run \(sqliteIDs[index]):", with: "run ·:"))
    }
    let lenient = try run(["runs", schema.url, "\(ids[2])"] + target)
    #expect(lenient.stdout.contains("by stage, code and field path"), "\(lenient.stdout)")

    let missing = try run(["runs", schema.url, "999999"] + target)
    #expect(missing.status == 66)
    #expect(missing.stderr.contains("no run 999999 (its runs are"))
  }

  @Test func theURLsSearchPathNamesTheSchemaWhenNoOptionDoes() throws {
    let schema = PostgreSQLSchema()
    let load = try run(["run", "Pipelines/fruits.json", "--db", schema.url, "--db-schema", schema.name])
    try #require(load.status == 0, "\(load.stderr)")
    let url = schema.url + "&options=-csearch_path%3D\(schema.name)"
    let result = try run(["runs", url])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.split(separator: "\n").count == 2)
    #expect(result.stdout.contains("fruits"))
  }

  @Test func aSchemaWithoutHistoryIsNotCreatedAndIsExit66() throws {
    let schema = PostgreSQLSchema()
    let result = try run(["runs", schema.url, "--db-schema", schema.name])
    #expect(result.status == 66)
    #expect(result.stderr.contains("no run history (no sluice_runs table)"))
    #expect(result.stderr.contains("schema \(schema.name)"))
    #expect(try !schema.exists())
    let sqliteOption = try run(["runs", scratch.file("x.sqlite"), "--db-schema", "x"])
    #expect(sqliteOption.status == 64)
  }

  /// A role that may only read the audit tables lists the runs: the command needs no other
  /// privilege, and its session is read-only, so even a superuser's `runs` cannot write.
  @Test func aRoleThatMayOnlyReadTheAuditTablesListsTheRuns() throws {
    let schema = PostgreSQLSchema()
    let load = try run(["run", "Pipelines/fruits-lenient.json", "--db", schema.url, "--db-schema", schema.name])
    try #require(load.status == 0, "\(load.stderr)")
    let role = "sluice_reader_" + UUID().uuidString.prefix(8).lowercased()
    let admin = try PostgreSQLServer.connect()
    try admin.execute(
      """
      CREATE ROLE \(role) LOGIN PASSWORD 'quiet-lantern-2931';
      GRANT USAGE ON SCHEMA "\(schema.name)" TO \(role);
      GRANT SELECT ON "\(schema.name)".sluice_runs, "\(schema.name)".sluice_rejects TO \(role)
      """)
    defer {
      _ = try? admin.execute("DROP SCHEMA IF EXISTS \"\(schema.name)\" CASCADE")
      _ = try? admin.execute("DROP ROLE IF EXISTS \(role)")
    }
    let url = "postgresql://\(role)@127.0.0.1:\(PostgreSQLServer.port)/sluice"
    let result = try run(
      ["runs", url, "--db-schema", schema.name, "1"], environment: ["PGPASSWORD": "quiet-lantern-2931"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("run 1: fruits-lenient"))

    let inURL = "postgresql://\(role):quiet-lantern-2931@127.0.0.1:\(PostgreSQLServer.port)/sluice"
    let listed = try run(["runs", inURL, "--db-schema", schema.name, "--json"])
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(listed.stderr.contains("carries a password"))
    let wrong = try run(
      ["runs", url, "--db-schema", schema.name], environment: ["PGPASSWORD": "wrong-lantern-1234"])
    #expect(wrong.status == 74)
    #expect(wrong.stderr.contains("host 127.0.0.1, port \(PostgreSQLServer.port)"), "\(wrong.stderr)")
    let badURL = "postgresql://\(role):wrong-lantern-1234@127.0.0.1:\(PostgreSQLServer.port)/sluice"
    let wrongInURL = try run(["runs", badURL, "--db-schema", schema.name, "7"])
    #expect(wrongInURL.status == 74)
    for output in [result, listed, wrong, wrongInURL].flatMap({ [$0.stdout, $0.stderr] }) {
      #expect(!output.contains("quiet-lantern-2931") && !output.contains("wrong-lantern-1234"))
    }
  }

  @Test func anUnreachableServerIsAnIOErrorNamingTheHost() throws {
    let result = try run(["runs", "postgresql://sluice@127.0.0.1:1/sluice"])
    #expect(result.status == 74)
    #expect(
      result.stderr.contains("cannot connect to PostgreSQL at host 127.0.0.1, port 1, database sluice"),
      "\(result.stderr)")
  }
}

/// Several runs into one database at once — machines loading shares of the files against one
/// server (or one Citus coordinator) — must not queue behind each other on the lookup tables
/// every run synchronizes.
@Suite(
  "Concurrent runs and lookup tables",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct ConcurrentLookupTests {
  /// Another transaction holds the lookup rows as an upsert would (`FOR NO KEY UPDATE`, which a
  /// foreign key's `KEY SHARE` check does not conflict with): a run whose enum matches the table
  /// reads them and goes on, instead of waiting past its lock timeout.
  @Test func aRunDoesNotWaitForLookupRowsAnotherTransactionHolds() throws {
    let scratch = try TemporaryDirectory()
    let schema = PostgreSQLSchema()
    let target = ["--db", schema.url, "--db-schema", schema.name]
    let first = try SluiceCommand.run(["run", "Pipelines/orders.json", "--report", scratch.file("1.json")] + target)
    try #require(first.status == 0, "\(first.stderr)")
    let holder = try schema.connect()
    try holder.execute("BEGIN; SELECT id FROM order_statuses FOR NO KEY UPDATE")
    defer { try? holder.execute("ROLLBACK") }
    let second = try SluiceCommand.run(
      ["run", "Pipelines/orders-lenient.json", "--busy-timeout", "1", "--report", scratch.file("2.json")] + target)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(!second.stderr.contains("locked"))
  }
}
