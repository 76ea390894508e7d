import Foundation

/// How a run ends: its failure classified, recorded in the audit tables, and its outputs
/// published with the final report.
extension PipelineRunner {
  /// Records a failure in the audit tables, publishes the outputs, and returns the final report.
  /// A plan (`planned`, or a failed plan) records nothing. `strategy` adds what only its mode
  /// reports to a report made here from the state, and hears when a committed run's outputs are
  /// in place.
  func finish(
    _ run: RunState, _ opened: Opened, strategy: (any RunStrategy)?, committed: RunReport?, planned: RunReport? = nil
  ) -> RunReport {
    let auditSettled = strategy?.settledItsAudit == true
    if let store = opened.store, committed == nil, !auditSettled, strategy?.recordsFailure != false {
      recordFailure(run, strategy: strategy, store: store)
    }
    var report: RunReport
    if let made = committed ?? planned {
      report = made
    } else {
      report = services.makeReport(run, failure: run.failure, rowsWritten: [:], tableRows: [:], committed: false)
      strategy?.complete(&report)
    }
    if let outputs = opened.outputs {
      if committed != nil { strategy?.willPublish() }
      report.outputErrors = outputs.finish(report, committed: committed != nil, files: !run.leavesOutputFiles)
      if committed != nil, report.outputErrors.isEmpty { strategy?.didPublish(store: opened.store) }
      if !report.outputErrors.isEmpty, report.failure == nil, !report.committed {
        // A dry run has nothing committed to protect: an output it could not write fails it.
        report.status = .failed
        report.failure = .init(kind: .io, message: report.outputErrors.joined(separator: "; "))
      }
    }
    return report
  }

}

extension RunServices {
  package func classify(_ error: any Error, state: inout RunState) -> RunReport.Failure {
    switch error {
    case let abort as RunAbort:
      return abort.failure
    case let error as RecordReadError:
      state.ledger.countRejected(at: .read)
      state.ledger.collect(
        Issue(stage: .read, code: error.code, location: error.location, path: error.path, message: error.message))
      let input = state.ledger.input.map { "input \($0)" } ?? "input"
      // Deflate data damaged mid-stream inflates to garbage before zlib's checksum notices, so
      // a syntax error in gzip input may be a symptom: read to the end to find the real cause.
      if let stream = state.currentStream, stream.isGzip, let streamError = stream.drain() {
        let reader = state.inputs.last.map { "the \($0.input.format.rawValue.uppercased()) reader's error" }
        return .init(
          kind: .io,
          message:
            "\(streamError.description); \(reader ?? "the reader's error") at line \(error.location.line) is a consequence"
        )
      }
      return .init(
        kind: .data,
        message:
          "\(input) is malformed at line \(error.location.line), byte \(error.location.byteOffset): \(error.message)")
    case let error as InputError:
      // Inputs that cannot be opened were reported as missing when opened (`opening`): this
      // stream broke while being read.
      return .init(kind: error.failureKind(opening: false), message: error.description)
    case let error as any StoreError:
      switch error.failure {
      case .busy:
        state.waitedForLock = true
        return .init(
          kind: .io,
          message:
            "database \(configuration.databaseDescription) is locked by another process (waited \(configuration.busyTimeoutDescription))"
        )
      case .full:
        return .init(
          kind: .io,
          message: "database \(configuration.databaseDescription) is full: \(error.message); nothing was written")
      case .constraint, .other:
        return .init(kind: .io, message: "database error: \(error)")
      }
    case let error as MigrationError:
      return .init(
        kind: .cannotCreateOutput, message: "database \(configuration.databaseDescription): \(error.message)")
    case let error as OutputError:
      return .init(kind: error.kind == .cannotCreate ? .cannotCreateOutput : .io, message: error.message)
    default:
      return .init(kind: .io, message: "\(error)")
    }
  }
}

extension PipelineRunner {
  /// Records a failed run in the audit tables, in a transaction of its own after the rollback.
  /// Best effort: a database that cannot take even that (locked, full) keeps the failure as is.
  /// After a lock timeout it tries once without waiting, so a locked run waits one timeout, not two.
  private func recordFailure(_ run: RunState, strategy: (any RunStrategy)?, store: some Store) {
    if run.waitedForLock { store.busyTimeoutMilliseconds = 0 }
    var report = services.makeReport(run, failure: run.failure, rowsWritten: [:], tableRows: [:], committed: false)
    strategy?.complete(&report)
    _ = try? store.withTransaction { try store.recordAudit(report.auditEntry) }
  }
}
