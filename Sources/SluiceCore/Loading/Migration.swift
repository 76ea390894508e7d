/// One schema change, identified by a name that never changes once released.
///
/// Applied migrations are recorded in `sluice_migrations`, so each runs exactly once per
/// database, in the order the dataset lists them, inside the run's transaction.
public struct Migration: Sendable {
  public var identifier: String
  public var sql: String

  public init(_ identifier: String, sql: String) {
    self.identifier = identifier
    self.sql = sql
  }
}

/// Applies migrations that a database has not seen yet.
public enum Migrator {
  /// Applies the missing migrations and returns the identifiers it applied. Call it inside a
  /// transaction so a failed run leaves no half-migrated schema.
  @discardableResult
  public static func migrate(_ connection: SQLiteConnection, _ migrations: [Migration]) throws
    -> [String]
  {
    try connection.execute(
      """
      CREATE TABLE IF NOT EXISTS sluice_migrations (
        identifier TEXT PRIMARY KEY,
        applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT
      """)
    let check = try connection.prepare("SELECT 1 FROM sluice_migrations WHERE identifier = ?")
    let record = try connection.prepare("INSERT INTO sluice_migrations (identifier) VALUES (?)")
    var applied: [String] = []
    for migration in migrations {
      try check.bind([.text(migration.identifier)])
      let seen = try check.step()
      check.reset()
      if seen { continue }
      try connection.execute(migration.sql)
      try record.run([.text(migration.identifier)])
      applied.append(migration.identifier)
    }
    return applied
  }
}
