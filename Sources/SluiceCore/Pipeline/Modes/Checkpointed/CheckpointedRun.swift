import Foundation

/// Checkpointed runs: committed in chunks, each with a checkpoint, so that a run that crashed
/// or failed resumes where its last chunk ended and finishes as the uninterrupted run would
/// have — the same rows, counts, issues, rejects and input ledger.
///
/// Such a run is not all-or-nothing: each chunk's commit is final, and a failure rolls back
/// only the chunk it happened in. The first chunk also migrates the schema and synchronizes the
/// lookup tables; the last builds the indexes a first load deferred, records the run in the
/// audit tables and drops the checkpoint, in one transaction with the last records.
///
/// A resumed run (`--resume`) refuses, before it writes anything, when the pipeline is not the
/// one that was interrupted (datasets, inputs, formats, record paths, policy, conflict policy),
/// or when an input it had read, in full or in part, is not the same file any more (its device,
/// inode, size, modification or change time differ: `FileFingerprint`). It reads the input it
/// stopped in again from the start, taking the records it had already taken from the reader
/// without decoding them, so every record keeps its ordinal, line and byte offset.
struct CheckpointedRun: RunStrategy {
  let services: RunServices
  let checkpointing: PipelineConfiguration.Checkpointing
  /// A committed run's finished checkpoint, whose owner this process is, to drop once the
  /// outputs are in place — with the interrupted run's rejects staging it took over.
  private(set) var finishedCheckpoint: (owner: String, staleRejects: String?)?

  init(services: RunServices, checkpointing: PipelineConfiguration.Checkpointing) {
    self.services = services
    self.checkpointing = checkpointing
  }

  private var configuration: PipelineConfiguration { services.configuration }
  private var inputs: [PipelineRunner.Source] { services.inputs }

  mutating func execute(
    outputs: RunOutputs, state: inout RunState, opened: inout PipelineRunner.Opened
  ) throws -> RunOutcome {
    let store = try services.openDatabase()
    opened.store = store
    return .committed(try load(into: store, outputs: outputs, state: &state))
  }

  func willPublish() {
    configuration.faults.chunkCommit?(.finished)
  }

  func didPublish(store: (any Store)?) {
    settlePublication(store: store)
  }

  /// Loads the run chunk by chunk into `store` (the target, or a staged run's side database).
  /// `beforeFinalCommit` runs in the last chunk's transaction with the run's report (a staged
  /// run keeps it in its side database).
  /// `resuming` (by default `--resume`) continues the interrupted run in `store`.
  mutating func load(
    into store: some Store, outputs: RunOutputs, state: inout RunState, resuming: Bool? = nil,
    beforeFinalCommit: ((RunReport) throws -> Void)? = nil
  ) throws -> RunReport {
    let resumes = resuming ?? checkpointing.resumes
    let pipeline = configuration.name
    let owner = ChunkedRun.ownerName(startedAt: Date())
    let identity = RunCheckpoint.identity(of: services) + (configuration.rejectsPath == nil ? "" : "\nrejects")
    // The rejects staging file the interrupted run's checkpoint names: it stays until a commit
    // of this run no longer needs it (a resume killed before its first commit resumes from it).
    var superseded: String?
    let report = try store.withTransaction {
      // The indexes the interrupted run deferred stay deferred: built over the rows committed
      // so far, they would cost a sort now and upkeep for every row after.
      let interrupted = resumes ? try CheckpointTable.load(pipeline, from: store)?.checkpoint.deferredIndexes : nil
      let (deferred, lookupRows) = try services.migrateSchema(store, stillDeferred: Set(interrupted ?? []))
      _ = try store.lockAgainstConcurrentRuns()
      try CheckpointTable.create(in: store)
      let existing = try CheckpointTable.load(pipeline, from: store)
      var resumed: RunCheckpoint?
      if resumes, existing == nil {
        // A run killed before its first commit left nothing to go on from, and one that
        // finished left nothing to finish: an operator's restart command is the same every
        // night (`--resume`), and resuming nothing is starting.
        state.notes.append(Self.nothingToResume(pipeline, in: configuration.databaseDescription))
      }
      if resumes, let existing {
        // The rejects so far first: a resume refused below publishes them as they were.
        try takeOverRejects(of: existing.checkpoint, state: &state)
        superseded = existing.checkpoint.rejectsStaging
        if let finished = existing.checkpoint.finishedReport {
          // The run committed; only its outputs were not put in place: they are, from its
          // report and rejects (the checkpoint goes once they are, `settlePublication`).
          try checkResumable(existing, identity: identity, inputs: false)
          let report = try RunReport.decode(from: Data(finished.utf8))
          try outputs.stage(report)
          try CheckpointTable.claim(pipeline, owner: owner, in: store)
          // The checkpoint still names that run's rejects until `settlePublication` drops it.
          finishedCheckpoint = (owner, superseded)
          superseded = nil
          return report
        }
        try checkResumable(existing, identity: identity)
        try CheckpointTable.claim(pipeline, owner: owner, in: store)
        try restore(existing.checkpoint, pipeline: pipeline, store: store, state: &state)
        resumed = existing.checkpoint
        configuration.faults.chunkCommit?(.resumed)
      } else if let existing, existing.checkpoint.finishedReport != nil {
        // A committed run whose outputs were not put in place: this run writes its own.
        try CheckpointTable.delete(pipeline, in: store)
      } else if let existing {
        guard checkpointing.restarts else {
          throw RunAbort(
            failure: .init(
              kind: .data,
              message:
                "an unfinished checkpointed run of pipeline \(pipeline) is in \(configuration.databaseDescription) (\(existing.checkpoint.chunk) chunk(s) committed, the last at \(existing.updatedAt), run by \(existing.owner)): --resume finishes it; --restart drops its checkpoint and starts over; nothing was written"
            ))
        }
        try CheckpointTable.delete(pipeline, in: store)
        superseded = existing.checkpoint.rejectsStaging
      }
      if superseded == state.quarantine?.file.stagingPath { superseded = nil }
      let chunks = ChunkedRun(
        store: store, pipeline: pipeline, owner: owner, identity: identity,
        recordsPerChunk: resumed?.recordsPerChunk ?? checkpointing.recordsPerChunk ?? Self.defaultChunkRecords,
        resumedFrom: resumed, lookupRows: lookupRows, deferredIndexes: deferred.map(\.identifier),
        superseded: superseded,
        afterCommit: configuration.faults.chunkCommit)
      let savepoints = configuration.policy.invalidRecord == .skip ? try store.makeSavepoints() : nil
      let open = resumed?.openInput
      for (index, source) in inputs.enumerated() where !services.missingInputs.contains(index) {
        if let open, index < open.index { continue }  // Read, or skipped, before the checkpoint.
        let resuming = index == open?.index ? open : nil
        if resuming == nil, source.input.isIncremental,
          try services.skipIfHeld(source, index: index, store: store, state: &state)
        {
          continue
        }
        // The input's loader counts go to the run's once it has ended (a commit meanwhile
        // reads the run's and adds the open loader's).
        var totals = LoadTotals()
        try services.load(
          source, index: index, into: store, savepoints: savepoints, observer: chunks, totals: &totals,
          state: &state, resuming: resuming)
        chunks.endedTotals.add(totals)
      }
      state.keys.finish()
      try state.checkRejectRate()
      try state.checkSomethingLoaded()
      try services.buildDeferredIndexes(deferred, in: store)
      let rowsWritten = state.rowsWrittenByInputs.merging(chunks.lookupRows, uniquingKeysWith: +)
      var report = services.makeReport(
        state, failure: nil, rowsWritten: rowsWritten,
        tableRows: configuration.countsTableRows ? services.countRows(store) : [:], committed: true)
      chunks.endedTotals.fill(&report)
      var entry = report.auditEntry
      entry.inputLedger = state.inputLedger
      try store.recordAudit(entry)
      try beforeFinalCommit?(report)
      try outputs.stage(report)
      if outputs.writesFiles {
        try chunks.finish(report, state: state)
        finishedCheckpoint = (owner, nil)
      } else {
        try CheckpointTable.delete(pipeline, in: store)
      }
      superseded = chunks.superseded
      return report
    }
    if let superseded { unlink(superseded) }
    return report
  }

  /// What a `--resume` that finds no unfinished run says before it starts the run.
  static func nothingToResume(_ pipeline: String, in database: String) -> String {
    "nothing to resume: no chunk of an unfinished run of pipeline \(pipeline) is committed in \(database); starting the run"
  }

  /// Records per chunk when the spec and the command line do not say.
  static var defaultChunkRecords: Int { PipelineConfiguration.defaultChunkRecords }

  /// Refuses a resume whose pipeline or (unless `inputs` is false) inputs are not those of the
  /// interrupted run.
  private func checkResumable(_ row: CheckpointTable.Row, identity: String, inputs: Bool = true) throws {
    let checkpoint = row.checkpoint
    guard checkpoint.identity == identity else {
      let before = Set(checkpoint.identity.split(separator: "\n"))
      let now = Set(identity.split(separator: "\n"))
      let differences = now.symmetricDifference(before).sorted().prefix(3).map { line in
        (now.contains(line) ? "now " : "then ") + line
      }
      throw RunAbort(
        failure: .init(
          kind: .data,
          message:
            "the pipeline is not the one whose run was interrupted (\(differences.joined(separator: "; "))): a resume reads the same inputs the same way; nothing was written"
        ))
    }
    for saved in checkpoint.state.inputs where inputs {
      if let then = saved.remoteObject {
        try checkUnchanged(then, saved: saved, row: row)
        continue
      }
      guard let then = saved.fingerprint else { continue }
      let now = FileFingerprint(path: saved.path)
      guard now != then else { continue }
      let what =
        now == nil
        ? "is gone"
        : now?.size != then.size
          ? "changed size (\(then.size) bytes then, \(now?.size ?? 0) now)"
          : "is not the file it was (its inode, modification or change time differ)"
      throw RunAbort(
        failure: .init(
          kind: .data,
          message:
            "\(saved.path) \(what) since the interrupted run read it (checkpoint of \(row.updatedAt)): resuming would not load what that run read; nothing was written"
        ))
    }
  }

  /// A remote input the interrupted run read is the object it read: the same ETag and size, as
  /// a `HEAD` tells now.
  private func checkUnchanged(_ then: RemoteObject, saved: InputProgress.Saved, row: CheckpointTable.Row) throws {
    let location =
      configuration.inputs.indices.contains(saved.index) ? configuration.inputs[saved.index].location : saved.path
    let now: RemoteObject
    do {
      now = try configuration.remote.transport(for: location).head(location, options: configuration.remote.options)
    } catch let error as InputError {
      throw RunAbort(failure: .init(kind: error.failureKind(opening: true), message: error.description))
    }
    guard !now.isSameObject(as: then) else { return }
    throw RunAbort(
      failure: .init(
        kind: .data,
        message:
          "\(saved.path) was replaced since the interrupted run read it (ETag \(then.etag ?? "none") then, \(now.etag ?? "none") now; checkpoint of \(row.updatedAt)): resuming would not load what that run read; nothing was written"
      ))
  }

  /// Puts back the interrupted run's counts, keys and rejects.
  private func restore(_ checkpoint: RunCheckpoint, pipeline: String, store: some Store, state: inout RunState) throws {
    state.restore(checkpoint.state, pipelineInputs: configuration.inputs)
    if configuration.policy.duplicateKeys != .ignore {
      let keys = state.keys
      try CheckpointTable.forEachKeys(pipeline, in: store) { text in
        try CheckpointKeys.decode(text, pipeline: pipeline) { table, value, first in
          try keys.restore(table: table, value: value, first: first)
        }
      }
    }
  }

  /// Copies the rejects the interrupted run quarantined into this run's rejects file.
  private func takeOverRejects(of checkpoint: RunCheckpoint, state: inout RunState) throws {
    guard let quarantine = state.quarantine else { return }
    let bytes = checkpoint.state.quarantineBytes
    let records = checkpoint.state.quarantined
    guard bytes > 0 else { return }
    // The staging file of the interrupted run, or — after a failure, which publishes the
    // rejects — the rejects file itself: the one whose first `bytes` are the rejects so far. The
    // checkpoint's digest tells them from what else may sit at those paths now (another run's
    // rejects file, last night's); a checkpoint without one trusts only its own staging file.
    let candidates = [checkpoint.rejectsStaging, configuration.rejectsPath].compactMap { $0 }
    let source = candidates.first { path in
      guard Self.fileSize(path) >= Int64(bytes) else { return false }
      guard let digest = checkpoint.rejectsDigest else { return path == checkpoint.rejectsStaging }
      return QuarantineWriter.digest(ofFirst: bytes, ofFileAt: path) == digest
    }
    guard let source else {
      let places = candidates.map { path in
        Self.fileSize(path) < 0 ? "\(path) is not there" : "\(path) holds other records"
      }
      throw RunAbort(
        failure: .init(
          kind: .data,
          message:
            "the rejects the interrupted run wrote before its last checkpoint (\(records) record(s), \(bytes) bytes) are gone (\(places.joined(separator: "; "))): resuming would start the rejects file with records that are not this run's; nothing was written (put that run's rejects file back at \(configuration.rejectsPath ?? "its path") and resume, or run with --restart to load the inputs again from the start)"
        ), leavesOutputFiles: true)
    }
    try quarantine.takeOver(records: records, bytes: bytes, from: source)
  }

  private static func fileSize(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int64(info.st_size) : -1
  }
}

extension CheckpointedRun {
  /// After the outputs of a committed checkpointed or staged run are in place: its finished
  /// checkpoint goes — on the run's own connection, or for a staged run (whose staging is gone)
  /// a new one to the target — and with it the rejects staging of the interrupted run this one
  /// took over. Best effort: a checkpoint left behind only makes a later `--resume` put the same
  /// outputs in place again.
  func settlePublication(store: (any Store)?) {
    guard let finished = finishedCheckpoint else { return }
    let target = configuration.database
    guard
      let store = checkpointing.staged
        ? try? target.driver.openForRun(target, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
        : store,
      (try? CheckpointTable.settle(configuration.name, owner: finished.owner, in: store)) != nil
    else { return }
    if let stale = finished.staleRejects { unlink(stale) }
  }
}

extension RunServices {
  /// Takes the first `count` results of `reader` without decoding them: the records (and broken
  /// records the reader skipped) a resumed input's interrupted run had taken already.
  func skip(_ count: Int, of reader: any RecordReader, path: String) throws {
    var taken = 0
    while taken < count {
      do {
        guard try reader.next() != nil else {
          throw RunAbort(
            failure: .init(
              kind: .data,
              message:
                "\(path) ends after \(taken) record(s), but the interrupted run had read \(count) of it: it changed; nothing was written"
            ))
        }
        taken += 1
      } catch let error as RecordReadError where error.isRecoverable {
        // A key repeated around the records is no record the interrupted run counted.
        if !error.isOutsideRecords { taken += 1 }
      }
    }
  }
}
