import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

// Four releases of "the same" enum, all owning `test_statuses`. Each is a separate type because
// a test cannot edit an enum between runs; what matters to the table is the declared ids, raw
// values and attributes, never the declaration order.

/// Release 1: three cases.
enum TestStatusV1: String, LookupEnum {
  case pending, completed, cancelled

  static var lookupTable: String { "test_statuses" }
  static var lookupColumns: [Column] { [.boolean("is_final"), .text("label", nullable: true)] }

  var lookupID: Int64 {
    switch self {
    case .pending: 1
    case .completed: 2
    case .cancelled: 3
    }
  }

  var lookupValues: [DatabaseValue?] {
    switch self {
    case .pending: [.integer(0), .text("Pending")]
    case .completed: [.integer(1), .text("Completed")]
    case .cancelled: [.integer(1), .text("Cancelled")]
    }
  }
}

/// Release 2: a case added (`shipped`), an attribute changed (`completed`'s label), the cases
/// declared in another order.
enum TestStatusV2: String, LookupEnum {
  case shipped, cancelled, completed, pending

  static var lookupTable: String { "test_statuses" }
  static var lookupColumns: [Column] { TestStatusV1.lookupColumns }

  var lookupID: Int64 {
    switch self {
    case .pending: 1
    case .completed: 2
    case .cancelled: 3
    case .shipped: 4
    }
  }

  var lookupValues: [DatabaseValue?] {
    switch self {
    case .pending: [.integer(0), .text("Pending")]
    case .completed: [.integer(1), .text("Done")]
    case .cancelled: [.integer(1), .text("Cancelled")]
    case .shipped: [.integer(0), nil]
    }
  }
}

/// Release 3: `cancelled` removed, the rest reordered again.
enum TestStatusV3: String, LookupEnum {
  case completed, pending, shipped

  static var lookupTable: String { "test_statuses" }
  static var lookupColumns: [Column] { TestStatusV1.lookupColumns }

  var lookupID: Int64 {
    switch self {
    case .pending: 1
    case .completed: 2
    case .shipped: 4
    }
  }

  var lookupValues: [DatabaseValue?] {
    switch self {
    case .pending: [.integer(0), .text("Pending")]
    case .completed: [.integer(1), .text("Done")]
    case .shipped: [.integer(0), nil]
    }
  }
}

/// Release 4: `cancelled` back, under its old id; `shipped` renamed `dispatched` (same id).
enum TestStatusV4: String, LookupEnum {
  case pending, dispatched, completed, cancelled

  static var lookupTable: String { "test_statuses" }
  static var lookupColumns: [Column] { TestStatusV1.lookupColumns }

  var lookupID: Int64 {
    switch self {
    case .pending: 1
    case .completed: 2
    case .cancelled: 3
    case .dispatched: 4
    }
  }

  var lookupValues: [DatabaseValue?] {
    switch self {
    case .pending: [.integer(0), .text("Pending")]
    case .completed: [.integer(1), .text("Done")]
    case .cancelled: [.integer(1), .text("Cancelled")]
    case .dispatched: [.integer(0), nil]
    }
  }
}

/// An enum whose table has no attribute columns.
enum TestColor: String, LookupEnum {
  case red, green

  static var lookupTable: String { "test_colors" }

  var lookupID: Int64 { self == .red ? 10 : 20 }
}

@Suite("Enum-owned lookup tables")
struct LookupTableTests {
  /// A database with `test_statuses` and a table of rows that reference it.
  final class Scratch {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
      directory = try TemporaryDirectory()
      path = directory.file("lookup.sqlite")
      try SQLiteConnection(path: path).execute(
        LookupTable.createStatement(for: TestStatusV1.self, dialect: SQLiteDialect()) + """

          CREATE TABLE test_orders (
            id INTEGER PRIMARY KEY, status_id INTEGER NOT NULL REFERENCES test_statuses (id)) STRICT;
          """)
    }

    /// Synchronizes in a transaction of its own on a fresh connection, as a new run would.
    @discardableResult
    func synchronize<E: LookupEnum>(_ type: E.Type) throws -> (inserted: Int, updated: Int, retired: Int) {
      let connection = try SQLiteConnection(path: path)
      return try connection.withTransaction { try LookupTable.synchronize(type, in: connection) }
    }

    /// `id|name|is_final|label|retired`, by id.
    func rows() throws -> [String] {
      try strings(
        """
        SELECT id || '|' || name || '|' || is_final || '|' || ifnull(label, 'NULL') || '|' || retired
        FROM test_statuses ORDER BY id
        """)
    }

    func strings(_ sql: String) throws -> [String] {
      let statement = try SQLiteConnection(path: path).prepare(sql)
      var rows: [String] = []
      while try statement.step() { rows.append(statement.columnText(0) ?? "NULL") }
      return rows
    }
  }

  private func counts(_ result: (inserted: Int, updated: Int, retired: Int)) -> [Int] {
    [result.inserted, result.updated, result.retired]
  }

  @Test func createStatementDeclaresIDNameAttributesAndRetired() throws {
    let scratch = try Scratch()
    #expect(
      try scratch.strings("SELECT group_concat(name, ',') FROM pragma_table_info('test_statuses')")
        == ["id,name,is_final,label,retired"])
    #expect(try scratch.strings("SELECT count(*) FROM test_statuses") == ["0"])
  }

  @Test func syncFollowsTheEnumAcrossReleasesAndKeepsIDsStable() throws {
    let scratch = try Scratch()

    #expect(counts(try scratch.synchronize(TestStatusV1.self)) == [3, 0, 0])
    #expect(try scratch.rows() == ["1|pending|0|Pending|0", "2|completed|1|Completed|0", "3|cancelled|1|Cancelled|0"])
    #expect(counts(try scratch.synchronize(TestStatusV1.self)) == [0, 0, 0])

    let orders = try SQLiteConnection(path: scratch.path)
    try orders.execute("INSERT INTO test_orders (id, status_id) VALUES (1, 1), (2, 2), (3, 3), (4, 3)")
    let join = """
      SELECT o.id || ':' || s.name || ':' || s.retired
      FROM test_orders o JOIN test_statuses s ON s.id = o.status_id ORDER BY o.id
      """

    // Added case, changed attribute, reordered declaration.
    #expect(counts(try scratch.synchronize(TestStatusV2.self)) == [1, 1, 0])
    #expect(
      try scratch.rows() == [
        "1|pending|0|Pending|0", "2|completed|1|Done|0", "3|cancelled|1|Cancelled|0", "4|shipped|0|NULL|0",
      ])
    #expect(counts(try scratch.synchronize(TestStatusV2.self)) == [0, 0, 0])
    try orders.execute("INSERT INTO test_orders (id, status_id) VALUES (5, 4)")

    // Removed case: kept, marked retired, still joined by its orders.
    #expect(counts(try scratch.synchronize(TestStatusV3.self)) == [0, 0, 1])
    #expect(
      try scratch.rows() == [
        "1|pending|0|Pending|0", "2|completed|1|Done|0", "3|cancelled|1|Cancelled|1", "4|shipped|0|NULL|0",
      ])
    #expect(
      try scratch.strings(join) == ["1:pending:0", "2:completed:0", "3:cancelled:1", "4:cancelled:1", "5:shipped:0"])
    #expect(counts(try scratch.synchronize(TestStatusV3.self)) == [0, 0, 0])  // already retired

    // A returning case takes its old id back and is no longer retired; a renamed case keeps its id.
    #expect(counts(try scratch.synchronize(TestStatusV4.self)) == [0, 2, 0])
    #expect(
      try scratch.rows() == [
        "1|pending|0|Pending|0", "2|completed|1|Done|0", "3|cancelled|1|Cancelled|0", "4|dispatched|0|NULL|0",
      ])
    #expect(
      try scratch.strings(join) == ["1:pending:0", "2:completed:0", "3:cancelled:0", "4:cancelled:0", "5:dispatched:0"])

    // Going back to release 1 retires `dispatched` and restores the old label.
    #expect(counts(try scratch.synchronize(TestStatusV1.self)) == [0, 1, 1])
    #expect(try scratch.strings("SELECT id FROM test_statuses WHERE retired = 1") == ["4"])
    #expect(try scratch.strings("SELECT label FROM test_statuses WHERE id = 2") == ["Completed"])
  }

  @Test func reorderingTheEnumChangesNothing() throws {
    let scratch = try Scratch()
    try scratch.synchronize(TestStatusV2.self)
    let before = try scratch.rows()
    // V2 declares shipped, cancelled, completed, pending; ids follow the cases, not the order.
    #expect(before.map { $0.prefix(2) } == ["1|", "2|", "3|", "4|"])
    #expect(try scratch.strings("SELECT name FROM test_statuses WHERE id = 1") == ["pending"])
    #expect(TestStatusV2.allCases.first == .shipped)
    #expect(counts(try scratch.synchronize(TestStatusV2.self)) == [0, 0, 0])
    #expect(try scratch.rows() == before)
  }

  @Test func syncRunsInsideTheCallersTransaction() throws {
    let scratch = try Scratch()
    let connection = try SQLiteConnection(path: scratch.path)
    struct Stop: Error {}
    #expect(throws: Stop.self) {
      try connection.withTransaction {
        try LookupTable.synchronize(TestStatusV1.self, in: connection)
        throw Stop()
      }
    }
    #expect(try scratch.rows().isEmpty)
  }

  @Test func enumWithoutAttributesGetsJustIDNameAndRetired() throws {
    let directory = try TemporaryDirectory()
    let connection = try SQLiteConnection(path: directory.file("colors.sqlite"))
    try connection.execute(LookupTable.createStatement(for: TestColor.self, dialect: SQLiteDialect()))
    let result = try LookupTable.synchronize(TestColor.self, in: connection)
    #expect(counts(result) == [2, 0, 0])
    #expect(counts(try LookupTable.synchronize(TestColor.self, in: connection)) == [0, 0, 0])
    let statement = try connection.prepare(
      "SELECT group_concat(id || name || retired, ',') FROM (SELECT * FROM test_colors ORDER BY id)")
    #expect(try statement.step())
    #expect(statement.columnText(0) == "10red0,20green0")
  }

  // MARK: - Orders

  @Test func ordersJoinTheirStatusesByTheDeclaredIDsAcrossRuns() throws {
    #expect(OrderStatus.allCases.map(\.lookupID) == [1, 2, 3])
    let workspace = try OrdersWorkspace()
    let orders = OrdersDump.orders(60)
    #expect(try workspace.run(orders).status == .succeeded)
    let statuses = "SELECT id || '|' || name || '|' || is_final || '|' || retired FROM order_statuses ORDER BY id"
    let expected = ["1|pending|0|0", "2|completed|1|0", "3|cancelled|1|0"]
    #expect(try workspace.strings(statuses) == expected)

    let joined = """
      SELECT o.order_id || '|' || s.name FROM orders o JOIN order_statuses s ON s.id = o.status_id ORDER BY o.order_id
      """
    let truth = orders.map { "\($0.id)|\($0.status)" }
    #expect(try workspace.strings(joined) == truth)
    #expect(try workspace.count("orders WHERE status_id NOT IN (SELECT id FROM order_statuses)") == 0)

    // A second run (of other orders) syncs again and changes nothing in the table.
    let more = OrdersDump.orders(20, first: 500, seed: 3)
    #expect(try workspace.run(more).status == .succeeded)
    #expect(try workspace.strings(statuses) == expected)
    #expect(try workspace.strings(joined) == truth + more.map { "\($0.id)|\($0.status)" })
    let open = """
      SELECT s.name || '|' || count(*) FROM orders o JOIN order_statuses s ON s.id = o.status_id
      WHERE s.is_final = 0 GROUP BY s.name
      """
    #expect(try workspace.strings(open) == ["pending|\((orders + more).filter { $0.status == "pending" }.count)"])
  }
}
