extension RowWriter {
  // Patches: each written at once, or — where the store applies them in key order
  // (`SQLDialect.appliesPatchesInKeyOrder`) — staged as its record is written and applied,
  // table by table in key order, between records.

  func patch(_ entry: Int, _ rows: RecordRows, _ plan: Plan, _ index: Int, _ pending: inout Pending) throws {
    let unchanged = rows.entries[entry].unchanged
    // Only the key: nothing to set.
    guard Self.setsAColumn(unchanged, of: plan.table) else { return }
    // The row is no longer what the shared-row cache remembers writing.
    if let keyColumn = plan.keyColumn, let key = rows.value(entry, keyColumn) {
      plan.rowCache.remove(key)
      pending.cache.removeAll { $0.plan == index && $0.key == key }
    }
    if let stage = plan.patchStage {
      // Applied in key order before anything else writes (`applyStagedPatches`); its checks
      // are the stage's, now, inside the record's savepoint.
      try stage.insert.bind(.integer(stage.order), at: 1)
      try stage.insert.bind(.integer(Int64(bitPattern: unchanged)), at: 2)
      let start = Int(rows.entries[entry].start)
      try rows.values.withUnsafeBufferPointer { values in
        try stage.insert.bind(UnsafeBufferPointer(rebasing: values[start..<start + plan.ownCount]), from: 3)
      }
      try stage.insert.execute()
      stage.order += 1
      stage.count += 1
      stagedPatches += 1
      stagedPatchBytes += Self.stagedSize(of: rows.values[start..<start + plan.ownCount])
      return
    }
    let (statement, parameters) = try patchStatement(plan, unchanged)
    try bind(statement, parameters, entry, rows, plan)
    try statement.execute()
    pending.rows[index] += store.changes
  }

  /// Whether a patch leaving `unchanged` alone sets any column besides the key.
  private static func setsAColumn(_ unchanged: UInt64, of table: Table) -> Bool {
    let own: UInt64 = table.columns.count >= 64 ? ~0 : (1 << UInt64(table.columns.count)) - 1
    return own & ~unchanged & ~table.keyMask != 0
  }

  /// The update of a patch that leaves the columns of `unchanged` alone (one that sets some),
  /// and its parameters: only where a column differs, so a patch applied twice changes, and
  /// counts, nothing the second time.
  private func patchStatement(_ plan: Plan, _ unchanged: UInt64) throws -> (any StoreStatement, [Int]) {
    if let prepared = plan.patchStatements[unchanged] { return prepared }
    let columns = plan.table.columns.enumerated().filter { unchanged & (1 << UInt64($0.offset)) == 0 }.map(
      \.element.name)
    let parameters = plan.table.allColumns.indices.filter {
      plan.keyParameters.contains($0) || columns.contains(plan.table.allColumns[$0].name)
    }
    guard let text = sql.updateIfDifferent(plan.table, columns: columns) else {
      preconditionFailure("\(plan.table.name): a patch that sets no column has no update")
    }
    let statement = (try store.prepare(text), parameters)
    if plan.patchStatements.count >= 64 { plan.patchStatements.removeAll() }
    plan.patchStatements[unchanged] = statement
    return statement
  }

  /// What a staged row takes in SQLite's sorter, about: its values, its order and mask, and the
  /// sorter's own bookkeeping.
  private static func stagedSize(of values: ArraySlice<DatabaseValue?>) -> Int {
    var bytes = 48
    for value in values {
      switch value {
      case .text(let text): bytes += text.utf8.count + 2
      case .blob(let blob): bytes += blob.count + 2
      case .integer, .real: bytes += 9
      case nil: bytes += 1
      }
    }
    return bytes
  }

  /// Applies the patches staged before a record that writes anything but patches, so that every
  /// write sees the rows as the patches before it left them. Between records only: inside a
  /// record's savepoint, its rollback would take back the patches of records that committed.
  func applyStagedPatches(before rows: RecordRows) throws {
    guard stagedPatches > 0, rows.entries.contains(where: { !$0.isPatch }) else { return }
    try applyStagedPatches()
  }

  /// Applies every staged patch, table by table, by key and each key's in the order they came,
  /// with the statements and counts a patch written at once has; then empties the stages.
  /// Between records only (see `applyStagedPatches(before:)`).
  func applyStagedPatches() throws {
    guard stagedPatches > 0 else { return }
    for (index, plan) in plans.enumerated() {
      guard let stage = plan.patchStage, stage.count > 0 else { continue }
      let cursor = stage.staged
      defer { cursor.reset() }
      while try cursor.step() {
        guard case .integer(let mask)? = cursor.columnValue(0) else {
          preconditionFailure("\(plan.table.name): a staged patch without its mask")
        }
        let (update, parameters) = try patchStatement(plan, UInt64(bitPattern: mask))
        // A top-level table's columns are its own: column n is the cursor's n + 1.
        for column in parameters { try update.bind(cursor.columnValue(Int32(column + 1)), at: Int32(column + 1)) }
        try update.execute()
        written[index] += store.changes
      }
      cursor.reset()
      try stage.clear.execute()
      stage.count = 0
    }
    stagedPatches = 0
    stagedPatchBytes = 0
    // The pass changed pages all over the tables: written now, they leave the cache to the
    // look-ups of the next patches' keys (`Store.writeChangedPages`).
    try store.writeChangedPages()
  }
}
