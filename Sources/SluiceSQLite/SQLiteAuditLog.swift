import Foundation
@_spi(Internals) import SluiceCore

extension SQLiteConnection {
  /// The engine's audit tables (`AuditTables`) with the numbers SQLite databases recorded for
  /// them before the tables were declared once: the input ledger was `sluice-audit-3`, a run's
  /// deletions `sluice-audit-4`.
  static let auditMigrations = AuditTables.migrations(
    in: SQLiteDialect(), laneLog: false,
    formerly: ["sluice-audit-inputs": "sluice-audit-3", "sluice-audit-rows-deleted": "sluice-audit-4"])

  public func recordAudit(_ entry: AuditEntry) throws {
    try AuditTables.record(entry, into: self, migrations: Self.auditMigrations)
  }
}
