import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite

// The nested orders: a dataset four tables deep and the SQLite database the tests load it into,
// shared by the engine's tests (SluiceCoreTests, on SQLite) and the PostgreSQL driver's
// (SluicePostgreSQLTests, which compare PostgreSQL's and Citus's rows with SQLite's).

/// Orders whose lines have taxes, whose taxes have parts, whose parts have tags: child tables of
/// child tables, four deep (the last an array of scalars), each keyed by its parent's key and
/// its own position.
package struct NestedOrdersDataset: Dataset {
  package struct PartDTO: Decodable {
    package var code: String?
    package var tags: [String]
  }
  package struct TaxDTO: Decodable { package var rate: Int64, parts: [PartDTO] }
  package struct LineDTO: Decodable { package var sku: String, taxes: [TaxDTO] }
  package struct DTO: Decodable { package var id: String, note: String, lines: [LineDTO] }

  package static let orders = Table(
    "orders", key: ["order_id"], columns: [.text("order_id", field: "id"), .text("note")])
  package static let lines = Table(
    "order_lines", childOf: orders, position: "line", field: "lines", columns: [.text("sku")])
  package static let taxes = Table(
    "line_taxes", childOf: lines, position: "tax", startingAt: 1, field: "taxes", columns: [.integer("rate")])
  package static let parts = Table(
    "tax_parts", childOf: taxes, position: "part", field: "parts", columns: [.text("code", checks: [.notEmpty])])
  package static let tags = Table(
    "part_tags", childOf: parts, position: "tag", field: "tags", columns: [.text("value", field: "")])

  package init() {}

  package var name: String { "nested" }
  package var summary: String { "orders → lines → taxes → parts → tags" }
  package var schema: Schema { Schema([Self.orders, Self.lines, Self.taxes, Self.parts, Self.tags]) }
  package func validate(_ dto: DTO, into validation: inout Validation) {}
  package func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> DTO { dto }

  package func rows(for order: DTO, into rows: inout RecordRows) {
    rows.add(Self.orders, order.id, order.note)
    for line in order.lines {
      rows.add(Self.lines, line.sku)
      for tax in line.taxes {
        rows.add(Self.taxes, tax.rate)
        for part in tax.parts {
          rows.add(Self.parts, part.code)
          for tag in part.tags { rows.add(Self.tags, tag) }
        }
      }
    }
  }

  package static let tableNames = NestedOrdersDataset().schema.tableNames

  /// A part: its code and tags.
  package typealias Part = (code: String?, tags: [String])
  /// A tax: its rate and parts.
  package typealias Tax = (rate: Int64, parts: [Part])
  /// A line: its SKU and taxes.
  package typealias Line = (sku: String, taxes: [Tax])

  /// One order as NDJSON.
  package static func order(_ id: String, note: String = "n", _ lines: [Line]) -> String {
    func text(_ value: String?) -> String { value.map { #""\#($0)""# } ?? "null" }
    let lines = lines.map { line in
      let taxes = line.taxes.map { tax in
        let parts = tax.parts.map { part in
          #"{"code":\#(text(part.code)),"tags":[\#(part.tags.map { text($0) }.joined(separator: ","))]}"#
        }
        return #"{"rate":\#(tax.rate),"parts":[\#(parts.joined(separator: ","))]}"#
      }
      return #"{"sku":"\#(line.sku)","taxes":[\#(taxes.joined(separator: ","))]}"#
    }
    return #"{"id":"\#(id)","note":"\#(note)","lines":[\#(lines.joined(separator: ","))]}"#
  }

  /// The first load: o1 two lines deep in taxes, parts and tags; o2 small.
  package static let first = [
    order(
      "o1",
      [
        ("a", [(7, [("p1", ["t1", "t2"]), ("p2", [])]), (8, [("p3", ["t3"])])]),
        ("b", [(9, [("p4", ["t4", "t5", "t6"])])]),
      ]),
    order("o2", [("c", [(5, [("q1", ["u1"])])])]),
  ]

  /// o1 again, changed at every depth: one line left, one tax, one part of other tags.
  package static let changed = order("o1", note: "again", [("a", [(7, [("p1", ["t9"])])])])
}

/// A database in a temporary directory and the runs that load the nested orders into it.
package struct NestedDatabase {
  package let directory: TemporaryDirectory
  package let path: String

  package init() throws {
    directory = try TemporaryDirectory()
    path = directory.file("nested.sqlite")
  }

  package func configuration(_ name: String, _ lines: [String], conflict: ConflictPolicy, policy: Policy = .strict)
    throws
    -> PipelineConfiguration
  {
    let input = try directory.write("\(name).ndjson", lines.joined(separator: "\n") + "\n")
    var configuration = PipelineConfiguration(
      name: "nested", input: input, format: .ndjson, policy: policy, database: .sqlite(path), conflict: conflict)
    configuration.reportPath = nil
    return configuration.counted
  }

  package func run(_ configuration: PipelineConfiguration) throws -> RunReport {
    try Pipeline(dataset: NestedOrdersDataset(), configuration: configuration).run()
  }

  package func rows() throws -> TableRows { try TableRows(sqlite: path, tables: NestedOrdersDataset.tableNames) }

  /// `SELECT … ORDER BY` every key column, each row as its columns joined by `|`.
  package func select(_ sql: String) throws -> [String] {
    let db = try SQLiteConnection(path: path)
    let statement = try db.prepare(sql)
    var rows: [String] = []
    while try statement.step() {
      rows.append(
        (0..<statement.columnCount).map { statement.columnText(Int32($0)) ?? "∅" }.joined(separator: "|"))
    }
    return rows
  }

  /// Rows below a parent that is not there: none, at every depth.
  package func orphans() throws -> Int64 {
    let db = try SQLiteConnection(path: path)
    let counts = try [
      "SELECT count(*) FROM order_lines c LEFT JOIN orders p USING (order_id) WHERE p.order_id IS NULL",
      "SELECT count(*) FROM line_taxes c LEFT JOIN order_lines p USING (order_id, line) WHERE p.sku IS NULL",
      "SELECT count(*) FROM tax_parts c LEFT JOIN line_taxes p USING (order_id, line, tax) WHERE p.rate IS NULL",
      "SELECT count(*) FROM part_tags c LEFT JOIN tax_parts p USING (order_id, line, tax, part) WHERE p.code IS NULL",
    ].map { try db.scalarInt($0) ?? -1 }
    return counts.reduce(0, +)
  }
}
