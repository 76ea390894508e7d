import Foundation

/// Runs one dataset's pipeline: input → reader → decoder → validator → mapper → rows → store.
///
/// The whole run is one transaction. Under the strict policy the first invalid record rolls it
/// back; under the lenient policy each record is written inside a savepoint, so a record that
/// fails half-way leaves none of its rows behind, and the run fails and rolls back when the
/// error budget is exceeded. Any failure that is not a record's own — a corrupt stream, a broken
/// document, a locked database — rolls back the whole run. Either way the run then records
/// itself in the audit tables. A validate run reads the whole input through every stage but the
/// writes, and never opens the database.
public struct Pipeline<D: Dataset> {
  public let dataset: D
  public let configuration: PipelineConfiguration

  public init(dataset: D, configuration: PipelineConfiguration) {
    self.dataset = dataset
    self.configuration = configuration
  }

  /// Runs the pipeline and returns its report; it never throws; failures are in the report.
  ///
  /// The outputs (rejects, report, JUnit) are written in step with the database: staged and
  /// synced before the commit, published after it (`RunOutputs`).
  public func run() -> RunReport {
    var run = RunState(configuration: configuration, rules: dataset.rules)
    var opened = Opened()
    var committed: RunReport?
    do {
      let outputs = try RunOutputs(configuration: configuration)
      opened.outputs = outputs
      run.quarantine = outputs.rejects.map { QuarantineWriter(file: $0, input: configuration.input, format: configuration.format) }
      let input = try Input(path: configuration.input)
      opened.input = input
      let reader: any RecordReader =
        configuration.mode == .replay
        ? QuarantineReader(source: input)
        : RecordReaders.make(format: configuration.format, recordPath: configuration.recordPath, source: input)
      if configuration.isDryRun {
        try RecordLoop(dataset: dataset, configuration: configuration).validate(reader, state: &run)
        try run.finishDryRun()
      } else {
        let store = try openDatabase()
        opened.store = store
        committed = try load(reader, into: store, outputs: outputs, state: &run, input: input)
      }
    } catch {
      run.failure = classify(error, state: &run, input: opened.input)
    }
    return finish(run, opened, committed: committed)
  }

  /// What a run opened, for the report whatever happened.
  private struct Opened {
    var outputs: RunOutputs?
    var input: Input?
    var store: (any Store)?
  }

  // MARK: - The load

  /// Loads every record in one transaction and returns the report the commit makes true.
  ///
  /// The store checks each row's foreign keys as it is written. (A first load could instead
  /// switch that off and prove every key with one `foreign_key_check` before the commit; on 1M
  /// orders the check cost as much as the per-row checks it saved, so it is not done.)
  private func load(
    _ reader: any RecordReader, into store: some Store, outputs: RunOutputs, state: inout RunState, input: Input
  ) throws -> RunReport {
    try store.withTransaction {
      let schema = dataset.schema
      let deferred = try Migrator.migrate(
        store, schema.migrations(dialect: store.dialect), deferringIndexesOnFreshSchema: true
      ).deferred
      let writer = try RowWriter(store: store, schema: schema, conflict: configuration.conflict)
      for lookup in schema.lookups {
        let synchronized = try LookupTable.synchronize(lookup, in: store)
        writer.count(synchronized.inserted + synchronized.updated + synchronized.retired, in: lookup.table)
      }
      let savepoints = configuration.policy.invalidRecord == .skip ? try store.makeSavepoints() : nil
      try RecordLoop(dataset: dataset, configuration: configuration).load(
        reader, writer: writer, savepoints: savepoints, state: &state)
      try state.checkRejectRate()
      try state.checkSomethingLoaded()
      if !deferred.isEmpty {
        try store.prepareForIndexBuild()
        try Migrator.migrate(store, deferred)
      }
      // The report as the commit will make it true: the tables counted inside the
      // transaction hold what the commit leaves.
      let report = makeReport(
        state, input: input, failure: nil, rowsWritten: writer.rowsWritten, tableRows: countRows(store), committed: true)
      try store.recordAudit(report.auditEntry)
      try outputs.stage(report)
      return report
    }
  }

  // MARK: - Outcome

  /// Records a failure in the audit tables, publishes the outputs, and returns the final report.
  private func finish(_ run: RunState, _ opened: Opened, committed: RunReport?) -> RunReport {
    if let store = opened.store, committed == nil {
      recordFailure(run, input: opened.input, store: store)
    }
    var report =
      committed
      ?? makeReport(run, input: opened.input, failure: run.failure, rowsWritten: [:], tableRows: [:], committed: false)
    if let outputs = opened.outputs {
      report.outputErrors = outputs.finish(report, committed: committed != nil)
      if !report.outputErrors.isEmpty, report.failure == nil, !report.committed {
        // A dry run has nothing committed to protect: an output it could not write fails it.
        report.status = .failed
        report.failure = .init(kind: .io, message: report.outputErrors.joined(separator: "; "))
      }
    }
    return report
  }

  private func classify(_ error: any Error, state: inout RunState, input: Input?) -> RunReport.Failure {
    switch error {
    case let abort as RunAbort:
      return abort.failure
    case let error as RecordReadError:
      state.ledger.countRejected(at: .read)
      state.ledger.collect(Issue(stage: .read, code: error.code, location: error.location, message: error.message))
      // Deflate data damaged mid-stream inflates to garbage before zlib's checksum notices, so
      // a syntax error in gzip input may be a symptom: read to the end to find the real cause.
      if let input, input.isGzip, let streamError = input.drain() {
        return .init(
          kind: .io,
          message: "\(streamError.description); the JSON error at line \(error.location.line) is a consequence")
      }
      return .init(
        kind: .data,
        message: "input is malformed at line \(error.location.line), byte \(error.location.byteOffset): \(error.message)")
    case let error as InputError:
      // Errors while opening mean the input is missing or unreadable; errors while reading mean
      // the stream itself is broken.
      return .init(kind: input == nil ? .inputMissing : .io, message: error.description)
    case let error as any StoreError:
      switch error.failure {
      case .busy:
        state.waitedForLock = true
        return .init(
          kind: .io,
          message: "database \(configuration.database) is locked by another process (waited \(configuration.busyTimeoutDescription))")
      case .full:
        return .init(kind: .io, message: "database \(configuration.database) is full: \(error.message); nothing was written")
      case .constraint, .other:
        return .init(kind: .io, message: "database error: \(error)")
      }
    case let error as MigrationError:
      return .init(kind: .cannotCreateOutput, message: "database \(configuration.database): \(error.message)")
    case let error as OutputError:
      return .init(kind: error.kind == .cannotCreate ? .cannotCreateOutput : .io, message: error.message)
    default:
      return .init(kind: .io, message: "\(error)")
    }
  }

  /// Records a failed run in the audit tables, in a transaction of its own after the rollback.
  /// Best effort: a database that cannot take even that (locked, full) keeps the failure as is.
  /// After a lock timeout it tries once without waiting, so a locked run waits one timeout, not two.
  private func recordFailure(_ run: RunState, input: Input?, store: some Store) {
    if run.waitedForLock { store.busyTimeoutMilliseconds = 0 }
    let report = makeReport(run, input: input, failure: run.failure, rowsWritten: [:], tableRows: [:], committed: false)
    _ = try? store.withTransaction { try store.recordAudit(report.auditEntry) }
  }

  private func makeReport(
    _ run: RunState, input: Input?, failure: RunReport.Failure?, rowsWritten: [String: Int],
    tableRows: [String: Int], committed: Bool
  ) -> RunReport {
    RunReport(
      mode: configuration.mode.rawValue, pipeline: configuration.name, dataset: dataset.name,
      policy: configuration.policy.summary, conflict: configuration.conflict.rawValue,
      database: configuration.isDryRun ? "" : configuration.database,
      status: failure == nil ? .succeeded : .failed, failure: failure,
      startedAt: run.startedAt, finishedAt: Date(),
      durationSeconds: Double(Stopwatch.now() - run.clockStart) / 1e9,
      peakMemoryBytes: ProcessMemory.peakResidentBytes(),
      input: .init(
        path: configuration.input, format: configuration.mode == .replay ? "rejects" : configuration.format.rawValue,
        gzip: input?.isGzip ?? false, compressedBytes: input?.compressedBytes ?? 0,
        decompressedBytes: input?.decompressedBytes ?? 0),
      stages: run.ledger.statistics,
      issueCounts: Dictionary(uniqueKeysWithValues: run.ledger.issues.counts.map { ($0.key.rawValue, $0.value) }),
      issueSampleLimit: configuration.issueSampleLimit,
      issues: run.ledger.issues.samples, checks: run.ledger.checks(dryRun: configuration.isDryRun),
      drift: run.ledger.drift.summary, coercions: run.ledger.coercions, quarantined: run.quarantine?.count ?? 0,
      rowsWritten: rowsWritten, tableRows: tableRows, committed: committed, outputErrors: [])
  }

  // MARK: - Resources

  /// Opens the run's database; SQLite is the one store today.
  private func openDatabase() throws -> SQLiteConnection {
    do {
      return try SQLiteConnection.openForImport(
        path: configuration.database, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
    } catch let error as any StoreError where error.failure == .busy {
      throw error
    } catch let error as any StoreError {
      throw OutputError(
        kind: .cannotCreate, message: "cannot open or create database \(configuration.database): \(error.message)")
    }
  }

  private func countRows(_ store: some Store) -> [String: Int] {
    var rows: [String: Int] = [:]
    for table in dataset.schema.tableNames {
      if let count = try? store.scalarInt("SELECT count(*) FROM \(store.dialect.quote(table))") {
        rows[table] = Int(count)
      }
    }
    return rows
  }
}
