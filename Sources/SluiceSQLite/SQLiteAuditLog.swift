import Foundation
@_spi(Internals) import SluiceCore

/// The audit trail in the target database: `sluice_runs` (one row per run, however many inputs
/// it read) and `sluice_rejects` (that run's sampled issues with their input, without values), so
/// nightly problems can be queried with SQL.
///
/// A successful run records itself inside its own transaction. A failed run is rolled back
/// first and then records itself in a transaction of its own: the only write a failed run
/// leaves behind is its audit row.
enum SQLiteAuditLog {
  static let migrations = [
    Migration(
      "sluice-audit-1",
      sql: """
        CREATE TABLE IF NOT EXISTS sluice_runs (
          run_id INTEGER PRIMARY KEY,
          pipeline TEXT NOT NULL,
          dataset TEXT NOT NULL,
          mode TEXT NOT NULL,
          input TEXT NOT NULL,
          policy TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('succeeded', 'failed')),
          failure TEXT,
          started_at TEXT NOT NULL,
          finished_at TEXT NOT NULL,
          duration_seconds REAL NOT NULL,
          records_read INTEGER NOT NULL,
          records_loaded INTEGER NOT NULL,
          records_rejected INTEGER NOT NULL,
          warnings INTEGER NOT NULL,
          stages TEXT NOT NULL,
          issue_counts TEXT NOT NULL,
          rows_written TEXT NOT NULL
        ) STRICT;
        CREATE TABLE IF NOT EXISTS sluice_rejects (
          run_id INTEGER NOT NULL REFERENCES sluice_runs (run_id) ON DELETE CASCADE,
          sequence INTEGER NOT NULL,
          stage TEXT NOT NULL,
          severity TEXT NOT NULL,
          code TEXT NOT NULL,
          rule TEXT,
          record_ordinal INTEGER,
          byte_offset INTEGER,
          line INTEGER,
          path TEXT NOT NULL,
          message TEXT NOT NULL,
          PRIMARY KEY (run_id, sequence)
        ) STRICT;
        """),
    // A run may read several inputs: each run keeps its input sections, each issue its input.
    Migration(
      "sluice-audit-2",
      sql: """
        ALTER TABLE sluice_runs ADD COLUMN inputs TEXT;
        ALTER TABLE sluice_rejects ADD COLUMN input TEXT;
        """),
    // The input ledger: every input a committed run read (or, incremental, skipped), with the
    // SHA-256 of its bytes (`InputLedger`).
    Migration(
      "sluice-audit-3",
      sql: """
        CREATE TABLE IF NOT EXISTS sluice_inputs (
          run_id INTEGER NOT NULL REFERENCES sluice_runs (run_id) ON DELETE CASCADE,
          position INTEGER NOT NULL,
          path TEXT NOT NULL,
          dataset TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('loaded', 'skipped')),
          size INTEGER,
          modified_at TEXT,
          fingerprint TEXT,
          sha256 TEXT NOT NULL,
          head_sha256 TEXT NOT NULL,
          records_read INTEGER NOT NULL,
          records_loaded INTEGER NOT NULL,
          records_rejected INTEGER NOT NULL,
          records_skipped INTEGER NOT NULL,
          same_as_run INTEGER,
          PRIMARY KEY (run_id, position)
        ) STRICT;
        CREATE INDEX IF NOT EXISTS sluice_inputs_path ON sluice_inputs (dataset, path);
        CREATE INDEX IF NOT EXISTS sluice_inputs_content ON sluice_inputs (dataset, size, head_sha256);
        """),  // A snapshot run's deletions per table.
    Migration("sluice-audit-4", sql: "ALTER TABLE sluice_runs ADD COLUMN rows_deleted TEXT;"),
  ]

  /// Inserts the run's row and its issues; returns the run's id. Call inside a transaction.
  @discardableResult
  static func record(_ entry: AuditEntry, into connection: SQLiteConnection) throws -> Int64 {
    try Migrator.migrate(connection, migrations)
    let insert = try connection.prepare(
      """
      INSERT INTO sluice_runs (pipeline, dataset, mode, input, policy, status, failure, started_at,
        finished_at, duration_seconds, records_read, records_loaded, records_rejected, warnings,
        stages, issue_counts, rows_written, inputs, rows_deleted)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """)
    try insert.run([
      .text(entry.pipeline), .text(entry.dataset), .text(entry.mode), .text(entry.input), .text(entry.policy),
      .text(entry.status), entry.failure.map { .text($0) }, .text(TimestampText.text(entry.startedAt)),
      .text(TimestampText.text(entry.finishedAt)), .real(entry.durationSeconds), .integer(Int64(entry.recordsRead)),
      .integer(Int64(entry.recordsLoaded)), .integer(Int64(entry.recordsRejected)), .integer(Int64(entry.warnings)),
      .text(entry.stagesJSON), .text(entry.issueCountsJSON), .text(entry.rowsWrittenJSON), .text(entry.inputsJSON),
      entry.rowsDeletedJSON.map { .text($0) },
    ])
    guard let runID = try connection.scalarInt("SELECT last_insert_rowid()") else {
      throw SQLiteError(code: 1, extendedCode: 1, message: "no run id after insert")
    }
    let reject = try connection.prepare(
      """
      INSERT INTO sluice_rejects (run_id, sequence, stage, severity, code, rule, record_ordinal,
        byte_offset, line, path, message, input)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """)
    for (sequence, issue) in entry.issues.enumerated() {
      try reject.run(entry.rejectRow(issue, sequence: sequence + 1, runID: runID))
    }
    try InputLedger.record(entry.inputLedger, runID: runID, into: connection)
    return runID
  }
}

extension SQLiteConnection {
  public func recordAudit(_ entry: AuditEntry) throws { try SQLiteAuditLog.record(entry, into: self) }
}
