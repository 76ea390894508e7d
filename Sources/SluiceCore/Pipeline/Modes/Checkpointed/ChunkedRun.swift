import Foundation

/// A checkpointed run's chunks: counts the records the loading side takes, and every
/// `recordsPerChunk` of them (at the end of a batch) writes the checkpoint and commits.
///
/// A chunk's commit makes its rows, its part of the input ledger's counts, its issue samples and
/// its keys durable together, and syncs the rejects file's staging before it, so a crash at any
/// point leaves the database at the end of the last committed chunk and the rejects at least
/// that far; a resumed run cuts them back to exactly there.
///
/// It hears of the record loop's batches as its observer (`LoadObserver`): the loop itself knows
/// nothing of chunks.
package final class ChunkedRun: LoadObserver {
  let store: any Store
  let pipeline: String
  /// `pid N on HOST since TIME`: who runs the chunks, so that a second process resuming the
  /// run takes it over visibly, and this one then stops (`takenOver`).
  let owner: String
  let identity: String
  let recordsPerChunk: Int
  private(set) var chunk: Int
  /// Records taken since the last commit, and in all.
  private var sinceCommit = 0
  private var records: Int
  /// Whether the checkpoint row exists yet (the first commit inserts it).
  private var inserted: Bool
  /// The loaders' counts of the inputs that have ended.
  var endedTotals: LoadTotals
  let lookupRows: [String: Int]
  /// The indexes a first load deferred to its last chunk (their migrations' identifiers).
  let deferredIndexes: [String]
  /// Keys the chunk's records wrote (only when repeated keys are looked for), and how many
  /// parts of them were saved already: they go to the database every `keysPerPart`, so memory
  /// does not grow with the chunk.
  private var keys = CheckpointKeys()
  private var keyParts = 0
  static var keysPerPart: Int { 8_192 }
  /// The rejects staging file of the run this one resumed or restarted, until the first commit
  /// of this run's checkpoint (which names this run's file) lets it go.
  private(set) var superseded: String?
  /// Tests: called with `.committing(chunk)` just before each commit, `.committed(chunk)` just
  /// after it.
  let afterCommit: (@Sendable (ChunkPoint) -> Void)?

  init(
    store: any Store, pipeline: String, owner: String, identity: String, recordsPerChunk: Int,
    resumedFrom checkpoint: RunCheckpoint?, lookupRows: [String: Int], deferredIndexes: [String], superseded: String?,
    afterCommit: (@Sendable (ChunkPoint) -> Void)?
  ) {
    self.store = store
    self.pipeline = pipeline
    self.owner = owner
    self.identity = identity
    self.recordsPerChunk = recordsPerChunk
    chunk = checkpoint?.chunk ?? 0
    records = checkpoint?.state.ledger.statistics.first?.recordsIn ?? 0
    inserted = checkpoint != nil
    endedTotals = checkpoint?.totals ?? LoadTotals()
    self.lookupRows = checkpoint?.lookupRows ?? lookupRows
    self.deferredIndexes = deferredIndexes
    self.superseded = superseded
    self.afterCommit = afterCommit
  }

  /// The record `record` wrote the keys of its owned rows: they go with the chunk.
  package func wrote(
    _ rows: RecordRows, owned: KeyRegistry.OwnedTables, record: KeyRegistry.Occurrence, registry: KeyRegistry
  )
    throws
  {
    for entry in 0..<rows.count {
      guard let key = KeyRegistry.key(of: entry, in: rows, owned: owned) else { continue }
      keys.append(key, first: record, registry: registry)
    }
    if keys.count >= Self.keysPerPart { try saveKeys() }
  }

  /// Saves the keys gathered since the last part, in the chunk's transaction.
  private func saveKeys() throws {
    guard !keys.isEmpty else { return }
    try CheckpointTable.saveKeys(keys.encoded, pipeline: pipeline, chunk: chunk + 1, part: keyParts, in: store)
    keys = CheckpointKeys()
    keyParts += 1
  }

  /// How many more results the chunk takes before it commits.
  var recordsLeftInChunk: Int { max(recordsPerChunk - sinceCommit, 1) }

  /// A batch joins no further than the chunk's end, so chunks keep their size.
  package func batchLimit(joining: Int) -> Int { min(joining, recordsLeftInChunk) }

  /// The loading side took `count` results: counts where the run is in the input, and commits
  /// when a chunk is full.
  package func loaded(_ count: Int, state: inout RunState, loader: BatchLoader) throws {
    state.consumed(count)
    sinceCommit += count
    records += count
    guard sinceCommit >= recordsPerChunk else { return }
    try loader.finish()
    try commit(state: &state, openRowsWritten: loader.rowsWritten, openTotals: loader.totals)
  }

  /// Writes the checkpoint and the chunk's keys, syncs the rejects, commits, begins the next.
  func commit(state: inout RunState, openRowsWritten: [String: Int], openTotals: LoadTotals) throws {
    var totals = endedTotals
    totals.add(openTotals)
    if let quarantine = state.quarantine { try quarantine.file.prepare() }
    var checkpoint = RunCheckpoint(
      identity: identity, recordsPerChunk: recordsPerChunk, chunk: chunk + 1, lookupRows: lookupRows, totals: totals,
      state: state.saved(openRowsWritten: openRowsWritten), rejectsStaging: state.quarantine?.file.stagingPath,
      deferredIndexes: deferredIndexes.isEmpty ? nil : deferredIndexes)
    checkpoint.rejectsDigest = state.quarantine?.digestSoFar()
    guard
      try CheckpointTable.save(
        checkpoint, pipeline: pipeline, owner: owner, inserting: !inserted, records: records, in: store)
    else { throw takenOver() }
    try saveKeys()
    afterCommit?(.committing(chunk + 1))
    try store.commitAndBegin()
    keyParts = 0
    inserted = true
    chunk += 1
    sinceCommit = 0
    if let superseded {
      unlink(superseded)
      self.superseded = nil
    }
    afterCommit?(.committed(chunk))
    // Every chunk holds the store's lock against concurrent runs, as the first does: another
    // run deciding from the tables (an incremental run, a snapshot) never sees a run half
    // loaded, and a `--resume` waits for the transaction of a run killed with its COMMIT on the
    // wire, which the server may carry out after the resume began, and then reads the
    // checkpoint that COMMIT wrote — not the one before it, whose chunk it would load again.
    _ = try store.lockAgainstConcurrentRuns()
  }

  /// The last chunk, in its transaction: the keys go, and the checkpoint stays with the run's
  /// report in it (its rejects synced beforehand) until the outputs are in place.
  func finish(_ report: RunReport, state: RunState) throws {
    var checkpoint = RunCheckpoint(
      identity: identity, recordsPerChunk: recordsPerChunk, chunk: chunk + 1, lookupRows: lookupRows,
      totals: endedTotals, state: state.saved(openRowsWritten: [:]), rejectsStaging: state.quarantine?.file.stagingPath)
    checkpoint.rejectsDigest = state.quarantine?.digestSoFar()
    checkpoint.finishedReport = String(decoding: try report.jsonData(), as: UTF8.self)
    guard
      try CheckpointTable.save(
        checkpoint, pipeline: pipeline, owner: owner, inserting: !inserted, records: records, in: store)
    else { throw takenOver() }
    try CheckpointTable.deleteKeys(pipeline, in: store)
  }

  /// Another process resumed the run since this one's last commit.
  private func takenOver() -> RunAbort {
    let holder = (try? CheckpointTable.load(pipeline, from: store))?.owner ?? "another process"
    return RunAbort(
      failure: .init(
        kind: .io,
        message:
          "another run took this one over (\(holder) resumed it): this process stopped; its last chunk was rolled back and the other run goes on from the last checkpoint"
      ))
  }

  /// Who this process is, for `owner`.
  static func ownerName(startedAt: Date) -> String {
    "pid \(getpid()) on \(ProcessInfo.processInfo.hostName) since \(TimestampText.text(startedAt))"
  }
}
