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
/// - `ParallelLoadingDriver`: `--jobs N`, lanes over several connections committed together
///   (`LaneConnection`);
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
  /// The longest table, index or column name the database keeps whole, in bytes; nil when it
  /// has no such limit. A dataset file's longer names are refused (`StoreNameRules`).
  var identifierLimit: Int? { get }
  /// The prefixes of the database's own tables (lower case), which a dataset file's names may not
  /// start with; none by default.
  var reservedNamePrefixes: [String] { get }
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
  /// The C libraries the driver links, with the versions they report at run time, which
  /// `sluice --version` lists; none by default.
  var linkedLibraries: [LinkedLibrary] { get }
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
  public var linkedLibraries: [LinkedLibrary] { [] }
  public var identifierLimit: Int? { nil }
  public var reservedNamePrefixes: [String] { [] }
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
  func makeKeySpill() throws(KeySpillError) -> any KeySpill
}

/// Where a `KeyRegistry` moves the keys it cannot keep in memory, with the record that wrote each
/// first; made by the run's driver (`KeySpillingDriver`) at the first spill, gone when released.
/// The registry calls it under its lock, from either of the run's two threads, one call at a time.
package protocol KeySpill: AnyObject {
  /// Adds keys it does not hold, in key order (`NaturalKey.precedes`).
  func insert(_ keys: [(key: NaturalKey, entry: KeyEntry)]) throws(KeySpillError)
  /// The entry of a key, or nil when it does not hold it.
  func find(_ key: NaturalKey) throws(KeySpillError) -> KeyEntry?
  /// Changes a key's entry; false when it does not hold the key.
  func update(_ key: NaturalKey, _ entry: KeyEntry) throws(KeySpillError) -> Bool
  /// Every key it holds, for a Bloom filter made from them.
  func forEachKey(_ body: (NaturalKey) -> Void) throws(KeySpillError)
}

/// The table of a staged run's side database that keeps the run's report once every chunk is
/// staged, so a resume only publishes: a driver's `publishStaging` leaves it out of the target.
package let stagedReportTable = "sluice_stage_report"

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

extension StagingDriver {
  /// Nothing to check by default: a driver whose side database cannot lose rows.
  package func checkStagingIntact(_ target: DatabaseTarget) throws(StagingError) {}
}

/// A store driver that loads the lanes of a run over several connections at once (`--jobs N`),
/// as one all-or-nothing run with one report.
///
/// The engine does the run (`ParallelRun`): it plans the lanes (`LanePlan`), loads each on a
/// connection of its own in a transaction left open until every lane has loaded, merges the
/// lanes' reports, and commits the lane transactions together by the run's commit log
/// (`LaneCommitment`) — in two phases where the server can prepare them, otherwise in order. The
/// driver only opens the connections (`LaneConnection`): what its server does for a transaction
/// that must outlive the load, and where the commit log is kept.
package protocol ParallelLoadingDriver: StoreDriver {
  /// A connection of a parallel run — its coordinator or one of its lanes — waiting for locks
  /// `lockTimeoutMilliseconds`. Throws `StoreOpenError` when it cannot connect.
  func openLaneConnection(_ target: DatabaseTarget, lockTimeoutMilliseconds: Int32) throws -> any LaneConnection
}

/// One connection of a parallel run: a store whose transaction the engine opens and ends itself
/// (every lane's stays open until all have loaded), which can prepare it for a two-phase commit,
/// and which keeps the run's commit log.
///
/// The commit log is the run's audit row, written only by the coordinating connection, each change
/// committed on its own: `running`, then `committing` (the decision) or `failed`, then
/// `succeeded` or `partial`. The change from `running` must be a compare-and-set, so that the
/// decision to commit and anyone's decision to roll back (the run after a failure, a recovery
/// after a crash) cannot both succeed. Each lane transaction also records its own row just before
/// it is prepared or committed, so which lanes a run committed can always be read back.
package protocol LaneConnection: Store {
  // MARK: The transaction

  /// Opens a transaction that lasts until `commitTransaction`, `rollbackTransaction` or
  /// `prepareTransaction`.
  func beginTransaction() throws
  /// Commits the open transaction; throws when the server rolled it back instead.
  func commitTransaction() throws
  /// Rolls the open transaction back, if there is one; best effort.
  func rollbackTransaction()

  // MARK: Two-phase commit

  /// Why a lane transaction on this server cannot be prepared whatever the settings, as words
  /// that follow "two-phase commit is refused" (`on Citus: its coordinator cannot prepare a
  /// transaction that touched distributed tables`); nil when it can.
  var twoPhaseRefusal: String? { get }
  /// How many transactions the server lets be prepared at once (0: two-phase commit is off).
  func maxPreparedTransactions() throws -> Int
  /// Set before the load when the lane's transaction is to be prepared: the connection must then
  /// keep nothing a prepare refuses (PostgreSQL: temporary tables).
  var preparesTransaction: Bool { get set }
  /// Prepares the open transaction under `identifier`: the server keeps it, surviving this
  /// connection and a crash, until `commitPrepared` or `rollbackPrepared` names it.
  func prepareTransaction(_ identifier: String) throws
  func commitPrepared(_ identifier: String) throws
  func rollbackPrepared(_ identifier: String) throws
  /// Whether a transaction is prepared under `identifier`.
  func isPrepared(_ identifier: String) throws -> Bool
  /// Whether `error` says the connection was lost, so the statement may have reached the server
  /// before the answer was lost.
  func isConnectionLost(_ error: any Error) -> Bool
  /// The server's session of this connection (PostgreSQL: its backend process), which
  /// fault-injection tests terminate (`PipelineConfiguration.faults`).
  var sessionID: Int32 { get }

  // MARK: The commit log

  /// Records the run `running` — its row made from `entry`, loaded over `lanes` transactions —
  /// and returns it. Called inside a transaction committed before the lanes begin.
  func beginLaneRun(_ entry: AuditEntry, lanes: Int, twoPhase: Bool) throws -> LaneRunLog
  /// Marks the run as in progress for as long as this connection lives (PostgreSQL: an advisory
  /// lock), so a recovery leaves it alone.
  func holdLaneRun(_ run: LaneRunLog) throws
  /// The identifier lane `lane` (from 1) of `run` is prepared under: unique on the server, and
  /// naming the run, so a recovery can settle it by the run's row.
  func transactionID(of run: LaneRunLog, lane: Int) -> String
  /// Records, inside the lane's own transaction, that lane `lane` of `run` loaded `inputs`.
  func recordLane(of run: LaneRunLog, lane: Int, inputs: [String]) throws
  /// The decision to commit: `running` becomes `committing` with `entry`'s counts and issues, in a
  /// transaction of its own. False when the row was no longer `running`.
  func decideLaneRun(_ run: LaneRunLog, _ entry: AuditEntry) throws -> Bool
  /// The decision to roll back: `running` becomes `failed` with `entry`'s counts, issues and
  /// failure, in a transaction of its own. Returns the status the row had (nil: no row); when it
  /// was not `running`, nothing changed.
  func abortLaneRun(_ run: LaneRunLog, _ entry: AuditEntry) throws -> LaneRunLog.Status?
  /// Ends a decided run: `committing` becomes `status` with `failure`. False when the row was not
  /// `committing`.
  @discardableResult
  func concludeLaneRun(_ run: LaneRunLog, _ status: LaneRunLog.Status, failure: String?) throws -> Bool
  /// The lanes of `run` whose transactions were committed, in lane order, with their inputs.
  func committedLanes(of run: LaneRunLog) throws -> (lanes: [Int], inputs: [String])
}

/// A parallel run as its commit log names it.
package struct LaneRunLog: Sendable {
  /// What the run's row says of its lane transactions.
  package enum Status: String, Sendable {
    /// Loading: a prepared lane transaction is to be rolled back.
    case running
    /// The commit was decided: every prepared lane transaction is to be committed.
    case committing
    case succeeded
    /// Some lane transactions were committed, others rolled back.
    case partial
    case failed
  }

  package var runID: Int64
  /// Where the row is: the database and the schema that hold the run's audit tables.
  package var database: String
  package var schema: String
  package var lanes: Int
  package var twoPhase: Bool

  package init(runID: Int64, database: String, schema: String, lanes: Int, twoPhase: Bool) {
    self.runID = runID
    self.database = database
    self.schema = schema
    self.lanes = lanes
    self.twoPhase = twoPhase
  }

  /// The failure a `partial` run's row gives: which lanes were committed, with their inputs.
  package static func partialReason(committed: [Int], of lanes: Int, inputs: [String]) -> String {
    let which = committed.isEmpty ? "none" : committed.map(String.init).joined(separator: ", ")
    return
      "only lane transaction(s) \(which) of \(lanes) were committed (inputs: \(inputs.isEmpty ? "none" : inputs.joined(separator: ", "))); the others were rolled back: run the pipeline again to complete it"
  }
}

/// A store driver that can settle interrupted runs (`sluice recover`).
package protocol RecoveringDriver: StoreDriver {
  /// Connects for a recovery; throws `RunHistoryError` when the database cannot be reached.
  func openRecovery(_ target: DatabaseTarget) throws -> any RunRecovery
}
