import Foundation
@_spi(Internals) import SluiceCore

/// The engine's audit tables (`AuditTables`) in PostgreSQL, with the commit log of a parallel
/// run (`PostgreSQLAuditLog+Lanes`) and the numbers PostgreSQL databases recorded before the
/// tables were declared once: the lanes were `sluice-audit-3`, the input ledger `sluice-audit-4`,
/// a run's deletions `sluice-audit-5`.
enum PostgreSQLAuditLog {
  static let migrations = AuditTables.migrations(
    in: PostgreSQLDialect(), laneLog: true,
    formerly: [
      "sluice-audit-lanes": "sluice-audit-3", "sluice-audit-inputs": "sluice-audit-4",
      "sluice-audit-rows-deleted": "sluice-audit-5",
    ])

  /// Inserts the run's row and its issues; returns the run's id. Call inside a transaction.
  @discardableResult
  static func record(_ entry: AuditEntry, into store: PostgreSQLStore) throws -> Int64 {
    try AuditTables.record(entry, into: store, migrations: migrations)
  }
}
