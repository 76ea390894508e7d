import Foundation

/// One schema change, identified by a name that never changes once released.
///
/// Applied migrations are recorded in `sluice_migrations`, so each runs exactly once per
/// database, in the order the dataset lists them, inside the run's transaction.
package struct Migration: Sendable {
  public var identifier: String
  public var sql: String
  /// A secondary, non-unique index that may be built after a first load instead of before it.
  /// Building an index once over loaded rows is a sort; maintaining it row by row is a random
  /// B-tree insert per row, which dominates a bulk load once the index outgrows the page cache.
  /// Only for indexes no constraint depends on: the load runs without them.
  public var isDeferrableIndex: Bool
  /// The table an index migration indexes: a deferrable index of a table the same migration
  /// run creates (so empty) waits for the load.
  public var indexedTable: String?
  /// The table or index the migration creates, when it creates one: a database that already has
  /// it — made by an earlier Sluice, or by hand from `sluice schema` — adopts it instead.
  public var creates: CreatedObject?
  /// The identifier an earlier release of the store's driver recorded for this same change (the
  /// audit tables' numbers drifted apart per driver: `AuditTables`). A database that recorded it
  /// has the change; applying the change now records both, so that release still opens it.
  public var formerIdentifier: String?

  public enum CreatedObject: Sendable, Hashable {
    /// A table and the columns it must have.
    case table(String, columns: [String])
    case index(String)
    /// A column of a table (schema evolution's `ADD COLUMN`): a table created with it adopts it.
    case column(String, String)
  }

  public init(
    _ identifier: String, sql: String, isDeferrableIndex: Bool = false, indexedTable: String? = nil,
    creates: CreatedObject? = nil
  ) {
    self.identifier = identifier
    self.sql = sql
    self.isDeferrableIndex = isDeferrableIndex
    self.indexedTable = indexedTable
    self.creates = creates
  }
}

/// A migration that cannot apply: a table of the declared name exists with another shape.
package struct MigrationError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

/// Applies migrations that a database has not seen yet.
package enum Migrator {
  /// Applies the missing migrations and returns the identifiers it applied. Call it inside a
  /// transaction so a failed run leaves no half-migrated schema.
  ///
  /// With `deferringIndexesOfNewTables`, the deferrable indexes of tables this call creates —
  /// empty, so a load into them is a first load — are left out and returned in `deferred`
  /// (all of them when none of `migrations` had been applied before); apply them with `migrate`
  /// after the load, in the same transaction. `stillDeferred` names deferrable indexes an
  /// interrupted first load left for its end: they are deferred again.
  @discardableResult
  /// `locking: false` applies them without `Store.lockMigrations` — for a parallel run's lane
  /// building its deferred indexes, whose transaction lasts until every lane has loaded.
  public static func migrate(
    _ connection: some Store, _ migrations: [Migration], deferringIndexesOfNewTables: Bool = false,
    stillDeferred: Set<String> = [], locking: Bool = true
  ) throws -> (applied: [String], deferred: [Migration]) {
    let dialect = connection.dialect
    // A store shared with other runs is locked before the first look at what is applied when
    // even the bookkeeping table is missing, else once something turns out to be pending.
    var locked = try !locking || (connection.columns(of: "sluice_migrations") == nil && connection.lockMigrations())
    try connection.execute(
      """
      CREATE TABLE IF NOT EXISTS sluice_migrations (
        identifier \(dialect.typeName(.text)) NOT NULL PRIMARY KEY,
        applied_at \(dialect.typeName(.timestamp)) NOT NULL
      ) \(dialect.tableOptions(hasCompositeKey: false))
      """)
    let check = try connection.prepare(
      "SELECT 1 FROM sluice_migrations WHERE identifier IN (\(dialect.parameter(1)), \(dialect.parameter(2)))")
    let record = try connection.prepare(
      "INSERT INTO sluice_migrations (identifier, applied_at) VALUES (\(dialect.parameter(1)), \(dialect.parameter(2)))"
    )
    let now = DatabaseValue.text(TimestampText.text(Date()))
    func unapplied() throws -> [Migration] {
      try migrations.filter { try !isApplied($0, check) }
    }
    func recordApplied(_ migration: Migration) throws {
      try record.run([.text(migration.identifier), now])
      if let former = migration.formerIdentifier { try record.run([.text(former), now]) }
    }
    var pending = try unapplied()
    if !pending.isEmpty && !locked {
      locked = try connection.lockMigrations()
      // Another run may have applied them while this one waited.
      if locked { pending = try unapplied() }
    }
    let fresh = deferringIndexesOfNewTables && !migrations.isEmpty && pending.count == migrations.count
    var applied: [String] = []
    var deferred: [Migration] = []
    var created = Set<String>()
    for migration in pending {
      if try adopts(migration, in: connection) {
        try recordApplied(migration)
        applied.append(migration.identifier)
        continue
      }
      if migration.isDeferrableIndex,
        fresh || stillDeferred.contains(migration.identifier)
          || (deferringIndexesOfNewTables && migration.indexedTable.map(created.contains) == true)
      {
        deferred.append(migration)
        continue
      }
      try connection.execute(migration.sql)
      if case .table(let name, _) = migration.creates { created.insert(name) }
      try recordApplied(migration)
      applied.append(migration.identifier)
    }
    try checkColumns(of: migrations, except: Set(pending.map(\.identifier)), in: connection)
    return (applied, deferred)
  }

  /// Refuses a table an earlier run created that lacks a column the dataset declares now —
  /// `record_input`, which scopes a dataset file's `$position` key by its input since positions
  /// stopped being one key across inputs: its rows cannot be told apart by input, so the run
  /// stops before it writes instead of failing at its first row. Checked after this run's own
  /// migrations, which may add columns.
  private static func checkColumns(
    of migrations: [Migration], except pending: Set<String>, in connection: some Store
  ) throws {
    for migration in migrations where !pending.contains(migration.identifier) {
      if case .table = migration.creates { _ = try adopts(migration, in: connection) }
    }
  }

  /// The identifiers of `migrations` the store has not applied, in order (all of them when it
  /// has no bookkeeping table yet); reads only.
  package static func pending(_ connection: some Store, _ migrations: [Migration]) throws -> [String] {
    guard try connection.columns(of: "sluice_migrations") != nil else { return migrations.map(\.identifier) }
    let dialect = connection.dialect
    let check = try connection.prepare(
      "SELECT 1 FROM sluice_migrations WHERE identifier IN (\(dialect.parameter(1)), \(dialect.parameter(2)))")
    return try migrations.filter { try !isApplied($0, check) }.map(\.identifier)
  }

  /// Whether the bookkeeping table records `migration`, under its identifier or its former one;
  /// `check` selects a row whose identifier is either parameter.
  private static func isApplied(_ migration: Migration, _ check: some StoreStatement) throws -> Bool {
    try check.bind([.text(migration.identifier), .text(migration.formerIdentifier ?? migration.identifier)])
    defer { check.reset() }
    return try check.step()
  }

  /// Whether the object a migration creates exists already, with at least the declared columns;
  /// throws when a table of that name lacks some of them.
  private static func adopts(_ migration: Migration, in connection: some Store) throws -> Bool {
    switch migration.creates {
    case nil:
      return false
    case .index(let name):
      return try connection.indexExists(name)
    case .column(let table, let column):
      return try connection.columns(of: table)?.contains(column) == true
    case .table(let name, let columns):
      guard let existing = try connection.columns(of: name) else { return false }
      let missing = columns.filter { !existing.contains($0) }
      guard missing.isEmpty else {
        throw MigrationError(
          message:
            "table \(name) exists without column(s) \(missing.joined(separator: ", ")) that the dataset declares; migrate it by hand or use another database"
        )
      }
      return true
    }
  }
}
