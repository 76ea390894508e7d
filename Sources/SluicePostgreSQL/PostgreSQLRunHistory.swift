import Foundation
@_spi(Internals) import SluiceCore

/// The run history of a PostgreSQL schema (`sluice_runs`, `sluice_rejects`, written by
/// `PostgreSQLAuditLog`), read without ever writing.
///
/// The session is read-only before the first query (`default_transaction_read_only`), and
/// every read runs in a `READ ONLY` transaction: looking at last night's runs cannot create the
/// schema, the audit tables or a migration row, nor take a lock that blocks a load. The schema
/// is the one named (`--db-schema`), else the session's own — the URL's
/// `options=-csearch_path=…`, or the server's `search_path`, normally `public`.
///
/// Rows are read back as SQLite's history reads its own: the same `RecordedRun` with times in the
/// canonical UTC text (`2025-01-31T02:00:00.123Z`) and the `jsonb` sections decoded from their
/// text, so `sluice runs` prints the same shape for either store.
package final class PostgreSQLRunHistory: RunHistory {
  /// The server as messages name it: the URL without its password.
  public let database: String
  private let store: PostgreSQLStore
  /// The schema asked for, and the connection string as printed.
  private let schema: String?
  private let location: String
  /// Whether the audit tables exist (a schema may hold only an unfinished checkpointed run).
  private var hasRuns = true

  public init(url: String, schema: String? = nil, connectTimeoutSeconds: Int? = nil) throws {
    let location = PostgreSQLConnectionString.redact(url)
    self.location = location
    self.schema = schema
    do {
      store = try PostgreSQLStore(
        url: url, options: .init(schema: schema, connectTimeoutSeconds: connectTimeoutSeconds))
    } catch let error as PostgreSQLError {
      throw RunHistoryError(
        .unreachable, database: location, message: "cannot connect to \(error.server): \(error.message)")
    }
    try store.execute("SET default_transaction_read_only TO on")
    let place = schema.map { "schema \($0)" } ?? "its current schema"
    database = "\(location) (\(place))"
    let tables = try reading {
      try store.scalarInt(
        """
        SELECT count(*) FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_name IN ('sluice_runs', 'sluice_rejects')
        """)
    }
    // A checkpointed run interrupted before any run was recorded has a history all the same:
    // that unfinished run (`notes`).
    hasRuns = tables == 2
    let checkpoints = try reading {
      try store.scalarInt(
        """
        SELECT count(*) FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_name = 'sluice_checkpoints'
        """)
    }
    guard hasRuns || checkpoints == 1 else {
      let staged = try stagedRunNote().map { "; \($0)" } ?? ""
      throw RunHistoryError(
        .noHistory, database: database,
        message: "no run history (no sluice_runs table): no Sluice run was recorded here\(staged)")
    }
  }

  /// What a staged run (`--stage`) left in its staging schema, unpublished, if it left anything.
  private func stagedRunNote() throws -> String? {
    let stage = PostgreSQLDriver.stagingSchema(forSchema: schema)
    return try reading {
      let exists = try store.prepare("SELECT 1 FROM pg_namespace WHERE nspname = $1")
      try exists.bind(.text(stage), at: 1)
      defer { exists.reset() }
      guard try exists.step() else { return nil }
      // The unlogged marker is emptied, with the staged rows, by a crash of the server itself:
      // there is nothing left to resume.
      let sentinel = "\(store.dialect.quote(stage)).\(PostgreSQLDriver.stagingSentinel)"
      if try store.scalarInt("SELECT count(*) FROM \(sentinel)") == 0 {
        return
          "a staged run into \(database) was interrupted in schema \(stage) and its staged rows were lost: the server restarted after a crash, which empties unlogged tables (none of it is in the target): 'sluice run SPEC --stage --restart' stages it again"
      }
      var note =
        "a staged run into \(database) is unfinished in schema \(stage) (none of it is in the target yet): 'sluice run SPEC --stage --resume' finishes and publishes it, --restart discards it"
      try store.execute("SET LOCAL search_path TO \(store.dialect.quote(stage))")
      if let first = try CheckpointTable.notes(in: store).first { note += "; in it, " + first }
      if try store.columns(of: stagedReportTable) != nil {
        note += "; every chunk is staged: --resume only publishes it"
      }
      return note
    }
  }

  public func recentRuns(limit: Int) throws -> [RecordedRun] {
    guard hasRuns else { return [] }
    return try reading {
      let statement = try store.prepare("\(runColumns) ORDER BY run_id DESC LIMIT $1")
      try statement.bind(.integer(Int64(max(limit, 0))), at: 1)
      defer { statement.reset() }
      var runs: [RecordedRun] = []
      while try statement.step() { runs.append(try recordedRun(statement)) }
      return runs
    }
  }

  public func run(id: Int64) throws -> RecordedRun {
    guard hasRuns else {
      throw RunHistoryError(.unknownRun, database: database, message: "no run \(id) (it records no runs)")
    }
    return try reading {
      let statement = try store.prepare("\(runColumns) WHERE run_id = $1")
      try statement.bind(.integer(id), at: 1)
      defer { statement.reset() }
      guard try statement.step() else {
        let range = try store.prepare("SELECT min(run_id), max(run_id), count(*) FROM sluice_runs")
        defer { range.reset() }
        var known = "it records no runs"
        if try range.step(), case .integer(let count)? = range.columnValue(2), count > 0,
          case .integer(let first)? = range.columnValue(0), case .integer(let last)? = range.columnValue(1)
        {
          known = "its runs are \(first)…\(last)"
        }
        throw RunHistoryError(.unknownRun, database: database, message: "no run \(id) (\(known))")
      }
      return try recordedRun(statement)
    }
  }

  public func issueGroups(ofRun id: Int64) throws -> [IssueGroup] {
    try reading {
      let statement = try store.prepare(
        """
        SELECT stage, severity, code, path, count(*) FROM sluice_rejects WHERE run_id = $1
        GROUP BY stage, severity, code, path
        """)
      try statement.bind(.integer(id), at: 1)
      defer { statement.reset() }
      var groups: [IssueGroup] = []
      while try statement.step() {
        guard case .text(let stageText)? = statement.columnValue(0), let stage = Stage(rawValue: stageText),
          case .text(let severityText)? = statement.columnValue(1), let severity = Severity(rawValue: severityText),
          case .text(let code)? = statement.columnValue(2), case .text(let path)? = statement.columnValue(3),
          case .integer(let count)? = statement.columnValue(4)
        else {
          throw RunHistoryError(
            .malformedRow, database: database,
            message: "run \(id) has an issue in sluice_rejects that Sluice did not write")
        }
        groups.append(IssueGroup(stage: stage, severity: severity, code: code, path: path, count: Int(count)))
      }
      return groups.sorted {
        ($0.stage.ordinal, -$0.count, $0.code, $0.path) < ($1.stage.ordinal, -$1.count, $1.code, $1.path)
      }
    }
  }

  /// Parallel runs that did not end: a run whose row still says `running` or `committing` with
  /// no sluice holding it, or one with prepared lane transactions, is in doubt until
  /// `sluice recover` settles it; a run in progress is said to be.
  public func notes() throws -> [String] {
    let scan = try reading { try PostgreSQLRecovery.scan(store, schema: schema, allSchemas: false) }
    let recover = "'sluice recover \(location)\(schema.map { " --db-schema \($0)" } ?? "")'"
    var notes: [String] = []
    for run in scan.runs {
      if run.isLive {
        notes.append("run \(run.runID) (schema \(run.schema)) is in progress: \(run.summary)")
      } else if run.action.isPending {
        notes.append(
          "run \(run.runID) (schema \(run.schema)) was interrupted and is in doubt: \(run.summary); \(recover) says so, and --apply settles it"
        )
      }
    }
    for gid in scan.legacyTransactions {
      notes.append("prepared transaction \(gid) of an earlier Sluice holds its locks: \(recover) lists it")
    }
    notes += try reading { try CheckpointTable.notes(in: store) }
    if let staged = try stagedRunNote() { notes.append(staged) }
    return notes
  }

  /// The columns of `sluice_runs` in `SQLiteRunHistory`'s order; times as the canonical text the
  /// engine binds, the `jsonb` sections as text.
  /// `rows_deleted`, or NULL in a schema recorded before snapshots existed.
  private var runColumns: String {
    let has = ((try? store.columns(of: "sluice_runs")) ?? nil)?.contains("rows_deleted") == true
    return Self.runColumns.replacingOccurrences(
      of: "rows_written::text\n", with: "rows_written::text, \(has ? "rows_deleted::text" : "NULL")\n")
  }

  private static let runColumns = """
    SELECT run_id, pipeline, dataset, mode, input, policy, status, failure,
      \(utcText("started_at")), \(utcText("finished_at")),
      duration_seconds, records_read, records_loaded, records_rejected, warnings, stages::text, issue_counts::text,
      rows_written::text
    FROM sluice_runs
    """

  public func inputs(ofRun id: Int64) throws -> [InputLedgerEntry] {
    try reading { try InputLedger.entries(ofRun: id, in: store, modifiedAtText: Self.utcText("modified_at")) }
  }

  private static func utcText(_ column: String) -> String {
    "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
  }

  /// One row of `runColumns`.
  private func recordedRun(_ statement: PostgreSQLStatement) throws -> RecordedRun {
    guard case .integer(let id)? = statement.columnValue(0) else {
      throw RunHistoryError(.malformedRow, database: database, message: "a run without a run_id")
    }
    func malformed(_ column: String) -> RunHistoryError {
      RunHistoryError(.malformedRow, database: database, message: "run \(id): \(column) is not what Sluice writes")
    }
    func text(_ index: Int32, _ column: String) throws(RunHistoryError) -> String {
      guard case .text(let value)? = statement.columnValue(index) else { throw malformed(column) }
      return value
    }
    func integer(_ index: Int32, _ column: String) throws(RunHistoryError) -> Int {
      guard case .integer(let value)? = statement.columnValue(index) else { throw malformed(column) }
      return Int(value)
    }
    func json<T: Decodable>(_ type: T.Type, _ index: Int32, _ column: String) throws(RunHistoryError) -> T {
      let raw = try text(index, column)
      guard let value = try? JSONDecoder().decode(type, from: Data(raw.utf8)) else { throw malformed(column) }
      return value
    }
    guard case .real(let duration)? = statement.columnValue(10) else { throw malformed("duration_seconds") }
    var failure: String?
    if case .text(let text)? = statement.columnValue(7) { failure = text }
    return RecordedRun(
      runID: id, pipeline: try text(1, "pipeline"), dataset: try text(2, "dataset"), mode: try text(3, "mode"),
      input: try text(4, "input"), policy: try text(5, "policy"), status: try text(6, "status"),
      failure: failure, startedAt: try text(8, "started_at"), finishedAt: try text(9, "finished_at"),
      durationSeconds: duration, recordsRead: try integer(11, "records_read"),
      recordsLoaded: try integer(12, "records_loaded"), recordsRejected: try integer(13, "records_rejected"),
      warnings: try integer(14, "warnings"), stages: try json([StageStatistics].self, 15, "stages"),
      issueCounts: try json([String: Int].self, 16, "issue_counts"),
      rowsWritten: try json([String: Int].self, 17, "rows_written"),
      rowsDeleted: statement.columnIsNull(18) ? nil : try json([String: Int].self, 18, "rows_deleted"))
  }

  /// Runs a read in a read-only transaction, ended with a rollback (there is nothing to keep);
  /// a lost connection is the history's own error, naming the server and never a password.
  private func reading<T>(_ body: () throws -> T) throws -> T {
    do {
      try store.execute("BEGIN TRANSACTION READ ONLY")
      defer { try? store.execute("ROLLBACK") }
      return try body()
    } catch let error as PostgreSQLError where error.isConnectionFailure {
      throw RunHistoryError(.unreachable, database: database, message: "lost the connection: \(error.message)")
    }
  }
}
