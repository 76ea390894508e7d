import Foundation

// A parallel run (`--jobs N`, a driver that loads lanes): the inputs are split into lanes that share no table
// (`LanePlan`), and up to N connections each load lanes, one after another, in a transaction of
// their own, with their own row and bulk writers, decoding thread and run state. The run stays
// one all-or-nothing run with one report:
//
// - The schema is migrated first, on a coordinating connection that loads no lane, in a
//   transaction committed before the lanes start, since the others cannot see uncommitted DDL; it
//   also commits the run's audit row as `running`. A failed first run can therefore leave the new
//   tables behind, empty. The deferrable indexes of a fresh schema are built by each connection
//   for its own tables after its load.
// - No connection commits before every one has loaded (a barrier). Then the commit follows the
//   run's row, its commit log: two-phase when the server allows enough prepared transactions,
//   otherwise in order (`LaneCommitment`). No partial run ever looks whole.
// - A lane that fails stops every lane that would go on to a later input; lanes on earlier
//   inputs go on, so the failure reported is the lowest input's, as in a serial run. A lane
//   judges the absolute error budget by the rejects of its input and every earlier one, and the
//   whole run is judged again in input order once all have loaded; the rate is judged then too.
// - The lanes' counts, issue samples and rejects are merged in input order, so the report and
//   the rejects file are a serial run's.
//
// The driver gives the connections (`ParallelLoadingDriver`, `LaneConnection`); everything else is
// the engine's, the same for any server.

/// The strategy of a run that loads its lanes over several connections at once.
struct ParallelRun: RunStrategy {
  let services: RunServices
  let lanes: Execution.Lanes
  /// Whether the run's row is its own to settle: from the moment its `running` row is
  /// committed, the run records its outcome itself (`LaneCommitment`).
  private(set) var settledItsAudit = false

  init(services: RunServices, lanes: Execution.Lanes) {
    self.services = services
    self.lanes = lanes
  }

  mutating func execute(
    outputs: RunOutputs, state: inout RunState, opened: inout PipelineRunner.Opened
  ) throws -> RunOutcome {
    .committed(try load(outputs: outputs, state: &state, opened: &opened))
  }

  var configuration: PipelineConfiguration { services.configuration }
  var inputs: [PipelineRunner.Source] { services.inputs }
  var plan: LanePlan { lanes.plan }
  private var driver: any ParallelLoadingDriver { lanes.driver }

  /// One connection of a parallel run and what it did; each is touched by its own thread until
  /// that ends, then by the coordinating one.
  final class LaneWorker: @unchecked Sendable {
    let number: Int
    let store: any LaneConnection
    var state: RunState?
    /// The lanes it loaded, in order.
    var lanes: [Int] = []
    /// What its loaders took besides the writes: look-ups, bulk writes.
    var totals = LoadTotals()
    /// Its own failure, with the input it happened in (-1 before the inputs, `Int.max` after).
    var failure: (input: Int, failure: RunReport.Failure)?
    /// Whether its transaction is open.
    var inTransaction = false
    let done = DispatchSemaphore(value: 0)

    init(number: Int, store: any LaneConnection) {
      self.number = number
      self.store = store
    }
  }

  /// Loads the inputs lane by lane over several connections and returns the report the commit
  /// makes true; throws the failure a serial run would have.
  ///
  /// From the moment the run's `running` row is committed, the run settles its row itself —
  /// `failed`, `partial` or `succeeded` (`LaneCommitment`) — and says so in
  /// `settledItsAudit`, so `finish` adds no second row.
  mutating func load(outputs: RunOutputs, state: inout RunState, opened: inout PipelineRunner.Opened) throws
    -> RunReport
  {
    /// A connection of the run, waiting for locks as long as the run does.
    func connect() throws -> any LaneConnection {
      do {
        return try driver.openLaneConnection(
          configuration.database, lockTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
      } catch let error as StoreOpenError {
        throw RunAbort(failure: .init(kind: .io, message: error.message))
      }
    }
    // Every connection first — the coordinating one, which loads no lane, then one per lane
    // connection — so an unreachable server fails the run before anything is written.
    let coordinator = try connect()
    opened.store = coordinator
    var workers: [LaneWorker] = []
    for number in 0..<min(lanes.jobs, plan.lanes.count) {
      workers.append(LaneWorker(number: number, store: try connect()))
    }
    let twoPhase: Bool
    switch lanes.commit {
    case .ordered: twoPhase = false
    case .twoPhase:
      // Refused now, before anything is written, rather than at the PREPARE after the load.
      if let refusal = coordinator.twoPhaseRefusal {
        throw RunAbort(
          failure: .init(
            kind: .configuration,
            message:
              "--lane-commit two-phase is refused \(refusal); leave --lane-commit automatic (ordered there); nothing was written"
          ))
      }
      let allowed = try coordinator.maxPreparedTransactions()
      guard allowed >= workers.count else {
        throw RunAbort(
          failure: .init(
            kind: .configuration,
            message:
              "--lane-commit two-phase needs \(workers.count) prepared transactions and the server allows \(allowed) (max_prepared_transactions): raise it, or leave --lane-commit automatic; nothing was written"
          ))
      }
      twoPhase = true
    // A server that cannot prepare a lane's transaction whatever its settings (a Citus
    // coordinator, once a transaction touched distributed tables) commits in order.
    case .automatic:
      twoPhase = try coordinator.twoPhaseRefusal == nil && coordinator.maxPreparedTransactions() >= workers.count
    }
    for worker in workers { worker.store.preparesTransaction = twoPhase }
    // The schema, the lookup tables and the run's `running` row, committed before the lanes
    // start: the other connections cannot see uncommitted DDL, and the row is the run's commit
    // log, which no lane transaction carries.
    let beginning = services.makeReport(state, failure: nil, rowsWritten: [:], tableRows: [:], committed: false)
      .auditEntry
    let (deferred, lookupRows, run) = try coordinator.withTransaction {
      let (deferred, lookupRows) = try services.migrateSchema(coordinator)
      let run = try coordinator.beginLaneRun(beginning, lanes: workers.count, twoPhase: twoPhase)
      return (deferred, lookupRows, run)
    }
    settledItsAudit = true
    defer {
      for worker in workers where worker.inTransaction { worker.store.rollbackTransaction() }
    }
    do {
      return try loadAndCommit(
        plan, workers: workers, coordinator: coordinator, run: run, deferred: deferred, lookupRows: lookupRows,
        twoPhase: twoPhase, outputs: outputs, state: &state)
    } catch let settled as LaneCommitment.Settled {
      throw RunAbort(failure: settled.failure)
    } catch {
      // Nothing of the run was prepared or committed: every lane transaction rolls back, and the
      // row records the failure, which is the decision that nothing will be committed.
      for worker in workers where worker.inTransaction {
        worker.store.rollbackTransaction()
        worker.inTransaction = false
      }
      var failure = services.classify(error, state: &state)
      if state.waitedForLock { failure.message += coordinator.lockHoldersNote(describing: configuration.database) }
      let entry = services.makeReport(state, failure: failure, rowsWritten: [:], tableRows: [:], committed: false)
        .auditEntry
      if (try? coordinator.abortLaneRun(run, entry)) == nil {
        // The coordinating connection is gone: another records it, or `sluice recover` will.
        for worker in workers where (try? worker.store.abortLaneRun(run, entry)) != nil { break }
      }
      throw RunAbort(failure: failure)
    }
  }

  /// Loads every lane, judges the run as a serial run would, and commits it (`LaneCommitment`).
  private func loadAndCommit(
    _ plan: LanePlan, workers: [LaneWorker], coordinator: any LaneConnection, run: LaneRunLog,
    deferred: [Migration], lookupRows: [String: Int], twoPhase: Bool, outputs: RunOutputs, state: inout RunState
  ) throws -> RunReport {
    // Held until the process ends: `sluice recover` leaves a run alone while it is held.
    try coordinator.holdLaneRun(run)
    let coordination = LaneCoordination(laneCount: plan.lanes.count, inputCount: inputs.count, progress: state.progress)
    let strategy = self
    for worker in workers {
      let thread = Thread {
        strategy.work(worker, plan: plan, coordination: coordination, deferred: deferred)
        worker.done.signal()
      }
      thread.name = "sluice-lane-\(worker.number)"
      thread.stackSize = 8 << 20
      thread.start()
    }
    for worker in workers { worker.done.wait() }

    try merge(workers, into: &state, outputs: outputs)
    let first = workers.compactMap(\.failure).min { $0.input < $1.input }
    if let failure = serialFailure(first, state: state) {
      throw RunAbort(failure: failure)
    }
    try state.checkRejectRate()
    try state.checkSomethingLoaded()

    let rowsWritten = state.rowsWrittenByInputs.merging(lookupRows, uniquingKeysWith: +)
    // Each table counted by the connection that wrote it: only its transaction sees its rows.
    let tableRows =
      configuration.countsTableRows
      ? services.countRows { table in
        let lane = plan.laneOfTable[table]
        return workers.first { lane != nil && $0.lanes.contains(lane ?? -1) }?.store ?? coordinator
      } : [:]
    var report = services.makeReport(
      state, failure: nil, rowsWritten: rowsWritten, tableRows: tableRows, committed: true)
    var totals = LoadTotals()
    for worker in workers { totals.add(worker.totals) }
    totals.fill(&report)
    let commit: PipelineConfiguration.LaneCommit = twoPhase ? .twoPhase : .ordered
    report.parallel = .init(connections: workers.count, lanes: plan.lanes.count, commit: commit.rawValue)
    try outputs.stage(report)
    var entry = report.auditEntry
    entry.inputLedger = state.inputLedger
    let commitment = LaneCommitment(
      services: services, run: run, coordinator: coordinator, workers: workers, plan: plan, entry: entry,
      failedEntry: services.makeReport(
        state, failure: .init(kind: .io, message: ""), rowsWritten: [:], tableRows: [:], committed: false
      ).auditEntry)
    try twoPhase ? commitment.commitTwoPhase() : commitment.commitInOrder()
    return report
  }

  // MARK: - A connection's lanes

  /// Runs on a connection's own thread: takes lanes until none is left, loading each input of
  /// each into its transaction, then builds the deferred indexes of its tables. Leaves the
  /// transaction open for the commit.
  private func work(_ worker: LaneWorker, plan: LanePlan, coordination: LaneCoordination, deferred: [Migration]) {
    var state = RunState(configuration: configuration, rules: services.rules)
    state.progress = nil
    state.part = LanePart(coordination: coordination, number: worker.number)
    let store = worker.store
    var totals = LoadTotals()
    /// Where a failure would rank among the inputs: before them all while the connection gets
    /// ready, the input being read, then after them all (the deferred indexes).
    var place = -1
    do {
      if configuration.rejectsPath != nil {
        // Spooled in a temporary file of its own, copied into the run's in input order.
        let spool = try OutputFile.privateSpool(purpose: "rejects spool")
        state.quarantine = QuarantineWriter(file: spool, input: "")
      }
      try store.beginTransaction()
      worker.inTransaction = true
      let savepoints = configuration.policy.invalidRecord == .skip ? try store.makeSavepoints() : nil
      while let lane = coordination.takeLane() {
        worker.lanes.append(lane)
        for index in plan.lanes[lane] where !services.missingInputs.contains(index) {
          if coordination.mustStop(at: index) { throw LaneStopped() }
          place = index
          let source = inputs[index]
          try services.load(source, index: index, into: store, savepoints: savepoints, totals: &totals, state: &state)
        }
      }
      place = Int.max
      state.keys.finish()
      // The deferred indexes of its own tables (`Schema.migrations` names them so).
      let tables = Set(plan.laneOfTable.filter { worker.lanes.contains($0.value) }.keys)
      let ownIndexes = Set(
        services.schema.tables.filter { tables.contains($0.name) }.flatMap {
          $0.indexes.map { "create index \($0.name)" }
        })
      try services.buildDeferredIndexes(
        deferred.filter { ownIndexes.contains($0.identifier) }, in: store, locking: false)
    } catch is LaneStopped {
      // An earlier input failed: that failure is the run's.
    } catch {
      let failure = services.classify(error, state: &state)
      coordination.fail(at: place)
      worker.failure = (place, failure)
    }
    state.endOpenInput()
    worker.totals = totals
    worker.state = state
  }
}
