import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// A dump split into files, and a spec whose input is a glob over them: generated orders, their
/// gzip NDJSON cut into `count` plain NDJSON files of whole lines.
struct SplitOrdersDump {
  let directory: TemporaryDirectory
  let spec: String

  init(orders: Int, files count: Int) throws {
    directory = try TemporaryDirectory()
    let generator = Tool.built("orders-generator")
    let generate = Process()
    generate.executableURL = URL(fileURLWithPath: generator)
    generate.arguments = ["--count", String(orders), "--seed", "27", "--out", directory.file("generated")]
    generate.standardOutput = FileHandle.nullDevice
    try generate.run()
    generate.waitUntilExit()
    try #require(generate.terminationStatus == 0)
    let gzip = Process()
    gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    gzip.arguments = ["gzip", "-dc", directory.file("generated/orders.ndjson.gz")]
    let output = Pipe()
    gzip.standardOutput = output
    try gzip.run()
    let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      .split(separator: "\n")
    gzip.waitUntilExit()
    try #require(lines.count == orders)
    try FileManager.default.createDirectory(atPath: directory.file("parts"), withIntermediateDirectories: true)
    for part in 0..<count {
      let slice = lines[(part * orders / count)..<((part + 1) * orders / count)]
      try (slice.joined(separator: "\n") + "\n").write(
        toFile: directory.file("parts/orders-\(part).ndjson"), atomically: true, encoding: .utf8)
    }
    spec = directory.file("orders-shares.json")
    try """
    {"dataset": "orders", "input": "parts/*.ndjson", "format": "ndjson", "policy": "strict",
     "onConflict": "upsert", "database": "orders.sqlite"}
    """.write(toFile: spec, atomically: true, encoding: .utf8)
  }
}

/// `sluice run --share K/N`: which files a share reads, and what it refuses, on SQLite.
@Suite("Shares of a dump (--share K/N)")
struct ShareOptionTests {
  static let tables = ["orders", "order_items", "customers", "order_statuses"]

  @Test func theSharesOfADumpLoadTheRowsOneRunLoads() throws {
    let dump = try SplitOrdersDump(orders: 300, files: 5)
    let whole = dump.directory.file("whole.sqlite")
    let shared = dump.directory.file("shared.sqlite")
    #expect(try SluiceCommand.run(["run", dump.spec, "--db", whole]).status == 0)
    for share in 1...3 {
      let result = try SluiceCommand.run(["run", dump.spec, "--db", shared, "--share", "\(share)/3"])
      #expect(result.status == 0, "\(result.stderr)")
    }
    #expect(try TableRows(sqlite: shared, tables: Self.tables) == TableRows(sqlite: whole, tables: Self.tables))
    // Each share read its own files: 0 and 3, then 1 and 4, then 2 (sorted by path, every third).
    let runs = try SluiceCommand.run(["runs", shared])
    #expect(runs.status == 0)
    let loaded = try SQLiteConnection(path: shared, options: .init(readOnly: true)).prepare(
      "SELECT records_read FROM sluice_runs ORDER BY run_id")
    var counts: [Int64] = []
    while try loaded.step() {
      if case .integer(let count)? = loaded.columnValue(0) { counts.append(count) }
    }
    #expect(counts == [120, 120, 60])
  }

  @Test(arguments: [
    ("0/4", "--share must be K/N"), ("5/4", "--share must be K/N"), ("1/0", "--share must be K/N"),
    ("one/two", "--share must be K/N"), ("6/8", "none of them share 6's"),
  ])
  func aShareThatCannotBeIsAUsageError(share: String, message: String) throws {
    let dump = try SplitOrdersDump(orders: 20, files: 5)
    let result = try SluiceCommand.run(
      ["run", dump.spec, "--db", dump.directory.file("x.sqlite"), "--share", share])
    #expect(result.status == 64)
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dump.directory.file("x.sqlite")))
  }

  @Test func aSpecWithoutAPatternHasNoFilesToShare() throws {
    let scratch = try TemporaryDirectory()
    let result = try SluiceCommand.run(
      ["run", "Pipelines/orders.json", "--db", scratch.file("x.sqlite"), "--share", "1/2"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--share deals out the files a glob pattern of the spec matches"))
  }
}

/// Shares of one dump loaded by several `sluice` processes at once into the same distributed
/// tables on the real cluster: exactly the rows one process loads, one recorded run per share,
/// and a share run again changes nothing.
@Suite("Citus shares loaded at once", .serialized, .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct CitusShareTests {
  func layOut(_ schema: PostgreSQLSchema) throws {
    let printed = try SluiceCommand.run(["schema", "orders", "--dialect", "citus"])
    let applied = try CitusCluster.psql(printed.stdout, in: schema)
    try #require(applied.status == 0, "\(applied.stderr)")
  }

  @Test(arguments: [2, 4])
  func sharesLoadedAtOnceGiveTheRowsOneProcessLoads(processes: Int) throws {
    let dump = try SplitOrdersDump(orders: 1_200, files: 8)
    let whole = CitusCluster.schema()
    let shared = CitusCluster.schema()
    try layOut(whole)
    try layOut(shared)
    let one = try SluiceCommand.run(["run", dump.spec, "--db", whole.url, "--db-schema", whole.name])
    try #require(one.status == 0, "\(one.stderr)")

    // N processes at once, each with its share, into the same tables.
    let running = try (1...processes).map { share in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: SluiceBinary.path)
      process.arguments = [
        "run", dump.spec, "--db", shared.url, "--db-schema", shared.name, "--share", "\(share)/\(processes)",
        "--report", dump.directory.file("share-\(share).json"), "--busy-timeout", "60",
      ]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      process.standardInput = FileHandle.nullDevice
      try process.run()
      return process
    }
    for process in running { process.waitUntilExit() }
    #expect(running.map(\.terminationStatus) == Array(repeating: 0, count: processes))
    let loaded = try shared.rows(of: ShareOptionTests.tables)
    #expect(loaded == (try whole.rows(of: ShareOptionTests.tables)))
    #expect(loaded.count("orders") == 1_200)

    // Each share is its own run, recorded with the files it read.
    let store = try shared.connect()
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'succeeded'") == Int64(processes))
    #expect(try store.scalarInt("SELECT sum(jsonb_array_length(inputs)) FROM sluice_runs") == 8)

    // A share run again changes nothing.
    let again = try SluiceCommand.run(
      ["run", dump.spec, "--db", shared.url, "--db-schema", shared.name, "--share", "1/\(processes)"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try shared.rows(of: ShareOptionTests.tables) == loaded)
  }

  /// The same share started twice at once (a retry while the first still runs): the second
  /// waits for the first's rows, then finds them, and the tables hold that share's rows once.
  @Test func aShareRunTwiceAtOnceLoadsItsRowsOnce() throws {
    let dump = try SplitOrdersDump(orders: 600, files: 4)
    let once = CitusCluster.schema()
    let twice = CitusCluster.schema()
    try layOut(once)
    try layOut(twice)
    let alone = try SluiceCommand.run(["run", dump.spec, "--db", once.url, "--db-schema", once.name, "--share", "1/2"])
    try #require(alone.status == 0, "\(alone.stderr)")
    let running = try (1...2).map { _ in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: SluiceBinary.path)
      process.arguments = [
        "run", dump.spec, "--db", twice.url, "--db-schema", twice.name, "--share", "1/2", "--busy-timeout", "60",
        "--report", dump.directory.file("twice-\(UUID().uuidString).json"),
      ]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      process.standardInput = FileHandle.nullDevice
      try process.run()
      return process
    }
    for process in running { process.waitUntilExit() }
    #expect(running.map(\.terminationStatus) == [0, 0])
    #expect(try twice.rows(of: ShareOptionTests.tables) == once.rows(of: ShareOptionTests.tables))
    #expect(try twice.rows(of: ["orders"]).count("orders") == 300)
  }
}
