/// The driver interface: what a store implements for the engine to load into it, in one place.
///
/// Every driver implements `StoreDriver`, which opens:
/// - a `Store` (Store.swift): one connection a run writes through — statements (`StoreStatement`),
///   a transaction, savepoints per record (`RecordSavepoints`), the audit tables, and errors the
///   engine can classify (`StoreError`);
/// - a `RunHistory` (RunHistory.swift): the audit trail read back for `sluice runs`;
/// and spells SQL in its `SQLDialect` (SQLDialect.swift), the engine deriving every statement from
/// the table model. A layout (`SchemaLayout`) is what `sluice schema --dialect NAME` adds.
///
/// Beyond that, a driver may offer capabilities, each a protocol below that its driver (or
/// store) adopts, and which the engine asks for with `as?`; a store without one still runs every
/// pipeline, the capability's mode being refused or done another way:
/// - `BulkLoadingStore`: writes a batch of records' rows in a few set-based statements (COPY);
///   without it, `RowWriter` writes a statement per row;
/// - `KeySpillingDriver`: keeps a run's natural keys out of memory past a bound (in
///   SluiceKeySpill's temporary file, whatever the database); without it, repeated-key checks
///   keep them in memory;
/// - `StagingDriver`: `--stage`, a side database published in one transaction;
/// - `ParallelLoadingDriver`: `--jobs N`, lanes over several connections committed together;
/// - `RecoveringDriver`: `sluice recover`, settling runs interrupted while committing.
///
/// `StoreDriver` and the interfaces it opens are public; the capabilities are `package`, for the
/// drivers of this repository, until their shape settles. docs/guides/writing-a-driver.md says
/// what a third store implements, in order.

/// A kind of database Sluice can load into, in a target of its own (`SluiceSQLite`,
/// `SluicePostgreSQL`): how it is named, opened, described and read back.
///
/// The engine names no database: a run's `DatabaseTarget` carries the driver that opens it, and
/// the command line picks the driver from the `--db` text among those the executable registered
/// (`StoreDrivers`). A program that loads into SQLite alone links SQLite alone.
///
/// ```swift
/// let drivers = StoreDrivers(registered)                  // the drivers a program links
/// let target = try drivers.target(for: "nightly.sqlite")  // a file: the file driver's
/// ```
public protocol StoreDriver: Sendable {
  /// A short name for messages: `SQLite`, `PostgreSQL`.
  var name: String { get }
  /// How surely `location` names a database of this driver: a server's connection string is
  /// claimed `.certainly` by its driver; a file driver takes what nobody else claims (`.asFile`).
  func claim(_ location: String) -> StoreDriverClaim
  /// What is wrong with `location` before anything is opened (a malformed connection string), in
  /// words without secrets; nil when nothing is.
  func problem(in location: String) -> String?
  /// `location` as messages, reports and the audit tables print it: never a password.
  func redacted(_ location: String) -> String
  /// Whether `location` carries a password, which other users can see in the process list.
  func hasPassword(_ location: String) -> Bool
  /// How the driver spells SQL.
  var dialect: any SQLDialect { get }
  /// The layouts a database of this driver may give a dataset beyond its DDL (Citus for
  /// PostgreSQL), which `sluice schema --dialect NAME` prints; none by default.
  var layouts: [any SchemaLayout] { get }
  /// The longest schema name the database takes, in bytes; nil when it has no schemas.
  var schemaNameLimit: Int? { get }
  /// Whether the database is a server a run connects to (a connect timeout applies).
  var connectsToServer: Bool { get }
  /// The files a run at `location` writes besides its outputs — the database file, a staged
  /// run's side database, and their journals — so no output can be one of them (`RunFiles`);
  /// none for a server.
  func files(at location: String) -> [(role: String, path: String)]
  /// Opens the store a run writes into, creating the database when the store can. Throws
  /// `StoreOpenError` when it cannot, and a `StoreError` of kind busy when it waited too long.
  func openForRun(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store
  /// Opens the audit trail for reading only (`sluice runs`); throws `RunHistoryError`.
  func openHistory(_ target: DatabaseTarget) throws -> any RunHistory
  /// Opens an existing database for reading only, inside a read-only transaction that sees one
  /// state of it throughout (`validate --db`): nothing can be created, changed or locked for
  /// writing. Throws `StoreOpenError` when it cannot.
  func openForReading(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store
}

extension StoreDriver {
  public func problem(in location: String) -> String? { nil }

  /// `problem(in:)` as the end of a sentence about where the name came from (`--db …`,
  /// `'database' …`): a server's connection string or a file's name.
  package func misnaming(_ location: String) -> String? {
    problem(in: location).map {
      "is not a \(name) \(connectsToServer ? "connection string" : "database file name") it can use: \($0)"
    }
  }
  public func hasPassword(_ location: String) -> Bool { false }
  public var schemaNameLimit: Int? { nil }
  public var layouts: [any SchemaLayout] { [] }
  public var connectsToServer: Bool { false }
  public func files(at location: String) -> [(role: String, path: String)] { [] }
  public func openForReading(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store {
    throw StoreOpenError(kind: .unreachable, message: "\(name) databases cannot be opened for reading only")
  }
}

/// A store that can write batches in bulk.
package protocol BulkLoadingStore: Store {
  /// A bulk writer for a dataset's tables, or nil when the schema needs `RowWriter` throughout.
  func makeBulkWriter(schema: Schema, conflict: ConflictPolicy) throws -> (any BulkWriter)?
}

/// A store driver that can keep a run's spilled natural keys (`KeySpill`) out of memory.
///
/// The keys are the run's, not the database's: the spill is a private temporary file on the
/// machine that runs Sluice, never the target (on a server each look-up would be a round trip).
/// Both drivers of this repository return the same one, `SQLiteKeySpill` from the SluiceKeySpill
/// target — the engine and SQLite's C library, no driver — so no driver depends on another; the
/// engine itself links no database library, so it cannot make one. A third driver returns it too,
/// or a spill of its own.
package protocol KeySpillingDriver: StoreDriver {
  func makeKeySpill() throws(KeyRegistryError) -> any KeySpill
}

/// Where a `KeyRegistry` moves the keys it cannot keep in memory, with the record that wrote each
/// first; made by the run's driver (`KeySpillingDriver`) at the first spill, gone when released.
/// The registry calls it under its lock, from either of the run's two threads, one call at a time.
package protocol KeySpill: AnyObject {
  /// Adds keys it does not hold, in key order (`KeyRegistry.Key.precedes`).
  func insert(_ keys: [(key: KeyRegistry.Key, entry: KeyRegistry.Entry)]) throws(KeyRegistryError)
  /// The entry of a key, or nil when it does not hold it.
  func find(_ key: KeyRegistry.Key) throws(KeyRegistryError) -> KeyRegistry.Entry?
  /// Changes a key's entry; false when it does not hold the key.
  func update(_ key: KeyRegistry.Key, _ entry: KeyRegistry.Entry) throws(KeyRegistryError) -> Bool
  /// Every key it holds, for a Bloom filter made from them.
  func forEachKey(_ body: (KeyRegistry.Key) -> Void) throws(KeyRegistryError)
}

/// A driver that can stage a run: load it, chunk by chunk, into a side database readers never
/// see, then publish it into the target in one transaction (`--stage`).
package protocol StagingDriver: StoreDriver {
  /// The side database of a staged run into `target`.
  func stagingTarget(for target: DatabaseTarget) -> DatabaseTarget
  /// Whether a staged run into `target` is unfinished (its side database is there).
  func stagingExists(for target: DatabaseTarget) throws(StagingError) -> Bool
  /// Makes the side database a copy of the target as it is now (none: an empty one) — at least
  /// of its `tables` (the run's) and its audit tables — noting what the target was, so that
  /// `publish` can tell whether anyone wrote to it since.
  func beginStaging(_ target: DatabaseTarget, tables: [String]) throws(StagingError)
  /// Replaces the target's `tables` and its audit tables by the side database's, in one
  /// transaction (or, for a target that did not exist, renames the side database into place),
  /// then deletes the side database. Refuses when the target changed since `beginStaging`.
  /// `beforeCommit` runs with the transaction open (tests kill the process there).
  func publishStaging(
    _ target: DatabaseTarget, tables: [String], busyTimeoutMilliseconds: Int32, beforeCommit: () -> Void)
    throws(StagingError)
  /// Deletes the side database of `target` (`--restart`).
  func discardStaging(_ target: DatabaseTarget)
  /// Refuses to resume a staged run whose staged rows were lost (PostgreSQL: the server
  /// restarted after a crash, which empties unlogged tables).
  func checkStagingIntact(_ target: DatabaseTarget) throws(StagingError)
}

/// A store driver that loads the lanes of a run over several connections at once (`--jobs N`),
/// as one all-or-nothing run with one report: the driver knows how its server commits several
/// transactions together.
///
/// The engine plans the lanes (`LanePlan`) and reads each input as a serial run does; the driver
/// opens the connections, runs the lanes and commits them.
package protocol ParallelLoadingDriver: StoreDriver {
  func loadInLanes(
    _ runner: PipelineRunner, plan: LanePlan, outputs: RunOutputs, state: inout RunState,
    opened: inout PipelineRunner.Opened
  ) throws -> RunReport
}

/// A store driver that can settle interrupted runs (`sluice recover`).
package protocol RecoveringDriver: StoreDriver {
  /// Connects for a recovery; throws `RunHistoryError` when the database cannot be reached.
  func openRecovery(_ target: DatabaseTarget) throws -> any RunRecovery
}
