import Foundation
@_spi(Internals) import SluiceCore

// The audit row of a parallel run (`--jobs`) is its commit log. A run's lanes load in
// transactions of their own, and none of them carries the row: it is written and changed only by
// the coordinating connection, each change committed on its own, so the row says at every moment
// what the lanes' transactions may become:
//
//   running ──(every lane prepared, or about to commit in order)──▶ committing ──▶ succeeded
//      │                                                              │
//      └──▶ failed (nothing of the run is committed)                  └──▶ partial (some lanes)
//
// The change from `running` is a compare-and-set (`UPDATE … WHERE status = 'running'`): the
// coordinator's decision to commit and anyone's decision to roll back (the coordinator after a
// failure, `sluice recover` after a crash) cannot both succeed, whatever the timing — an update
// waits for a concurrent one to end and then sees its result. So the rule for a prepared lane
// transaction is simple: its run's row says `committing` (or `succeeded`): commit it; anything
// else: roll it back.
//
// Each lane transaction also inserts its row in `sluice_run_lanes` (run, lane k, lanes n, its
// inputs) just before it is prepared or committed: that row is committed exactly when the lane's
// data is, so which lanes a run committed can always be read back.
extension PostgreSQLAuditLog {
  /// The status of a parallel run's row while its lanes load.
  static let running = LaneRunLog.Status.running.rawValue
  static let committing = LaneRunLog.Status.committing.rawValue
  static let partial = LaneRunLog.Status.partial.rawValue

  /// Inserts the `running` row of a parallel run about to load over `lanes` connections and
  /// returns the run. Call inside a transaction, which must commit before the lanes begin.
  static func begin(_ entry: AuditEntry, lanes: Int, twoPhase: Bool, on store: PostgreSQLStore) throws -> LaneRunLog {
    var entry = entry
    entry.status = running
    entry.failure = nil
    entry.issues = []
    let runID = try record(entry, into: store)
    let update = try store.prepare("UPDATE sluice_runs SET lanes = $2, lane_commit = $3 WHERE run_id = $1")
    try update.run([.integer(runID), .integer(Int64(lanes)), .text(twoPhase ? "two-phase" : "ordered")])
    let names = try store.prepare("SELECT current_database()::text, current_schema()::text")
    defer { names.reset() }
    guard try names.step(), case .text(let database)? = names.columnValue(0),
      case .text(let schema)? = names.columnValue(1)
    else {
      throw PostgreSQLError(
        sqlState: "XX000", message: "no current schema for the run's audit row", server: store.server)
    }
    return LaneRunLog(runID: runID, database: database, schema: schema, lanes: lanes, twoPhase: twoPhase)
  }

  /// Records the decision to commit: the row, `running`, becomes `committing` with the run's
  /// final counts and its issues, in a transaction of its own. False when the row was no longer
  /// `running` — the run was rolled back meanwhile (by `sluice recover`): nothing may commit.
  static func decide(_ run: LaneRunLog, _ entry: AuditEntry, on store: PostgreSQLStore) throws -> Bool {
    try store.withTransaction {
      guard try update(run, to: committing, with: entry, from: running, on: store) else { return false }
      try AuditTables.recordIssues(of: entry, runID: run.runID, into: store)
      try InputLedger.record(entry.inputLedger, runID: run.runID, into: store)
      return true
    }
  }

  /// Records that the run is rolled back: the row, `running`, becomes `failed` with `entry`'s
  /// counts, issues and reason, in a transaction of its own. Returns the status the row had: if
  /// it was not `running` (`committing`: the commit was decided), nothing changed.
  static func abort(_ run: LaneRunLog, _ entry: AuditEntry, on store: PostgreSQLStore) throws -> String? {
    try store.withTransaction {
      if try update(run, to: "failed", with: entry, from: running, on: store) {
        try AuditTables.recordIssues(of: entry, runID: run.runID, into: store)
        return running
      }
      return try status(of: run.runID, on: store)
    }
  }

  /// Ends a decided run: `committing` becomes `succeeded`, or `partial` with `failure` saying
  /// which lanes were committed. False when the row was not `committing`.
  @discardableResult
  static func conclude(runID: Int64, status: String, failure: String?, on store: PostgreSQLStore) throws -> Bool {
    try store.withTransaction {
      let update = try store.prepare(
        "UPDATE sluice_runs SET status = $2, failure = $3 WHERE run_id = $1 AND status = 'committing'")
      try update.run([
        .integer(runID), .text(status), failure.map { .text(AuditText.storable($0, limit: AuditText.failureLimit)) },
      ])
      return store.changes == 1
    }
  }

  /// Marks a row that is still `running` as `failed` with `reason` (a run interrupted before its
  /// decision). False when it was not `running`.
  static func markFailed(runID: Int64, reason: String, on store: PostgreSQLStore) throws -> Bool {
    try store.withTransaction {
      let update = try store.prepare(
        "UPDATE sluice_runs SET status = 'failed', failure = $2 WHERE run_id = $1 AND status = 'running'")
      try update.run([.integer(runID), .text(AuditText.storable(reason, limit: AuditText.failureLimit))])
      return store.changes == 1
    }
  }

  /// The status of a run's row; nil when there is none.
  static func status(of runID: Int64, on store: PostgreSQLStore) throws -> String? {
    let statement = try store.prepare("SELECT status FROM sluice_runs WHERE run_id = $1")
    try statement.bind(.integer(runID), at: 1)
    defer { statement.reset() }
    guard try statement.step(), case .text(let status)? = statement.columnValue(0) else { return nil }
    return status
  }

  /// Inserts a lane transaction's own row (`sluice_run_lanes`): call in that transaction, just
  /// before it is prepared or committed.
  static func recordLane(_ run: LaneRunLog, lane: Int, inputs: [String], on store: PostgreSQLStore) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    let paths = (try? encoder.encode(inputs)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    let insert = try store.prepare("INSERT INTO sluice_run_lanes (run_id, lane, lanes, inputs) VALUES ($1, $2, $3, $4)")
    try insert.run([.integer(run.runID), .integer(Int64(lane)), .integer(Int64(run.lanes)), .text(paths)])
  }

  /// The advisory lock a parallel run's coordinating connection holds from its first step to its
  /// last, so `sluice recover` can tell a run in progress from an interrupted one: its key, from
  /// the schema and the run id, as SQL over `$1` (the schema) and `$2` (the run id).
  static let lockKey = "hashtextextended('sluice run ' || $1 || ':' || $2::text, 0)"

  /// Takes the run's lock for this session (`pg_advisory_lock`; a session holds it until it
  /// ends or unlocks it), waiting at most the session's `lock_timeout`.
  static func lock(_ run: LaneRunLog, on store: PostgreSQLStore) throws {
    let lock = try store.prepare("SELECT pg_advisory_lock(\(lockKey))")
    try lock.run([.text(run.schema), .integer(run.runID)])
  }

  /// Sets a row of the run from `entry` and moves it from status `from` to `status`; false when
  /// the row did not have status `from`.
  private static func update(
    _ run: LaneRunLog, to status: String, with entry: AuditEntry, from: String, on store: PostgreSQLStore
  ) throws -> Bool {
    let update = try store.prepare(
      """
      UPDATE sluice_runs SET status = $2, failure = $3, finished_at = $4, duration_seconds = $5, records_read = $6,
        records_loaded = $7, records_rejected = $8, warnings = $9, stages = $10, issue_counts = $11,
        rows_written = $12, inputs = $13
      WHERE run_id = $1 AND status = $14
      """)
    try update.run([
      .integer(run.runID), .text(status), entry.failure.map { .text($0) }, .text(TimestampText.text(entry.finishedAt)),
      .real(entry.durationSeconds), .integer(Int64(entry.recordsRead)), .integer(Int64(entry.recordsLoaded)),
      .integer(Int64(entry.recordsRejected)), .integer(Int64(entry.warnings)), .text(entry.stagesJSON),
      .text(entry.issueCountsJSON), .text(entry.rowsWrittenJSON), .text(entry.inputsJSON), .text(from),
    ])
    return store.changes == 1
  }
}
