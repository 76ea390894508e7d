internal import CLibPQ
@_spi(Internals) import SluiceCore

/// What a parallel run (`--jobs N`, the engine's `ParallelRun`) needs of a connection beyond
/// `withTransaction`: a transaction it opens and ends itself, since every lane's stays open until
/// all have loaded, two-phase commit, and the run's commit log (`PostgreSQLAuditLog+Lanes`).
///
/// `PREPARE TRANSACTION` refuses a transaction that used temporary tables, so a store that is to
/// be prepared stages its bulk batches in ordinary unlogged tables of its own, named after the
/// server process, and drops them before the prepare (`dropStagingTables`).
extension PostgreSQLStore: LaneConnection {
  /// Opens a transaction (creating the named schema first if this connection found it missing:
  /// another may have created it since, hence `IF NOT EXISTS`).
  package func beginTransaction() throws {
    try run("BEGIN")
    // No migrations lock here: the run's migrations were committed before its lanes began, and
    // a lane's transaction lasts the whole load (a lock held that long would stop the others).
    if createsSchema, let schema {
      try run("CREATE SCHEMA IF NOT EXISTS \(dialect.quote(schema))")
    }
  }

  /// Commits the open transaction; throws when the server rolled it back instead (the store's
  /// one `commit`, which `withTransaction` ends with too).
  package func commitTransaction() throws {
    try commit()
  }

  /// Rolls the open transaction back, if there is one; best effort.
  package func rollbackTransaction() {
    try? run("ROLLBACK")
  }

  /// The server's `max_prepared_transactions`: 0 when two-phase commit is off (the default).
  package func maxPreparedTransactions() throws -> Int {
    let result = PQexec(connection, "SHOW max_prepared_transactions")
    defer { PQclear(result) }
    try check(result, sql: "SHOW max_prepared_transactions")
    guard PQntuples(result) == 1, let value = PQgetvalue(result, 0, 0) else { return 0 }
    return Int(String(cString: value)) ?? 0
  }

  /// The server process of this connection, unique among the sessions that run at once.
  var backendProcessID: Int32 { PQbackendPID(connection) }

  package var sessionID: Int32 { backendProcessID }

  /// A Citus coordinator refuses `PREPARE TRANSACTION` once a transaction touched distributed
  /// tables ("cannot use 2PC in transactions involving multiple servers").
  package var twoPhaseRefusal: String? {
    isCitus ? "on Citus: its coordinator cannot prepare a transaction that touched distributed tables" : nil
  }

  package func isConnectionLost(_ error: any Error) -> Bool {
    (error as? PostgreSQLError)?.isConnectionFailure == true
  }

  /// Drops the staging tables of a store that stages in ordinary tables, before a prepare.
  func dropStagingTables() throws {
    guard !stagingTables.isEmpty else { return }
    try run("DROP TABLE IF EXISTS " + stagingTables.joined(separator: ", "))
    stagingTables.removeAll()
  }

  /// `PREPARE TRANSACTION`: the open transaction is kept by the server, surviving this
  /// connection and a crash, until `COMMIT PREPARED` or `ROLLBACK PREPARED` names `identifier`.
  package func prepareTransaction(_ identifier: String) throws {
    try dropStagingTables()
    try run("PREPARE TRANSACTION \(dialect.literal(identifier))")
  }

  package func commitPrepared(_ identifier: String) throws {
    try run("COMMIT PREPARED \(dialect.literal(identifier))")
  }

  package func rollbackPrepared(_ identifier: String) throws {
    try run("ROLLBACK PREPARED \(dialect.literal(identifier))")
  }

  /// Whether a transaction is prepared under `identifier` in this database.
  package func isPrepared(_ identifier: String) throws -> Bool {
    let statement = try prepare(
      "SELECT count(*) FROM pg_prepared_xacts WHERE gid = $1 AND database = current_database()")
    try statement.bind(.text(identifier), at: 1)
    defer { statement.reset() }
    return try statement.step() && statement.columnValue(0) != .integer(0)
  }

  /// Whether the connection still answers.
  var isAlive: Bool { (try? run("SELECT 1")) != nil }

  // MARK: The commit log (`PostgreSQLAuditLog+Lanes`)

  package func beginLaneRun(_ entry: AuditEntry, lanes: Int, twoPhase: Bool) throws -> LaneRunLog {
    try PostgreSQLAuditLog.begin(entry, lanes: lanes, twoPhase: twoPhase, on: self)
  }

  package func holdLaneRun(_ run: LaneRunLog) throws { try PostgreSQLAuditLog.lock(run, on: self) }

  package func transactionID(of run: LaneRunLog, lane: Int) -> String {
    LaneTransactionID(database: run.database, schema: run.schema, runID: run.runID, lane: lane, lanes: run.lanes)
      .description
  }

  package func recordLane(of run: LaneRunLog, lane: Int, inputs: [String]) throws {
    try PostgreSQLAuditLog.recordLane(run, lane: lane, inputs: inputs, on: self)
  }

  package func decideLaneRun(_ run: LaneRunLog, _ entry: AuditEntry) throws -> Bool {
    try PostgreSQLAuditLog.decide(run, entry, on: self)
  }

  package func abortLaneRun(_ run: LaneRunLog, _ entry: AuditEntry) throws -> LaneRunLog.Status? {
    try PostgreSQLAuditLog.abort(run, entry, on: self).flatMap(LaneRunLog.Status.init(rawValue:))
  }

  @discardableResult
  package func concludeLaneRun(_ run: LaneRunLog, _ status: LaneRunLog.Status, failure: String?) throws -> Bool {
    try PostgreSQLAuditLog.conclude(runID: run.runID, status: status.rawValue, failure: failure, on: self)
  }

  package func committedLanes(of run: LaneRunLog) throws -> (lanes: [Int], inputs: [String]) {
    try PostgreSQLRecovery.committedLanes(self, schema: run.schema, runID: run.runID)
  }
}

extension PostgreSQLStore {
  /// For a run that waited for a lock in vain: prepared transactions of an interrupted parallel
  /// run hold their locks until they are settled, which `sluice recover` does.
  public func lockHoldersNote(describing target: DatabaseTarget) -> String {
    var note = ""
    if let holders = otherSluiceTransactions(), !holders.isEmpty {
      note += "; held by " + holders.joined(separator: ", ")
    }
    guard
      let count = try? scalarInt(
        "SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE 'sluice%'"),
      count > 0
    else { return note }
    return note
      + "; \(count) prepared transaction(s) of an interrupted parallel run (--jobs) hold locks in this database: 'sluice recover \(target)' lists them and whether to commit or roll back each, and --apply does it"
  }

  /// The other Sluice sessions of this database in a transaction, as `sluice (PostgreSQL
  /// backend 123, client 10.0.0.5, transaction since 2026-12-01T02:00:04Z)`: who holds what a
  /// run waited for in vain.
  private func otherSluiceTransactions() -> [String]? {
    guard
      let query = try? prepare(
        """
        SELECT pid, coalesce(host(client_addr), 'local'),
          to_char(xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
        FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'sluice' AND pid <> pg_backend_pid()
          AND xact_start IS NOT NULL
        ORDER BY xact_start LIMIT 5
        """)
    else { return nil }
    defer { query.reset() }
    var holders: [String] = []
    while (try? query.step()) == true {
      guard case .integer(let pid)? = query.columnValue(0), case .text(let client)? = query.columnValue(1),
        case .text(let since)? = query.columnValue(2)
      else { continue }
      holders.append("sluice (PostgreSQL backend \(pid), client \(client), transaction since \(since))")
    }
    return holders
  }
}
