import Foundation
@_spi(Internals) import SluiceCore

/// The run history of a SQLite database (`sluice_runs`, `sluice_rejects`: `AuditTables`), read without writing: the database is opened read-only, so looking at
/// last night's runs cannot change, lock for writing or create anything — with one exception,
/// the hot journal a crashed writer left, which must be rolled back before anything can be read
/// (`rollBack`): that is done as the next writer would do it, and said in `notes`.
///
/// Opening checks the file first, so a missing path is `databaseMissing` rather than SQLite's
/// "unable to open database file", and a file that is not SQLite is `notADatabase`.
package final class SQLiteRunHistory: RunHistory {
  public let path: String
  private let connection: SQLiteConnection
  /// Whether the audit tables exist (a database may hold only an unfinished checkpointed run).
  private let hasRuns: Bool
  /// What was done about a transaction a crashed process left in a hot rollback journal.
  private var crashNote: String?
  /// The private folder of the copy read instead of a database that could not be rolled back.
  private var copyFolder: String?

  deinit {
    if let copyFolder { try? FileManager.default.removeItem(atPath: copyFolder) }
  }

  /// Checkpointed runs that did not finish (`sluice_checkpoints`).
  /// and a staged run (`--stage`) whose side database is beside this one, unpublished.
  public func notes() throws -> [String] {
    var notes = crashNote.map { [$0] } ?? []
    notes += try CheckpointTable.notes(in: connection)
    if let staged = Self.stagedRunNote(path) { notes.append(staged) }
    return notes
  }

  /// What a staged run left beside the database at `path`, if it left anything.
  static func stagedRunNote(_ path: String) -> String? {
    let stage = path + ".sluice-stage"
    guard FileManager.default.fileExists(atPath: stage) else { return nil }
    var note =
      "a staged run into \(path) is unfinished in \(stage) (none of it is in \(path) yet): 'sluice run SPEC --stage --resume' finishes and publishes it, --restart discards it"
    if let side = try? SQLiteConnection(path: stage, options: .init(readOnly: true, create: false)),
      let inner = try? CheckpointTable.notes(in: side), let first = inner.first
    {
      note += "; in it, " + first
    }
    return note
  }

  public init(path: String, busyTimeoutMilliseconds: Int32 = 5_000) throws {
    self.path = path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      let staged = Self.stagedRunNote(path).map { "; \($0)" } ?? ""
      throw RunHistoryError(.databaseMissing, database: path, message: "no such file\(staged)")
    }
    guard !isDirectory.boolValue else {
      throw RunHistoryError(.databaseMissing, database: path, message: "is a directory, not a database")
    }
    guard FileManager.default.isReadableFile(atPath: path) else {
      throw RunHistoryError(.databaseMissing, database: path, message: "cannot be read (permission denied)")
    }
    do {
      let options = SQLiteConnection.OpenOptions(
        readOnly: true, create: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds,
        immutable: Self.isIdleWALDatabase(path))
      let tablesQuery =
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('sluice_runs', 'sluice_rejects')"
      var opened = try SQLiteConnection(path: path, options: options)
      // SQLite reads the file lazily: this first query is where a file that is not a database
      // says so — and where a hot journal is found.
      let tables: Int64?
      do {
        tables = try opened.scalarInt(tablesQuery)
      } catch let error as SQLiteError where error.extendedCode == Self.readOnlyRollback {
        let recovered = try Self.rollBack(path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        opened = try SQLiteConnection(path: recovered.path, options: options)
        tables = try opened.scalarInt(tablesQuery)
        crashNote = recovered.note
        copyFolder = recovered.copyFolder
      }
      connection = opened
      // A checkpointed run interrupted before any run was recorded has a history all the same:
      // that unfinished run (`notes`).
      hasRuns = tables == 2
      let checkpoints = try connection.scalarInt(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'sluice_checkpoints'")
      guard hasRuns || checkpoints == 1 else {
        throw RunHistoryError(
          .noHistory, database: path, message: "no run history (no sluice_runs table): no Sluice run was recorded here")
      }
    } catch let error as SQLiteError {
      throw Self.translate(error, path: path)
    }
  }

  /// `SQLITE_READONLY_ROLLBACK` (776): "a database cannot be opened because it has a hot
  /// journal that needs to be rolled back but cannot because the database is readonly."
  static let readOnlyRollback: Int32 = 776

  /// Rolls back the transaction a crashed process left in the hot journal beside `path` — what
  /// the next writer would do anyway — and returns the database to read and what was done.
  ///
  /// "Before reading from a database file, SQLite always checks to see if that database file
  /// has a hot journal. If the file does have a hot journal, then the journal is rolled back
  /// before the file is read." A read-write connection's first read does it. Where the
  /// database or its folder may not be written, the database and its journal are copied into
  /// a private folder and the copy is rolled back instead: the history is read as of the last
  /// commit, and the database itself is left as it is.
  static func rollBack(_ path: String, busyTimeoutMilliseconds: Int32) throws -> (
    path: String, note: String, copyFolder: String?
  ) {
    let journal = path + "-journal"
    let rerun =
      "a run killed in it wrote nothing of it: run it again ('sluice run SPEC'; a checkpointed run: 'sluice run SPEC --resume')"
    let folder = FilePaths.folder(of: path)
    if access(path, W_OK) == 0, access(folder.isEmpty ? "." : folder, W_OK) == 0 {
      let writer = try SQLiteConnection(
        path: path, options: .init(create: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds))
      _ = try writer.scalarInt("SELECT count(*) FROM sqlite_schema")
      return (
        path,
        "a transaction left unfinished by a process that crashed (its hot journal \(journal)) was found and rolled back: \(path) is as of its last commit, as the next run would have found it; \(rerun)",
        nil
      )
    }
    let copyFolder = NSTemporaryDirectory() + "/sluice-runs-" + UUID().uuidString
    do {
      try FileManager.default.createDirectory(
        atPath: copyFolder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
      let copy = copyFolder + "/database"
      try FileManager.default.copyItem(atPath: path, toPath: copy)
      try FileManager.default.copyItem(atPath: journal, toPath: copy + "-journal")
      let writer = try SQLiteConnection(
        path: copy, options: .init(create: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds))
      _ = try writer.scalarInt("SELECT count(*) FROM sqlite_schema")
      return (
        copy,
        "a transaction left unfinished by a process that crashed (its hot journal \(journal)) was found; this user may not roll it back in place, so the history was read from a copy with it rolled back, as of the last commit (the next run that writes to \(path) rolls it back there); \(rerun)",
        copyFolder
      )
    } catch {
      try? FileManager.default.removeItem(atPath: copyFolder)
      throw RunHistoryError(
        .unreachable, database: path,
        message:
          "holds a transaction a crashed process left unfinished (hot journal \(journal)), which this user may not roll back, and a copy to read it from could not be made (\(error)): run 'sluice runs' as a user who may write \(path) and its folder"
      )
    }
  }

  /// Whether `path` is a database in WAL mode that no connection has open: its header says WAL
  /// (bytes 18 and 19 are 2) and there is no `-wal` file beside it.
  ///
  /// Such a file is read as immutable. A plain read-only connection to a WAL database must
  /// create `-shm` and `-wal` beside it: in a directory it may not write, that fails (exit 74);
  /// as root it leaves root-owned files in another user's directory. With no `-wal` file every
  /// committed page is in the database file, so reading it alone is reading everything; a
  /// writer that starts meanwhile writes to a new `-wal` and leaves the pages read here alone
  /// until its checkpoint, long after this short read.
  static func isIdleWALDatabase(_ path: String) -> Bool {
    guard !FileManager.default.fileExists(atPath: path + "-wal"),
      let file = FileHandle(forReadingAtPath: path)
    else { return false }
    defer { try? file.close() }
    guard let header = try? file.read(upToCount: 20), header.count == 20 else { return false }
    return header.starts(with: Array("SQLite format 3\0".utf8)) && header[18] == 2 && header[19] == 2
  }

  public func recentRuns(limit: Int) throws -> [RecordedRun] {
    guard hasRuns else { return [] }
    return try reading {
      let statement = try connection.prepare("\(runColumns) ORDER BY run_id DESC LIMIT ?1")
      try statement.bind(.integer(Int64(max(limit, 0))), at: 1)
      var runs: [RecordedRun] = []
      while try statement.step() { runs.append(try recordedRun(statement)) }
      return runs
    }
  }

  public func run(id: Int64) throws -> RecordedRun {
    guard hasRuns else {
      throw RunHistoryError(.unknownRun, database: path, message: "no run \(id) (it records no runs)")
    }
    return try reading {
      let statement = try connection.prepare("\(runColumns) WHERE run_id = ?1")
      try statement.bind(.integer(id), at: 1)
      guard try statement.step() else {
        let range = try connection.prepare("SELECT min(run_id), max(run_id), count(*) FROM sluice_runs")
        var known = "it records no runs"
        if try range.step(), range.columnInt64(2) > 0 {
          known = "its runs are \(range.columnInt64(0))…\(range.columnInt64(1))"
        }
        throw RunHistoryError(.unknownRun, database: path, message: "no run \(id) (\(known))")
      }
      return try recordedRun(statement)
    }
  }

  public func issueGroups(ofRun id: Int64) throws -> [IssueGroup] {
    try reading {
      let statement = try connection.prepare(
        """
        SELECT stage, severity, code, path, count(*) FROM sluice_rejects WHERE run_id = ?1
        GROUP BY stage, severity, code, path
        """)
      try statement.bind(.integer(id), at: 1)
      var groups: [IssueGroup] = []
      while try statement.step() {
        guard let stage = statement.columnText(0).flatMap(Stage.init(rawValue:)),
          let severity = statement.columnText(1).flatMap(Severity.init(rawValue:)),
          let code = statement.columnText(2), let path = statement.columnText(3)
        else {
          throw RunHistoryError(
            .malformedRow, database: path, message: "run \(id) has an issue in sluice_rejects that Sluice did not write"
          )
        }
        groups.append(
          IssueGroup(stage: stage, severity: severity, code: code, path: path, count: Int(statement.columnInt64(4))))
      }
      return groups.sorted {
        ($0.stage.ordinal, -$0.count, $0.code, $0.path) < ($1.stage.ordinal, -$1.count, $1.code, $1.path)
      }
    }
  }

  public func inputs(ofRun id: Int64) throws -> [InputLedgerEntry] {
    try reading { try InputLedger.entries(ofRun: id, in: connection) }
  }

  /// `rows_deleted`, or NULL in a database recorded before snapshots existed.
  private var rowsDeleted: String {
    ((try? connection.columns(of: "sluice_runs")) ?? nil)?.contains("rows_deleted") == true ? "rows_deleted" : "NULL"
  }

  private var runColumns: String {
    Self.runColumns.replacingOccurrences(of: "rows_written\n", with: "rows_written, \(rowsDeleted)\n")
  }

  private static let runColumns = """
    SELECT run_id, pipeline, dataset, mode, input, policy, status, failure, started_at, finished_at,
      duration_seconds, records_read, records_loaded, records_rejected, warnings, stages, issue_counts,
      rows_written
    FROM sluice_runs
    """

  /// One row of `runColumns`; the JSON columns decoded as `AuditEntry` encoded them.
  private func recordedRun(_ statement: SQLiteStatement) throws -> RecordedRun {
    let id = statement.columnInt64(0)
    func malformed(_ column: String) -> RunHistoryError {
      RunHistoryError(.malformedRow, database: path, message: "run \(id): \(column) is not what Sluice writes")
    }
    func text(_ index: Int32, _ column: String) throws(RunHistoryError) -> String {
      guard let value = statement.columnText(index) else { throw malformed(column) }
      return value
    }
    func json<T: Decodable>(_ type: T.Type, _ index: Int32, _ column: String) throws(RunHistoryError) -> T {
      let raw = try text(index, column)
      guard let value = try? JSONDecoder().decode(type, from: Data(raw.utf8)) else { throw malformed(column) }
      return value
    }
    return RecordedRun(
      runID: id, pipeline: try text(1, "pipeline"), dataset: try text(2, "dataset"), mode: try text(3, "mode"),
      input: try text(4, "input"), policy: try text(5, "policy"), status: try text(6, "status"),
      failure: statement.columnText(7), startedAt: try text(8, "started_at"), finishedAt: try text(9, "finished_at"),
      durationSeconds: statement.columnDouble(10), recordsRead: Int(statement.columnInt64(11)),
      recordsLoaded: Int(statement.columnInt64(12)), recordsRejected: Int(statement.columnInt64(13)),
      warnings: Int(statement.columnInt64(14)), stages: try json([StageStatistics].self, 15, "stages"),
      issueCounts: try json([String: Int].self, 16, "issue_counts"),
      rowsWritten: try json([String: Int].self, 17, "rows_written"),
      rowsDeleted: statement.columnText(18) == nil ? nil : try json([String: Int].self, 18, "rows_deleted"))
  }

  /// Runs a read, turning SQLite's "not a database" into the history's own error.
  private func reading<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as SQLiteError {
      throw Self.translate(error, path: path)
    }
  }

  /// `SQLITE_NOTADB` (26): "The file being opened is not a database file."
  /// `SQLITE_CANTOPEN` (14): the file vanished or cannot be opened between the check and the open.
  private static func translate(_ error: SQLiteError, path: String) -> any Error {
    switch error.code {
    case 26: RunHistoryError(.notADatabase, database: path, message: "not a SQLite database")
    case 14: RunHistoryError(.databaseMissing, database: path, message: "cannot be opened: \(error.message)")
    default: error
    }
  }
}
