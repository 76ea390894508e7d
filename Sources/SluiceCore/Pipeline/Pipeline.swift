import Foundation

/// Runs one dataset's pipeline: input → reader → decoder → validator → mapper → loader.
///
/// The whole run is one SQLite transaction. Under the strict policy the first invalid record
/// rolls it back; under the lenient policy each record is loaded inside a savepoint, so a record
/// that fails half-way leaves none of its rows behind, and the run fails and rolls back when the
/// error budget is exceeded. Any failure that is not a record's own — a corrupt stream, a broken
/// document, a locked database — rolls back the whole run. Either way the run then records
/// itself in the audit tables (`AuditLog`). A dry run (`sluice validate`) reads the whole input
/// through every stage but the load, and never opens the database.
public struct Pipeline<D: Dataset> {
  public let dataset: D
  public let configuration: PipelineConfiguration

  /// SQLite's page cache during a run, in KiB.
  static var pageCacheKibibytes: Int { 16 * 1024 }
  /// The page cache while deferred indexes are built after a load, in KiB.
  static var indexBuildCacheKibibytes: Int { 4 * 1024 }
  /// Batches in flight between the decoding and the loading thread, and their bytes: enough
  /// to keep both threads busy, little enough that a run's memory does not depend on its input
  /// (a record bigger than this travels alone).
  static var handOffBatches: Int { 8 }
  static var handOffBytes: Int { 16 << 20 }

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
    var input: Input?
    var connection: SQLiteConnection?
    var outputs: RunOutputs?
    var committedReport: RunReport?

    do {
      let opened = try RunOutputs(configuration: configuration)
      outputs = opened
      run.quarantine = opened.rejects.map { QuarantineWriter(file: $0, input: configuration.input) }
      let source = try Input(path: configuration.input)
      input = source
      let reader: any RecordReader =
        configuration.replaysRejects
        ? QuarantineReader(source: source)
        : JSONRecordReader(source: source, layout: configuration.layout)
      if configuration.isDryRun {
        try process(reader: reader, loader: nil, savepoints: nil, state: &run)
        try run.finishDryRun()
      } else {
        let database = try openDatabase()
        connection = database
        committedReport = try database.withTransaction {
          try Migrator.migrate(database, AuditLog.migrations)
          let deferred = try Migrator.migrate(database, dataset.migrations, deferringIndexesOnFreshSchema: true).deferred
          try dataset.synchronizeLookups(database)
          let loader = try dataset.makeLoader(connection: database, conflict: configuration.conflict)
          let savepoints = configuration.policy.invalidRecord == .skip ? try Savepoints(database) : nil
          try process(reader: reader, loader: loader, savepoints: savepoints, state: &run)
          try run.checkRejectRate()
          try run.checkSomethingLoaded()
          if !deferred.isEmpty {
            // SQLite's sorter takes as much memory again as the page cache; a small cache keeps
            // the index build within the run's memory budget (it spills to a temporary file).
            try database.execute("PRAGMA cache_size = -\(Self.indexBuildCacheKibibytes)")
            try Migrator.migrate(database, deferred)
          }
          // The report as the commit will make it true: the tables counted inside the
          // transaction hold what the commit leaves.
          let report = makeReport(
            run, input: input, failure: nil, rowsWritten: loader.rowsWritten, tableRows: countRows(database),
            committed: true)
          try AuditLog.record(report, into: database)
          try opened.stage(report)
          return report
        }
      }
    } catch {
      run.failure = classify(error, state: &run, input: input)
      committedReport = nil
    }

    if let connection, committedReport == nil {
      recordFailure(run, input: input, connection: connection)
    }
    var report =
      committedReport
      ?? makeReport(run, input: input, failure: run.failure, rowsWritten: [:], tableRows: [:], committed: false)
    if let outputs {
      report.outputErrors = outputs.finish(report, committed: committedReport != nil)
      if !report.outputErrors.isEmpty, report.failure == nil, !report.committed {
        // A dry run has nothing committed to protect: an output it could not write fails it.
        report.status = .failed
        report.failure = .init(kind: .io, message: report.outputErrors.joined(separator: "; "))
      }
    }
    return report
  }

  // MARK: - Records

  /// Reads, decodes, validates and maps on a second thread while this one loads, so the two
  /// cores work at once; everything that decides the run's outcome happens here, in input order.
  private func process(
    reader: any RecordReader, loader: D.Loader?, savepoints: Savepoints?, state: inout RunState
  ) throws {
    let handOff = HandOff<PipelineItem<D.Record>>(maxBatches: Self.handOffBatches, maxBytes: Self.handOffBytes)
    let producer = RecordProducer(
      dataset: dataset, reader: reader, policy: configuration.policy, handOff: handOff,
      keepsRawRecords: state.quarantine != nil)
    producer.start()
    defer {
      handOff.cancel()
      producer.wait()
      for (stage, seconds) in producer.seconds {
        state.statistics[stage, default: StageStatistics(stage: stage)].seconds += seconds
      }
    }
    while let batch = handOff.take() {
      for item in batch {
        switch item {
        case .failure(let error):
          throw error
        case .rejected(let stage, let issues, let raw, let location, let coercions, let warnings):
          state.countRejected(at: stage)
          state.coercions += coercions
          for warning in warnings { state.warn(warning) }
          try state.reject(issues, raw: raw, record: location)
        case .record(let record, let raw, let warnings, let coercions):
          state.countPassed(through: .map)
          state.coercions += coercions
          for warning in warnings { state.warn(warning) }
          guard let loader else { continue }
          var mark = Stopwatch.now()
          do {
            try savepoints?.begin()
            if try loader.load(record) == .keptExisting {
              state.statistics[.load, default: StageStatistics(stage: .load)].kept += 1
            }
            try savepoints?.release()
          } catch let error as SQLiteError where error.isConstraintViolation {
            try savepoints?.rollback()
            state.lap(.load, from: &mark)
            state.count(.load, passed: false)
            try state.reject(
              [Issue(stage: .load, code: .constraint, location: raw.location, message: "constraint violated: \(error.message)")],
              raw: raw.bytes, record: raw.location)
            continue
          }
          state.lap(.load, from: &mark)
          state.count(.load, passed: true)
        }
      }
    }
  }

  // MARK: - Outcome

  private func classify(_ error: any Error, state: inout RunState, input: Input?) -> RunReport.Failure {
    switch error {
    case let abort as RunAbort:
      return abort.failure
    case let error as RecordReadError:
      state.countRejected(at: .read)
      state.issues.add(
        Issue(stage: .read, code: error.code, location: error.location, message: error.message))
      // Deflate data damaged mid-stream inflates to garbage before zlib's checksum notices, so
      // a syntax error in gzip input may be a symptom: read to the end to find the real cause.
      if let input, input.isGzip, let streamError = Self.drain(input) {
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
    case let error as SQLiteError:
      if error.isBusy {
        state.waitedForLock = true
        return .init(
          kind: .io,
          message: "database \(configuration.database) is locked by another process (waited \(configuration.busyTimeoutDescription))")
      }
      if error.code == 13 {
        return .init(kind: .io, message: "database \(configuration.database) is full: \(error.message); nothing was written")
      }
      return .init(kind: .io, message: "database error: \(error)")
    case let error as OutputError:
      return .init(kind: error.kind == .cannotCreate ? .cannotCreateOutput : .io, message: error.message)
    default:
      return .init(kind: .io, message: "\(error)")
    }
  }

  /// Records a failed run in the audit tables, in a transaction of its own after the rollback.
  /// Best effort: a database that cannot take even that (locked, full) keeps the failure as is.
  /// After a lock timeout it tries once without waiting, so a locked run waits one timeout, not two.
  private func recordFailure(_ run: RunState, input: Input?, connection: SQLiteConnection) {
    if run.waitedForLock { connection.busyTimeoutMilliseconds = 0 }
    let report = makeReport(run, input: input, failure: run.failure, rowsWritten: [:], tableRows: [:], committed: false)
    _ = try? connection.withTransaction { try AuditLog.record(report, into: connection) }
  }

  private func makeReport(
    _ run: RunState, input: Input?, failure: RunReport.Failure?, rowsWritten: [String: Int],
    tableRows: [String: Int], committed: Bool
  ) -> RunReport {
    let mode = configuration.isDryRun ? "validate" : configuration.replaysRejects ? "replay" : "run"
    return RunReport(
      mode: mode, pipeline: configuration.name, dataset: dataset.name,
      policy: configuration.policy.summary, conflict: configuration.conflict.rawValue,
      database: configuration.isDryRun ? "" : configuration.database,
      status: failure == nil ? .succeeded : .failed, failure: failure,
      startedAt: run.startedAt, finishedAt: Date(),
      durationSeconds: Double(Stopwatch.now() - run.clockStart) / 1e9,
      peakMemoryBytes: ProcessMemory.peakResidentBytes(),
      input: .init(
        path: configuration.input, format: configuration.replaysRejects ? "rejects" : configuration.format.rawValue,
        gzip: input?.isGzip ?? false, compressedBytes: input?.compressedBytes ?? 0,
        decompressedBytes: input?.decompressedBytes ?? 0),
      stages: Stage.allCases.map { run.statistics[$0] ?? StageStatistics(stage: $0) },
      issueCounts: Dictionary(uniqueKeysWithValues: run.issues.counts.map { ($0.key.rawValue, $0.value) }),
      issueSampleLimit: configuration.issueSampleLimit,
      issues: run.issues.samples, checks: run.checks(dryRun: configuration.isDryRun),
      drift: run.drift.summary, coercions: run.coercions, quarantined: run.quarantine?.count ?? 0,
      rowsWritten: rowsWritten, tableRows: tableRows, committed: committed, outputErrors: [])
  }

  // MARK: - Resources

  private func openDatabase() throws -> SQLiteConnection {
    do {
      let connection = try SQLiteConnection(
        path: configuration.database,
        options: .init(busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds))
      // A database is new when it has no pages — asked of SQLite rather than of the file, so
      // that a file left by a killed first run (emptied by the hot journal's rollback, which
      // this read triggers) is new too. Set before the first table exists: 16 KiB pages made a
      // 1M-order load ~10% faster than the default 4 KiB. Existing databases keep theirs.
      if try connection.scalarInt("PRAGMA page_count") == 0 {
        try connection.execute("PRAGMA page_size = 16384")
      }
      // A bigger page cache keeps the indexes' hot pages in memory during a bulk load; it is a
      // fixed amount, so memory still does not grow with the input.
      try connection.execute("PRAGMA cache_size = -\(Self.pageCacheKibibytes)")
      return connection
    } catch let error as SQLiteError where error.isBusy {
      throw error
    } catch let error as SQLiteError {
      throw OutputError(
        kind: .cannotCreate, message: "cannot open or create database \(configuration.database): \(error.message)")
    }
  }

  /// Reads an input to its end, returning the stream error that stopped it, if any.
  static func drain(_ input: Input) -> InputError? {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    defer { buffer.deallocate() }
    do {
      while try input.read(into: buffer) > 0 {}
      return nil
    } catch let error as InputError {
      return error
    } catch {
      return nil
    }
  }

  private func countRows(_ connection: SQLiteConnection) -> [String: Int] {
    var rows: [String: Int] = [:]
    for table in dataset.tables {
      if let count = try? connection.scalarInt("SELECT count(*) FROM \"\(table)\"") {
        rows[table] = Int(count)
      }
    }
    return rows
  }
}

/// Thrown inside the run's transaction to stop the run and roll it back.
struct RunAbort: Error {
  var failure: RunReport.Failure
}

/// One savepoint per record, so a lenient run can drop a record that failed half-way.
struct Savepoints {
  let beginStatement: SQLiteStatement
  let releaseStatement: SQLiteStatement
  let rollbackStatement: SQLiteStatement

  init(_ connection: SQLiteConnection) throws {
    beginStatement = try connection.prepare("SAVEPOINT sluice_record")
    releaseStatement = try connection.prepare("RELEASE sluice_record")
    rollbackStatement = try connection.prepare("ROLLBACK TO sluice_record")
  }

  func begin() throws { try beginStatement.run([]) }
  func release() throws { try releaseStatement.run([]) }
  /// Undoes the record's writes and ends the savepoint.
  func rollback() throws {
    try rollbackStatement.run([])
    try releaseStatement.run([])
  }
}
