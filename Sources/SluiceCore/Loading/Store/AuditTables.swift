import Foundation

/// The engine's tables in every store, declared once and rendered in the store's dialect: the
/// audit trail (`sluice_runs`, one row per run, and `sluice_rejects`, its sampled issues without
/// values), the input ledger (`sluice_inputs`, `InputLedger`) and, for a store that loads in lanes
/// (`LaneConnection`), the lanes a parallel run committed (`sluice_run_lanes`).
///
/// Each change is a `Migration` whose identifier never changes once released. The drivers used to
/// declare these tables each in its own SQL, and their numbering drifted apart: `sluice-audit-3`
/// is the input ledger in a SQLite database and the lanes in a PostgreSQL one. Identifiers from
/// `sluice-audit-3` on are therefore names, and a driver passes the numbers it released under
/// (`formerly`), so that a database migrated by an earlier Sluice is recognized as migrated — and
/// a database migrated now records the former number too, so an earlier Sluice still opens it.
///
/// A successful run records itself inside its own transaction. A failed run is rolled back first
/// and then records itself in a transaction of its own: the only write a failed run leaves
/// behind is its audit row.
package enum AuditTables {
  package static let runs = "sluice_runs"

  /// The statuses a run's row may have. A store that loads in lanes keeps a parallel run's commit
  /// log in the row (`LaneRunLog.Status`); any other store's runs only succeed or fail.
  static let finalStatuses = [LaneRunLog.Status.succeeded, .failed].map(\.rawValue)
  static let laneStatuses = [LaneRunLog.Status.succeeded, .failed, .running, .committing, .partial].map(\.rawValue)

  /// The audit tables' migrations in `dialect`, in order. `laneLog`: the store loads in lanes
  /// (`ParallelLoadingDriver`), so its runs' rows carry a commit log and `sluice_run_lanes`
  /// exists. `formerly`: the identifier under which this driver released a migration, by its
  /// identifier here.
  package static func migrations(in dialect: any SQLDialect, laneLog: Bool, formerly: [String: String] = [:])
    -> [Migration]
  {
    let text = dialect.typeName(.text)
    let integer = dialect.typeName(.integer)
    let real = dialect.typeName(.real)
    let time = dialect.typeName(.timestamp)
    let document = dialect.documentTypeName
    let options = dialect.tableOptions(hasCompositeKey: false)
    func statuses(_ values: [String]) -> String { values.map { "'\($0)'" }.joined(separator: ", ") }
    var migrations = [
      Migration(
        "sluice-audit-1",
        sql: """
          CREATE TABLE IF NOT EXISTS sluice_runs (
            run_id \(dialect.generatedKey),
            pipeline \(text) NOT NULL,
            dataset \(text) NOT NULL,
            mode \(text) NOT NULL,
            input \(text) NOT NULL,
            policy \(text) NOT NULL,
            status \(text) NOT NULL CHECK (status IN (\(statuses(finalStatuses)))),
            failure \(text),
            started_at \(time) NOT NULL,
            finished_at \(time) NOT NULL,
            duration_seconds \(real) NOT NULL,
            records_read \(integer) NOT NULL,
            records_loaded \(integer) NOT NULL,
            records_rejected \(integer) NOT NULL,
            warnings \(integer) NOT NULL,
            stages \(document) NOT NULL,
            issue_counts \(document) NOT NULL,
            rows_written \(document) NOT NULL
          ) \(options);
          CREATE TABLE IF NOT EXISTS sluice_rejects (
            run_id \(integer) NOT NULL REFERENCES sluice_runs (run_id) ON DELETE CASCADE,
            sequence \(integer) NOT NULL,
            stage \(text) NOT NULL,
            severity \(text) NOT NULL,
            code \(text) NOT NULL,
            rule \(text),
            record_ordinal \(integer),
            byte_offset \(integer),
            line \(integer),
            path \(text) NOT NULL,
            message \(text) NOT NULL,
            PRIMARY KEY (run_id, sequence)
          ) \(options);
          """),
      // A run may read several inputs: each run keeps its input sections, each issue its input.
      Migration(
        "sluice-audit-2",
        sql: """
          ALTER TABLE sluice_runs ADD COLUMN inputs \(document);
          ALTER TABLE sluice_rejects ADD COLUMN input \(text);
          """),
    ]
    if laneLog {
      // A parallel run (`--jobs`) commits in steps its row records (`LaneConnection`):
      // `running` while the lanes load, `committing` once the commit is decided, then
      // `succeeded` — or `failed`, or `partial` when only some lane transactions were committed.
      // Each lane transaction leaves a row in sluice_run_lanes, so what was committed can be read
      // back. The check is replaced under the name the server gave it in `sluice-audit-1`.
      migrations.append(
        Migration(
          "sluice-audit-lanes",
          sql: """
            ALTER TABLE sluice_runs DROP CONSTRAINT IF EXISTS sluice_runs_status_check;
            ALTER TABLE sluice_runs ADD CONSTRAINT sluice_runs_status_check
              CHECK (status IN (\(statuses(laneStatuses))));
            ALTER TABLE sluice_runs ADD COLUMN lanes \(integer);
            ALTER TABLE sluice_runs ADD COLUMN lane_commit \(text);
            CREATE TABLE IF NOT EXISTS sluice_run_lanes (
              run_id \(integer) NOT NULL,
              lane \(integer) NOT NULL,
              lanes \(integer) NOT NULL,
              inputs \(document) NOT NULL,
              PRIMARY KEY (run_id, lane)
            ) \(options);
            """))
    }
    migrations += [
      // The input ledger: every input a committed run read (or, incremental, skipped), with the
      // SHA-256 of its bytes (`InputLedger`).
      Migration(
        "sluice-audit-inputs",
        sql: """
          CREATE TABLE IF NOT EXISTS sluice_inputs (
            run_id \(integer) NOT NULL REFERENCES sluice_runs (run_id) ON DELETE CASCADE,
            position \(integer) NOT NULL,
            path \(text) NOT NULL,
            dataset \(text) NOT NULL,
            status \(text) NOT NULL CHECK (status IN ('loaded', 'skipped')),
            size \(integer),
            modified_at \(time),
            fingerprint \(text),
            sha256 \(text) NOT NULL,
            head_sha256 \(text) NOT NULL,
            records_read \(integer) NOT NULL,
            records_loaded \(integer) NOT NULL,
            records_rejected \(integer) NOT NULL,
            records_skipped \(integer) NOT NULL,
            same_as_run \(integer),
            PRIMARY KEY (run_id, position)
          ) \(options);
          CREATE INDEX IF NOT EXISTS sluice_inputs_path ON sluice_inputs (dataset, path);
          CREATE INDEX IF NOT EXISTS sluice_inputs_content ON sluice_inputs (dataset, size, head_sha256);
          """),
      // A snapshot run's deletions per table.
      Migration("sluice-audit-rows-deleted", sql: "ALTER TABLE sluice_runs ADD COLUMN rows_deleted \(document);"),
      // Remote inputs (`https://…`, `s3://…`): the object's ETag and Last-Modified, what an
      // incremental run tells an object it holds by. Older rows (files) keep them null.
      Migration(
        "sluice-audit-inputs-remote",
        sql: """
          ALTER TABLE sluice_inputs ADD COLUMN etag \(text);
          ALTER TABLE sluice_inputs ADD COLUMN last_modified \(text);
          """),
    ]
    return migrations.map { migration in
      var migration = migration
      migration.formerIdentifier = formerly[migration.identifier]
      return migration
    }
  }

  /// Inserts the run's row and its issues, after the store's audit migrations; returns the
  /// run's id. Call inside a transaction.
  @discardableResult
  package static func record(_ entry: AuditEntry, into store: some Store, migrations: [Migration]) throws -> Int64 {
    try Migrator.migrate(store, migrations)
    let parameters = (1...19).map { store.dialect.parameter($0) }.joined(separator: ", ")
    let insert = try store.prepare(
      """
      INSERT INTO sluice_runs (pipeline, dataset, mode, input, policy, status, failure, started_at,
        finished_at, duration_seconds, records_read, records_loaded, records_rejected, warnings,
        stages, issue_counts, rows_written, inputs, rows_deleted)
      VALUES (\(parameters))
      RETURNING run_id
      """)
    try insert.bind([
      .text(entry.pipeline), .text(entry.dataset), .text(entry.mode), .text(entry.input), .text(entry.policy),
      .text(entry.status), entry.failure.map { .text($0) }, .text(TimestampText.text(entry.startedAt)),
      .text(TimestampText.text(entry.finishedAt)), .real(entry.durationSeconds), .integer(Int64(entry.recordsRead)),
      .integer(Int64(entry.recordsLoaded)), .integer(Int64(entry.recordsRejected)), .integer(Int64(entry.warnings)),
      .text(entry.stagesJSON), .text(entry.issueCountsJSON), .text(entry.rowsWrittenJSON), .text(entry.inputsJSON),
      entry.rowsDeletedJSON.map { .text($0) },
    ])
    let runID: Int64
    do {
      defer { insert.reset() }
      guard try insert.step(), case .integer(let id)? = insert.columnValue(0) else {
        throw AuditTablesError(message: "the store returned no run id for the run's audit row")
      }
      runID = id
    }
    try recordIssues(of: entry, runID: runID, into: store)
    try InputLedger.record(entry.inputLedger, runID: runID, into: store)
    return runID
  }

  /// Inserts the run's issues into `sluice_rejects`. Call inside a transaction.
  package static func recordIssues(of entry: AuditEntry, runID: Int64, into store: some Store) throws {
    guard !entry.issues.isEmpty else { return }
    let parameters = (1...12).map { store.dialect.parameter($0) }.joined(separator: ", ")
    let reject = try store.prepare(
      """
      INSERT INTO sluice_rejects (run_id, sequence, stage, severity, code, rule, record_ordinal,
        byte_offset, line, path, message, input)
      VALUES (\(parameters))
      """)
    for (sequence, issue) in entry.issues.enumerated() {
      try reject.run(entry.rejectRow(issue, sequence: sequence + 1, runID: runID))
    }
  }
}

/// The store answered an insert into the audit tables without the row's id.
package struct AuditTablesError: Error, CustomStringConvertible {
  package var message: String
  package var description: String { message }
}
