import Foundation
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// Orders whose lines have taxes, whose taxes have parts, whose parts have tags: child tables of
/// child tables, four deep (the last an array of scalars), each keyed by its parent's key and
/// its own position.
struct NestedOrdersDataset: Dataset {
  struct PartDTO: Decodable {
    var code: String?
    var tags: [String]
  }
  struct TaxDTO: Decodable { var rate: Int64, parts: [PartDTO] }
  struct LineDTO: Decodable { var sku: String, taxes: [TaxDTO] }
  struct DTO: Decodable { var id: String, note: String, lines: [LineDTO] }

  static let orders = Table("orders", key: ["order_id"], columns: [.text("order_id", field: "id"), .text("note")])
  static let lines = Table("order_lines", childOf: orders, position: "line", field: "lines", columns: [.text("sku")])
  static let taxes = Table(
    "line_taxes", childOf: lines, position: "tax", startingAt: 1, field: "taxes", columns: [.integer("rate")])
  static let parts = Table(
    "tax_parts", childOf: taxes, position: "part", field: "parts", columns: [.text("code", checks: [.notEmpty])])
  static let tags = Table(
    "part_tags", childOf: parts, position: "tag", field: "tags", columns: [.text("value", field: "")])

  var name: String { "nested" }
  var summary: String { "orders → lines → taxes → parts → tags" }
  var schema: Schema { Schema([Self.orders, Self.lines, Self.taxes, Self.parts, Self.tags]) }
  func validate(_ dto: DTO, into validation: inout Validation) {}
  func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> DTO { dto }

  func rows(for order: DTO, into rows: inout RecordRows) {
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

  static let tableNames = NestedOrdersDataset().schema.tableNames

  /// A part: its code and tags.
  typealias Part = (code: String?, tags: [String])
  /// A tax: its rate and parts.
  typealias Tax = (rate: Int64, parts: [Part])
  /// A line: its SKU and taxes.
  typealias Line = (sku: String, taxes: [Tax])

  /// One order as NDJSON.
  static func order(_ id: String, note: String = "n", _ lines: [Line]) -> String {
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
  static let first = [
    order(
      "o1",
      [
        ("a", [(7, [("p1", ["t1", "t2"]), ("p2", [])]), (8, [("p3", ["t3"])])]),
        ("b", [(9, [("p4", ["t4", "t5", "t6"])])]),
      ]),
    order("o2", [("c", [(5, [("q1", ["u1"])])])]),
  ]

  /// o1 again, changed at every depth: one line left, one tax, one part of other tags.
  static let changed = order("o1", note: "again", [("a", [(7, [("p1", ["t9"])])])])
}

/// A database in a temporary directory and the runs that load the nested orders into it.
struct NestedDatabase {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.file("nested.sqlite")
  }

  func configuration(_ name: String, _ lines: [String], conflict: ConflictPolicy, policy: Policy = .strict) throws
    -> PipelineConfiguration
  {
    let input = try directory.write("\(name).ndjson", lines.joined(separator: "\n") + "\n")
    var configuration = PipelineConfiguration(
      name: "nested", input: input, format: .ndjson, policy: policy, database: .sqlite(path), conflict: conflict)
    configuration.reportPath = nil
    return configuration.counted
  }

  func run(_ configuration: PipelineConfiguration) throws -> RunReport {
    try Pipeline(dataset: NestedOrdersDataset(), configuration: configuration).run()
  }

  func rows() throws -> TableRows { try TableRows(sqlite: path, tables: NestedOrdersDataset.tableNames) }

  /// `SELECT … ORDER BY` every key column, each row as its columns joined by `|`.
  func select(_ sql: String) throws -> [String] {
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
  func orphans() throws -> Int64 {
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

@Suite("Child tables of child tables, at any depth")
struct NestedTableTests {
  @Test func eachDepthIsKeyedByItsParentsKeyAndItsPositionAndCascades() {
    let sql = NestedOrdersDataset().schema.migrations(dialect: SQLiteDialect())
    let ddl = Dictionary(uniqueKeysWithValues: sql.map { ($0.identifier, $0.sql) })
    let taxes = ddl["create table line_taxes"] ?? ""
    #expect(taxes.contains("PRIMARY KEY (order_id, line, tax)"), "\(taxes)")
    #expect(
      taxes.contains("FOREIGN KEY (order_id, line) REFERENCES order_lines (order_id, line) ON DELETE CASCADE"),
      "\(taxes)")
    #expect(taxes.contains(#"tax INTEGER NOT NULL CONSTRAINT "line_taxes.tax check" CHECK (tax >= 1)"#), "\(taxes)")
    let tags = ddl["create table part_tags"] ?? ""
    #expect(tags.contains("PRIMARY KEY (order_id, line, tax, part, tag)"), "\(tags)")
    #expect(
      tags.contains(
        "FOREIGN KEY (order_id, line, tax, part) REFERENCES tax_parts (order_id, line, tax, part) ON DELETE CASCADE"),
      "\(tags)")
    #expect(NestedOrdersDataset.tags.key == ["order_id", "line", "tax", "part", "tag"])
    #expect(NestedOrdersDataset.tags.depth == 4 && NestedOrdersDataset.tags.root === NestedOrdersDataset.orders)
  }

  @Test(arguments: [ConflictPolicy.upsert, .replace])
  func aReimportedRecordReplacesItsRowsAtEveryDepth(conflict: ConflictPolicy) throws {
    let database = try NestedDatabase()
    let first = try database.run(database.configuration("first", NestedOrdersDataset.first, conflict: conflict))
    #expect(first.status == .succeeded, "\(first.failure?.message ?? "")")
    #expect(
      first.rowsWritten == ["orders": 2, "order_lines": 3, "line_taxes": 4, "tax_parts": 5, "part_tags": 7])
    #expect(
      try database.select("SELECT order_id, line, tax, part, code FROM tax_parts ORDER BY 1, 2, 3, 4") == [
        "o1|0|1|0|p1", "o1|0|1|1|p2", "o1|0|2|0|p3", "o1|1|1|0|p4", "o2|0|1|0|q1",
      ])
    #expect(
      try database.select("SELECT order_id, line, tax, part, tag, value FROM part_tags ORDER BY 1, 2, 3, 4, 5") == [
        "o1|0|1|0|0|t1", "o1|0|1|0|1|t2", "o1|0|2|0|0|t3", "o1|1|1|0|0|t4", "o1|1|1|0|1|t5", "o1|1|1|0|2|t6",
        "o2|0|1|0|0|u1",
      ])

    let again = try database.run(database.configuration("again", [NestedOrdersDataset.changed], conflict: conflict))
    #expect(again.status == .succeeded, "\(again.failure?.message ?? "")")
    // o1's rows are exactly the new record's, at every depth; o2's are untouched.
    #expect(try database.select("SELECT order_id, note FROM orders ORDER BY 1") == ["o1|again", "o2|n"])
    #expect(try database.select("SELECT order_id, line, sku FROM order_lines ORDER BY 1, 2") == ["o1|0|a", "o2|0|c"])
    #expect(
      try database.select("SELECT order_id, line, tax, rate FROM line_taxes ORDER BY 1, 2, 3") == [
        "o1|0|1|7", "o2|0|1|5",
      ])
    #expect(
      try database.select("SELECT order_id, line, tax, part, code FROM tax_parts ORDER BY 1, 2, 3, 4") == [
        "o1|0|1|0|p1", "o2|0|1|0|q1",
      ])
    #expect(
      try database.select("SELECT order_id, line, tax, part, tag, value FROM part_tags ORDER BY 1, 2, 3, 4, 5") == [
        "o1|0|1|0|0|t9", "o2|0|1|0|0|u1",
      ])
    #expect(try database.orphans() == 0)

    // The same record once more changes nothing.
    let before = try database.rows()
    let same = try database.run(database.configuration("same", [NestedOrdersDataset.changed], conflict: conflict))
    #expect(same.status == .succeeded)
    #expect(try database.rows() == before)
  }

  @Test func anIssueAboutAGrandchildsColumnPointsAtItsElement() throws {
    let database = try NestedDatabase()
    let bad = NestedOrdersDataset.order("o3", [("a", []), ("b", [(1, []), (2, [("p", []), (nil, ["x"])])])])
    let report = try database.run(
      database.configuration(
        "bad", [bad] + NestedOrdersDataset.first, conflict: .upsert, policy: Policy(preset: .lenient)))
    #expect(report.status == .succeeded)
    #expect(report.issues.map(\.place) == ["load error nullValue lines[1].taxes[1].parts[1].code line 1"])
    // A part code that breaks its check: the store's constraint, at the table.
    let empty = NestedOrdersDataset.order("o4", [("a", [(1, [("", [])])])])
    let checked = try database.run(
      database.configuration("empty", [empty], conflict: .upsert, policy: Policy(preset: .lenient)))
    #expect(checked.issues.map(\.code) == [.constraint])
    #expect(try database.select("SELECT order_id FROM orders ORDER BY 1") == ["o1", "o2"])
  }

  /// A snapshot that no longer has o1 deletes it, and its rows at every depth go with it; a plan
  /// of it says so per table.
  @Test func aSnapshotDeletesARecordsRowsAtEveryDepth() throws {
    let database = try NestedDatabase()
    var load = try database.configuration("first", NestedOrdersDataset.first, conflict: .upsert)
    load.snapshot.maxDeleteRate = 1
    _ = try database.run(load)
    var snapshot = try database.configuration(
      "snapshot", [NestedOrdersDataset.first[1]], conflict: .upsert)
    snapshot.inputs[0].isSnapshot = true
    snapshot.snapshot.maxDeleteRate = 1
    var plan = snapshot
    plan.mode = .plan
    let planned = try database.run(plan)
    let changes = Dictionary(uniqueKeysWithValues: (planned.plan?.tables ?? []).map { ($0.table, $0.deletes) })
    #expect(changes == ["orders": 1, "order_lines": 2, "line_taxes": 3, "tax_parts": 4, "part_tags": 6])
    let report = try database.run(snapshot)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(try database.select("SELECT count(*) FROM part_tags") == ["1"])
    #expect(try database.select("SELECT count(*) FROM tax_parts") == ["1"])
    #expect(try database.orphans() == 0)
  }

  /// A run in checkpointed chunks writes what one transaction writes.
  @Test func aCheckpointedRunWritesTheRowsOfAnUninterruptedOne() throws {
    let orders = (0..<9).map { NestedOrdersDataset.order("c\($0)", [("a", [(1, [("p", ["x", "y"])])]), ("b", [])]) }
    let whole = try NestedDatabase()
    _ = try whole.run(whole.configuration("whole", orders, conflict: .upsert))
    let chunked = try NestedDatabase()
    var configuration = try chunked.configuration("chunked", orders, conflict: .upsert)
    configuration.checkpointing = .init(recordsPerChunk: 2)
    let report = try chunked.run(configuration)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(try chunked.rows() == whole.rows())
    #expect(try chunked.select("SELECT count(*) FROM part_tags") == ["18"])
  }

  /// A staged run (chunks in a side database, published in one transaction) leaves what a
  /// plain one does: o1's rows replaced at every depth, the others kept.
  @Test func aStagedRunPublishesWhatAPlainRunWrites() throws {
    let plain = try NestedDatabase()
    let staged = try NestedDatabase()
    let more = (0..<5).map { NestedOrdersDataset.order("s\($0)", [("a", [(1, [("p", ["x"])])])]) }
    for database in [plain, staged] {
      _ = try database.run(database.configuration("first", NestedOrdersDataset.first + more, conflict: .upsert))
    }
    let lines = [NestedOrdersDataset.changed] + more.prefix(3)
    _ = try plain.run(plain.configuration("changed", lines, conflict: .upsert))
    var configuration = try staged.configuration("changed", lines, conflict: .upsert)
    configuration.checkpointing = .init(recordsPerChunk: 2, staged: true)
    let report = try staged.run(configuration)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(try staged.rows() == plain.rows())
    #expect(try staged.orphans() == 0)
  }

  @Test func citusDistributesEveryDepthByTheTopLevelKeyBesideItsRecord() {
    let placements = CitusLayout.placements(of: NestedOrdersDataset().schema.tables)
    #expect(placements["orders"] == .distributed(column: "order_id", colocateWith: nil))
    for table in ["order_lines", "line_taxes", "tax_parts", "part_tags"] {
      #expect(placements[table] == .distributed(column: "order_id", colocateWith: "orders"), "\(table)")
    }
  }
}

/// The same loads into PostgreSQL: its bulk writer (copied straight in, then staged for the
/// re-import) and its row writer leave the rows SQLite has.
@Suite(
  "PostgreSQL: child tables of child tables",
  .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"))
struct PostgreSQLNestedTableTests {
  @Test(arguments: [ConflictPolicy.upsert, .replace, .ignore])
  func theBulkWriterReplacesARecordsRowsAtEveryDepthAsSQLiteDoes(conflict: ConflictPolicy) throws {
    let sqlite = try NestedDatabase()
    let schema = PostgreSQLSchema()
    let many = (0..<30).map {
      NestedOrdersDataset.order("m\($0)", [("a", [(1, [("p", ["x", "y"]), ("q", [])])]), ("b", [(2, [])])])
    }
    let runs: [(String, [String])] = [
      ("first", NestedOrdersDataset.first + many), ("changed", [NestedOrdersDataset.changed] + many),
      ("same", [NestedOrdersDataset.changed]),
      ("twice", [NestedOrdersDataset.first[0], NestedOrdersDataset.changed, NestedOrdersDataset.first[1]]),
    ]
    for (name, lines) in runs {
      let configuration = try sqlite.configuration(name, lines, conflict: conflict)
      let expected = try sqlite.run(configuration)
      let report = try Pipeline(dataset: NestedOrdersDataset(), configuration: schema.aim(configuration)).run()
      #expect(report.status == .succeeded, "\(name): \(report.failure?.message ?? "")")
      #expect(report.rowsWritten == expected.rowsWritten, "\(name)")
      let writes = report.bulkWrites?.tables["orders"]
      if name == "first" { #expect((writes?.copied ?? 0) >= 1, "\(name): \(String(describing: writes))") }
      if name == "changed" { #expect((writes?.staged ?? 0) >= 1, "\(name): \(String(describing: writes))") }
      #expect(try schema.rows(of: NestedOrdersDataset.tableNames) == sqlite.rows(), "\(name)")
    }
    #expect(try sqlite.orphans() == 0)
    let tags = try schema.rows(of: ["part_tags"])
    // Under ignore, o1 keeps its first rows.
    #expect(tags.count("part_tags") == (conflict == .ignore ? 67 : 62))
  }

  @Test func aStagedRunPublishesWhatSQLiteHas() throws {
    let sqlite = try NestedDatabase()
    let schema = PostgreSQLSchema()
    let more = (0..<5).map { NestedOrdersDataset.order("s\($0)", [("a", [(1, [("p", ["x"])])])]) }
    for (name, lines) in [
      ("first", NestedOrdersDataset.first + more), ("changed", [NestedOrdersDataset.changed] + more.prefix(3)),
    ] {
      var configuration = try sqlite.configuration(name, lines, conflict: .upsert)
      _ = try sqlite.run(configuration)
      configuration.checkpointing = .init(recordsPerChunk: 2, staged: true)
      let report = try Pipeline(dataset: NestedOrdersDataset(), configuration: schema.aim(configuration)).run()
      #expect(report.status == .succeeded, "\(name): \(report.failure?.message ?? "")")
      #expect(try schema.rows(of: NestedOrdersDataset.tableNames) == sqlite.rows(), "\(name)")
    }
  }

  @Test func anIssueAboutAGrandchildIsFoundRowByRowAsInSQLite() throws {
    let sqlite = try NestedDatabase()
    let schema = PostgreSQLSchema()
    let bad = NestedOrdersDataset.order("o4", [("a", [(1, [("", [])])])])
    let configuration = try sqlite.configuration(
      "bad", NestedOrdersDataset.first + [bad], conflict: .upsert, policy: Policy(preset: .lenient))
    let expected = try sqlite.run(configuration)
    let report = try Pipeline(dataset: NestedOrdersDataset(), configuration: schema.aim(configuration)).run()
    #expect(report.issues.map(\.code) == [.constraint])
    #expect(report.issues.map(\.path) == expected.issues.map(\.path))
    #expect(try schema.rows(of: NestedOrdersDataset.tableNames) == sqlite.rows())
  }
}

/// On Citus, laid out as `sluice schema --dialect citus` prints it: every depth distributed by
/// the order's key, colocated with the orders, and loaded and replaced as SQLite does.
@Suite(
  "Citus: child tables of child tables", .serialized, .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct CitusNestedTableTests {
  @Test func everyDepthSitsBesideItsRecordAndIsReplacedWithIt() throws {
    let sqlite = try NestedDatabase()
    let schema = CitusCluster.schema()
    let declared = NestedOrdersDataset().schema
    let dialect = PostgreSQLDialect()
    let script =
      declared.migrations(dialect: dialect).map(\.sql)
      + CitusLayout().statements(for: declared, named: "nested", among: [declared], dialect: dialect)
    let applied = try CitusCluster.psql(script.joined(separator: "\n"), in: schema)
    try #require(applied.status == 0, "\(applied.stderr)")
    let layout = try CitusCluster.layout(of: NestedOrdersDataset.tableNames, in: schema)
    #expect(layout["orders"] == "distributed by 'order_id'")
    for table in ["order_lines", "line_taxes", "tax_parts", "part_tags"] {
      #expect(layout[table] == "distributed by 'order_id' colocated with orders", "\(table)")
    }
    let many = (0..<20).map { NestedOrdersDataset.order("m\($0)", [("a", [(1, [("p", ["x", "y"])])])]) }
    for (name, lines) in [
      ("first", NestedOrdersDataset.first + many), ("changed", [NestedOrdersDataset.changed] + many),
    ] {
      let configuration = try sqlite.configuration(name, lines, conflict: .upsert)
      let expected = try sqlite.run(configuration)
      let report = try Pipeline(dataset: NestedOrdersDataset(), configuration: schema.aim(configuration)).run()
      #expect(report.status == .succeeded, "\(name): \(report.failure?.message ?? "")")
      #expect(report.rowsWritten == expected.rowsWritten, "\(name)")
      #expect(try schema.rows(of: NestedOrdersDataset.tableNames) == sqlite.rows(), "\(name)")
    }
  }
}
