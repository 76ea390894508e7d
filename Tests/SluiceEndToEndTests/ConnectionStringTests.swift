import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// What `--db` (or a spec's `database`) may be: a libpq URL or libpq keyword/value pairs, both a
/// PostgreSQL server — never a SQLite file named after them — and what cannot be read is a usage
/// error saying why. A password given in either never reaches the summary, the reports, the JUnit
/// file, `sluice runs` or an error message.
@Suite("Connection strings on the command line")
struct ConnectionStringTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  func run(_ arguments: [String], environment: [String: String] = [:]) throws -> SluiceBinary.Result {
    // The environment is the process's: only a process of its own has another.
    if environment.isEmpty { return try SluiceCommand.run(arguments, in: scratch.path) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: SluiceBinary.path)
    process.arguments = arguments
    // In the scratch directory: a connection string taken for a file's name would land here.
    process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    return try SluiceBinary.capture(process)
  }

  var fruits: String { Repository.path("Pipelines/fruits.json") }

  /// Files in the scratch directory other than the ones the test wrote.
  func strayFiles(besides expected: Set<String>) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { !expected.contains($0) }
  }

  @Test(arguments: [
    ("postgresql://ann:hunter2@db.example:54x2/shop", "invalid port \"54x2\""),
    ("postgresql://ann:hun%zzter2@db.example/shop", "invalid percent-encoded token"),
    ("postgresql://ann:hunter2@db.example/shop?sslmode", "missing key/value separator"),
    ("postgres://ann:hunter2@db.example/shop?bogus=1", "invalid URI query parameter: \"bogus\""),
    ("host=db.example dbname=shop password=hunter2 bogus=1", "invalid connection option \"bogus\""),
  ])
  func aMalformedConnectionStringIsAUsageErrorSayingWhatIsWrong(text: String, problem: String) throws {
    let report = scratch.file("report.json")
    let viaOption = try run(["run", fruits, "--db", text, "--report", report])
    #expect(viaOption.status == 64, "\(viaOption.stderr)")
    #expect(viaOption.stderr.contains("--db is not a PostgreSQL connection string it can use: "))
    #expect(viaOption.stderr.contains(problem), "\(viaOption.stderr)")
    let spec = try scratch.write(
      "spec.json",
      #"{"dataset": "fruits", "input": "\#(Repository.path("SampleData/fruits.json.gz"))", "recordPath": "fruits", "database": "\#(text)"}"#
    )
    let viaSpec = try run(["run", spec, "--report", report])
    #expect(viaSpec.status == 64, "\(viaSpec.stderr)")
    #expect(viaSpec.stderr.contains("'database' is not a PostgreSQL connection string it can use: "))
    let runs = try run(["runs", text])
    #expect(runs.status == 64, "\(runs.stderr)")
    #expect(runs.stderr.contains(problem))
    for result in [viaOption, viaSpec, runs] {
      #expect(!result.stderr.contains("localhost"))
      #expect(!result.stderr.contains("hunter2") && !result.stderr.contains("hun%zzter2"))
      #expect(!result.stdout.contains("hunter2"))
    }
    #expect(!FileManager.default.fileExists(atPath: report))
    #expect(try strayFiles(besides: ["spec.json"]).isEmpty)
  }

  /// The keyword form reaches the test server over its socket (trusted: the password is not
  /// asked for, and must still never be printed).
  @Test(.enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server"))
  func keywordValuePairsLoadIntoPostgreSQLAndTheirPasswordIsNeverPrinted() throws {
    let schema = PostgreSQLSchema()
    let socket = try #require(PostgreSQLServer.parameter("host"))
    let conninfo = "host=\(socket) port=\(PostgreSQLServer.port) dbname=sluice user=sluice password='hunter2 x'"
    let report = scratch.file("report.json")
    let junit = scratch.file("junit.xml")
    let result = try run([
      "run", fruits, "--db", conninfo, "--db-schema", schema.name, "--report", report, "--junit", junit,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout.contains(
        "database: host=\(socket) port=\(PostgreSQLServer.port) dbname=sluice user=sluice password=***"))
    #expect(result.stderr.contains("warning: the --db connection string carries a password"))
    #expect(try schema.rows(of: ["fruits"]).count("fruits") == 48)
    let runs = try run(["runs", conninfo, "--db-schema", schema.name])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(runs.stdout.contains("succeeded"))
    let outputs = [
      result.stdout, result.stderr, runs.stdout, runs.stderr, try String(contentsOfFile: report, encoding: .utf8),
      try String(contentsOfFile: junit, encoding: .utf8),
    ]
    for output in outputs {
      #expect(!output.contains("hunter2"))
    }
    #expect(try strayFiles(besides: ["report.json", "junit.xml"]).isEmpty)
  }

  /// A wrong password in keyword/value pairs over TCP (where the server asks for it): exit 74
  /// naming the host, the password in no output.
  @Test(.enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server"))
  func aWrongPasswordInKeywordValuePairsIsAnIOErrorThatNeverShowsIt() throws {
    let conninfo = "host=127.0.0.1 port=\(PostgreSQLServer.port) dbname=sluice user=sluice password=wrong-staple-4711"
    let report = scratch.file("report.json")
    let junit = scratch.file("junit.xml")
    let result = try run(["run", fruits, "--db", conninfo, "--report", report, "--junit", junit])
    #expect(result.status == 74, "\(result.stderr)")
    #expect(result.stderr.contains("cannot connect to PostgreSQL at host 127.0.0.1, port \(PostgreSQLServer.port)"))
    let runs = try run(["runs", conninfo])
    #expect(runs.status == 74, "\(runs.stderr)")
    let outputs = [
      result.stdout, result.stderr, runs.stdout, runs.stderr, try String(contentsOfFile: report, encoding: .utf8),
      try String(contentsOfFile: junit, encoding: .utf8),
    ]
    for output in outputs {
      #expect(!output.contains("wrong-staple-4711"))
    }
    #expect(try strayFiles(besides: ["report.json", "junit.xml"]).isEmpty)
  }
}
