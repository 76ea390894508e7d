/// The load stage of one input, as the record loop sees it: a batch of records in, one outcome
/// per record out, in input order.
///
/// Behind its two calls it decides how a batch is written. When the store has a bulk writer
/// (`BulkLoadingStore`, PostgreSQL's `COPY`) and it takes every record of the batch, the batch
/// is written in one go when it begins, and each record's outcome is then the bulk writer's. A
/// batch the bulk writer refuses, or takes back because a row broke a constraint, goes through
/// the `RowWriter` record by record — first looking up, in a few queries, every key the batch
/// references that no cache knows — each record inside a savepoint of its own when the run
/// skips invalid records. Either way the outcomes are the same: the bulk writer is a shortcut,
/// never a second set of rules.
///
/// ```swift
/// let loader = try BatchLoader(store: store, schema: schema, conflict: .upsert, savepoints: nil)
/// try loader.begin(records)                       // the batch's records' rows, in order
/// for rows in records {
///   switch try loader.write(rows, at: location) {
///   case .written(let keptExisting, let warnings): …
///   case .rejected(let issues): …                  // nothing of the record was written
///   }
/// }
/// ```
package final class BatchLoader {
  /// What became of one record.
  package enum Outcome {
    /// Written; `keptExisting` when the conflict policy kept the rows that were there
    /// (`ignore`); `warnings` for `setNull` references that pointed at nothing.
    case written(keptExisting: Bool, warnings: [Issue])
    /// Refused by the store (a constraint) with the issues that say why; nothing of the record
    /// was written.
    case rejected([Issue])
  }

  private let writer: RowWriter
  private let bulk: (any BulkWriter)?
  private let savepoints: (any RecordSavepoints)?
  /// A snapshot run's mirror, told every key the records write.
  private let mirror: SnapshotMirror?
  /// Per record of the current batch, when the bulk writer wrote it: whether it kept the rows
  /// that were there. Nil while the batch goes record by record.
  private var bulkKept: [Bool]?
  private var nextBulkRecord = 0

  /// A loader for one input's records into `store`, over `schema`'s tables.
  package init(
    store: any Store, schema: Schema, conflict: ConflictPolicy, savepoints: (any RecordSavepoints)?,
    mirror: SnapshotMirror? = nil, budget: MemoryBudget = .default
  ) throws {
    writer = try RowWriter(store: store, schema: schema, conflict: conflict, budget: budget)
    bulk = try (store as? any BulkLoadingStore)?.makeBulkWriter(schema: schema, conflict: conflict)
    self.savepoints = savepoints
    self.mirror = mirror
  }

  /// Whether the current batch was written in bulk when it began (its records' outcomes are
  /// then only read back).
  package var wroteBatchInBulk: Bool { bulkKept != nil }

  /// Whether batches are worth joining: a bulk write costs a few round trips whatever its size.
  package var writesInBulk: Bool { bulk != nil }

  /// The most records a batch joins for the bulk writer (`BulkWriter.recordsPerBatch`); 1 without one.
  package var recordsPerBatch: Int { bulk?.recordsPerBatch ?? 1 }

  /// Starts a batch of records' rows, in input order: writes it in bulk when the bulk writer
  /// takes it all, else looks up the keys its records reference. `rowByRow` sends it record by
  /// record whatever the bulk writer would say (a batch some of whose records the run may still
  /// reject before they are written).
  package func begin(_ records: [RecordRows], rowByRow: Bool = false) throws {
    bulkKept = nil
    nextBulkRecord = 0
    if let bulk, !records.isEmpty {
      if !rowByRow && records.allSatisfy(bulk.accepts) {
        // Nil: a row broke a constraint, nothing was written (and the writer counted the batch
        // as one that went row by row).
        if let kept = try bulk.write(records) {
          // The bulk writer changed rows the row writer may remember.
          writer.forgetRows()
          bulkKept = kept
          return
        }
      } else {
        bulk.countRowByRow()
      }
    }
    if writer.stagedPatchBytes >= writer.patchStageBytes { try writer.applyStagedPatches() }
    writer.beginBatch()
    for rows in records { try writer.want(rows) }
    try writer.fetchWanted()
  }

  /// The outcome of the batch's next record, written now unless the batch was written in bulk.
  /// The records must come as `begin` was given them.
  package func write(_ rows: RecordRows, at location: RecordLocation?) throws -> Outcome {
    if let kept = bulkKept {
      precondition(nextBulkRecord < kept.count, "more records than the batch written in bulk")
      defer { nextBulkRecord += 1 }
      try mirror?.saw(rows)
      return .written(keptExisting: kept[nextBulkRecord], warnings: [])
    }
    var rows = rows
    try writer.applyStagedPatches(before: rows)
    let outcome: RowWriter.Outcome
    do {
      try savepoints?.begin()
      outcome = try writer.write(&rows, at: location)
      try savepoints?.release()
    } catch let rejection as RowWriter.Rejection {
      try savepoints?.rollback()
      writer.discardRecord()
      // Its key was in the input: a snapshot keeps the row it has.
      try mirror?.saw(rows)
      return .rejected(rejection.issues)
    }
    writer.commitRecord()
    try mirror?.saw(rows)
    return .written(keptExisting: outcome.keptExisting, warnings: outcome.warnings)
  }

  /// Applies what the writer holds back — patches staged to be applied in key order — so that
  /// the tables hold every record written so far: at the end of the input, and before a
  /// checkpoint commits. Between records only.
  package func finish() throws {
    try writer.applyStagedPatches()
  }

  /// Rows written by the records written so far, per table, whichever writer wrote them.
  package var rowsWritten: [String: Int] {
    writer.rowsWritten.merging(bulk?.rowsWritten ?? [:], uniquingKeysWith: +)
  }

  /// What loading took besides the writes, for the run's report.
  package var totals: LoadTotals {
    var totals = LoadTotals()
    totals.add(writer.lookups)
    if let bulk { totals.add(bulk.batches) }
    return totals
  }
}

/// The report's account of how the inputs were loaded, summed over the loaders of a run (and,
/// in a parallel run, of its lanes): reference look-ups per table and how batches were written.
package struct LoadTotals: Sendable, Codable {
  package private(set) var referenceLookups: [String: RunReport.ReferenceLookups] = [:]
  package private(set) var bulkWrites: RunReport.BulkWrites?

  package init() {}

  package mutating func add(_ lookups: [String: RunReport.ReferenceLookups]) {
    for (table, counts) in lookups { referenceLookups[table, default: .init()].add(counts) }
  }

  package mutating func add(_ writes: RunReport.BulkWrites) {
    bulkWrites = bulkWrites ?? .init()
    bulkWrites?.add(writes)
  }

  package mutating func add(_ other: LoadTotals) {
    add(other.referenceLookups)
    if let writes = other.bulkWrites { add(writes) }
  }

  /// Puts them in `report`: nil where nothing was looked up or written in bulk.
  package func fill(_ report: inout RunReport) {
    report.referenceLookups = referenceLookups.isEmpty ? nil : referenceLookups
    report.bulkWrites = bulkWrites
  }
}
