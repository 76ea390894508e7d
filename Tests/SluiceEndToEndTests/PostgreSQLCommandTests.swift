import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice run --db postgresql://…` as a user runs it: the real binary against the real server,
/// and against servers that are not there, refuse the password, hang, or go away mid-run.
@Suite(
  "PostgreSQL on the command line",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLCommandTests {
  let schema = PostgreSQLSchema()
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  /// Runs `sluice` in process; a run without `--report` writes its report into the scratch
  /// directory, not where the spec says (the repository's reports/).
  func run(_ arguments: [String], environment: [String: String] = [:]) throws -> SluiceBinary.Result {
    let arguments = arguments.contains("--report") ? arguments : arguments + ["--report", scratch.file("report.json")]
    // The environment (PGPASSWORD, PGCONNECT_TIMEOUT) is the process's: only a process of its own has another.
    if environment.isEmpty { return try SluiceCommand.run(arguments) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: SluiceBinary.path)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: Repository.root)
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    return try SluiceBinary.capture(process)
  }

  @Test func theFruitsPipelineLoadsIntoASchemaOfTheServer() throws {
    let result = try run(["run", "Pipelines/fruits.json", "--db", schema.url, "--db-schema", schema.name])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("database: \(schema.url)"))
    #expect(result.stdout.contains("fruits: 48 rows"))
    let rows = try schema.rows(of: ["fruits", "recipes"])
    #expect(rows.count("fruits") == 48)
    #expect(rows.count("recipes") == 173)
    let store = try schema.connect()
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'succeeded'") == 1)
  }

  @Test func aClosedPortIsAnIOErrorNamingTheHost() throws {
    // Port 1 on the loopback interface: nothing listens, the connection is refused at once.
    let directory = try TemporaryDirectory()
    let report = directory.file("report.json")
    let result = try run([
      "run", "Pipelines/fruits.json", "--db", "postgresql://sluice@127.0.0.1:1/sluice", "--report", report,
    ])
    #expect(result.status == 74)
    #expect(result.stderr.contains("cannot connect to PostgreSQL at host 127.0.0.1, port 1, database sluice"))
    let text = try String(contentsOfFile: report, encoding: .utf8)
    #expect(text.contains("127.0.0.1:1"))
    #expect(text.contains("cannot connect"))
  }

  @Test func aMissingSocketDirectoryIsAnIOError() throws {
    let result = try run([
      "run", "Pipelines/fruits.json", "--db", "postgresql://sluice@/sluice?host=/nonexistent/sluice-socket",
    ])
    #expect(result.status == 74)
    #expect(result.stderr.contains("host /nonexistent/sluice-socket"))
  }

  /// A listener that never answers: libpq's connect_timeout (here 2 s, the minimum) ends the wait.
  @Test func aServerThatNeverAnswersTimesOutInsteadOfHanging() throws {
    let listener = try SilentListener()
    let running = SluiceCommand.start([
      "run", "Pipelines/fruits.json", "--db", "postgresql://sluice@127.0.0.1:\(listener.port)/sluice",
      "--connect-timeout", "2",
      "--report", scratch.file("report.json"),
    ])
    // A guard against a hang, not a measurement: far beyond the 2 s the run should take.
    let result = try running.finished(within: 120)
    withExtendedLifetime(listener) {}
    #expect(result.status == 74, "\(result.stderr)")
  }

  @Test func aWrongPasswordIsAnIOErrorThatNeverShowsThePassword() throws {
    let role = "sluice_pw_" + UUID().uuidString.prefix(8).lowercased()
    let admin = try PostgreSQLServer.connect()
    try admin.execute("CREATE ROLE \(role) LOGIN PASSWORD 'right-horse-battery'")
    defer { try? admin.execute("DROP ROLE IF EXISTS \(role)") }
    let directory = try TemporaryDirectory()
    let report = directory.file("report.json")
    let url = "postgresql://\(role)@127.0.0.1:\(PostgreSQLServer.port)/sluice"
    let wrong = try run(
      ["run", "Pipelines/fruits.json", "--db", url, "--report", report],
      environment: ["PGPASSWORD": "wrong-staple-4711"])
    #expect(wrong.status == 74)
    #expect(wrong.stderr.contains("host 127.0.0.1, port \(PostgreSQLServer.port)"))
    #expect(wrong.stderr.contains("password authentication failed"))
    let text = try String(contentsOfFile: report, encoding: .utf8)
    for output in [wrong.stdout, wrong.stderr, text] {
      #expect(!output.contains("wrong-staple-4711"))
    }
  }

  @Test func aPasswordInTheURLWorksButIsRedactedEverywhere() throws {
    let role = "sluice_pw_" + UUID().uuidString.prefix(8).lowercased()
    let admin = try PostgreSQLServer.connect()
    try admin.execute(
      "CREATE ROLE \(role) LOGIN PASSWORD 'right-horse-battery'; GRANT CREATE ON DATABASE sluice TO \(role)")
    defer {
      _ = try? admin.execute(
        "DROP SCHEMA IF EXISTS \"\(schema.name)\" CASCADE; REVOKE CREATE ON DATABASE sluice FROM \(role)")
      _ = try? admin.execute("DROP ROLE IF EXISTS \(role)")
    }
    let directory = try TemporaryDirectory()
    let report = directory.file("report.json")
    let url = "postgresql://\(role):right-horse-battery@127.0.0.1:\(PostgreSQLServer.port)/sluice"
    let result = try run(["run", "Pipelines/fruits.json", "--db", url, "--db-schema", schema.name, "--report", report])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("postgresql://\(role):***@127.0.0.1:\(PostgreSQLServer.port)/sluice"))
    #expect(result.stderr.contains("warning: the --db connection string carries a password"))
    // A failing run into the same server, whose messages name the database.
    let failing = try run(
      [
        "run", "Pipelines/messages.json", "--db", url, "--db-schema", schema.name, "--report",
        directory.file("failed.json"),
      ])
    #expect(failing.status == 65)
    let audit = try schema.connect().prepare("SELECT failure, input, stages::text FROM sluice_runs")
    var stored: [String] = []
    while try audit.step() { stored += (0..<3).map { "\(audit.columnValue(Int32($0)) ?? .text(""))" } }
    #expect(stored.count == 6)
    let outputs =
      [
        result.stdout, result.stderr, failing.stdout, failing.stderr,
        try String(contentsOfFile: report, encoding: .utf8),
        try String(contentsOfFile: directory.file("failed.json"), encoding: .utf8),
      ] + stored
    for output in outputs {
      #expect(!output.contains("right-horse-battery"))
    }
  }

  /// Another session holds a lock the run needs: past --busy-timeout the run is busy (74); and a
  /// run waiting on the lock whose server connection is killed fails with 74 too, naming the host.
  @Test func aLockedTableAndAServerThatGoesAwayMidRunAreIOErrors() throws {
    let first = try run(["run", "Pipelines/fruits.json", "--db", schema.url, "--db-schema", schema.name])
    #expect(first.status == 0, "\(first.stderr)")
    let before = try schema.rows(of: ["fruits", "recipes"])
    let holder = try schema.connect()
    try holder.execute("BEGIN; LOCK TABLE fruits IN ACCESS EXCLUSIVE MODE")

    let busy = try run([
      "run", "Pipelines/fruits.json", "--db", schema.url, "--db-schema", schema.name, "--busy-timeout", "0.2",
    ])
    #expect(busy.status == 74)
    #expect(busy.stderr.contains("is locked by another process"))

    let directory = try TemporaryDirectory()
    let running = SluiceCommand.start([
      "run", "Pipelines/fruits.json", "--db", schema.url, "--db-schema", schema.name, "--busy-timeout", "600",
      "--report", directory.file("report.json"),
    ])
    // Wait until the run's session waits on the lock, then end that session from the server.
    let admin = try PostgreSQLServer.connect()
    var terminated = false
    for _ in 0..<1200 where !terminated && running.isRunning {
      let waiting = try admin.scalarInt(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'sluice' AND wait_event_type = 'Lock'"
      )
      terminated = (waiting ?? 0) > 0
      if !terminated { usleep(50_000) }
    }
    #expect(terminated)
    let ended = try running.finished()
    try holder.execute("ROLLBACK")
    #expect(ended.status == 74)
    #expect(ended.stderr.contains("PostgreSQL at host"), "\(ended.stderr)")
    #expect(try schema.rows(of: ["fruits", "recipes"]) == before)
  }
}

/// A loopback TCP socket that accepts connections into its backlog and never says a word.
final class SilentListener {
  let descriptor: Int32
  let port: Int

  init() throws {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard bound == 0, named == 0, listen(descriptor, 8) == 0 else {
      close(descriptor)
      throw POSIXError(.EADDRNOTAVAIL)
    }
    self.descriptor = descriptor
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  deinit { close(descriptor) }
}
