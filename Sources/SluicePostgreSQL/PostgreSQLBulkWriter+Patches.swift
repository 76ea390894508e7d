@_spi(Internals) import SluiceCore

// Patches, a batch at a time: staged by one COPY per table and applied by a few UPDATE … FROM,
// with `RowWriter`'s results — each patch sets only the columns it carries, patches of one key
// apply in the order they came, and a patch counts as a row written when it changed its row.
//
// The stage holds, per patch, the record's ordinal, which columns it leaves alone (the mask
// `RecordRows` gives it) and its round: how many patches of the same key came before it in the
// batch. One UPDATE per round applies the patches of that round, at most one per key, so a key's
// patches apply in order and each UPDATE's count of changed rows is the patches that changed
// their row — as the row writer's `UPDATE … WHERE key = ? AND (a column differs)`, one a patch.
// A patch naming a row that does not exist, or one breaking a constraint (clearing a NOT NULL
// column), sends the batch back to the row writer, which finds the record and its issue.
//
// On Citus the stage stays a temporary table of the coordinator: Citus 13.2 plans it
// recursively (`citus.local_table_join_policy`, set to `prefer-local` for the batch) — its rows
// of the round are read once and sent to the workers as an intermediate result, and each shard
// joins its rows with them. It refuses the correlated subquery of the first statement ("direct
// joins between distributed and local tables are not supported"), so there the patches naming
// no row are counted by an inner join of the stage with the table, before the rounds, and each
// round's count is its UPDATE's.

extension PostgreSQLBulkWriter {
  /// Patches of one key in one batch beyond which the batch goes row by row: each is a round,
  /// an UPDATE of its own (64 of them cost less than the batch written row by row). Merges
  /// stop at the same (`PostgreSQLBulkWriter+Merges`).
  static var roundLimit: Int { 64 }

  /// Whether a record is patches this writer applies set-based: every row a patch of a top-level
  /// table of the schema with a single-column key, naming no other row by its natural key — on
  /// Citus, of a distributed table (or one Citus does not know), not a reference table.
  func acceptsPatches(_ rows: RecordRows) -> Bool {
    guard rows.openReferences.allSatisfy(\.isPatchKey) else { return false }
    return rows.entries.allSatisfy { entry in
      let serial = Int(entry.serial)
      guard entry.isPatch, serial < planBySerial.count, planBySerial[serial] >= 0,
        !citusReplicated.contains(planBySerial[serial])
      else { return false }
      let table = plans[planBySerial[serial]].table
      return table.parent == nil && table.key.count == 1 && table.columns.count < 64
    }
  }

  /// Applies a batch of patch records (every record `acceptsPatches`) set-based, inside a
  /// savepoint. Nil, with nothing written, when a patch names a row that does not exist, breaks
  /// a constraint or carries what COPY cannot (text with a NUL), when a key comes more than
  /// `roundLimit` times, or while an earlier such batch's back-off lasts: the caller writes
  /// the batch row by row.
  func writePatches(_ records: [RecordRows]) throws -> [Bool]? {
    /// Per plan, its patches of the batch: (record's ordinal, entry, round).
    var rowsOf = Array(repeating: [(ordinal: Int32, entry: Int32, round: Int32)](), count: plans.count)
    var seen: [Int: [DatabaseValue?: Int32]] = [:]
    /// Per plan of the batch, its key's column.
    var keyColumns: [Int: Int] = [:]
    for (ordinal, rows) in records.enumerated() {
      for entry in 0..<rows.count {
        let index = planBySerial[Int(rows.entries[entry].serial)]
        let table = plans[index].table
        guard
          let keyColumn = keyColumns[index]
            ?? table.columns.firstIndex(where: { $0.name == table.key[0] })
        else { return rowByRow() }
        keyColumns[index] = keyColumn
        let key = rows.fullValue(entry, keyColumn, in: table)
        let round = seen[index, default: [:]][key, default: 0]
        guard round < Self.roundLimit else { return rowByRow() }
        seen[index, default: [:]][key] = round + 1
        rowsOf[index].append((Int32(ordinal), Int32(entry), round))
      }
    }
    let used = plans.indices.filter { !rowsOf[$0].isEmpty }
    // Backing off after a batch that went row by row: this one goes too.
    if used.contains(where: { patchBackOff[$0].isBackingOff }) {
      for index in used { _ = patchBackOff[index].skip() }
      return rowByRow()
    }
    var setup: [String] = []
    for index in used where partialStages[index] == nil {
      setup += makePartialStage(index)
    }
    // Emptied at the transaction's top level, so a stage made in it is truncated in place.
    setup.append("TRUNCATE " + used.compactMap { partialStages[$0] }.joined(separator: ", "))
    setup += ["SAVEPOINT sluice_batch", "SET LOCAL enable_hashjoin TO off", "SET LOCAL enable_mergejoin TO off"]
    if sql.isCitus { setup.append("SET LOCAL citus.local_table_join_policy TO 'prefer-local'") }
    try store.run(setup.joined(separator: "; "))
    var counts = Array(repeating: 0, count: plans.count)
    do {
      var statements: [String] = []
      var effects: [Int] = []
      for index in used {
        guard let stage = partialStages[index] else { continue }
        try store.copy(
          copyPartialRows(index, stage: stage), data: try encodePartialRows(rowsOf[index], of: records, plan: index))
        let rounds = Int(rowsOf[index].lazy.map(\.round).max() ?? 0) + 1
        let steps = patchStatements(index, stage: stage, rounds: rounds)
        statements += steps
        effects += Array(repeating: index, count: steps.count)
      }
      let results = try store.runEach(statements)
      var first = Set<Int>()
      for (index, result) in zip(effects, results) {
        guard first.insert(index).inserted else {
          // A later round's UPDATE: the rows it changed are rows written.
          counts[index] += result.changes
          continue
        }
        // The first answers the rows its round changed and the patches naming no row.
        let answer = result.rows.first ?? []
        counts[index] += Int(answer.first ?? 0)
        if answer.count > 1 && answer[1] > 0 {
          // A patch names a row that does not exist: the row writer finds the record.
          try store.run("ROLLBACK TO SAVEPOINT sluice_batch; RELEASE SAVEPOINT sluice_batch")
          backOffPatches(used)
          return rowByRow()
        }
      }
      let reset = sql.isCitus ? "RESET citus.local_table_join_policy; " : ""
      try store.run("\(reset)RESET enable_hashjoin; RESET enable_mergejoin; RELEASE SAVEPOINT sluice_batch")
    } catch let error as PostgreSQLError {
      guard case .constraint = error.failure else { throw error }
      try store.run("ROLLBACK TO SAVEPOINT sluice_batch; RELEASE SAVEPOINT sluice_batch")
      backOffPatches(used)
      return rowByRow()
    } catch is Uncopyable {
      try store.run("ROLLBACK TO SAVEPOINT sluice_batch; RELEASE SAVEPOINT sluice_batch")
      return rowByRow()
    }
    for index in used {
      written[index] += counts[index]
      patchBackOff[index].wentIn()
      batches.tables[plans[index].table.name, default: .init()].staged += 1
    }
    // A patch writes no row of its own to keep: no record kept what was there.
    return Array(repeating: false, count: records.count)
  }

  /// The indices of `tables` that are Citus tables but not distributed ones (`pg_dist_partition`:
  /// a reference table's method is `n`, a distributed one's `h`).
  static func replicatedTables(of tables: [Table], in store: PostgreSQLStore) throws -> Set<Int> {
    let q = store.dialect.quote
    let literal = store.dialect.literal
    let queries = tables.map { table in
      "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = to_regclass(\(literal(q(table.name)))) "
        + "AND partmethod <> 'h'"
    }
    guard !queries.isEmpty else { return [] }
    let results = try store.runEach(queries)
    return Set(results.indices.filter { (results[$0].rows.first?.first ?? 0) > 0 })
  }

  /// Counts a batch that goes row by row, and says so.
  func rowByRow() -> [Bool]? {
    batches.rowByRow += 1
    return nil
  }

  /// After a batch that went back to the row writer: the next 1, 2, 4 … 64 batches of these
  /// tables' patches go row by row before the bulk path is tried again, so that a feed with
  /// many orphans does not pay for both.
  private func backOffPatches(_ used: [Int]) {
    for index in used {
      patchBackOff[index].missed()
    }
  }

  /// The statements that make a table's stage of partial rows — patches, or merges
  /// (`PostgreSQLBulkWriter+Merges`): a batch holds one kind or the other, never both. Its own
  /// columns with their types, every one nullable (a column a row leaves alone holds NULL
  /// there), led by the row's ordinal, mask and round.
  func makePartialStage(_ index: Int) -> [String] {
    let stage = "\(staging.prefix)partial_\(index)"
    partialStages[index] = stage
    if staging.ordinary && !store.stagingTables.contains(stage) { store.stagingTables.append(stage) }
    return [
      // Dropped first: an earlier input of the run may have staged into the same name.
      "DROP TABLE IF EXISTS \(staging.namespace)\(stage)",
      """
      \(staging.create) \(stage)\(staging.onCommit) AS SELECT 0::integer AS sluice_ord, 0::bigint AS sluice_mask, \
      0::integer AS sluice_round, sluice_target.* FROM \(store.dialect.quote(plans[index].table.name)) AS sluice_target \
      WITH NO DATA
      """,
    ]
  }

  /// `COPY` into a table's stage of partial rows (`makePartialStage`).
  func copyPartialRows(_ index: Int, stage: String) -> String {
    let columns = plans[index].table.columns.map { store.dialect.quote($0.name) }.joined(separator: ", ")
    return "COPY \(stage) (sluice_ord, sluice_mask, sluice_round, \(columns)) FROM STDIN"
  }

  /// The statements that apply a table's staged patches: one UPDATE per round that sets each
  /// column a patch carries, where some column it carries differs — so a patch applied twice
  /// changes, and counts, nothing the second time. The first answers one row: the rows its
  /// round changed, and the patches naming no row — every key has a patch in round 0, and only
  /// those its UPDATE did not change are looked up again (the UPDATE has fetched the others: a
  /// separate check of every key cost a third of a batch's time).
  private func patchStatements(_ index: Int, stage: String, rounds: Int) -> [String] {
    let table = plans[index].table
    let q = store.dialect.quote
    let key = q(table.key[0])
    let target = q(table.name)
    let settable = table.columns.enumerated().filter { $0.element.name != table.key[0] }
    let missing = "NOT EXISTS (SELECT 1 FROM \(target) AS t WHERE t.\(key) = s.\(key))"
    // On Citus, the patches naming no row are round 0's patches (one per key of the batch) less
    // those an inner join finds in the table: that join goes to the shards with the stage's rows.
    // An outer join of the stage with the table, which Citus also takes, pulls the whole table to
    // the coordinator each batch (a 200k-patch run had not ended after 4 minutes). A NULL key
    // joins no row.
    let missingOnCitus = """
      WITH sluice_found AS (SELECT count(*) AS n FROM \(target) AS t JOIN \(stage) AS s ON t.\(key) = s.\(key) \
      WHERE s.sluice_round = 0) \
      SELECT 0, (SELECT count(*) FROM \(stage) WHERE sluice_round = 0) - (SELECT n FROM sluice_found)
      """
    // A table whose only column is its key: a patch can only name its row.
    guard !settable.isEmpty else {
      return [sql.isCitus ? missingOnCitus : "SELECT 0, count(*) FROM \(stage) AS s WHERE \(missing)"]
    }
    func carries(_ column: Int) -> String { "(s.sluice_mask & \(Int64(bitPattern: 1 << UInt64(column)))) = 0" }
    let assignments = settable.map { column, declaration in
      let name = q(declaration.name)
      return "\(name) = CASE WHEN \(carries(column)) THEN s.\(name) ELSE t.\(name) END"
    }
    let differs = settable.map { column, declaration in
      let name = q(declaration.name)
      return "(\(carries(column)) AND t.\(name) IS DISTINCT FROM s.\(name))"
    }
    func update(_ round: Int) -> String {
      """
      UPDATE \(target) AS t SET \(assignments.joined(separator: ", ")) FROM \(stage) AS s \
      WHERE s.sluice_round = \(round) AND t.\(key) = s.\(key) AND (\(differs.joined(separator: " OR ")))
      """
    }
    // The outer query sees the table as the statement began, before the UPDATE: a
    // patch is missing when its key was not changed and is not in the table. `NOT IN` over the
    // changed keys is a hashed subplan; a NULL key is never among them.
    let first = """
      WITH sluice_changed AS (\(update(0)) RETURNING s.\(key) AS sluice_key) \
      SELECT (SELECT count(*) FROM sluice_changed), \
      (SELECT count(*) FROM \(stage) AS s WHERE s.sluice_round = 0 \
      AND (s.\(key) IS NULL OR s.\(key) NOT IN (SELECT sluice_key FROM sluice_changed)) AND \(missing))
      """
    // On Citus: the check first, then every round's UPDATE, each counted by the rows it changed.
    if sql.isCitus { return [missingOnCitus] + (0..<max(rounds, 1)).map(update) }
    return [first] + (1..<max(rounds, 1)).map(update)
  }

  /// A table's patches or merges of the batch in COPY's text format, each led by its ordinal,
  /// mask and round; a column the row leaves alone is NULL.
  func encodePartialRows(
    _ rows: [(ordinal: Int32, entry: Int32, round: Int32)], of records: [RecordRows], plan: Int
  ) throws -> [UInt8] {
    var buffer: [UInt8] = []
    let table = plans[plan].table
    for (ordinal, entry, round) in rows {
      let record = records[Int(ordinal)]
      let unchanged = record.entries[Int(entry)].unchanged
      COPYText.appendInteger(Int64(ordinal), to: &buffer)
      buffer.append(0x09)
      COPYText.appendInteger(Int64(bitPattern: unchanged), to: &buffer)
      buffer.append(0x09)
      COPYText.appendInteger(Int64(round), to: &buffer)
      for column in 0..<table.columns.count {
        buffer.append(0x09)
        let value = unchanged & (1 << UInt64(column)) == 0 ? record.fullValue(Int(entry), column, in: table) : nil
        guard COPYText.append(value, to: &buffer) else { throw Uncopyable() }
      }
      buffer.append(0x0A)
    }
    return buffer
  }
}
