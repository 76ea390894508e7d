/// The run as one transaction: every input loaded into it in turn, then the checks of the whole
/// run, the deferred indexes, the audit row and the staged outputs, and the commit. A failure
/// anywhere rolls back all of it.
///
/// The store checks each row's foreign keys as it is written. (A first load could instead switch
/// that off and prove every key with one `foreign_key_check` before the commit; on 1M orders the
/// check cost as much as the per-row checks it saved, so it is not done.)
struct SerialRun: RunStrategy {
  let services: RunServices
  /// The rows a snapshot run deleted, per table, once it has (nil when it is not a snapshot).
  private(set) var rowsDeleted: [String: Int]?

  init(services: RunServices) {
    self.services = services
  }

  private var configuration: PipelineConfiguration { services.configuration }

  mutating func execute(
    outputs: RunOutputs, state: inout RunState, opened: inout PipelineRunner.Opened
  ) throws -> RunOutcome {
    let store = try services.openDatabase()
    opened.store = store
    return .committed(try load(into: store, outputs: outputs, state: &state))
  }

  func complete(_ report: inout RunReport) {
    report.rowsDeleted = rowsDeleted
  }

  /// Loads every input in one transaction and returns the report the commit makes true.
  private mutating func load(into store: some Store, outputs: RunOutputs, state: inout RunState) throws -> RunReport {
    try store.withTransaction {
      let (lookupRows, totals, _) = try loadInputs(into: store, state: &state)
      let rowsWritten = state.rowsWrittenByInputs.merging(lookupRows, uniquingKeysWith: +)
      // The report as the commit will make it true: the tables counted inside the
      // transaction hold what the commit leaves.
      var report = services.makeReport(
        state, failure: nil, rowsWritten: rowsWritten,
        tableRows: configuration.countsTableRows ? services.countRows(store) : [:], committed: true)
      complete(&report)
      totals.fill(&report)
      var entry = report.auditEntry
      entry.inputLedger = state.inputLedger
      try store.recordAudit(entry)
      // After the audit row, whose id each new version names (`HistoryTable`).
      _ = try HistoryTable.synchronize(services.schema, in: store, startedAt: entry.startedAt)
      try outputs.stage(report)
      return report
    }
  }

  /// The load inside the run's transaction, which a plan makes too before its rollback: the
  /// schema migrated and the lookup tables synchronized, every input loaded (an incremental one
  /// skipped when it is held), the run's checks, a snapshot's deletions and the deferred indexes.
  /// Returns the lookup tables' changed rows, what the loaders took, and the snapshot's mirror.
  mutating func loadInputs(into store: some Store, state: inout RunState) throws -> (
    lookupRows: [String: Int], totals: LoadTotals, mirror: SnapshotMirror?
  ) {
    let (deferred, lookupRows) = try services.migrateSchema(store)
    if services.inputs.contains(where: { $0.input.isIncremental || $0.input.isSnapshot })
      || !HistoryTable.tables(of: services.schema).isEmpty
    {
      _ = try store.lockAgainstConcurrentRuns()
    }
    let savepoints = configuration.policy.invalidRecord == .skip ? try store.makeSavepoints() : nil
    let mirror = try services.makeMirror(store)
    var totals = LoadTotals()
    for (index, source) in services.inputs.enumerated() where !services.missingInputs.contains(index) {
      if source.input.isIncremental, try services.skipIfHeld(source, index: index, store: store, state: &state) {
        continue
      }
      try services.load(
        source, index: index, into: store, savepoints: savepoints, mirror: mirror, totals: &totals, state: &state)
    }
    state.keys.finish()
    try state.checkRejectRate()
    try state.checkSomethingLoaded()
    if let mirror { rowsDeleted = try services.deleteUnseen(mirror, state: &state) }
    try services.buildDeferredIndexes(deferred, in: store)
    return (lookupRows, totals, mirror)
  }
}
