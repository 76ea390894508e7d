import Foundation

/// Runs one dataset's pipeline: input → reader → decoder → validator → mapper → loader.
///
/// The whole run is one SQLite transaction. Under the strict policy the first invalid record
/// rolls it back; under the lenient policy each record is loaded inside a savepoint, so a record
/// that fails half-way (a constraint on a child row) leaves none of its rows behind. Any failure
/// that is not a record's own — a corrupt stream, a broken document, a locked database — rolls
/// back the whole run. A database file that the run created is removed again when the run
/// fails, so a failed first import leaves nothing behind.
public struct Pipeline<D: Dataset> {
  public let dataset: D
  public let configuration: PipelineConfiguration
  public var decoder: any RecordDecoding

  public init(dataset: D, configuration: PipelineConfiguration, decoder: any RecordDecoding = FoundationRecordDecoder()) {
    self.dataset = dataset
    self.configuration = configuration
    self.decoder = decoder
  }

  /// Runs the pipeline and returns its report; it never throws; failures are in the report.
  public func run() -> RunReport {
    var state = RunState(configuration: configuration)
    let startedAt = Date()
    let clockStart = Stopwatch.now()
    var failure: RunReport.Failure?
    var committed = false
    var tableRows: [String: Int] = [:]
    var rowsWritten: [String: Int] = [:]
    var input: Input?

    let databaseExisted = FileManager.default.fileExists(atPath: configuration.database)
    do {
      let opened = try Input(path: configuration.input)
      input = opened
      let connection = try openDatabase()
      rowsWritten = try connection.withTransaction {
        try Migrator.migrate(connection, dataset.migrations)
        let loader = try dataset.makeLoader(connection: connection, conflict: configuration.conflict)
        let reader = JSONRecordReader(source: opened, layout: configuration.layout)
        try process(reader: reader, loader: loader, connection: connection, state: &state)
        return loader.rowsWritten
      }
      committed = true
      tableRows = countRows(connection)
    } catch let error as RunAbort {
      failure = error.failure
    } catch let error as RecordReadError {
      state.count(.read, in: 1, rejected: 1)
      state.issues.add(
        Issue(stage: .read, code: error.code, location: error.location, message: error.message))
      failure = .init(kind: .data, message: "input is malformed at line \(error.location.line), byte \(error.location.byteOffset): \(error.message)")
      // Deflate data damaged mid-stream inflates to garbage before zlib's checksum notices, so
      // a syntax error in gzip input may be a symptom: read to the end to find the real cause.
      if let input, input.isGzip, let streamError = Self.drain(input) {
        failure = .init(
          kind: .io,
          message: "\(streamError.description); the JSON error at line \(error.location.line) is a consequence")
      }
    } catch let error as InputError {
      // Errors while opening mean the input is missing or unreadable; errors while reading
      // mean the stream itself is broken.
      failure = .init(kind: input == nil ? .inputMissing : .io, message: error.description)
    } catch let error as SQLiteError {
      failure = .init(
        kind: .io,
        message: error.isBusy
          ? "database \(configuration.database) is locked by another process" : "database error: \(error)")
    } catch {
      failure = .init(kind: .io, message: "\(error)")
    }
    if failure != nil {
      rowsWritten = [:]
      if !databaseExisted { removeDatabaseFiles() }
    }

    let finished = Stopwatch.now()
    return RunReport(
      pipeline: configuration.name, dataset: dataset.name,
      policy: configuration.policy.preset.rawValue, conflict: configuration.conflict.rawValue,
      database: configuration.database,
      status: failure == nil ? .succeeded : .failed, failure: failure,
      startedAt: startedAt, finishedAt: Date(),
      durationSeconds: Double(finished - clockStart) / 1e9,
      peakMemoryBytes: ProcessMemory.peakResidentBytes(),
      input: .init(
        path: configuration.input, format: configuration.format.rawValue,
        gzip: input?.isGzip ?? false, compressedBytes: input?.compressedBytes ?? 0,
        decompressedBytes: input?.decompressedBytes ?? 0),
      stages: Stage.allCases.map { state.statistics[$0] ?? StageStatistics(stage: $0) },
      issueCounts: Dictionary(uniqueKeysWithValues: state.issues.counts.map { ($0.key.rawValue, $0.value) }),
      issueSampleLimit: configuration.issueSampleLimit,
      issues: state.issues.samples, rowsWritten: rowsWritten, tableRows: tableRows,
      committed: committed)
  }

  private func openDatabase() throws -> SQLiteConnection {
    do {
      return try SQLiteConnection(path: configuration.database)
    } catch let error as SQLiteError {
      throw RunAbort(
        failure: .init(
          kind: .cannotCreateOutput,
          message: "cannot open or create database \(configuration.database): \(error.message)"))
    }
  }

  private func process(
    reader: JSONRecordReader, loader: D.Loader, connection: SQLiteConnection, state: inout RunState
  ) throws {
    let savepoints = configuration.policy.invalidRecord == .skip
    let begin = savepoints ? try connection.prepare("SAVEPOINT sluice_record") : nil
    let release = savepoints ? try connection.prepare("RELEASE sluice_record") : nil
    let rollback = savepoints ? try connection.prepare("ROLLBACK TO sluice_record") : nil

    while true {
      var mark = Stopwatch.now()
      let raw: RawRecord?
      do {
        raw = try reader.next()
      } catch let error as RecordReadError where error.isRecoverable {
        state.lap(.read, from: &mark)
        state.count(.read, in: 1, rejected: 1)
        try state.reject(
          Issue(stage: .read, code: error.code, location: error.location, message: error.message))
        continue
      }
      state.lap(.read, from: &mark)
      guard let raw else { break }
      state.count(.read, in: 1, out: 1)

      let dto: D.DTO
      do {
        dto = try decoder.decode(D.DTO.self, from: raw)
      } catch {
        state.lap(.decode, from: &mark)
        state.count(.decode, in: 1, rejected: 1)
        try state.reject(
          Issue(stage: .decode, code: error.code, location: raw.location, path: error.path, message: error.message))
        continue
      }
      state.lap(.decode, from: &mark)
      state.count(.decode, in: 1, out: 1)

      var validation = Validation()
      dataset.validate(dto, into: &validation)
      state.lap(.validate, from: &mark)
      guard validation.isValid else {
        state.count(.validate, in: 1, rejected: 1)
        let issues = validation.failures.map { failure in
          Issue(stage: .validate, code: failure.code, location: raw.location, path: failure.path, message: failure.message)
        }
        for issue in issues { state.issues.add(issue) }
        try state.rejectRecord(issues[0])
        continue
      }
      state.count(.validate, in: 1, out: 1)

      let record: D.Record
      do {
        record = try dataset.map(dto)
      } catch {
        state.lap(.map, from: &mark)
        state.count(.map, in: 1, rejected: 1)
        try state.reject(
          Issue(stage: .map, code: error.code, location: raw.location, path: error.path, message: error.message))
        continue
      }
      state.lap(.map, from: &mark)
      state.count(.map, in: 1, out: 1)

      do {
        try begin?.step()
        begin?.reset()
        _ = try loader.load(record)
        try release?.step()
        release?.reset()
      } catch let error as SQLiteError where error.isConstraintViolation {
        try rollback?.step()
        rollback?.reset()
        try release?.step()
        release?.reset()
        state.lap(.load, from: &mark)
        state.count(.load, in: 1, rejected: 1)
        try state.reject(
          Issue(stage: .load, code: .constraint, location: raw.location, message: "constraint violated: \(error.message)"))
        continue
      }
      state.lap(.load, from: &mark)
      state.count(.load, in: 1, out: 1)
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

  private func removeDatabaseFiles() {
    for suffix in ["", "-journal", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: configuration.database + suffix)
    }
  }
}

/// Thrown inside the run's transaction to stop the run and roll it back.
struct RunAbort: Error {
  var failure: RunReport.Failure
}

/// The mutable bookkeeping of one run: counts, times, issues, and the policy's verdicts.
struct RunState {
  let policy: Policy
  var statistics: [Stage: StageStatistics] = [:]
  var issues: IssueCollector

  init(configuration: PipelineConfiguration) {
    policy = configuration.policy
    issues = IssueCollector(sampleLimit: configuration.issueSampleLimit)
  }

  @inline(__always)
  mutating func lap(_ stage: Stage, from mark: inout UInt64) {
    let now = Stopwatch.now()
    statistics[stage, default: StageStatistics(stage: stage)].seconds += Double(now - mark) / 1e9
    mark = now
  }

  @inline(__always)
  mutating func count(_ stage: Stage, in recordsIn: Int, out recordsOut: Int = 0, rejected: Int = 0) {
    statistics[stage, default: StageStatistics(stage: stage)].recordsIn += recordsIn
    statistics[stage, default: StageStatistics(stage: stage)].recordsOut += recordsOut
    statistics[stage, default: StageStatistics(stage: stage)].rejected += rejected
  }

  /// Records a rejected record's issue; under a failing policy, stops the run.
  mutating func reject(_ issue: Issue) throws {
    issues.add(issue)
    try rejectRecord(issue)
  }

  /// Applies the policy to a record rejected for `issue` (already collected).
  mutating func rejectRecord(_ issue: Issue) throws {
    guard policy.invalidRecord == .fail else { return }
    let place = issue.location.map { "record \($0.ordinal) (line \($0.line))" } ?? "the input"
    let path = issue.path.isEmpty ? "" : "\(issue.path): "
    throw RunAbort(
      failure: .init(
        kind: .data,
        message: "\(policy.preset.rawValue) policy: \(issue.stage.rawValue) rejected \(place): \(path)\(issue.code): \(issue.message); nothing was written"))
  }
}
