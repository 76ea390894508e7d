extension RowWriter {
  /// A table's prepared statements and caches.
  final class Plan {
    let table: Table
    let policy: ConflictPolicy
    /// A top-level table that follows the run's conflict policy: its kept rows make a kept record.
    let followsRun: Bool
    /// A top-level table with a conflict policy of its own, whose rows many records share
    /// (customers, senders): the row cache remembers what this run wrote to it, so writing the
    /// same row again costs no statement. A record's own rows are not cached: each is written
    /// once, and caching them cost memory (~37 MB for 65,536 alerts) and time for no hit.
    let sharesRows: Bool
    let insert: any StoreStatement
    /// Updates every non-key column (upsert of a table with children); nil when there is none.
    let update: (any StoreStatement)?
    /// One-statement upsert (upsert of a table without children or references).
    let upsert: (any StoreStatement)?
    /// Sets every non-key column of an existing row where one differs: with `insert`, the upsert
    /// of a table without children that references others (see `init`).
    let updateChanged: (any StoreStatement)?
    let delete: any StoreStatement
    /// For a top-level table, the tables below it — children, grandchildren… — each with the
    /// statement that deletes a row's rows of it, by the row's key.
    let children: [(plan: Int, delete: any StoreStatement)]
    let allParameters: [Int]
    let keyParameters: [Int]
    let inheritedCount: Int
    /// The table's own columns.
    let ownCount: Int
    let parentKeySources: [Int]
    let parentInheritedCount: Int
    let firstPosition: Int64
    /// The single key column among the table's own columns, for a top-level table.
    let keyColumn: Int?
    /// Other tables reference this one, or it takes patches: its keys are looked up and cached.
    private(set) var isTracked = false
    var lookup: (any StoreStatement)?
    /// Keys known to exist, the most recently used within a bound (`MemoryBudget.keyCacheGeneration`).
    var known: KeyCache
    var wanted = Set<DatabaseValue>()
    /// Keys this batch wanted that the table lacked: a record of the batch may still write them.
    var missing = Set<DatabaseValue>()
    /// The rows of a shared table this run wrote (`sharesRows`), within `MemoryBudget.rowCacheBytes`.
    var rowCache: RowCache
    var patchStatements: [UInt64: (any StoreStatement, [Int])] = [:]
    /// Where the table's patches wait to be applied in key order, once one came
    /// (`SQLDialect.appliesPatchesInKeyOrder`).
    private(set) var patchStage: PatchStage?
    /// A merge's update of its given columns, by the mask of the columns it leaves unchanged;
    /// nil when it gives only the key.
    var mergeStatements: [UInt64: (any StoreStatement, [Int])?] = [:]

    init(
      table: Table, policy: ConflictPolicy, children: [(plan: Int, delete: any StoreStatement)],
      store: any Store, sql: TableSQL, keyCacheGeneration: Int = RowWriter.keyCacheGeneration,
      rowCacheBytes: Int = MemoryBudget.rowCacheBytes
    ) throws {
      self.table = table
      known = KeyCache(generationLimit: keyCacheGeneration)
      rowCache = RowCache(limit: rowCacheBytes)
      self.policy = policy
      self.children = children
      let hasChildren = !children.isEmpty
      let isChild = table.parent != nil
      followsRun = !isChild && table.onConflict == nil
      sharesRows = !isChild && table.onConflict != nil
      insert = try store.prepare(
        sql.insert(table, ignoringExisting: !isChild && (policy == .upsert || policy == .ignore)))
      update = try sql.update(table).map(store.prepare)
      // SQLite gives `INSERT … ON CONFLICT DO UPDATE` a statement journal when foreign keys
      // are on and the table has any: each row's changed pages went to a temporary file (three
      // 16 KiB pages an alert, 6.3M pwrite calls for 1M alerts). An insert that leaves an existing
      // key alone, then an update where a column differs, writes the same rows and counts the
      // same changes without one. (A table of key columns only upserts with `DO NOTHING`, which
      // needs none.) A store that pays a round trip per statement keeps the one upsert
      // (`SQLDialect.prefersInsertThenUpdate`).
      let isUpsertOfOneRow = !isChild && !hasChildren && policy == .upsert
      let updateChanged =
        isUpsertOfOneRow && table.hasReferences && sql.dialect.prefersInsertThenUpdate
        ? try sql.updateIfDifferent(table, columns: table.columns.map(\.name)).map(store.prepare) : nil
      self.updateChanged = updateChanged
      upsert = isUpsertOfOneRow && updateChanged == nil ? try store.prepare(sql.upsert(table)) : nil
      delete = try store.prepare(sql.delete(table))
      allParameters = Array(table.allColumns.indices)
      inheritedCount = table.inheritedCount
      ownCount = table.columns.count
      parentKeySources = table.parentKeySources
      parentInheritedCount = table.parentInheritedCount
      firstPosition = table.firstPosition
      keyParameters = table.key.map { name in
        guard let index = table.allColumns.firstIndex(where: { $0.name == name }) else {
          preconditionFailure("\(table.name): key column \(name) is not declared")
        }
        return index
      }
      keyColumn = isChild || table.key.count != 1 ? nil : table.columns.firstIndex { $0.name == table.key[0] }
    }

    /// Creates the temporary table the table's patches are staged in, where the store applies
    /// patches in key order and the table has a single-column key; idempotent. Called between
    /// records (never inside one's savepoint, whose rollback would drop the table again).
    func stagesPatches(store: any Store, sql: TableSQL) throws {
      guard patchStage == nil, keyColumn != nil, sql.dialect.appliesPatchesInKeyOrder else { return }
      try store.execute(sql.createPatchStage(table))
      patchStage = PatchStage(
        insert: try store.prepare(sql.stagePatch(table)), staged: try store.prepare(sql.stagedPatches(table)),
        clear: try store.prepare(sql.clearPatchStage(table)))
    }

    func tracksKeys(store: any Store, sql: TableSQL) throws {
      guard !isTracked, keyColumn != nil else { return }
      isTracked = true
      lookup = try store.prepare(sql.existingKeys(table, count: RowWriter.lookupChunk))
    }
  }

  /// A table's staged patches: the statements that stage, read back in key order and clear them,
  /// and how many were staged since the last time they were applied (a record rolled back
  /// takes its row back, not the count: a count too high only costs an early apply).
  final class PatchStage {
    let insert: any StoreStatement
    let staged: any StoreStatement
    let clear: any StoreStatement
    var count = 0
    /// The next patch's place in the order patches came.
    var order: Int64 = 0

    init(insert: any StoreStatement, staged: any StoreStatement, clear: any StoreStatement) {
      self.insert = insert
      self.staged = staged
      self.clear = clear
    }
  }
}
