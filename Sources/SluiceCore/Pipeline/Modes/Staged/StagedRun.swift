import Foundation

/// Staged runs (`--stage`): resumable *and* all-or-nothing. The run is checkpointed as with
/// `--checkpoint-every` (`CheckpointedRun`), but into a side database that starts as a
/// copy of the target; readers of the target see none of its chunks. Its last chunk also keeps
/// the run's report there; then the side database is published into the target in one
/// transaction. A crash while staging leaves the target as it was and the side database
/// resumable; a crash while publishing rolls the target's transaction back, and `--resume`
/// publishes again.
struct StagedRun: RunStrategy {
  let services: RunServices
  let checkpointing: PipelineConfiguration.Checkpointing
  /// The checkpointed run into the side database, which keeps its own state.
  private var chunked: CheckpointedRun

  init(services: RunServices, checkpointing: PipelineConfiguration.Checkpointing) {
    self.services = services
    self.checkpointing = checkpointing
    chunked = CheckpointedRun(services: services, checkpointing: checkpointing)
  }

  private var configuration: PipelineConfiguration { services.configuration }
  private var schema: Schema { services.schema }

  mutating func execute(
    outputs: RunOutputs, state: inout RunState, opened: inout PipelineRunner.Opened
  ) throws -> RunOutcome {
    .committed(try load(outputs: outputs, state: &state, opened: &opened))
  }

  func willPublish() {
    chunked.willPublish()
  }

  func didPublish(store: (any Store)?) {
    chunked.didPublish(store: store)
  }

  private mutating func load(outputs: RunOutputs, state: inout RunState, opened: inout PipelineRunner.Opened) throws
    -> RunReport
  {
    let target = configuration.database
    guard let driver = target.driver as? any StagingDriver else {
      throw RunAbort(
        failure: .init(
          kind: .configuration,
          message:
            "--stage is not built for \(target.driver.name) databases; a checkpointed run (--checkpoint-every) commits chunk by chunk"
        ))
    }
    let staged = driver.stagingTarget(for: target)
    let place = staged.schema.map { "schema \($0)" } ?? staged.description
    let tables = schema.tableNames + schema.lookups.map(\.table)
    // A resume with no staging to go on from starts the run (killed before its staging was
    // made, or nothing unfinished): the restart command is the same every night.
    let resumes = checkpointing.resumes
    var starts = !resumes
    do {
      if resumes {
        if try !driver.stagingExists(for: target), let report = try resumePublishedRun(outputs, &state, &opened) {
          return report
        }
        if try driver.stagingExists(for: target) {
          try driver.checkStagingIntact(target)
        } else {
          state.notes.append(CheckpointedRun.nothingToResume(configuration.name, in: configuration.databaseDescription))
          starts = true
        }
      }
      if starts {
        if try driver.stagingExists(for: target) {
          guard checkpointing.restarts else {
            throw RunAbort(
              failure: .init(
                kind: .data,
                message:
                  "a staged run into \(configuration.databaseDescription) is unfinished (\(place)): --resume finishes and publishes it; --restart discards it and starts over; nothing was written"
              ))
          }
          driver.discardStaging(target)
        }
        try driver.beginStaging(target, tables: tables)
        configuration.faults.chunkCommit?(.staged)  // Tests: `chunk-0` dies with the copy made.
      }
    } catch let error as StagingError {
      throw Self.abort(error)
    }
    var store = try driver.openForRun(staged, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
    try store.usePageCache(bytes: configuration.memoryBudget.pageCacheBytes)
    opened.store = store
    var resuming = !starts
    if resuming, try Self.stagedReport(in: store) == nil,
      try CheckpointTable.load(configuration.name, from: store) == nil
    {
      // Interrupted before its first chunk committed: the side database is still the copy it
      // began as, and the target untouched; the run starts over, staged afresh.
      state.notes.append(CheckpointedRun.nothingToResume(configuration.name, in: configuration.databaseDescription))
      opened.store = nil
      driver.discardStaging(target)
      do {
        try driver.beginStaging(target, tables: tables)
      } catch {
        throw Self.abort(error)
      }
      store = try driver.openForRun(staged, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
      try store.usePageCache(bytes: configuration.memoryBudget.pageCacheBytes)
      opened.store = store
      resuming = false
    }
    let report: RunReport
    if resuming, let done = try Self.stagedReport(in: store) {
      // The last chunk was committed to the side database; only the publication was lost (and
      // the outputs, which the run's finished checkpoint there still has).
      let finished = try CheckpointTable.load(configuration.name, from: store)?.checkpoint.finishedReport != nil
      report = finished ? try chunked.load(into: store, outputs: outputs, state: &state, resuming: true) : done
    } else {
      let inside = store
      report = try chunked.load(into: store, outputs: outputs, state: &state, resuming: resuming) { report in
        try Self.keep(report, in: inside)
      }
    }
    let hook = configuration.faults.chunkCommit
    do {
      try driver.publishStaging(
        target, tables: tables,
        busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds, beforeCommit: { hook?(.publishing) })
    } catch {
      throw Self.abort(error)
    }
    return report
  }

  /// A staged run published, then stopped before its outputs were in place: its finished
  /// checkpoint, published with it, is in the target; the outputs are put in place from it.
  /// Nil when the target holds no such run.
  private mutating func resumePublishedRun(
    _ outputs: RunOutputs, _ state: inout RunState, _ opened: inout PipelineRunner.Opened
  ) throws
    -> RunReport?
  {
    let target = configuration.database
    guard target.driver.connectsToServer || FileManager.default.fileExists(atPath: target.location) else { return nil }
    let store = try target.driver.openForRun(target, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
    guard try CheckpointTable.load(configuration.name, from: store)?.checkpoint.finishedReport != nil else {
      return nil
    }
    opened.store = store
    return try chunked.load(into: store, outputs: outputs, state: &state, resuming: true)
  }

  private static func abort(_ error: StagingError) -> RunAbort {
    switch error.kind {
    case .targetChanged: RunAbort(failure: .init(kind: .data, message: error.message))
    case .unsupported: RunAbort(failure: .init(kind: .configuration, message: error.message))
    case .io: RunAbort(failure: .init(kind: .io, message: error.message))
    }
  }

  /// Keeps the run's report in the side database, in its last chunk's transaction.
  private static func keep(_ report: RunReport, in store: some Store) throws {
    let text = store.dialect.typeName(.text)
    try store.execute("CREATE TABLE IF NOT EXISTS \(stagedReportTable) (report \(text) NOT NULL)")
    try store.execute("DELETE FROM \(stagedReportTable)")
    try store.prepare("INSERT INTO \(stagedReportTable) (report) VALUES (\(store.dialect.parameter(1)))").run([
      .text(String(decoding: try report.jsonData(), as: UTF8.self))
    ])
  }

  /// The report of a staged run whose last chunk committed, if one did.
  private static func stagedReport(in store: some Store) throws -> RunReport? {
    guard try store.columns(of: stagedReportTable) != nil else { return nil }
    let query = try store.prepare("SELECT report FROM \(stagedReportTable)")
    defer { query.reset() }
    guard try query.step(), case .text(let text) = query.columnValue(0) else { return nil }
    return try RunReport.decode(from: Data(text.utf8))
  }
}
