import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The benchmark's data and its Python contender, checked on a small N: the generator is
/// deterministic, Sluice's tables equal the Python reference loader's row for row, and the CSVs
/// the floors import hold exactly the rows Sluice writes — so the side-by-side table compares
/// equal work.
@Suite("Benchmark data and reference loader")
struct BenchmarkDataTests {
  static let generator = Tool.built("orders-generator")

  private func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, message)
  }

  private func rows(_ database: String, _ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var rows: [String] = []
    while try statement.step() {
      var fields: [String] = []
      var column: Int32 = 0
      while let text = statement.columnText(column) {
        fields.append(text)
        column += 1
      }
      rows.append(fields.joined(separator: ","))
    }
    return rows
  }

  static let queries = [
    "SELECT order_id, amount_minor, currency, status_id, created_at, customer_id FROM orders ORDER BY order_id",
    "SELECT order_id, line, sku, qty, price_minor FROM order_items ORDER BY order_id, line",
    "SELECT customer_id, name FROM customers ORDER BY customer_id",
    "SELECT id, name, is_final, retired FROM order_statuses ORDER BY id",
  ]

  @Test func generatorIsDeterministicAndSluiceMatchesTheReferenceLoaderAndTheCSVs() throws {
    let scratch = try TemporaryDirectory()
    let first = scratch.file("first")
    let second = scratch.file("second")
    for directory in [first, second] {
      let (status, message) = try run(Self.generator, ["--count", "300", "--seed", "7", "--out", directory])
      #expect(status == 0, "\(message)")
    }
    let files = [
      "orders.json.gz", "orders.ndjson.gz", "orders.csv", "order_items.csv", "customers.csv", "order_statuses.csv",
    ]
    for file in files {
      let a = try Data(contentsOf: URL(fileURLWithPath: "\(first)/\(file)"))
      let b = try Data(contentsOf: URL(fileURLWithPath: "\(second)/\(file)"))
      #expect(a == b, "\(file) differs between two runs with the same seed")
      #expect(!a.isEmpty)
    }

    let sluiceDatabase = scratch.file("sluice.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--input", "\(first)/orders.json.gz", "--db", sluiceDatabase,
      "--report", scratch.file("r.json"),
    ])
    #expect(result.status == 0, "\(result.stderr)")

    let schema = try scratch.write("schema.sql", try SluiceCommand.run(["schema", "orders"]).stdout)
    let referenceDatabase = scratch.file("reference.sqlite")
    let (status, message) = try run(
      "/usr/bin/env",
      [
        "python3", Repository.path("Benchmarks/reference_loader.py"), "--schema", schema, "--input",
        "\(first)/orders.json.gz", "--db", referenceDatabase,
      ])
    #expect(status == 0, "\(message)")

    for query in Self.queries {
      let sluiceRows = try rows(sluiceDatabase, query)
      #expect(!sluiceRows.isEmpty)
      #expect(sluiceRows == (try rows(referenceDatabase, query)), "\(query)")
    }
    for (file, query) in zip(["orders.csv", "order_items.csv", "customers.csv", "order_statuses.csv"], Self.queries) {
      let lines = try String(contentsOfFile: "\(first)/\(file)", encoding: .utf8)
        .split(separator: "\n").dropFirst().map(String.init)
      #expect(lines == (try rows(sluiceDatabase, query)), "\(file)")
    }
  }
}
