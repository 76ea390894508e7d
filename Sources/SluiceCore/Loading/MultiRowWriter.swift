/// Writes a batch of records with a few multi-row `INSERT`s per table — up to `rowsPerStatement`
/// rows a statement — where `RowWriter` runs a statement per row: the bulk writer of a store
/// without `COPY` (SQLite).
///
/// Each statement SQLite runs costs it more than the row it inserts: the program's start and
/// halt, a cursor opened on the table, on each index and on each foreign key's parent, the
/// constraint checks set up. A statement of many rows pays that once (the measurements are in
/// Benchmarks/RESULTS.md, "SQLite writes batches in bulk").
///
/// Like every bulk writer it is a shortcut, never a second set of rules (`BulkWriter`): a
/// successful batch leaves the tables, counts and outcomes that `RowWriter` would, and a batch
/// it cannot write so is rolled back to its savepoint and handed back, to go record by record.
/// Per table, in schema order (a referenced table and a parent before the tables that point at
/// them, so that every foreign key finds its row):
/// - a top-level table that upserts and has no children — customers, shared by their orders —
///   takes `INSERT … ON CONFLICT DO UPDATE … WHERE` a column differs, which applies each row in
///   turn exactly as the row writer's upsert does, with the same changes counted (a row the
///   table has as it is changes nothing). Unlike the row writer, it remembers no rows it wrote:
///   skipping the customers' repeated rows saved no time and the rows remembered took memory
///   (RESULTS.md, the same section);
/// - every other table takes plain multi-row `INSERT`s: what a batch of keys new to the table
///   and to the batch comes to under every policy (each row inserted and counted, no children to
///   replace, none kept), as in a first load and for a nightly load's new keys. A key the table
///   has or the batch repeats breaks its primary key: the batch goes record by record, where the
///   conflict policy decides, and so do the next 1, 2, 4 … 64 batches (a re-run of the same
///   input pays for the failed try once in a while, not every batch).
///
/// Whether a batch it could write goes in bulk at all is measured, not assumed
/// (`WritePathChooser`): past a few million orders a batch's savepoint copies more pages than its
/// statements save, and record by record is the cheaper way.
///
/// It takes whole rows only, whose references the record itself resolves (orders and their
/// customer, fruits and their recipes): patches, merges and references to rows of other
/// records stay with the row writer, which looks the keys up.
package final class MultiRowWriter: BulkWriter {
  /// Rows per statement at most. A multi-row statement has a statement journal (its rows may
  /// break a check or a foreign key halfway): every page it changes is copied there first, and
  /// with 16 KiB pages SQLite keeps no more than three in memory before it writes them to a
  /// temporary file. Bigger statements copy each page once for more rows; past 256, more rows a
  /// statement took no less time and more memory (RESULTS.md, "SQLite writes batches in bulk").
  static var rowsPerStatement: Int { 256 }
  /// Records a batch joins at most: the batches waiting when the loading thread asks, four of the
  /// producer's. Bigger batches copy fewer pages to the batch's savepoint; each batch the join
  /// may take beyond one is a batch more the hand-off lets wait (`RecordLoop`).
  package var recordsPerBatch: Int { 1024 }

  final class Plan {
    let table: Table
    let columns: Int
    let inherited: Int
    /// Upserted in place (a top-level upsert table without children), not inserted.
    let upserts: Bool
    let rowsPerStatement: Int
    /// Statements by their number of rows, prepared when first needed.
    var statements: [Int: any StoreStatement] = [:]

    init(table: Table, policy: ConflictPolicy, hasChildren: Bool, maxParameters: Int) {
      self.table = table
      columns = table.allColumns.count
      inherited = table.inheritedCount
      upserts = table.parent == nil && !hasChildren && policy == .upsert
      rowsPerStatement = max(1, min(MultiRowWriter.rowsPerStatement, maxParameters / max(columns, 1)))
    }
  }

  private let store: any Store
  private let sql: TableSQL
  private let plans: [Plan]
  /// Each plan's index by its table's serial; -1 for tables not in the schema.
  private let planBySerial: [Int]
  private var written: [Int]
  package private(set) var batches = RunReport.BulkWrites()
  /// Batches that go record by record before the next try, after one that could not be
  /// written in bulk.
  private var backOff = BulkBackOff()
  /// Whether a batch goes in bulk or record by record, by what each way has cost so far.
  private var chooser: WritePathChooser
  /// The batch being loaded, when its cost is a sample: the way it went, its records, and the
  /// loading thread's CPU time when it began. Its cost is known when the next batch begins.
  private var sample: (path: WritePathChooser.Path, records: Int, start: UInt64)?

  package init(store: any Store, schema: Schema, conflict: ConflictPolicy, chooser: WritePathChooser = .init()) {
    self.store = store
    self.chooser = chooser
    sql = TableSQL(dialect: store.dialect)
    let tables = schema.tables
    plans = tables.map { table in
      Plan(
        table: table, policy: table.onConflict ?? conflict,
        hasChildren: tables.contains { $0.parent?.table === table }, maxParameters: store.dialect.maxParameters)
    }
    written = Array(repeating: 0, count: tables.count)
    var planBySerial = Array(repeating: -1, count: Int(tables.map(\.serial).max() ?? 0) + 1)
    for (index, table) in tables.enumerated() { planBySerial[Int(table.serial)] = index }
    self.planBySerial = planBySerial
  }

  package var rowsWritten: [String: Int] {
    var rows: [String: Int] = [:]
    for (index, plan) in plans.enumerated() { rows[plan.table.name, default: 0] += written[index] }
    return rows
  }

  package func countRowByRow() {
    finishSample()
    batches.rowByRow += 1
  }

  /// Gives the chooser the cost of the batch that ended (if it was a sample); returns now.
  @discardableResult
  private func finishSample() -> UInt64 {
    let now = WritePathChooser.threadCPUTime()
    if let sample {
      chooser.record(sample.path, records: sample.records, nanoseconds: now &- sample.start)
      self.sample = nil
    }
    return now
  }

  package func accepts(_ rows: RecordRows) -> Bool {
    guard rows.openReferences.isEmpty else { return false }
    for entry in rows.entries {
      let serial = Int(entry.serial)
      if entry.isPatch || entry.unchanged != 0 || serial >= planBySerial.count || planBySerial[serial] < 0 {
        return false
      }
    }
    return true
  }

  package func write(_ records: [RecordRows]) throws -> [Bool]? {
    let now = finishSample()
    if backOff.skip() {
      batches.rowByRow += 1
      sample = (.rowByRow, records.count, now)
      return nil
    }
    if chooser.next() == .rowByRow {
      batches.rowByRow += 1
      batches.chosenRowByRow = (batches.chosenRowByRow ?? 0) + 1
      sample = (.rowByRow, records.count, now)
      return nil
    }
    /// Each plan's rows of the batch, as (record's ordinal, entry), in input order.
    var rowsOf = Array(repeating: [(ordinal: Int32, entry: Int32)](), count: plans.count)
    for (ordinal, rows) in records.enumerated() {
      for entry in 0..<rows.count {
        rowsOf[planBySerial[Int(rows.entries[entry].serial)]].append((Int32(ordinal), Int32(entry)))
      }
    }
    var counts = Array(repeating: 0, count: plans.count)
    try store.execute("SAVEPOINT sluice_bulk")
    do {
      for index in plans.indices where !rowsOf[index].isEmpty {
        counts[index] = try insert(rowsOf[index], plan: plans[index], records: records)
      }
    } catch let error as any StoreError {
      guard case .constraint = error.failure else { throw error }
      try store.execute("ROLLBACK TO SAVEPOINT sluice_bulk; RELEASE SAVEPOINT sluice_bulk")
      backOff.missed()
      batches.rowByRow += 1
      return nil
    }
    try store.execute("RELEASE SAVEPOINT sluice_bulk")
    backOff.wentIn()
    sample = (.bulk, records.count, now)
    for index in plans.indices where !rowsOf[index].isEmpty {
      written[index] += counts[index]
      let plan = plans[index]
      if plan.upserts {
        batches.tables[plan.table.name, default: .init()].staged += 1
      } else {
        batches.tables[plan.table.name, default: .init()].copied += 1
      }
    }
    // Nothing is kept: a new key is inserted under every policy, and an upserted row is written.
    return Array(repeating: false, count: records.count)
  }

  /// Writes a plan's rows, `rowsPerStatement` at a time, the rest in statements of an eighth as
  /// many rows, of an eighth of that, … of one row (a table prepares at most four statements, of
  /// about 1.14 times the biggest one's size); returns the changes counted.
  private func insert(_ rows: [(ordinal: Int32, entry: Int32)], plan: Plan, records: [RecordRows]) throws -> Int {
    var changes = 0
    var next = 0
    while next < rows.count {
      var count = plan.rowsPerStatement
      while count > rows.count - next { count = max(1, count / 8) }
      let statement = try self.statement(plan, rows: count)
      for row in 0..<count {
        let (ordinal, entry) = rows[next + row]
        try bind(statement, row: row, entry: Int(entry), of: records[Int(ordinal)], plan: plan)
      }
      try statement.execute()
      changes += plan.upserts ? store.changes : count
      next += count
    }
    return changes
  }

  private func statement(_ plan: Plan, rows: Int) throws -> any StoreStatement {
    if let statement = plan.statements[rows] { return statement }
    let statement = try store.prepare(
      plan.upserts ? sql.upsert(plan.table, rows: rows) : sql.insert(plan.table, rows: rows))
    plan.statements[rows] = statement
    return statement
  }

  /// Binds row `entry` of `rows` as the statement's row `row`: a child's inherited parent key
  /// and position, then its own values in one call.
  @inline(__always)
  private func bind(_ statement: any StoreStatement, row: Int, entry: Int, of rows: RecordRows, plan: Plan) throws {
    let base = row * plan.columns
    for column in 0..<plan.inherited {
      try statement.bind(rows.fullValue(entry, column, in: plan.table), at: Int32(base + column + 1))
    }
    let start = Int(rows.entries[entry].start)
    let own = plan.columns - plan.inherited
    try rows.values.withUnsafeBufferPointer { values in
      try statement.bind(
        UnsafeBufferPointer(rebasing: values[start..<start + own]), from: Int32(base + plan.inherited + 1))
    }
  }
}
