import Foundation
@_spi(Internals) import SluiceCore

/// The parallel runs of a PostgreSQL database that did not end — their process was killed, their
/// connection or server lost between the first prepare and the last commit — and what to do with
/// each: what `sluice recover` lists and, with `--apply`, does.
///
/// A run's row in `sluice_runs` is its commit log (`PostgreSQLAuditLog+Lanes`), its prepared lane
/// transactions are in `pg_prepared_xacts` under `sluice:<database>:<schema>:<run>:<k>/<n>`, and
/// each committed lane left its row in `sluice_run_lanes`. The rule follows from them alone: a
/// run whose row says `committing` had its commit decided, so its prepared lanes are committed;
/// any other run's prepared lanes are rolled back (nothing of it was committed). A run whose
/// coordinating session still holds the run's advisory lock is in progress and is left alone, as
/// is what cannot be read with certainty (a prepared transaction of an earlier Sluice, a lane
/// committed without a decision).
package final class PostgreSQLRecovery: RunRecovery {
  /// The database as messages name it: its connection string without a password.
  public let database: String
  let store: PostgreSQLStore
  /// The schema whose `sluice_runs` is scanned for interrupted rows besides those the prepared
  /// transactions name; nil: the session's current schema.
  let schema: String?

  public init(url: String, schema: String? = nil, connectTimeoutSeconds: Int? = nil) throws {
    let location = PostgreSQLConnectionString.redact(url)
    database = location
    self.schema = schema
    do {
      // No schema option: a recovery creates no schema, and acts on each run in its own.
      store = try PostgreSQLStore(url: url, options: .init(connectTimeoutSeconds: connectTimeoutSeconds))
    } catch let error as PostgreSQLError {
      throw RunHistoryError(
        .unreachable, database: location, message: "cannot connect to \(error.server): \(error.message)")
    }
  }

  /// One run that did not end, as the database shows it.
  package struct InterruptedRun: SluiceCore.InterruptedRun, Hashable {
    public var schema: String
    public var runID: Int64
    /// How many lane transactions the run had (its row's `lanes`, or the ids' `n`).
    public var lanes: Int
    /// Its row's status; nil when there is no row.
    public var status: String?
    /// `two-phase` or `ordered`, as its row says.
    public var commit: String?
    /// The lanes (from 1) prepared and still waiting.
    public var prepared: [Int]
    /// The lanes whose transactions were committed, and their inputs.
    public var committed: [Int]
    public var committedInputs: [String]
    /// Whether the run's coordinating session still holds its lock: it is in progress.
    public var isLive: Bool

    /// Whether its commit was decided (its row says `committing` or `succeeded`).
    public var isDecided: Bool { status == PostgreSQLAuditLog.committing || status == "succeeded" }

    /// What makes the database consistent again.
    public var action: Action {
      if isLive { return .none("in progress: the sluice running it holds its lock") }
      if isDecided {
        if !prepared.isEmpty { return .commit }
        if status == "succeeded" { return .none("nothing to do") }
        if committed.count == lanes { return .markSucceeded }
        return committed.isEmpty ? .markFailed : .markPartial
      }
      if !prepared.isEmpty { return .rollBack }
      if status == PostgreSQLAuditLog.running {
        if committed.isEmpty { return .markFailed }
        return .refuse(
          "lane(s) \(committed.map(String.init).joined(separator: ", ")) committed without a recorded decision")
      }
      return .none("nothing to do")
    }

    public var isPending: Bool { action.isPending }

    public var refusal: String? {
      if case .refuse(let reason) = action { return reason }
      return nil
    }

    /// One line: the run, its lanes, its decision, and the safe action.
    public var summary: String {
      var parts = ["run \(runID) in schema \(schema)"]
      var lanesText = "\(lanes) lane transaction(s)"
      if commit == "ordered" { lanesText += ", ordered commit" }
      func which(_ numbers: [Int]) -> String {
        numbers.isEmpty ? "none" : "\(numbers.count) (lane \(numbers.map(String.init).joined(separator: ", ")))"
      }
      lanesText += ": prepared \(which(prepared)), committed \(which(committed))"
      if !committedInputs.isEmpty { lanesText += " holding \(committedInputs.joined(separator: ", "))" }
      parts.append(lanesText)
      switch status {
      case nil: parts.append("no audit row: no commit decision")
      case let status? where isDecided: parts.append("commit decided (sluice_runs: \(status))")
      case let status?: parts.append("no commit decision (sluice_runs: \(status))")
      }
      return parts.joined(separator: "; ") + " — " + action.description
    }
  }

  /// What recovering a run does.
  package enum Action: Sendable, Hashable, CustomStringConvertible {
    /// Commit every prepared lane transaction, then mark the run succeeded (or partial).
    case commit
    /// Roll back every prepared lane transaction, then mark the run failed.
    case rollBack
    /// Every lane was committed; the row still says `committing`.
    case markSucceeded
    /// Only some lanes were committed and the others are gone: the row says so.
    case markPartial
    /// Interrupted before its decision, with nothing prepared or committed.
    case markFailed
    /// Nothing is to be done (a run in progress, or one already settled).
    case none(String)
    /// What the database shows cannot be settled safely by a rule: left for a person.
    case refuse(String)

    public var description: String {
      switch self {
      case .commit: return "safe action: commit its prepared lane transaction(s), as decided"
      case .rollBack: return "safe action: roll back its prepared lane transaction(s); nothing of the run is committed"
      case .markSucceeded: return "safe action: mark it succeeded (every lane was committed)"
      case .markPartial: return "safe action: mark it partial (only the lanes above were committed)"
      case .markFailed: return "safe action: mark it failed (nothing of it was committed)"
      case .none(let reason): return reason
      case .refuse(let reason): return "no safe action: \(reason); decide by hand"
      }
    }

    /// Whether something is to be done.
    public var isPending: Bool {
      if case .none = self { return false }
      return true
    }
  }

  /// What a scan found: interrupted runs, and prepared transactions of an earlier Sluice
  /// (`sluice-<pid>-<ms>-<n>`, whose lane 0 held the audit row), which no rule can settle.
  package struct Scan: Sendable {
    public var runs: [InterruptedRun]
    public var legacyTransactions: [String]

    public var needsRecovery: Bool { runs.contains { $0.action.isPending } || !legacyTransactions.isEmpty }
  }

  /// The interrupted runs of this database: the runs with a prepared lane transaction — of the
  /// schema asked for, or of any schema when none was — and the runs of the schema asked for (or
  /// the session's) whose row still says `running` or `committing`.
  package func scan() throws -> RecoveryScan<InterruptedRun> {
    let scan = try reading { try Self.scan(store, schema: schema, allSchemas: schema == nil) }
    return RecoveryScan(
      runs: scan.runs,
      unsettled: scan.legacyTransactions.map {
        "prepared transaction \($0): from a Sluice before 'sluice recover', whose lane 0 held the audit row — its outcome cannot be read from the database; no safe action: decide by hand (COMMIT PREPARED or ROLLBACK PREPARED, see docs/postgresql.md)"
      })
  }

  /// A server error while reading or acting is an I/O error naming the server, never a password.
  private func reading<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as PostgreSQLError {
      throw RunHistoryError(.unreachable, database: database, message: error.description)
    }
  }

  /// Settles one run by its safe action, under its lock (a run whose lock is taken is in
  /// progress and left alone), after reading it again; returns what was done.
  public func recover(_ run: InterruptedRun) throws -> String {
    try reading { try settle(run) }
  }

  private func settle(_ run: InterruptedRun) throws -> String {
    let locked = try store.prepare("SELECT pg_try_advisory_lock(\(PostgreSQLAuditLog.lockKey))")
    try locked.bind([.text(run.schema), .integer(run.runID)])
    let gotLock = try locked.step() && locked.columnValue(0) == .integer(1)
    locked.reset()
    guard gotLock else { return "run \(run.runID): left alone: a sluice holds its lock (in progress)" }
    defer {
      if let unlock = try? store.prepare("SELECT pg_advisory_unlock(\(PostgreSQLAuditLog.lockKey))") {
        try? unlock.run([.text(run.schema), .integer(run.runID)])
      }
    }
    // Read again under the lock: the first scan may be stale.
    guard
      var current = try Self.scan(store, schema: run.schema, allSchemas: false).runs.first(where: {
        $0.runID == run.runID && $0.schema == run.schema
      })
    else { return "run \(run.runID): nothing to do any more" }
    current.isLive = false
    try store.execute("SET search_path TO \(store.dialect.quote(run.schema))")
    let gids = try Self.prepared(store).filter { $0.id.schema == run.schema && $0.id.runID == run.runID }.map(\.gid)
    switch current.action {
    case .commit:
      for gid in gids { try store.commitPrepared(gid) }
      let after = try Self.committedLanes(store, schema: run.schema, runID: run.runID)
      if after.lanes.count == current.lanes {
        try PostgreSQLAuditLog.conclude(runID: run.runID, status: "succeeded", failure: nil, on: store)
        return
          "run \(run.runID): committed \(gids.count) prepared lane transaction(s); every lane is committed: succeeded"
      }
      try PostgreSQLAuditLog.conclude(
        runID: run.runID, status: PostgreSQLAuditLog.partial,
        failure: LaneRunLog.partialReason(committed: after.lanes, of: current.lanes, inputs: after.inputs), on: store)
      return
        "run \(run.runID): committed \(gids.count) prepared lane transaction(s); only \(after.lanes.count) of \(current.lanes) lanes are committed: partial"
    case .rollBack:
      for gid in gids { try store.rollbackPrepared(gid) }
      if current.status == PostgreSQLAuditLog.running {
        _ = try PostgreSQLAuditLog.markFailed(
          runID: run.runID,
          reason:
            "interrupted before its commit was decided; sluice recover rolled back its \(gids.count) prepared lane transaction(s): nothing of the run was committed",
          on: store)
      }
      return
        "run \(run.runID): rolled back \(gids.count) prepared lane transaction(s); nothing of it is committed: failed"
    case .markSucceeded:
      try PostgreSQLAuditLog.conclude(runID: run.runID, status: "succeeded", failure: nil, on: store)
      return "run \(run.runID): every lane is committed: marked succeeded"
    case .markPartial:
      try PostgreSQLAuditLog.conclude(
        runID: run.runID, status: PostgreSQLAuditLog.partial,
        failure: LaneRunLog.partialReason(
          committed: current.committed, of: current.lanes, inputs: current.committedInputs),
        on: store)
      return "run \(run.runID): only \(current.committed.count) of \(current.lanes) lanes are committed: marked partial"
    case .markFailed:
      if current.isDecided {
        try PostgreSQLAuditLog.conclude(
          runID: run.runID, status: "failed",
          failure:
            "interrupted after its commit was decided, before any lane was committed: nothing of the run was written",
          on: store)
      } else {
        _ = try PostgreSQLAuditLog.markFailed(
          runID: run.runID, reason: "interrupted before its commit was decided: nothing of the run was committed",
          on: store)
      }
      return "run \(run.runID): nothing of it is committed: marked failed"
    case .none(let reason):
      return "run \(run.runID): \(reason)"
    case .refuse(let reason):
      return "run \(run.runID): left alone: \(reason)"
    }
  }

  // MARK: - Reading the database

  /// The scan, on any connection (a read-only one too: it only reads): runs of `schema` (nil:
  /// the session's current schema), and with `allSchemas` the prepared runs of every schema.
  static func scan(_ store: PostgreSQLStore, schema: String?, allSchemas: Bool) throws -> Scan {
    let target = try schema ?? currentSchema(store)
    let ids = try prepared(store).map(\.id).filter { allSchemas || $0.schema == target }
    let legacy = try preparedLegacy(store)
    var schemas = Set(ids.map(\.schema))
    if let target { schemas.insert(target) }
    var runs: [InterruptedRun] = []
    for name in schemas.sorted() {
      let prepared = ids.filter { $0.schema == name }
      var rows = try hasLaneColumns(store, schema: name) ? try interruptedRows(store, schema: name) : [:]
      for id in prepared where rows[id.runID] == nil {
        rows[id.runID] = try row(store, schema: name, runID: id.runID) ?? (nil, nil, nil)
      }
      for (runID, row) in rows {
        let mine = prepared.filter { $0.runID == runID }
        let committed = try committedLanes(store, schema: name, runID: runID)
        runs.append(
          InterruptedRun(
            schema: name, runID: runID, lanes: row.lanes ?? mine.first?.lanes ?? committed.lanes.count,
            status: row.status, commit: row.commit, prepared: mine.map(\.lane).sorted(), committed: committed.lanes,
            committedInputs: committed.inputs, isLive: try isLive(store, schema: name, runID: runID)))
      }
    }
    return Scan(
      runs: runs.sorted { ($0.schema, $0.runID) < ($1.schema, $1.runID) }, legacyTransactions: legacy)
  }

  /// This database's prepared lane transactions: each id as written and as read.
  private static func prepared(_ store: PostgreSQLStore) throws -> [(gid: String, id: LaneTransactionID)] {
    try texts(
      store,
      "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE 'sluice:%' ORDER BY gid"
    )
    .compactMap { gid in LaneTransactionID(parsing: gid).map { (gid, $0) } }
  }

  private static func preparedLegacy(_ store: PostgreSQLStore) throws -> [String] {
    try texts(
      store,
      "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE 'sluice-%' ORDER BY gid")
  }

  private static func currentSchema(_ store: PostgreSQLStore) throws -> String? {
    try texts(store, "SELECT current_schema()::text").first
  }

  private static func hasLaneColumns(_ store: PostgreSQLStore, schema: String) throws -> Bool {
    let statement = try store.prepare(
      """
      SELECT count(*) FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = 'sluice_runs' AND column_name = 'lanes'
      """)
    try statement.bind(.text(schema), at: 1)
    defer { statement.reset() }
    return try statement.step() && statement.columnValue(0) == .integer(1)
  }

  private typealias Row = (status: String?, lanes: Int?, commit: String?)

  /// The schema's parallel runs whose row is still `running` or `committing`.
  private static func interruptedRows(_ store: PostgreSQLStore, schema: String) throws -> [Int64: Row] {
    let statement = try store.prepare(
      "SELECT run_id, status, lanes, lane_commit FROM \(store.dialect.quote(schema)).sluice_runs WHERE status IN ('running', 'committing')"
    )
    defer { statement.reset() }
    var rows: [Int64: Row] = [:]
    while try statement.step() {
      guard case .integer(let runID)? = statement.columnValue(0) else { continue }
      rows[runID] = rowValues(statement)
    }
    return rows
  }

  private static func row(_ store: PostgreSQLStore, schema: String, runID: Int64) throws -> Row? {
    guard try hasLaneColumns(store, schema: schema) else { return nil }
    let statement = try store.prepare(
      "SELECT run_id, status, lanes, lane_commit FROM \(store.dialect.quote(schema)).sluice_runs WHERE run_id = $1")
    try statement.bind(.integer(runID), at: 1)
    defer { statement.reset() }
    return try statement.step() ? rowValues(statement) : nil
  }

  private static func rowValues(_ statement: PostgreSQLStatement) -> Row {
    var row: Row = (nil, nil, nil)
    if case .text(let status)? = statement.columnValue(1) { row.status = status }
    if case .integer(let lanes)? = statement.columnValue(2) { row.lanes = Int(lanes) }
    if case .text(let commit)? = statement.columnValue(3) { row.commit = commit }
    return row
  }

  /// The lanes of a run whose transactions were committed (their `sluice_run_lanes` rows), with
  /// their inputs, in lane order.
  static func committedLanes(_ store: PostgreSQLStore, schema: String, runID: Int64) throws -> (
    lanes: [Int], inputs: [String]
  ) {
    let exists = try store.prepare("SELECT to_regclass($1) IS NOT NULL")
    try exists.bind(.text("\(store.dialect.quote(schema)).sluice_run_lanes"), at: 1)
    let found = try exists.step() && exists.columnValue(0) == .integer(1)
    exists.reset()
    guard found else { return ([], []) }
    let statement = try store.prepare(
      "SELECT lane, inputs::text FROM \(store.dialect.quote(schema)).sluice_run_lanes WHERE run_id = $1 ORDER BY lane")
    try statement.bind(.integer(runID), at: 1)
    defer { statement.reset() }
    var lanes: [Int] = []
    var inputs: [String] = []
    while try statement.step() {
      guard case .integer(let lane)? = statement.columnValue(0) else { continue }
      lanes.append(Int(lane))
      if case .text(let text)? = statement.columnValue(1),
        let paths = try? JSONDecoder().decode([String].self, from: Data(text.utf8))
      {
        inputs += paths
      }
    }
    return (lanes, inputs)
  }

  /// Whether a session holds the run's advisory lock: its coordinator is alive.
  private static func isLive(_ store: PostgreSQLStore, schema: String, runID: Int64) throws -> Bool {
    // The one-argument (bigint) form keeps the key's high half in classid, the low in objid.
    let statement = try store.prepare(
      """
      SELECT count(*) FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND pid <> pg_backend_pid()
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((classid::bigint << 32) | objid::bigint) = \(PostgreSQLAuditLog.lockKey)
      """)
    try statement.bind([.text(schema), .integer(runID)])
    defer { statement.reset() }
    guard try statement.step(), case .integer(let count)? = statement.columnValue(0) else { return false }
    return count > 0
  }

  private static func texts(_ store: PostgreSQLStore, _ sql: String) throws -> [String] {
    let statement = try store.prepare(sql)
    defer { statement.reset() }
    var texts: [String] = []
    while try statement.step() {
      if case .text(let text)? = statement.columnValue(0) { texts.append(text) }
    }
    return texts
  }
}
