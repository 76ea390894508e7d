/// Writes records' rows into a store, for every dataset alike: the conflict policies, children
/// replaced with their parent, references resolved by natural key, patches and merges, and the
/// counts.
///
/// One record at a time, inside the run's transaction (and, under a lenient policy, inside the
/// record's savepoint): `write` the record's rows, then `commitRecord()` once its savepoint is
/// released or `discardRecord()` once it is rolled back — so counts and caches only ever hold
/// what committed records wrote. Before each batch of records, `want` and `fetchWanted` look up
/// every key the batch references that no cache knows, in a few `IN (…)` queries.
package final class RowWriter {
  /// A record the writer refuses, with the issues that say why; nothing of it was written that
  /// the savepoint does not take back.
  struct Rejection: Error {
    var issues: [Issue]
  }

  struct Outcome {
    /// The record's rows were all kept as they were (`ignore`).
    var keptExisting: Bool
    /// `setNull` references that pointed at nothing.
    var warnings: [Issue]
  }

  /// How many keys of a referenced table a generation of its key cache holds at the default
  /// budget (`KeyCache`: at most twice as many are kept; `MemoryBudget.keyCacheGeneration`).
  ///
  /// 98,304 is the most a `Set` of 2^17 buckets holds (three quarters of them): 3 MiB a
  /// generation for keys stored inline (text up to 15 bytes, integers). One key more doubles the
  /// table: 131,072 keys a generation made 1M patches over 1M profiles peak at 69.5 MiB, over
  /// the 64 MiB a run may use. A working set of 100,000 keys (the devices 1M alerts name) still
  /// stays in the two generations: a key used since the last aging is never dropped.
  static var keyCacheGeneration: Int { MemoryBudget.default.keyCacheGeneration }
  /// Keys per look-up query.
  static var lookupChunk: Int { 100 }

  let store: any Store
  let sql: TableSQL
  /// What the staged patches may take in the sort that applies them before the stages are
  /// applied, between batches (`MemoryBudget.patchStageBytes`). SQLite's sorter keeps up to its
  /// page cache's size in memory: the default 6 MiB keeps a run within its 64 MiB whatever the
  /// patches carry, and is about 60,000 patches of a profile's nickname or introduction. Each
  /// apply passes over the table once: 1M such patches over 1M profiles took 13.6 s at 65,536
  /// patches an apply (63.1 MiB peak), 15.7 s at 32,768 (60.3 MiB), 27.6 s applied one by one.
  let patchStageBytes: Int
  let plans: [Plan]

  /// What the current record has done, applied by `commitRecord`. The writer works on it as a
  /// local value (swapped out and back), so the hot loop pays no exclusivity checks for it.
  struct Pending {
    var rows: [Int] = []
    var keys: [(plan: Int, key: DatabaseValue)] = []
    var cache: [(plan: Int, key: DatabaseValue, values: [DatabaseValue?])] = []
    /// Per entry: whether the conflict policy kept the row that was there.
    var kept: [Bool] = []

    mutating func clear() {
      for index in rows.indices { rows[index] = 0 }
      keys.removeAll(keepingCapacity: true)
      cache.removeAll(keepingCapacity: true)
      kept.removeAll(keepingCapacity: true)
    }
  }
  private var pending = Pending()

  /// `budget`: what the key caches and the staged patches may take.
  package init(store: any Store, schema: Schema, conflict: ConflictPolicy, budget: MemoryBudget = .default) throws {
    self.store = store
    patchStageBytes = budget.patchStageBytes
    let sql = TableSQL(dialect: store.dialect)
    self.sql = sql
    let tables = schema.tables
    var children: [[(plan: Int, delete: any StoreStatement)]] = tables.map { _ in [] }
    var referenced = Set<Int>()
    // A top-level row's children, grandchildren and deeper are replaced with it: each table
    // below it is deleted from by the top-level key, which starts its key — the deepest first,
    // so that no delete cascades into rows a later one would delete anyway.
    for (index, table) in tables.enumerated().sorted(by: { $0.element.depth > $1.element.depth }) {
      let root = table.root
      if root !== table, let rootIndex = tables.firstIndex(where: { $0 === root }) {
        children[rootIndex].append((index, try store.prepare(sql.deleteChildren(table, of: root))))
      }
    }
    for table in tables {
      for declared in table.columns {
        guard let reference = declared.reference else { continue }
        guard let target = tables.firstIndex(where: { $0 === reference.table }) else {
          preconditionFailure(
            "\(table.name).\(declared.name) references \(reference.table.name), which the schema lacks")
        }
        referenced.insert(target)
      }
    }
    // The rows of shared tables it remembers weigh at most what the budget's base has for them,
    // whatever the number of such tables.
    let sharing = tables.filter { $0.parent == nil && $0.onConflict != nil }.count
    let plans = try tables.enumerated().map { index, table in
      try Plan(
        table: table, policy: table.onConflict ?? conflict, children: children[index],
        store: store, sql: sql, keyCacheGeneration: budget.keyCacheGeneration,
        rowCacheBytes: MemoryBudget.rowCacheBytes / max(sharing, 1))
    }
    for target in referenced { try plans[target].tracksKeys(store: store, sql: sql) }
    self.plans = plans
    pending.rows = Array(repeating: 0, count: plans.count)
    written = Array(repeating: 0, count: plans.count)
    var planBySerial = Array(repeating: -1, count: Int(plans.map(\.table.serial).max() ?? 0) + 1)
    for (index, plan) in plans.enumerated() { planBySerial[Int(plan.table.serial)] = index }
    self.planBySerial = planBySerial
  }

  /// Keys looked up and the queries that looked them up, per table: what makes a reference by
  /// natural key cost a query per hundred new keys, not one per row (`RunReport.referenceLookups`).
  package internal(set) var lookups: [String: RunReport.ReferenceLookups] = [:]

  /// Rows written by committed records, per plan.
  var written: [Int] = []
  /// Rows written outside records (lookup tables brought in line with their enums).
  private var writtenElsewhere: [String: Int] = [:]

  /// Patches staged since they were last applied, over all tables, and about what their rows
  /// take in the sort that applies them.
  var stagedPatches = 0
  var stagedPatchBytes = 0

  /// Rows written by committed records, per table.
  package var rowsWritten: [String: Int] {
    var rows = writtenElsewhere
    for (index, plan) in plans.enumerated() { rows[plan.table.name, default: 0] += written[index] }
    return rows
  }

  /// Counts rows the run wrote outside any record (a lookup table brought in line with its enum).
  func count(_ rows: Int, in table: String) {
    if rows > 0 { writtenElsewhere[table, default: 0] += rows }
  }

  /// Each plan's index by its table's serial; -1 for tables not in the schema.
  private let planBySerial: [Int]

  @inline(__always)
  func planIndex(of entry: Int, _ rows: RecordRows) -> Int { planIndex(serial: rows.entries[entry].serial) }

  @inline(__always)
  func planIndex(serial: Int32) -> Int {
    let serial = Int(serial)
    guard serial < planBySerial.count, planBySerial[serial] >= 0 else {
      preconditionFailure("a row names a table that is not in the dataset's schema")
    }
    return planBySerial[serial]
  }

  // MARK: - Records

  /// Writes one record's rows. Throws `Rejection` for a problem with the record (an orphan, a
  /// broken constraint), and the store's error for anything else.
  func write(_ rows: inout RecordRows, at location: RecordLocation?) throws -> Outcome {
    var pending = Pending()
    swap(&pending, &self.pending)
    defer { swap(&pending, &self.pending) }
    pending.clear()
    var warnings: [Issue] = []
    try resolveReferences(&rows, at: location, warnings: &warnings)
    var keptAny = false
    var wroteAny = false
    var entry = 0
    do {
      while entry < rows.count {
        let kept = try write(entry: entry, of: rows, &pending)
        pending.kept.append(kept)
        if plans[planIndex(of: entry, rows)].followsRun {
          if kept { keptAny = true } else { wroteAny = true }
        }
        entry += 1
      }
    } catch let error as any StoreError {
      guard case .constraint(let violation) = error.failure else { throw error }
      throw Rejection(issues: [
        ConstraintIssue.issue(
          for: violation, table: plans[planIndex(of: entry, rows)].table, entry: entry, rows, at: location,
          error: error)
      ])
    }
    return Outcome(keptExisting: keptAny && !wroteAny, warnings: warnings)
  }

  /// The record's savepoint was released: its rows count, its keys are known.
  func commitRecord() {
    var pending = Pending()
    swap(&pending, &self.pending)
    defer { swap(&pending, &self.pending) }
    var written = Pending().rows
    swap(&written, &self.written)
    defer { swap(&written, &self.written) }
    for index in pending.rows.indices { written[index] += pending.rows[index] }
    for (plan, key) in pending.keys {
      plans[plan].known.insert(key)
      plans[plan].missing.remove(key)
    }
    for (plan, key, values) in pending.cache { plans[plan].rowCache.insert(values, for: key) }
    pending.clear()
  }

  /// The record's savepoint was rolled back: forget what it wrote.
  func discardRecord() {
    pending.clear()
  }

  private func write(entry: Int, of rows: RecordRows, _ pending: inout Pending) throws -> Bool {
    let index = planIndex(of: entry, rows)
    let plan = plans[index]
    if rows.entries[entry].parent >= 0 {
      // A child of a kept parent is kept with it.
      if pending.kept[Int(rows.entries[entry].parent)] { return true }
      try bind(plan.insert, plan.allParameters, entry, rows, plan)
      try plan.insert.execute()
      pending.rows[index] += 1
      return false
    }
    if rows.entries[entry].isPatch {
      try patch(entry, rows, plan, index, &pending)
      return false
    }
    let key = plan.keyColumn.flatMap { rows.value(entry, $0) }
    if rows.entries[entry].unchanged != 0 {
      try merge(entry, rows, plan, index, key, &pending)
    } else if try write(whole: entry, rows, plan, index, key, &pending) {
      return true
    }
    // A key the batch wants and the table lacked becomes known once its record commits; other
    // written keys need no note: a later batch's look-up finds them in the table.
    if !plan.missing.isEmpty, let key, plan.missing.contains(key) { pending.keys.append((index, key)) }
    return false
  }

  /// Writes a whole top-level row by its table's conflict policy; returns true when it kept an
  /// existing row.
  private func write(
    whole entry: Int, _ rows: RecordRows, _ plan: Plan, _ index: Int, _ key: DatabaseValue?, _ pending: inout Pending
  ) throws -> Bool {
    switch plan.policy {
    case .fail:
      try bind(plan.insert, plan.allParameters, entry, rows, plan)
      try plan.insert.execute()
      pending.rows[index] += 1
    case .replace:
      try deleteChildren(of: entry, rows, plan)
      try bind(plan.delete, plan.keyParameters, entry, rows, plan)
      try plan.delete.execute()
      try bind(plan.insert, plan.allParameters, entry, rows, plan)
      try plan.insert.execute()
      pending.rows[index] += 1
    case .ignore:
      try bind(plan.insert, plan.allParameters, entry, rows, plan)
      try plan.insert.execute()
      if store.changes == 0 { return true }
      pending.rows[index] += 1
    case .upsert:
      if plan.upsert != nil || plan.updateChanged != nil {
        // A table without children: one statement (or, for one that references others, an
        // insert and an update where a column differs), which changes nothing when the row is
        // the same; a shared row this run already wrote the same way costs none.
        let start = Int(rows.entries[entry].start)
        let values = rows.values[start..<start + plan.ownCount]
        let cacheKey = plan.sharesRows ? key : nil
        if let cacheKey, let cached = plan.rowCache[cacheKey], cached.elementsEqual(values) { break }
        if let upsert = plan.upsert {
          try bind(upsert, plan.allParameters, entry, rows, plan)
          try upsert.execute()
        } else if let updateChanged = plan.updateChanged {
          try bind(plan.insert, plan.allParameters, entry, rows, plan)
          try plan.insert.execute()
          if store.changes == 0 {
            try bind(updateChanged, plan.allParameters, entry, rows, plan)
            try updateChanged.execute()
          }
        }
        pending.rows[index] += store.changes
        if let cacheKey { pending.cache.append((index, cacheKey, Self.copy(values))) }
      } else {
        // Insert first: a new row — the common case — costs one statement.
        try bind(plan.insert, plan.allParameters, entry, rows, plan)
        try plan.insert.execute()
        if store.changes == 0 {
          if let update = plan.update {
            try bind(update, plan.allParameters, entry, rows, plan)
            try update.execute()
          }
          try deleteChildren(of: entry, rows, plan)
        }
        pending.rows[index] += 1
      }
    }
    return false
  }

  /// Writes a merge row: inserted when its key is new (its unchanged columns NULL); otherwise
  /// its given columns are set where they differ, and the rest are left as they are. A row this
  /// run wrote (in the shared-row cache) costs no statement when the given columns are the same.
  private func merge(
    _ entry: Int, _ rows: RecordRows, _ plan: Plan, _ index: Int, _ key: DatabaseValue?, _ pending: inout Pending
  ) throws {
    let unchanged = rows.entries[entry].unchanged
    let start = Int(rows.entries[entry].start)
    let values = rows.values[start..<start + plan.ownCount]
    var merged: [DatabaseValue?]?
    let cacheKey = plan.sharesRows ? key : nil
    if let cacheKey, var row = plan.rowCache[cacheKey] {
      // The row exists, as cached: only given columns that differ need writing.
      var differs = false
      for column in 0..<plan.ownCount
      where unchanged & (1 << UInt64(column)) == 0 && row[column] != values[start + column] {
        row[column] = values[start + column]
        differs = true
      }
      if !differs { return }
      merged = row
    } else {
      // `merge` is only for tables that upsert, whose insert leaves an existing key alone.
      try bind(plan.insert, plan.allParameters, entry, rows, plan)
      try plan.insert.execute()
      if store.changes > 0 {
        pending.rows[index] += 1
        if let cacheKey { pending.cache.append((index, cacheKey, Self.copy(values))) }
        return
      }
    }
    let statement: (any StoreStatement, [Int])?
    if let prepared = plan.mergeStatements[unchanged] {
      statement = prepared
    } else {
      let columns = plan.table.columns.enumerated().filter { unchanged & (1 << UInt64($0.offset)) == 0 }.map(
        \.element.name)
      let parameters = plan.table.allColumns.indices.filter {
        plan.keyParameters.contains($0) || columns.contains(plan.table.allColumns[$0].name)
      }
      statement = try sql.updateIfDifferent(plan.table, columns: columns).map { (try store.prepare($0), parameters) }
      if plan.mergeStatements.count >= 64 { plan.mergeStatements.removeAll() }
      plan.mergeStatements[unchanged] = statement
    }
    guard let (update, parameters) = statement else { return }  // only the key: the row exists
    try bind(update, parameters, entry, rows, plan)
    try update.execute()
    pending.rows[index] += store.changes
    guard let key else { return }
    // The cache learns the merged row when the record commits; until then it knows nothing.
    plan.rowCache.remove(key)
    pending.cache.removeAll { $0.plan == index && $0.key == key }
    if let merged { pending.cache.append((index, key, merged)) }
  }

  /// A row's values in an array of their own, sized to them, for the row cache. `Array(slice)`
  /// hands back the slice's buffer when the slice spans all of it — as a one-row record's values
  /// do — and that buffer has the capacity `RecordRows` reserves (32 values, 800 bytes): cached
  /// 65,536 times, it kept 53 MB alive (massif) where the rows themselves need a fraction of that
  /// (and `RowCache.weight` counts an array of the values' size).
  private static func copy(_ values: ArraySlice<DatabaseValue?>) -> [DatabaseValue?] {
    var row: [DatabaseValue?] = []
    row.reserveCapacity(values.count)
    row.append(contentsOf: values)
    return row
  }

  private func deleteChildren(of entry: Int, _ rows: RecordRows, _ plan: Plan) throws {
    for (_, delete) in plan.children {
      try bind(delete, plan.keyParameters, entry, rows, plan)
      try delete.execute()
    }
  }

  @inline(__always)
  func bind(
    _ statement: any StoreStatement, _ parameters: [Int], _ entry: Int, _ rows: RecordRows, _ plan: Plan
  ) throws {
    // Everything the loop needs, taken out of the plan and the rows once per row.
    let row = rows.entries[entry]
    let start = Int(row.start)
    let inherited = plan.inheritedCount
    let sources = plan.parentKeySources
    let parentInherited = plan.parentInheritedCount
    let parentStart = row.parent >= 0 ? Int(rows.entries[Int(row.parent)].start) : 0
    try rows.values.withUnsafeBufferPointer { values in
      if parameters.count == plan.allParameters.count {
        // The whole row: inherited key and position, then the own columns in one call. A
        // grandchild's parent key is partly inherited by the parent in turn.
        for column in 0..<inherited {
          let value =
            column < sources.count
            ? sources[column] >= parentInherited
              ? values[parentStart + sources[column] - parentInherited] : rows.fullValue(entry, column, in: plan.table)
            : .integer(plan.firstPosition + Int64(row.index))
          try statement.bind(value, at: Int32(column + 1))
        }
        let own = UnsafeBufferPointer(rebasing: values[start..<start + plan.ownCount])
        try statement.bind(own, from: Int32(inherited + 1))
        return
      }
      // Some columns (a key, a patch's columns): the rows' own layout rules.
      for column in parameters {
        try statement.bind(rows.fullValue(entry, column, in: plan.table), at: Int32(column + 1))
      }
    }
  }
}
