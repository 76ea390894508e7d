extension RowWriter {
  /// A table's prepared statements and caches.
  final class Plan {
    let table: Table
    let policy: ConflictPolicy
    /// A top-level table that follows the run's conflict policy: its kept rows make a kept record.
    let followsRun: Bool
    let insert: any StoreStatement
    /// Updates every non-key column (upsert of a table with children); nil when there is none.
    let update: (any StoreStatement)?
    /// One-statement upsert (upsert of a table without children).
    let upsert: (any StoreStatement)?
    let delete: any StoreStatement
    let children: [(plan: Int, delete: any StoreStatement)]
    let allParameters: [Int]
    let keyParameters: [Int]
    let inheritedCount: Int
    /// The table's own columns.
    let ownCount: Int
    let parentKeySources: [Int]
    let firstPosition: Int64
    /// The single key column among the table's own columns, for a top-level table.
    let keyColumn: Int?
    /// Other tables reference this one, or it takes patches: its keys are looked up and cached.
    private(set) var isTracked = false
    var lookup: (any StoreStatement)?
    var known = Set<DatabaseValue>()
    var wanted = Set<DatabaseValue>()
    /// Keys this batch wanted that the table lacked: a record of the batch may still write them.
    var missing = Set<DatabaseValue>()
    var rowCache: [DatabaseValue: [DatabaseValue?]] = [:]
    var patchStatements: [UInt64: (any StoreStatement, [Int])] = [:]
    /// A merge's update of its given columns, by the mask of the columns it leaves unchanged;
    /// nil when it gives only the key.
    var mergeStatements: [UInt64: (any StoreStatement, [Int])?] = [:]

    init(
      table: Table, policy: ConflictPolicy, children: [(plan: Int, delete: any StoreStatement)],
      store: any Store, sql: TableSQL
    ) throws {
      self.table = table
      self.policy = policy
      self.children = children
      let hasChildren = !children.isEmpty
      let isChild = table.parent != nil
      followsRun = !isChild && table.onConflict == nil
      insert = try store.prepare(sql.insert(table, ignoringExisting: !isChild && (policy == .upsert || policy == .ignore)))
      update = try sql.update(table).map(store.prepare)
      upsert = !isChild && !hasChildren && policy == .upsert ? try store.prepare(sql.upsert(table)) : nil
      delete = try store.prepare(sql.delete(table))
      allParameters = Array(table.allColumns.indices)
      inheritedCount = table.inheritedCount
      ownCount = table.columns.count
      parentKeySources = table.parentKeySources
      firstPosition = table.firstPosition
      keyParameters = table.key.map { name in table.allColumns.firstIndex { $0.name == name }! }
      keyColumn = isChild || table.key.count != 1 ? nil : table.columns.firstIndex { $0.name == table.key[0] }
    }

    func tracksKeys(store: any Store, sql: TableSQL) throws {
      guard !isTracked, keyColumn != nil else { return }
      isTracked = true
      lookup = try store.prepare(sql.existingKeys(table, count: RowWriter.lookupChunk))
    }
  }
}
