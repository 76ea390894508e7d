import Foundation

// How a parallel run's lane transactions become one run, or none: a two-phase commit whose log
// is the run's own audit row (`LaneConnection`'s commit log), written by the coordinating
// connection, which loads no lane.
//
// Two-phase (the server allows enough prepared transactions):
//   1. each lane transaction records its lane row (`recordLane`) and is prepared under an id
//      that names the run (`transactionID`; PostgreSQL's is `sluice:<database>:<schema>:<run>:
//      <k>/<n>`); a prepare that fails rolls the run back;
//   2. the decision: the row goes from `running` to `committing` (a compare-and-set), with the
//      run's counts and issues, committed on its own — from here the run is committed, whatever
//      happens to this process;
//   3. each prepared lane committed (`commitPrepared`), on any connection that still works;
//   4. the row says `succeeded` — or `partial`, if a lane's row is missing (a prepared lane was
//      rolled back by hand).
// Ordered (no prepared transactions): each lane transaction inserts its row, the decision is
// recorded as above, then the lanes commit one after another; one that fails leaves the run
// `partial` (or `failed`, none committed), its row naming the committed lanes and their inputs.
//
// A failure before the decision records `failed` first (the decision to roll back, by the same
// compare-and-set) and then rolls back what was prepared. What this process cannot finish — its
// connections lost, or itself killed — `sluice recover` finishes by the same rule: a run whose row
// says `committing` is committed, any other is rolled back.

extension ParallelRun {
  /// The commit of one parallel run's lane transactions, once every lane has loaded.
  struct LaneCommitment {
    /// The commit failed, and its outcome is already recorded (or left to `sluice recover`, as
    /// the failure says): nothing more to write.
    struct Settled: Error {
      var failure: RunReport.Failure
    }

    let services: RunServices
    let run: LaneRunLog
    let coordinator: any LaneConnection
    let workers: [LaneWorker]
    let plan: LanePlan
    /// The run's row once committed: counts, issues, and the report's sections.
    let entry: AuditEntry
    /// The run's row should it fail: the same counts with no rows written; the failure is set.
    let failedEntry: AuditEntry

    /// Prepares every lane transaction, records the decision, then commits each.
    func commitTwoPhase() throws {
      var prepared: [(lane: Int, gid: String)] = []
      var attempted: String?
      do {
        for worker in workers {
          let lane = worker.number + 1
          try worker.store.recordLane(of: run, lane: lane, inputs: inputs(of: worker))
          let gid = worker.store.transactionID(of: run, lane: lane)
          defer { worker.inTransaction = false }
          attempted = gid
          try worker.store.prepareTransaction(gid)
          attempted = nil
          prepared.append((lane, gid))
          reach(.prepared(lane))
        }
      } catch {
        // A prepare whose connection was lost may have gone through before the answer: that lane
        // is rolled back with the others if it is there. (One the server refused is not this
        // run's to touch: its id may be another transaction's.)
        let lost = coordinator.isConnectionLost(error)
        throw rollBack(
          prepared.map(\.gid) + (lost ? attempted.map { [$0] } ?? [] : []),
          because: "lane transaction \(prepared.count + 1) of \(run.lanes) could not be prepared (\(error))")
      }
      try decide(rollingBack: prepared.map(\.gid))
      reach(.decided)
      var pending: [Int] = []
      for (lane, gid) in prepared {
        if commitPrepared(gid) {
          reach(.committed(lane))
        } else {
          pending.append(lane)
        }
      }
      guard pending.isEmpty else {
        throw Settled(
          failure: .init(
            kind: .io,
            message:
              "the commit was decided (sluice_runs says committing), but lane transaction(s) \(Self.list(pending)) of \(run.lanes) could not be committed: the connection to the server was lost; \(run.lanes - pending.count) lane(s) are committed and the others wait prepared, holding their locks: \(recoverCommand) --apply commits them"
          ))
      }
      try conclude()
    }

    /// Records the decision, then commits the lane transactions one after another.
    func commitInOrder() throws {
      do {
        for worker in workers {
          try worker.store.recordLane(of: run, lane: worker.number + 1, inputs: inputs(of: worker))
        }
      } catch {
        throw rollBack([], because: "a lane transaction could not record itself (\(error))")
      }
      try decide(rollingBack: [])
      reach(.decided)
      for worker in workers {
        let lane = worker.number + 1
        do {
          defer { worker.inTransaction = false }
          try worker.store.commitTransaction()
          reach(.committed(lane))
        } catch {
          for rest in workers where rest.inTransaction {
            rest.store.rollbackTransaction()
            rest.inTransaction = false
          }
          let failed = "the commit of lane transaction \(lane) of \(run.lanes) failed (\(error))"
          // Which lanes are committed, their rows say (this one's COMMIT may have reached the
          // server before its connection was lost).
          guard
            let committed = onAnyConnection({ try $0.committedLanes(of: run) })
          else {
            throw Settled(
              failure: .init(
                kind: .io,
                message:
                  "\(failed) after the commit was decided, and no connection is left to read which lanes were committed: \(recoverCommand) says which, and --apply records it"
              ))
          }
          if committed.lanes.count == run.lanes {
            try conclude()
            return
          }
          let reason =
            committed.lanes.isEmpty
            ? "\(failed); no lane was committed: nothing of the run was written"
            : "\(failed); "
              + LaneRunLog.partialReason(committed: committed.lanes, of: run.lanes, inputs: committed.inputs)
          _ = onAnyConnection {
            try $0.concludeLaneRun(run, committed.lanes.isEmpty ? .failed : .partial, failure: reason)
          }
          throw Settled(failure: .init(kind: .io, message: reason))
        }
      }
      try conclude()
    }

    // MARK: - Steps

    /// Records the decision to commit. When the row was no longer `running`, or the decision
    /// could not be recorded, the run is rolled back; when whether it was recorded cannot be
    /// known, the run is left to `sluice recover`.
    private func decide(rollingBack prepared: [String]) throws {
      let recorded: Bool
      do {
        recorded = try coordinator.decideLaneRun(run, entry)
      } catch {
        // Whether the update reached the server, the row tells — read with the compare-and-set
        // of a roll-back, which waits for a lost session's update to end. Ordered, the lane
        // transactions are rolled back first: nothing of them may commit unless it was decided,
        // and then their connections are free to ask.
        let lanesOpen = workers.contains { $0.inTransaction }
        if lanesOpen {
          for worker in workers where worker.inTransaction {
            worker.store.rollbackTransaction()
            worker.inTransaction = false
          }
        }
        let reason = "the commit decision could not be recorded (\(error))"
        var failed = failedEntry
        failed.failure = "\(reason); the run was rolled back: nothing of it was committed"
        switch onAnyConnection({ try $0.abortLaneRun(run, failed) }) ?? nil {
        case .running?:
          throw rollBackPrepared(prepared, failure: .init(kind: .io, message: failed.failure ?? reason))
        case .committing? where !lanesOpen:
          return
        case .committing?:
          // Decided, but the lanes were rolled back before that could be known: nothing committed.
          let message =
            "\(reason), though it was; the lane transactions had been rolled back: nothing of the run was written"
          _ = onAnyConnection { try $0.concludeLaneRun(run, .failed, failure: message) }
          throw Settled(failure: .init(kind: .io, message: message))
        default:
          throw Settled(
            failure: .init(
              kind: .io,
              message:
                "\(reason) and no connection is left to learn whether it was: the lanes \(lanesOpen ? "were rolled back" : "wait prepared, holding their locks"); \(recoverCommand) --apply settles the run by its row"
            ))
        }
      }
      guard recorded else {
        throw rollBackPrepared(
          prepared,
          failure: .init(
            kind: .io,
            message:
              "the run was rolled back while it was being committed (its row no longer said running): nothing of it was committed"
          ))
      }
    }

    /// The decision that nothing will be committed — the row, `running`, becomes `failed` — then
    /// every lane transaction rolled back; returns the failure to throw.
    private func rollBack(_ prepared: [String], because reason: String) -> Settled {
      for worker in workers where worker.inTransaction {
        worker.store.rollbackTransaction()
        worker.inTransaction = false
      }
      let failure = RunReport.Failure(
        kind: .io, message: "\(reason); the run was rolled back: nothing of it was committed")
      var failed = failedEntry
      failed.failure = failure.message
      if onAnyConnection({ try $0.abortLaneRun(run, failed) }) == .committing {
        // Cannot happen before a decision; if it ever did, the rule is the row's: commit.
        return Settled(
          failure: .init(
            kind: .io,
            message: "\(reason), but the run's row says its commit was decided: \(recoverCommand) --apply commits it"))
      }
      return rollBackPrepared(prepared, failure: failure)
    }

    /// Rolls back prepared lane transactions of a run whose row no longer lets them commit.
    private func rollBackPrepared(_ prepared: [String], failure: RunReport.Failure) -> Settled {
      var failure = failure
      let left = prepared.filter { gid in
        onAnyConnection { store -> Void in
          do {
            try store.rollbackPrepared(gid)
          } catch {
            // Gone already (rolled back by someone else) is as good as rolled back.
            guard try !store.isPrepared(gid) else { throw error }
          }
        } == nil
      }
      if !left.isEmpty {
        failure.message +=
          "; \(left.count) prepared lane transaction(s) could not be rolled back (the connection was lost) and hold their locks: \(recoverCommand) --apply rolls them back"
      }
      return Settled(failure: failure)
    }

    /// Commits a prepared lane transaction on any connection that works.
    private func commitPrepared(_ gid: String) -> Bool {
      onAnyConnection { store -> Void in
        do {
          try store.commitPrepared(gid)
        } catch {
          // Its COMMIT PREPARED may have gone through on a connection lost on the answer.
          guard try !store.isPrepared(gid) else { throw error }
        }
      } != nil
    }

    /// Ends a run whose lanes were all committed: the row says `succeeded` if every lane's row
    /// is there, else `partial` (a prepared lane rolled back by hand), which fails the run.
    private func conclude() throws {
      guard
        let committed = onAnyConnection({ try $0.committedLanes(of: run) })
      else {
        return  // Every commit went through; the row's last word is `sluice recover`'s to write.
      }
      if committed.lanes.count == run.lanes {
        _ = onAnyConnection { try $0.concludeLaneRun(run, .succeeded, failure: nil) }
        return
      }
      let reason = LaneRunLog.partialReason(committed: committed.lanes, of: run.lanes, inputs: committed.inputs)
      _ = onAnyConnection { try $0.concludeLaneRun(run, .partial, failure: reason) }
      throw Settled(failure: .init(kind: .io, message: reason))
    }

    // MARK: - Helpers

    /// Runs `body` on the coordinating connection, else on each lane connection not inside its
    /// transaction, until one succeeds; nil when none does.
    private func onAnyConnection<T>(_ body: (any LaneConnection) throws -> T) -> T? {
      for store in [coordinator] + workers.filter({ !$0.inTransaction }).map(\.store) {
        if let result = try? body(store) { return result }
      }
      return nil
    }

    /// The inputs a connection loaded, for its lane row.
    private func inputs(of worker: LaneWorker) -> [String] {
      worker.lanes.flatMap { plan.lanes[$0] }.sorted().map { services.inputs[$0].input.path }
    }

    /// The command that settles the run, as the user would type it (without a password).
    private var recoverCommand: String {
      let schema = services.configuration.database.schema.map { " --db-schema \($0)" } ?? ""
      return "sluice recover '\(services.configuration.databaseDescription)'\(schema)"
    }

    /// Calls the fault-injection hook, if a test set one (`--test-kill-at` of `sluice-faults` sets one
    /// that dies here as `kill -9` would).
    private func reach(_ point: LaneCommitPoint) {
      if let hook = services.configuration.faults.laneCommit {
        hook(point, [coordinator.sessionID] + workers.map(\.store.sessionID))
      }
    }

    private static func list(_ lanes: [Int]) -> String { lanes.map(String.init).joined(separator: ", ") }
  }
}
