@_spi(Internals) import SluiceCore

// Merged rows (`RecordRows.merge`: a chat message's sender, whose name some messages give and
// others leave alone), a batch at a time, with `RowWriter`'s results. The row writer writes a
// merge as one statement: a key the table lacks is inserted, its columns left alone NULL; a row
// that exists is updated in the columns the merge gives, where one differs, and counts as a row
// written only then. A whole row of the same table is a merge that gives every column.
//
// A key's merges of a batch apply in the order they came, so the bulk writer stages them by
// round, as patches: a key's first merge of the batch in round 0, its next in round 1, and so on,
// and one statement per round and mask (which columns a merge leaves alone) writes them, each key
// at most once per statement — its count of rows written is then the row writer's. Before
// staging, a merge that can change nothing is dropped: once a key's first merge of the batch has
// run the row exists, and a later merge whose given columns all hold the values an earlier merge
// of the batch gave them is the row writer's no-op, counted 0. Of 200,000 generated chat messages
// in batches of 4,000, that leaves 15,819 of 200,000 conversation merges and 103,199 of 187,345
// sender merges, in at most 2 rounds (Benchmarks/RESULTS.md).
//
// The table is one that takes merges (top-level, declared `onConflict: .upsert`, without
// children) and its rows go in before the tables that reference it (schema order). On Citus the
// statement is `INSERT … ON CONFLICT`, counted by the rows it returns (`PostgreSQLBulkSQL`).

extension PostgreSQLBulkWriter {
  /// A merge of the batch that may change its row: where it is, and its round.
  typealias StagedMerge = (ordinal: Int32, entry: Int32, round: Int32)

  /// Whether a plan's table takes merges in bulk.
  func takesMerges(_ index: Int) -> Bool {
    let plan = plans[index]
    return plan.table.parent == nil && plan.children.isEmpty && plan.policy == .upsert
      && plan.table.columns.count <= 64
  }

  /// A table's rows of the batch — merges and whole rows, in the order they came — less those
  /// that can change nothing, each with its round: how many rows of its key were kept before it.
  /// Nil when a key comes in more than `roundLimit` rounds, or a merge leaves a column of
  /// the key alone: the batch goes row by row.
  func mergeRounds(
    _ rows: [(ordinal: Int32, entry: Int32)], plan index: Int, records: [RecordRows]
  ) -> [StagedMerge]? {
    let table = plans[index].table
    let count = table.columns.count
    let keyColumns = table.key.compactMap { name in table.columns.firstIndex { $0.name == name } }
    guard keyColumns.count == table.key.count else { return nil }
    let keyMask = keyColumns.reduce(UInt64(0)) { $0 | 1 << UInt64($1) }
    let all: UInt64 = count == 64 ? .max : (1 << UInt64(count)) - 1
    /// Per key of the batch: the values its kept rows gave, which columns those are, and the
    /// rounds so far.
    struct Known {
      var values: [DatabaseValue?]
      var given: UInt64
      var rounds: Int32
    }
    var known: [[DatabaseValue?]: Known] = [:]
    known.reserveCapacity(rows.count)
    var staged: [StagedMerge] = []
    staged.reserveCapacity(rows.count)
    for (ordinal, entry) in rows {
      let record = records[Int(ordinal)]
      let unchanged = record.entries[Int(entry)].unchanged
      guard unchanged & keyMask == 0 else { return nil }
      let given = all & ~unchanged
      let key = keyColumns.map { record.fullValue(Int(entry), $0, in: table) }
      guard var state = known[key] else {
        var values = [DatabaseValue?](repeating: nil, count: count)
        for column in 0..<count where given & (1 << UInt64(column)) != 0 {
          values[column] = record.fullValue(Int(entry), column, in: table)
        }
        known[key] = Known(values: values, given: given, rounds: 1)
        staged.append((ordinal, entry, 0))
        continue
      }
      // The row exists by now; it changes only where a given column's value is not known to be
      // the one the row holds.
      var changes = false
      for column in 0..<count where given & (1 << UInt64(column)) != 0 {
        let value = record.fullValue(Int(entry), column, in: table)
        if state.given & (1 << UInt64(column)) == 0 || state.values[column] != value {
          changes = true
          state.values[column] = value
        }
      }
      guard changes else { continue }
      guard state.rounds < Self.roundLimit else { return nil }
      state.given |= given
      staged.append((ordinal, entry, state.rounds))
      state.rounds += 1
      known[key] = state
    }
    return staged
  }

  /// Stages a table's merges of the batch (`mergeRounds`) and writes them, round by round and
  /// mask by mask, adding the rows written to `counts`. Inside the batch's savepoint; its stage
  /// was made and emptied before it (`mergeStageSetup`).
  func applyMerges(_ index: Int, _ merges: [StagedMerge], records: [RecordRows], counts: inout [Int]) throws {
    guard let stage = partialStages[index] else { return }
    try store.copy(copyPartialRows(index, stage: stage), data: try encodePartialRows(merges, of: records, plan: index))
    let table = plans[index].table
    let q = store.dialect.quote
    var masks: [Int32: Set<UInt64>] = [:]
    for merge in merges {
      masks[merge.round, default: []].insert(records[Int(merge.ordinal)].entries[Int(merge.entry)].unchanged)
    }
    var steps: [PostgreSQLBulkSQL.Step] = []
    for round in masks.keys.sorted() {
      for mask in masks[round, default: []].sorted() {
        let given = table.columns.enumerated().filter { column, declaration in
          mask & (1 << UInt64(column)) == 0 && !table.key.contains(declaration.name)
        }.map { q($0.element.name) }
        let source =
          "(SELECT * FROM \(stage) WHERE sluice_round = \(round) AND sluice_mask = \(Int64(bitPattern: mask)))"
        steps += sql.upsertEachKey(index, of: plans, from: source, given: given)
      }
    }
    let results = try store.runEach(steps.map(\.sql))
    for (step, result) in zip(steps, results) {
      switch step.effect {
      case .changes(let plan): counts[plan] += result.changes
      case .count(let plan): counts[plan] += Int(result.rows.first?.first ?? 0)
      case .none, .picked: break
      }
    }
  }

  /// Before a batch's savepoint: makes the stages of the tables with merges that have none yet,
  /// and empties them.
  func mergeStageSetup(_ tables: some Collection<Int>) -> [String] {
    guard !tables.isEmpty else { return [] }
    var setup: [String] = []
    for index in tables where partialStages[index] == nil { setup += makePartialStage(index) }
    setup.append("TRUNCATE " + tables.compactMap { partialStages[$0] }.joined(separator: ", "))
    return setup
  }
}
