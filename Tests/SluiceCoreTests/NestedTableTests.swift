import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// Child tables of child tables on SQLite: the nested orders (NestedOrdersDataset, NestedDatabase)
/// are in SluiceTestSupport, shared with the PostgreSQL and Citus tests in SluicePostgreSQLTests.
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
    _ = try database.run(database.configuration("first", NestedOrdersDataset.first, conflict: .upsert))
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
}
