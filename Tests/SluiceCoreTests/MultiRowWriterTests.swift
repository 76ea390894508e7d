import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// SQLite's bulk writer (`MultiRowWriter`: multi-row `INSERT`s) against its row writer, on the
/// same batches into two databases: the same outcome per record, the same rows written, the same
/// tables row for row — under every conflict policy, strict and lenient — for batches that repeat
/// keys within and across batches, rename shared rows back and forth, break constraints, name
/// rows of other records, and meet rows a first load left.
@Suite("Multi-row writer")
struct MultiRowWriterTests {
  static let customers = Table(
    "customers", key: ["customer_id"], columns: [.integer("customer_id"), .text("name")], onConflict: .upsert)
  static let orders = Table(
    "orders", key: ["order_id"],
    columns: [
      .text("order_id"), .integer("amount", checks: [.atLeast(0)]),
      .reference("customer_id", to: customers, field: "customer"),
    ])
  static let shipping = Table("order_shipping", extending: orders, columns: [.text("city")])
  static let items = Table(
    "order_items", childOf: orders, position: "line", startingAt: 1, field: "items",
    columns: [.text("sku"), .integer("qty", checks: [.atLeast(1)])])
  static let notes = Table(
    "item_notes", childOf: items, position: "position", field: "notes", columns: [.text("note")])
  static let schema = Schema([customers, orders, shipping, items, notes])
  static let tables = ["customers", "orders", "order_shipping", "order_items", "item_notes"]

  /// A reproducible stream of numbers (a linear congruential generator): the same batches for
  /// both stores and every run of the test.
  struct Numbers {
    var state: UInt64
    mutating func next(_ below: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(below))
    }
  }

  /// An order of `id` for customer `customer` (its row in the record, or only named by it), with
  /// up to three items of up to two notes; `badQuantity` breaks an item's check.
  static func order(
    _ id: Int, customer: Int, name: String, namesCustomer: Bool, items count: Int, notes: Int, shipped: Bool,
    badQuantity: Bool = false
  ) -> RecordRows {
    var rows = RecordRows()
    if namesCustomer { rows.add(customers, Int64(customer), name) }
    rows.add(orders, "O-\(id)", Int64(id % 50), Int64(customer))
    if shipped { rows.add(shipping, "City \(id % 3)") }
    for line in 0..<count {
      rows.add(items, "SKU-\(line)", Int64(badQuantity && line == count - 1 ? 0 : line + 1))
      for note in 0..<(line == 0 ? notes : 0) { rows.add(Self.notes, "note \(note)") }
    }
    return rows
  }

  /// Batches of 1 to 300 records over `keys` order keys and 40 customers of three names: keys
  /// repeat within and across batches. In a batch in three (`faults`), one record in about 50 has
  /// an item of quantity 0, one in 20 names a customer without its row (an open reference: the
  /// batch goes row by row).
  static func batches(seed: UInt64, count: Int, keys: Int, faults: Bool = true) -> [[RecordRows]] {
    var numbers = Numbers(state: seed)
    var batches: [[RecordRows]] = []
    var id = 0
    for _ in 0..<count {
      // A batch in three has records the bulk writer refuses or a row breaks a check in.
      let faulty = faults && numbers.next(3) == 0
      batches.append(
        (0..<(1 + numbers.next(300))).map { _ in
          id += 1
          return order(
            numbers.next(keys), customer: numbers.next(40), name: ["Ann", "Bo", "Cy"][numbers.next(3)],
            namesCustomer: !faulty || numbers.next(20) > 0, items: numbers.next(4), notes: numbers.next(3),
            shipped: numbers.next(2) == 0, badQuantity: faulty && numbers.next(50) == 0)
        })
    }
    return batches
  }

  /// Loads `batches` into a fresh database (after `first`, loaded the same way) and returns each
  /// record's outcome, the rows written, the tables' rows and how the batches were written. A
  /// strict load stops at its first rejected record, as the run would (and rolls back).
  static func load(
    _ batches: [[RecordRows]], first: [[RecordRows]] = [], conflict: ConflictPolicy, lenient: Bool, rowByRow: Bool,
    in directory: TemporaryDirectory
  ) throws -> (outcomes: [String], written: [String: Int], tables: [String: [String]], writes: RunReport.BulkWrites?) {
    let store = try SQLiteConnection.openForImport(
      path: directory.file(rowByRow ? "rows.sqlite" : "bulk.sqlite"), busyTimeoutMilliseconds: 1000)
    try store.execute("PRAGMA foreign_keys = ON")
    _ = try Migrator.migrate(store, schema.migrations(dialect: store.dialect))
    if !first.isEmpty {
      _ = try store.withTransaction {
        try run(first, into: store, conflict: .upsert, lenient: true, rowByRow: rowByRow)
      }
    }
    let (outcomes, loader) = try store.withTransaction {
      try run(batches, into: store, conflict: conflict, lenient: lenient, rowByRow: rowByRow)
    }
    var tables: [String: [String]] = [:]
    for table in Self.tables {
      let statement = try store.prepare("SELECT * FROM \(table)")
      var rows: [String] = []
      while try statement.step() {
        rows.append(
          (0..<statement.columnCount).map { String(describing: statement.columnValue($0)) }.joined(separator: "|"))
      }
      tables[table] = rows.sorted()
    }
    return (outcomes, loader.rowsWritten, tables, loader.totals.bulkWrites)
  }

  private static func run(
    _ batches: [[RecordRows]], into store: SQLiteConnection, conflict: ConflictPolicy, lenient: Bool, rowByRow: Bool
  ) throws -> (outcomes: [String], loader: BatchLoader) {
    let loader = try BatchLoader(
      store: store, schema: schema, conflict: conflict, savepoints: lenient ? try store.makeSavepoints() : nil)
    var outcomes: [String] = []
    var ordinal = 0
    for batch in batches {
      try loader.begin(batch, rowByRow: rowByRow)
      for rows in batch {
        ordinal += 1
        let location = RecordLocation(ordinal: ordinal, byteOffset: Int64(ordinal), line: ordinal)
        switch try loader.write(rows, at: location) {
        case .written(let kept, let warnings):
          outcomes.append((kept ? "kept" : "written") + warnings.map { " \($0.code.rawValue)" }.joined())
        case .rejected(let issues):
          outcomes.append(issues.map { "\($0.code.rawValue) at \($0.path)" }.joined(separator: ", "))
          if !lenient { return (outcomes, loader) }
        }
      }
      try loader.finish()
    }
    return (outcomes, loader)
  }

  static let cases: [(ConflictPolicy, Bool)] = ConflictPolicy.allCases.flatMap { [($0, false), ($0, true)] }

  @Test("batches end as the row writer ends them", arguments: cases)
  func batchesEndAsRowByRow(conflict: ConflictPolicy, lenient: Bool) throws {
    let directory = try TemporaryDirectory()
    // Order keys mostly new (a first load's and a nightly load's new keys), then a second pass
    // over keys a first load left.
    let batches = Self.batches(seed: 7, count: 12, keys: 100_000)
    let first = Self.batches(seed: 8, count: 2, keys: 3_000, faults: false)
    let again = Self.batches(seed: 9, count: 6, keys: 3_000)
    for (pass, (input, before)) in [(batches, [[RecordRows]]()), (again, first)].enumerated() {
      let bulk = try Self.load(
        input, first: before, conflict: conflict, lenient: lenient, rowByRow: false, in: directory)
      let rows = try Self.load(
        input, first: before, conflict: conflict, lenient: lenient, rowByRow: true, in: directory)
      #expect(bulk.outcomes == rows.outcomes)
      #expect(bulk.written == rows.written)
      for table in Self.tables {
        #expect(bulk.tables[table] == rows.tables[table], "\(table)")
      }
      // The rows of new keys went in bulk; the batches with a culprit or a key the table had
      // went row by row.
      let writes = try #require(bulk.writes)
      if pass == 0 { #expect((writes.tables["orders"]?.copied ?? 0) > 0) }
      #expect(writes.rowByRow > 0)
      #expect(rows.writes?.tables.isEmpty ?? true)
      for name in ["bulk.sqlite", "rows.sqlite"] { try FileManager.default.removeItem(atPath: directory.file(name)) }
    }
  }

  /// A strict first load of `count` batches of new keys, in bulk and row by row, into two
  /// databases: the same outcomes, rows written and tables either way.
  static func firstLoadBothWays(seed: UInt64, count: Int) throws -> (
    bulk: (outcomes: [String], written: [String: Int], tables: [String: [String]], writes: RunReport.BulkWrites?),
    rows: (outcomes: [String], written: [String: Int], tables: [String: [String]], writes: RunReport.BulkWrites?)
  ) {
    let directory = try TemporaryDirectory()
    let batches = Self.batches(seed: seed, count: count, keys: 1 << 40, faults: false)
    let bulk = try Self.load(batches, conflict: .upsert, lenient: false, rowByRow: false, in: directory)
    let rows = try Self.load(batches, conflict: .upsert, lenient: false, rowByRow: true, in: directory)
    #expect(bulk.outcomes == rows.outcomes)
    #expect(bulk.written == rows.written)
    #expect(bulk.tables == rows.tables)
    return (bulk, rows)
  }

  /// A first load of new keys only: every batch goes in bulk, and the shared rows' changes are
  /// counted as the row writer counts them (a row written again as it is counts none).
  @Test func aFirstLoadGoesInBulkThroughout() throws {
    let (bulk, rows) = try Self.firstLoadBothWays(seed: 3, count: 10)
    let writes = try #require(bulk.writes)
    #expect(writes.rowByRow == 0)
    #expect(writes.tables["orders"]?.copied == 10)
    #expect(writes.tables["customers"]?.staged == 10)
    // 40 customers renamed among three names: each change is a row written, as row by row.
    #expect(bulk.written["customers"] == rows.written["customers"])
    #expect((bulk.written["customers"] ?? 0) > 40)
  }

  /// Every 32nd batch the writer tries record by record, to measure what that costs
  /// (`WritePathChooser`); such a batch leaves what the row writer leaves, and the report counts
  /// it as chosen.
  @Test func aBatchTriedRecordByRecordEndsAsTheRowWriterEndsIt() throws {
    let (bulk, _) = try Self.firstLoadBothWays(seed: 5, count: 40)
    let writes = try #require(bulk.writes)
    let chosen = try #require(writes.chosenRowByRow)
    #expect(chosen >= 1 && chosen == writes.rowByRow)
    #expect(writes.tables["orders"]?.copied == 40 - chosen)
  }

  @Test func statementsNumberEachRowsParameters() {
    let sql = TableSQL(dialect: SQLiteDialect())
    #expect(
      sql.insert(Self.items, rows: 2)
        == "INSERT INTO order_items (order_id, line, sku, qty) VALUES (?1, ?2, ?3, ?4), (?5, ?6, ?7, ?8)")
    #expect(
      sql.upsert(Self.customers, rows: 2)
        == "INSERT INTO customers (customer_id, name) VALUES (?1, ?2), (?3, ?4) ON CONFLICT (customer_id) DO UPDATE "
        + "SET name = excluded.name WHERE customers.name IS NOT excluded.name")
  }
}
