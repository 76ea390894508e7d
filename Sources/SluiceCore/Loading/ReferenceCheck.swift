/// The load stage's checks that need the database, made by a validate run (`validate --db`)
/// on a connection that only reads: references that name no row (an orphan, under its
/// reference's policy) and, under `--on-conflict fail`, keys that are there already — as a run
/// would find them, writing nothing.
///
/// Keys are looked up a batch at a time, a hundred a query, as the row writer does. What the run
/// itself would have written counts too, in input order: an alert naming a device of an earlier
/// record (or an earlier input) of the same run is no orphan, one naming a device that only a
/// later record brings is. Those keys are kept for the whole run in a `KeyRegistry`, which
/// moves them to the driver's temporary store past a few hundred KiB: memory stays bounded
/// whatever the number of distinct keys (every order's, under `--on-conflict fail`).
package final class ReferenceCheck {
  /// A table whose keys are looked up: one others reference, or one whose keys must be new.
  private final class Target {
    let table: Table
    /// Nil for a table the database does not have yet: it holds no row.
    let lookup: (any StoreStatement)?
    /// Keys the database holds, the most recently used.
    var present: KeyCache
    var wanted = Set<DatabaseValue>()
    /// The key column among the table's own columns.
    let keyColumn: Int

    init(table: Table, lookup: (any StoreStatement)?, keyColumn: Int, keyCacheGeneration: Int) {
      self.table = table
      present = KeyCache(generationLimit: keyCacheGeneration)
      self.lookup = lookup
      self.keyColumn = keyColumn
    }
  }

  /// The read-only connection the look-ups run on, kept as long as they are.
  private let store: any Store
  private var targets: [Int32: Target] = [:]
  /// Tables by serial, for paths and names.
  private var tables: [Int32: Table] = [:]
  /// Whether a record's top-level rows must have new keys (`--on-conflict fail`).
  private let keysMustBeNew: Bool
  package private(set) var lookups: [String: RunReport.ReferenceLookups] = [:]
  /// Keys records of this run wrote (would have written), in input order so far, by table.
  private let written: KeyRegistry

  /// `makeSpill` gives the registry of the run's keys somewhere to move them (nil: memory).
  package init(
    store: any Store, schema: Schema, conflict: ConflictPolicy, limits: KeyRegistry.Limits = .init(),
    makeSpill: KeyRegistry.MakeSpill? = nil, budget: MemoryBudget = .default
  ) throws {
    self.store = store
    written = KeyRegistry(limits: limits, makeSpill: makeSpill)
    let sql = TableSQL(dialect: store.dialect)
    keysMustBeNew = conflict == .fail
    for table in schema.tables {
      tables[table.serial] = table
    }
    var referenced: [Table] = schema.tables.flatMap { table in table.columns.compactMap { $0.reference?.table } }
    if keysMustBeNew {
      referenced += schema.tables.filter { $0.parent == nil && $0.onConflict == nil }
    }
    for table in referenced where targets[table.serial] == nil && table.parent == nil && table.key.count == 1 {
      guard let keyColumn = table.columns.firstIndex(where: { $0.name == table.key[0] }) else { continue }
      // A table the database does not have yet holds no row: nothing to look up.
      let lookup =
        try store.columns(of: table.name) == nil
        ? nil : try store.prepare(sql.existingKeys(table, count: RowWriter.lookupChunk))
      targets[table.serial] = Target(
        table: table, lookup: lookup, keyColumn: keyColumn, keyCacheGeneration: budget.keyCacheGeneration)
    }
  }

  /// Looks up, in a few queries, the keys the batch's records name or own that neither the
  /// database's known keys nor the run's explain.
  package func begin(_ records: [RecordRows]) throws {
    for rows in records {
      for open in rows.openReferences {
        guard let target = targets[open.target], let key = rows.value(Int(open.entry), Int(open.column)) else {
          continue
        }
        if try !isKnown(key, target) { target.wanted.insert(key) }
      }
      guard keysMustBeNew else { continue }
      for entry in 0..<rows.count {
        guard let (target, key) = ownKey(entry, rows) else { continue }
        if try !isKnown(key, target) { target.wanted.insert(key) }
      }
    }
    for target in targets.values where !target.wanted.isEmpty {
      let keys = Array(target.wanted)
      target.wanted.removeAll(keepingCapacity: true)
      guard let lookup = target.lookup else { continue }
      let counts = try RowWriter.lookUp(keys, with: lookup) { target.present.insert($0) }
      if counts.keys > 0 { lookups[target.table.name, default: .init()].add(counts) }
    }
  }

  /// A record's checks, in input order, after `begin` saw its batch: the issues that reject it
  /// (nothing of it would be written) or the warnings of `setNull` references.
  package func check(_ rows: RecordRows, at location: RecordLocation?) throws -> BatchLoader.Outcome {
    var warnings: [Issue] = []
    for open in rows.openReferences {
      let entry = Int(open.entry)
      guard let target = targets[open.target], let key = rows.value(entry, Int(open.column)) else { continue }
      if try isKnown(key, target) { continue }
      guard let table = tables[rows.entries[entry].serial] else { continue }
      let path = rows.path(entry, column: table.inheritedCount + Int(open.column), in: table)
      if open.isPatchKey {
        return .rejected([
          Issue(
            stage: .load, code: .orphanReference, location: location, path: path,
            message: "the patch names a row of \(table.name) that does not exist")
        ])
      }
      switch open.orphans {
      case .reject:
        return .rejected([
          Issue(
            stage: .load, code: .orphanReference, location: location, path: path,
            message: "names a row of \(target.table.name) that does not exist")
        ])
      case .setNull:
        warnings.append(
          Issue(
            stage: .load, severity: .warning, code: .orphanReference, location: location, path: path,
            message: "names a row of \(target.table.name) that does not exist; stored as NULL"))
      }
    }
    var owned: [(Target, DatabaseValue)] = []
    for entry in 0..<rows.count {
      guard let (target, key) = ownKey(entry, rows) else { continue }
      // Under `fail` a key already there — in the database, or written by an earlier record
      // of the run — breaks the table's primary key, as the insert would.
      if keysMustBeNew && target.table.onConflict == nil, try isKnown(key, target) {
        let table = target.table
        return .rejected([
          Issue(
            stage: .load, code: .constraint, location: location,
            path: rows.path(entry, column: table.inheritedCount + target.keyColumn, in: table),
            message:
              "\(table.name): a row with this key exists already (primary key \(table.key.joined(separator: ", ")))"
          )
        ])
      }
      owned.append((target, key))
    }
    for (target, key) in owned { try written.insert(table: target.table.name, value: key) }
    return .written(keptExisting: false, warnings: warnings)
  }

  /// Whether the database holds `key` (as far as looked up) or a record of this run wrote it.
  private func isKnown(_ key: DatabaseValue, _ target: Target) throws -> Bool {
    if target.present.contains(key) { return true }
    do {
      return try written.contains(table: target.table.name, value: key)
    } catch {
      throw RunAbort(failure: .init(kind: .io, message: error.message))
    }
  }

  /// The key of row `entry` when it is a top-level whole row of a target table.
  private func ownKey(_ entry: Int, _ rows: RecordRows) -> (Target, DatabaseValue)? {
    let row = rows.entries[entry]
    guard row.parent < 0, !row.isPatch, let target = targets[row.serial],
      let key = rows.value(entry, target.keyColumn)
    else { return nil }
    return (target, key)
  }
}
