import Foundation
@_spi(Internals) import SluiceCore

/// Writes a batch of records into PostgreSQL with one `COPY` per table and a few set-based
/// statements, with `RowWriter`'s results: the same rows, the same counts, the same kept records.
///
/// A batch is written inside a savepoint, table family by table family in schema order
/// (referenced tables first, a parent before its children). A family whose keys are new is
/// copied straight into its tables (`copyDirectly`); one that meets a known or repeated key is
/// staged (`applyStaged`). Each table of the dataset has a staging table (`LIKE` the target, plus
/// the record's ordinal in the batch, the row's entry in the record and its top-level row's
/// entry), temporary and dropped at commit, or unlogged under a parallel run's two-phase commit;
/// a family is staged by `COPY … FROM STDIN` in text format (`COPYText`), then applied. Which staged rows reach a table is the "pick": under `upsert` and `replace` the last
/// row per key (the last record wins), under `ignore` the first row of each key the table lacked,
/// under `fail` every row (a second one of a key is the primary key's error). Children go in with
/// their picked parent row, after the children the table had for those keys were deleted.
///
/// It takes records of whole rows whose references the record itself resolves (orders, fruits,
/// devices) or a foreign key of the table checks (alerts naming their device: a batch with an
/// orphan breaks it and goes row by row, where the row writer finds the record), merged rows
/// (`PostgreSQLBulkWriter+Merges`: a chat message's sender) and batches of patches
/// (`PostgreSQLBulkWriter+Patches`), on Citus too: references whose orphans become NULL stay
/// with `RowWriter`, as do schemas where a `replace` table is
/// referenced by another of the same schema (a delete that cascades within a batch depends on
/// the order of the records). A batch
/// whose rows break a constraint is rolled back to the savepoint and returned to the caller,
/// which writes it through `RowWriter`: that finds the culprits, with their issues and locations.
final class PostgreSQLBulkWriter: BulkWriter {
  /// A table of the dataset and what applying a batch to it needs.
  struct Plan {
    let table: Table
    let policy: ConflictPolicy
    let followsRun: Bool
    /// The staging table and, for a top-level table, the table of picked rows.
    let stage: String
    let pick: String
    /// For a top-level table, the plans of the tables below it — children, grandchildren… — in
    /// schema order.
    var children: [Int] = []
    /// `COPY stage (…) FROM STDIN`.
    let copy: String
    /// `COPY target (…) FROM STDIN`, for a batch that only brings new keys.
    let copyDirect: String
  }

  let store: PostgreSQLStore
  var plans: [Plan] = []
  /// Each plan's index by its table's serial; -1 for tables not in the schema.
  var planBySerial: [Int] = []
  var written: [Int]
  /// The statements, derived from the table declarations.
  let sql: PostgreSQLBulkSQL
  var batches = RunReport.BulkWrites()
  /// Records a batch joins at most: each bulk write costs a few round trips and statements
  /// whatever its size, so a writer slower than the decoder catches up by taking what queued
  /// meanwhile.
  var recordsPerBatch: Int { 4096 }
  /// How staging tables are made: temporary by default, ordinary unlogged ones named after the
  /// server process in a transaction that is to be prepared (`PostgreSQLStore+Lanes`).
  let staging: StagingTables
  /// Per plan, the table its patches are staged in, made at the first batch of patches
  /// (`PostgreSQLBulkWriter+Patches`).
  var partialStages: [String?]
  /// The references a foreign key checks (`foreignKeys(of:in:)`).
  var checkedReferences: Set<Reference> = []
  /// On Citus, the plans whose tables are Citus tables other than distributed ones (reference
  /// tables): Citus refuses an `UPDATE` of those joined with a table of the coordinator ("relation
  /// … is not distributed"), so their patches stay with the row writer.
  var citusReplicated: Set<Int> = []
  /// Per plan, batches of patches that go row by row before the bulk path is tried again, and
  /// how many that will be after its next miss (a batch naming a row that does not exist).
  var patchBackOff: [BulkBackOff]

  struct StagingTables {
    let ordinary: Bool
    var prefix: String
    var namespace: String { ordinary ? "" : "pg_temp." }
    var create: String { ordinary ? "CREATE UNLOGGED TABLE" : "CREATE TEMP TABLE" }
    /// Emptied, not dropped, at a commit: a checkpointed run commits chunk after chunk on the
    /// same connection and keeps staging into them (each batch empties them before it stages).
    var onCommit: String { ordinary ? "" : " ON COMMIT DELETE ROWS" }
  }

  /// Nil when the schema needs `RowWriter` throughout.
  init?(store: PostgreSQLStore, schema: Schema, conflict: ConflictPolicy) throws {
    self.store = store
    // MERGE where the server has it (PostgreSQL 15) and the store's options (`usesMerge`) do not
    // ask for the statements older servers take instead (for comparing the two).
    sql = PostgreSQLBulkSQL(
      dialect: store.dialect, usesMerge: store.serverVersion >= 150_000 && store.options.usesMerge,
      isCitus: store.isCitus)
    let tables = schema.tables
    let q = store.dialect.quote
    for table in tables {
      let policy = table.onConflict ?? conflict
      // A child's parent is a table of the schema (a top-level table, or a child in turn).
      if let parent = table.parent {
        guard tables.contains(where: { $0 === parent.table }) else { return nil }
      }
      // A replace whose delete cascades to rows of the same batch depends on the records' order.
      if table.parent == nil && policy == .replace
        && tables.contains(where: { other in other.columns.contains { $0.reference?.table === table } })
      {
        return nil
      }
    }
    written = Array(repeating: 0, count: tables.count)
    directBackOff = Array(repeating: BulkBackOff(), count: tables.count)
    partialStages = Array(repeating: nil, count: tables.count)
    patchBackOff = Array(repeating: BulkBackOff(), count: tables.count)
    var setup: [String] = []
    let ordinary = store.preparesTransaction
    staging = StagingTables(
      ordinary: ordinary, prefix: ordinary ? "sluice_\(store.backendProcessID)_" : "sluice_")
    let (prefix, namespace, create, onCommit) = (staging.prefix, staging.namespace, staging.create, staging.onCommit)
    for (index, table) in tables.enumerated() {
      let stage = "\(prefix)stage_\(index)"
      let pick = "\(prefix)pick_\(index)"
      let columns = table.allColumns.map { q($0.name) }.joined(separator: ", ")
      plans.append(
        Plan(
          table: table, policy: table.onConflict ?? conflict,
          followsRun: table.parent == nil && table.onConflict == nil,
          stage: stage, pick: pick,
          copy: "COPY \(stage) (sluice_ord, sluice_sub, sluice_root, \(columns)) FROM STDIN",
          copyDirect: "COPY \(q(table.name)) (\(columns)) FROM STDIN"))
      // Dropped first: an earlier input of the run may have staged into the same names.
      setup.append("DROP TABLE IF EXISTS \(namespace)\(stage), \(namespace)\(pick)")
      setup.append(
        "\(create) \(stage) (sluice_ord integer NOT NULL, sluice_sub integer NOT NULL, sluice_root integer NOT NULL, LIKE \(q(table.name)))\(onCommit)"
      )
      // A child's stage is keyed by the child's key, so that an upsert finds the children it
      // brings again unchanged with a probe (`PostgreSQLBulkSQL.apply`).
      if table.parent != nil && !store.isCitus {
        setup.append("CREATE INDEX ON \(stage) (\(table.key.map(q).joined(separator: ", ")))")
      }
      // Keyed, so joining the staged rows with the picked ones probes it.
      setup.append(
        "\(create) \(pick) (sluice_ord integer NOT NULL, sluice_sub integer NOT NULL, PRIMARY KEY (sluice_ord, sluice_sub))\(onCommit)"
      )
      if ordinary {
        for name in [stage, pick] where !store.stagingTables.contains(name) { store.stagingTables.append(name) }
      }
      // Every table below a top-level one is of its family, in schema order (parents first):
      // staged and applied with it, replaced with its rows.
      let root = table.root
      if root !== table, let rootIndex = tables.firstIndex(where: { $0 === root }) {
        plans[rootIndex].children.append(index)
      }
    }
    try store.run(setup.joined(separator: "; "))
    // On Citus too: a foreign key the layout keeps (from a distributed table to a reference
    // table, alerts to devices) is declared on the coordinator's table and checked on the
    // workers' shards as each row is written, and its error classified (`CitusConstraintMessage`).
    checkedReferences = try Self.foreignKeys(of: tables, in: store)
    if store.isCitus { citusReplicated = try Self.replicatedTables(of: tables, in: store) }
    var planBySerial = Array(repeating: -1, count: Int(tables.map(\.serial).max() ?? 0) + 1)
    for (index, table) in tables.enumerated() { planBySerial[Int(table.serial)] = index }
    self.planBySerial = planBySerial
  }

  /// A column of a table (by serial, the column among its own) that references another table.
  struct Reference: Hashable {
    var table: Int32
    var column: Int32
  }

  /// The references of the dataset's tables that a foreign key of the database checks as each
  /// row is written: declared on that column to that table, validated, not deferred. Sluice
  /// declares one for each reference of a table it creates; a table it adopted may lack it, and
  /// its references stay with the row writer's look-ups.
  private static func foreignKeys(of tables: [Table], in store: PostgreSQLStore) throws -> Set<Reference> {
    let literal = store.dialect.literal
    let q = store.dialect.quote
    var references: [Reference] = []
    var queries: [String] = []
    for table in tables {
      for (index, column) in table.columns.enumerated() {
        guard let target = column.reference?.table else { continue }
        references.append(Reference(table: table.serial, column: Int32(index)))
        queries.append(
          "SELECT count(*) FROM pg_constraint AS c JOIN pg_attribute AS a ON a.attrelid = c.conrelid "
            + "AND a.attnum = c.conkey[1] WHERE c.contype = 'f' AND cardinality(c.conkey) = 1 AND c.convalidated "
            + "AND NOT c.condeferred AND c.conrelid = to_regclass(\(literal(q(table.name)))) "
            + "AND c.confrelid = to_regclass(\(literal(q(target.name)))) AND a.attname = \(literal(column.name))")
      }
    }
    guard !queries.isEmpty else { return [] }
    let results = try store.runEach(queries)
    return Set(
      zip(references, results).compactMap { reference, result in
        (result.rows.first?.first ?? 0) > 0 ? reference : nil
      })
  }

  var rowsWritten: [String: Int] {
    var rows: [String: Int] = [:]
    for (index, plan) in plans.enumerated() { rows[plan.table.name, default: 0] += written[index] }
    return rows
  }

  func countRowByRow() { batches.rowByRow += 1 }

  func accepts(_ rows: RecordRows) -> Bool {
    if rows.entries.first?.isPatch == true { return acceptsPatches(rows) }
    // A reference the record does not resolve itself (an alert's device) is for the table's
    // foreign key to check (`write`), where the table has one that checks each row as it is
    // written (on Citus too, where the layout keeps it); one whose orphans become NULL is the
    // row writer's.
    // Not under `ignore`: a row whose key the table has is not written, so its reference would
    // go unchecked, where the row writer rejects the record.
    for reference in rows.openReferences {
      let serial = rows.entries[Int(reference.entry)].serial
      guard reference.isForeignKeyCheck, checkedReferences.contains(Reference(table: serial, column: reference.column)),
        Int(serial) < planBySerial.count, planBySerial[Int(serial)] >= 0,
        plans[planBySerial[Int(serial)]].policy != .ignore
      else { return false }
    }
    for entry in rows.entries {
      let serial = Int(entry.serial)
      if entry.isPatch || serial >= planBySerial.count || planBySerial[serial] < 0 { return false }
      // A merge (`PostgreSQLBulkWriter+Merges`), where its table takes them.
      if entry.unchanged != 0 && !takesMerges(planBySerial[serial]) { return false }
    }
    return true
  }

  // MARK: - A batch

  /// Per top-level plan, batches whose rows go straight to staging before a direct copy is
  /// tried again, after a miss (`BulkBackOff`: it doubles up to 64, and a direct copy that goes
  /// in resets it).
  private var directBackOff: [BulkBackOff] = []
  /// Staging tables holding an earlier batch's rows, truncated before the next batch.
  var dirty = Set<Int>()
  /// Batches with open references that go row by row before the bulk path is tried again,
  /// after a batch with an orphan.
  private var referenceBackOff = BulkBackOff()

  /// A row holds a value COPY cannot carry (text with a NUL): the row writer reports it.
  struct Uncopyable: Error {}

  /// Writes a batch, table family by table family in schema order (a top-level table, then its
  /// children): each family either straight into its tables (`copyDirectly`) or staged and
  /// applied with its policy's rules (`applyStaged`), all inside one savepoint.
  func write(_ records: [RecordRows]) throws -> [Bool]? {
    // Patches go their own way (`writePatches`); a batch mixing them with whole rows, row by row.
    let patches = records.count(where: { $0.entries.first?.isPatch == true })
    if patches > 0 {
      guard patches == records.count(where: { !$0.isEmpty }) else {
        batches.rowByRow += 1
        return nil
      }
      return try writePatches(records)
    }
    let references = records.contains { !$0.openReferences.isEmpty }
    if references {
      // Backing off after a batch with an orphan: this one goes row by row too.
      if referenceBackOff.skip() {
        batches.rowByRow += 1
        return nil
      }
      // A record naming a row a later record of the batch brings is an orphan to the row
      // writer, which writes record by record; copied table by table, the later row would be
      // there first. Such a batch goes row by row.
      let targets = Set(records.lazy.flatMap(\.openReferences).map(\.target))
      if records.contains(where: { $0.entries.contains { targets.contains($0.serial) } }) {
        batches.rowByRow += 1
        return nil
      }
    }
    /// Each plan's rows of the batch, as (record's ordinal, entry).
    var rowsOf = Array(repeating: [(ordinal: Int32, entry: Int32)](), count: plans.count)
    /// Per record, its rows of tables that follow the run's policy: (plan, entry).
    var followers: [[(plan: Int, entry: Int32)]] = Array(repeating: [], count: records.count)
    /// The tables with a merge among their rows of the batch.
    var merging = Set<Int>()
    for (ordinal, rows) in records.enumerated() {
      for entry in 0..<rows.count {
        let index = planBySerial[Int(rows.entries[entry].serial)]
        rowsOf[index].append((Int32(ordinal), Int32(entry)))
        if plans[index].followsRun { followers[ordinal].append((index, Int32(entry))) }
        if rows.entries[entry].unchanged != 0 { merging.insert(index) }
      }
    }
    /// Per table with merges, its rows that may change it, by round.
    var merges: [Int: [StagedMerge]] = [:]
    for index in merging {
      guard let staged = mergeRounds(rowsOf[index], plan: index, records: records) else { return rowByRow() }
      merges[index] = staged
    }
    /// Upsert tables without children whose batch repeats a key with other values.
    var keysRepeat = Set<Int>()
    for index in plans.indices
    where plans[index].policy == .upsert && plans[index].table.parent == nil && plans[index].children.isEmpty
      && !merging.contains(index)
    {
      if dropRepeatedRows(&rowsOf[index], plan: index, records: records) { keysRepeat.insert(index) }
    }
    // Truncated at the transaction's top level, so the tables made in it are truncated in place.
    // The staging tables have no statistics: without hash and merge joins, each join with a
    // target is an index probe per staged row, never a scan of the growing target (and each
    // join of two staging tables a probe of the picked rows' primary key).
    var start = mergeStageSetup(merging.sorted())
    if !dirty.isEmpty {
      start.append("TRUNCATE " + dirty.sorted().flatMap { [plans[$0].stage, plans[$0].pick] }.joined(separator: ", "))
      dirty.removeAll()
    }
    start += ["SAVEPOINT sluice_batch", "SET LOCAL enable_hashjoin TO off", "SET LOCAL enable_mergejoin TO off"]
    try store.run(start.joined(separator: "; "))
    var counts = Array(repeating: 0, count: plans.count)
    /// Rows of `ignore` tables that were written, as (plan, ordinal, entry).
    var wrote = Set<Key>()
    /// The top-level tables copied straight in, and those staged.
    var copied: [Int] = []
    var staged: [Int] = []
    do {
      for top in plans.indices where plans[top].table.parent == nil && !rowsOf[top].isEmpty {
        if let merges = merges[top] {
          try applyMerges(top, merges, records: records, counts: &counts)
          staged.append(top)
          continue
        }
        let family = [top] + plans[top].children.filter { !rowsOf[$0].isEmpty }
        if directBackOff[top].skip() {
          // Backing off after a miss: staged.
        } else if try copyDirectly(family, rowsOf: rowsOf, records: records) {
          directBackOff[top].wentIn()
          copied.append(top)
          for index in family { counts[index] += rowsOf[index].count }
          for index in family where plans[index].policy == .ignore {
            for row in rowsOf[index] { wrote.insert(Key(plan: index, ordinal: row.ordinal, entry: row.entry)) }
          }
          continue
        } else {
          // A key the table has (a re-run, an update feed): staging is the way for a while.
          directBackOff[top].missed()
        }
        try applyStaged(
          family, rowsOf: rowsOf, records: records, keysRepeat: keysRepeat.contains(top), counts: &counts,
          wrote: &wrote)
        staged.append(top)
      }
      try store.run("RESET enable_hashjoin; RESET enable_mergejoin; RELEASE SAVEPOINT sluice_batch")
    } catch let error as PostgreSQLError {
      guard case .constraint(let violation) = error.failure else { throw error }
      try store.run("ROLLBACK TO SAVEPOINT sluice_batch; RELEASE SAVEPOINT sluice_batch")
      if references && violation.kind == .foreignKey {
        // An orphan: the row writer finds it, and the next 1, 2, 4 … 64 batches with references
        // go row by row before the bulk path is tried again — a feed with many orphans does
        // not pay for both.
        referenceBackOff.missed()
      }
      batches.rowByRow += 1
      return nil
    } catch is Uncopyable {
      try store.run("ROLLBACK TO SAVEPOINT sluice_batch; RELEASE SAVEPOINT sluice_batch")
      batches.rowByRow += 1
      return nil
    }
    if references { referenceBackOff.wentIn() }
    for index in counts.indices { written[index] += counts[index] }
    for index in copied { batches.tables[plans[index].table.name, default: .init()].copied += 1 }
    for index in staged { batches.tables[plans[index].table.name, default: .init()].staged += 1 }
    return followers.enumerated().map { ordinal, rows in
      // As `RowWriter`: kept when the record kept a row of its own and wrote none.
      var keptAny = false
      var wroteAny = false
      for (plan, entry) in rows {
        if plans[plan].policy != .ignore || wrote.contains(Key(plan: plan, ordinal: Int32(ordinal), entry: entry)) {
          wroteAny = true
        } else {
          keptAny = true
        }
      }
      return keptAny && !wroteAny
    }
  }

  /// Copies a family's rows straight into its tables, parent first, inside a savepoint of its
  /// own, and says whether they went in. That is what a batch of keys new to the table and to
  /// the batch comes to under every policy — each row inserted and counted, no children to
  /// replace, none kept — as in a first load, and for the new keys of a nightly one. False when
  /// the COPY met a key the table has or the batch repeats (a unique violation): nothing of the
  /// family was written, and it is staged instead. Any other broken constraint is the batch's,
  /// as staging would meet it too.
  private func copyDirectly(
    _ family: [Int], rowsOf: [[(ordinal: Int32, entry: Int32)]], records: [RecordRows]
  ) throws -> Bool {
    let buffers = try family.map { try encode(rowsOf[$0], of: records, plan: $0, staging: false) }
    try store.run("SAVEPOINT sluice_direct")
    do {
      for (index, buffer) in zip(family, buffers) {
        try store.copy(plans[index].copyDirect, data: buffer)
      }
      try store.run("RELEASE SAVEPOINT sluice_direct")
      return true
    } catch let error as PostgreSQLError where error.sqlState == "23505" {
      // Left open, released with the batch's savepoint: on Citus 13.2, a savepoint rolled back
      // after a failed distributed COPY and then released leaves a worker's transaction aborted
      // once a later statement fails and the batch rolls back to its own savepoint ("current
      // transaction is aborted" from the worker on the row writer's next insert).
      try store.run("ROLLBACK TO SAVEPOINT sluice_direct")
      return false
    }
  }

  /// Stages a family's rows and applies them set-based, with its policy's rules.
  private func applyStaged(
    _ family: [Int], rowsOf: [[(ordinal: Int32, entry: Int32)]], records: [RecordRows], keysRepeat: Bool,
    counts: inout [Int], wrote: inout Set<Key>
  ) throws {
    for index in family {
      try store.copy(plans[index].copy, data: try encode(rowsOf[index], of: records, plan: index, staging: true))
      dirty.insert(index)
    }
    let staged = rowsOf.map(\.count)
    let steps = sql.apply(family[0], of: plans, staged: staged, keysRepeat: keysRepeat, counts: &counts)
    // Every statement in one round trip; each answers with its own result.
    let results = try store.runEach(steps.map(\.sql))
    for (step, result) in zip(steps, results) {
      switch step.effect {
      case .none: break
      case .count(let plan): counts[plan] += Int(result.rows.first?.first ?? 0)
      case .changes(let plan): counts[plan] += result.changes
      case .picked(let plan):
        counts[plan] += result.rows.count
        for row in result.rows where row.count == 2 {
          wrote.insert(Key(plan: plan, ordinal: Int32(row[0]), entry: Int32(row[1])))
        }
      }
    }
  }

  struct Key: Hashable {
    var plan: Int
    var ordinal: Int32
    var entry: Int32
  }

  /// Drops the rows of a top-level upsert table without children that repeat, value for value
  /// (`DatabaseValue`'s equality: text byte for byte), the row before them of the same key in
  /// the batch — a customer named by each of their orders. The row writer counts such a row as
  /// no change and leaves the table as it was, so nothing of the outcome changes. Returns whether a key still comes twice (its values changed in between).
  private func dropRepeatedRows(
    _ rows: inout [(ordinal: Int32, entry: Int32)], plan: Int, records: [RecordRows]
  ) -> Bool {
    guard rows.count > 1 else { return false }
    let table = plans[plan].table
    let keyColumns = table.key.compactMap { name in table.allColumns.firstIndex { $0.name == name } }
    guard keyColumns.count == table.key.count else { return true }
    var last: [[DatabaseValue?]: [DatabaseValue?]] = [:]
    last.reserveCapacity(rows.count)
    var repeats = false
    rows.removeAll { ordinal, entry in
      let record = records[Int(ordinal)]
      let values = (0..<table.allColumns.count).map { record.fullValue(Int(entry), $0, in: table) }
      let key = keyColumns.map { values[$0] }
      if let previous = last.updateValue(values, forKey: key) {
        if previous == values { return true }
        repeats = true
      }
      return false
    }
    return repeats
  }

  // MARK: - COPY's text format

  /// A plan's rows of the batch in COPY's text format, for its staging table or its target.
  private func encode(
    _ rows: [(ordinal: Int32, entry: Int32)], of records: [RecordRows], plan: Int, staging: Bool
  ) throws -> [UInt8] {
    var buffer: [UInt8] = []
    let table = plans[plan].table
    for (ordinal, entry) in rows {
      let record = records[Int(ordinal)]
      // The top-level row the row belongs to, however deep it is.
      var root = Int(entry)
      while record.entries[root].parent >= 0 { root = Int(record.entries[root].parent) }
      let place = staging ? (ordinal: Int(ordinal), root: root) : nil
      guard encode(&buffer, staging: place, entry: Int(entry), rows: record, table: table) else { throw Uncopyable() }
    }
    return buffer
  }

  /// Appends one row in COPY's text format: tab-separated, `\N` for NULL, backslash escapes;
  /// for a staging table, led by the record's ordinal in the batch, the row's entry and its
  /// top-level row's entry. False for a value the format cannot carry (text with a NUL).
  func encode(
    _ buffer: inout [UInt8], staging: (ordinal: Int, root: Int)?, entry: Int, rows: RecordRows, table: Table
  ) -> Bool {
    if let staging {
      COPYText.appendInteger(Int64(staging.ordinal), to: &buffer)
      buffer.append(0x09)
      COPYText.appendInteger(Int64(entry), to: &buffer)
      buffer.append(0x09)
      COPYText.appendInteger(Int64(staging.root), to: &buffer)
      buffer.append(0x09)
    }
    for column in 0..<table.allColumns.count {
      if column > 0 { buffer.append(0x09) }
      guard COPYText.append(rows.fullValue(entry, column, in: table), to: &buffer) else { return false }
    }
    buffer.append(0x0A)
    return true
  }
}
