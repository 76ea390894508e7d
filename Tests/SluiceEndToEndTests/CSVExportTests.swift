import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// A legacy shop's export, one CSV file per table (`Examples/csv-export`): the statuses, the
/// customers, the orders naming both by id, and the order lines naming their orders by
/// `order_id`, loaded by four dataset files as related tables in one run and one transaction.
/// Every table equals its file row for row; a value of the wrong type, or a line whose order is
/// nowhere, fails the strict run at its line and header and writes nothing; a lenient run skips
/// and counts them; a second run changes nothing.
@Suite("a CSV export of related tables, end to end")
struct CSVExportTests {
  private static let spec = Repository.path("Examples/csv-export/export.json")
  private static let sample = Repository.path("SampleData/csv-export")
  private static let tables = ["order_statuses", "customers", "orders", "order_items"]
  /// Per table, which of its file's columns are text (the others are integers).
  private static let textColumns: [String: Set<String>] = [
    "order_statuses": ["name"], "customers": ["name"], "orders": ["order_id", "currency", "created_at"],
    "order_items": ["order_id", "sku"],
  ]

  /// A file's rows as `DatabaseSnapshot` writes them: each column's SQL literal, joined by `|`.
  /// The sample's files hold no quotes and no commas inside fields, so a split reads them.
  private static func expectedRows(of table: String, in folder: String = sample) throws -> [String] {
    let text = try String(contentsOfFile: "\(folder)/\(table).csv", encoding: .utf8)
    var lines = text.split(separator: "\n").map(String.init)
    let header = lines.removeFirst().split(separator: ",").map(String.init)
    let texts = textColumns[table] ?? []
    return lines.map { line in
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      return zip(header, fields).map { column, field in
        texts.contains(column) ? "'" + field.replacingOccurrences(of: "'", with: "''") + "'" : field
      }.joined(separator: "|")
    }.sorted()
  }

  /// The export copied into `scratch` with the spec and dataset files beside it, so a test may
  /// change a file; returns the spec's path.
  private static func copyExport(into scratch: TemporaryDirectory) throws -> String {
    let examples = Repository.path("Examples/csv-export")
    let manager = FileManager.default
    for name in try manager.contentsOfDirectory(atPath: examples) where name.hasSuffix(".dataset.json") {
      try manager.copyItem(atPath: "\(examples)/\(name)", toPath: scratch.file(name))
    }
    for table in tables {
      try manager.copyItem(atPath: "\(sample)/\(table).csv", toPath: scratch.file("\(table).csv"))
    }
    let spec = try String(contentsOfFile: Self.spec, encoding: .utf8)
      .replacingOccurrences(of: "../../SampleData/csv-export/", with: "")
    return try scratch.write("export.json", spec)
  }

  /// Changes the fields of line `line` (1-based) of a copied file; returns the new fields.
  @discardableResult
  private static func editLine(
    _ line: Int, of table: String, in scratch: TemporaryDirectory, _ change: (inout [String]) -> Void
  ) throws -> [String] {
    let path = scratch.file("\(table).csv")
    var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
    var fields = lines[line - 1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    change(&fields)
    lines[line - 1] = fields.joined(separator: ",")
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return fields
  }

  @Test func theExportLoadsAsRelatedTablesRowForRow() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("export.sqlite")
    let result = try SluiceCommand.run(["run", Self.spec, "--db", database])
    #expect(result.status == 0, "\(result.stderr)")
    let loaded = try DatabaseSnapshot(of: database, tables: Self.tables)
    for table in Self.tables {
      let expected = try Self.expectedRows(of: table)
      #expect(!expected.isEmpty)
      #expect(loaded.tables[table] == expected, "\(table)")
    }
    // The tables are related: the lines' orders exist, and the store enforces it.
    let db = try SQLiteConnection(path: database, options: .init(readOnly: true, create: false))
    let foreignKeys = try db.prepare(
      "SELECT count(*) FROM pragma_foreign_key_list('order_items') WHERE \"table\" = 'orders'")
    #expect(try foreignKeys.step())
    #expect(foreignKeys.columnInt64(0) == 1)
    let orphans = try db.prepare("SELECT count(*) FROM pragma_foreign_key_check")
    #expect(try orphans.step())
    #expect(orphans.columnInt64(0) == 0)
  }

  @Test func aSecondRunOfTheSameExportChangesNothing() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("export.sqlite")
    #expect(try SluiceCommand.run(["run", Self.spec, "--db", database]).status == 0)
    let first = try DatabaseSnapshot(of: database, tables: Self.tables)
    let again = try SluiceCommand.run(["run", Self.spec, "--db", database])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try DatabaseSnapshot(of: database, tables: Self.tables) == first)
  }

  @Test func aWrongValueInTheLinesFailsTheStrictRunAtItsLineAndHeaderAndWritesNothing() throws {
    let scratch = try TemporaryDirectory()
    let spec = try Self.copyExport(into: scratch)
    let fields = try Self.editLine(40, of: "order_items", in: scratch) { $0[3] = "seven" }  // qty
    let database = scratch.file("export.sqlite")
    let result = try SluiceCommand.run(["run", spec, "--db", database, "--report", scratch.file("report.json")])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("record 39 (line 40, column 4)"), "\(result.stderr)")
    #expect(result.stderr.contains("qty"), "\(result.stderr)")
    #expect(!result.stderr.contains("seven"), "no values in messages: \(result.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("report.json"))))
    let issue = try #require(report.issues.first)
    #expect("\(issue.stage) \(issue.code) \(issue.path)" == "decode typeMismatch qty")
    #expect(issue.location?.line == 40)
    #expect(issue.location?.column == 4)
    // The byte offset is the field's: the line's start plus the three fields before it.
    let text = try String(contentsOfFile: scratch.file("order_items.csv"), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    let lineStart = lines[..<39].reduce(0) { $0 + $1.utf8.count + 1 }
    let before = fields[..<3].reduce(0) { $0 + $1.utf8.count + 1 }
    #expect(issue.location?.byteOffset == Int64(lineStart + before))
    // One transaction: the statuses, customers and orders read before the bad line are not kept.
    #expect(try DatabaseSnapshot(of: database, tables: Self.tables).tables.values.allSatisfy(\.isEmpty))
  }

  @Test func aLineWhoseOrderIsNowhereIsAnOrphanAtItsLine() throws {
    let scratch = try TemporaryDirectory()
    let spec = try Self.copyExport(into: scratch)
    try Self.editLine(12, of: "order_items", in: scratch) { $0[0] = "9999999999" }
    let database = scratch.file("export.sqlite")
    let strict = try SluiceCommand.run(["run", spec, "--db", database, "--report", scratch.file("strict.json")])
    #expect(strict.status == 65, "\(strict.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("strict.json"))))
    let orphan = try #require(report.issues.first { $0.code == .orphanReference })
    #expect(orphan.location?.line == 12)
    #expect(orphan.path == "order_id")
    #expect(try DatabaseSnapshot(of: database, tables: Self.tables).tables.values.allSatisfy(\.isEmpty))

    // Lenient: the orphan line is skipped and counted; every other row loads.
    let lenient = try SluiceCommand.run(["run", spec, "--db", database, "--policy", "lenient"])
    #expect(lenient.status == 0, "\(lenient.stderr)")
    let loaded = try DatabaseSnapshot(of: database, tables: Self.tables)
    #expect(loaded.count("orders") == (try Self.expectedRows(of: "orders").count))
    #expect(loaded.count("order_items") == (try Self.expectedRows(of: "order_items").count) - 1)
  }
}
