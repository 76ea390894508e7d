#if canImport(Glibc)
  import Glibc
#endif

/// A value a row carries to a store; `nil` where one is expected stands for NULL.
///
/// Two values are equal as a database compares them: text byte for byte. (Swift's `==` on
/// `String` equates canonically equivalent text — `é` precomposed and `e` with a combining
/// accent — which a database stores, compares and keys as different text; a row cache that
/// took one for the other would leave the old spelling in the table.)
public enum DatabaseValue: Sendable, Hashable {
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])

  public static func == (a: DatabaseValue, b: DatabaseValue) -> Bool {
    switch (a, b) {
    case (.integer(let x), .integer(let y)): return x == y
    case (.real(let x), .real(let y)): return x == y
    case (.text(var x), .text(var y)):
      // memcmp, not `elementsEqual`, which compares a byte at a time (1.8 % of a CSV import's
      // instructions, callgrind): the row cache compares every key it is asked for.
      return x.withUTF8 { x in
        y.withUTF8 { y in
          x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
        }
      }
    case (.blob(let x), .blob(let y)): return x == y
    default: return false
    }
  }

  public func hash(into hasher: inout Hasher) {
    switch self {
    case .integer(let x):
      hasher.combine(0)
      hasher.combine(x)
    case .real(let x):
      hasher.combine(1)
      hasher.combine(x)
    case .text(var x):
      hasher.combine(2)
      x.withUTF8 {
        hasher.combine($0.count)
        hasher.combine(bytes: UnsafeRawBufferPointer($0))
      }
    case .blob(let x):
      hasher.combine(3)
      hasher.combine(x)
    }
  }
}

extension DatabaseValue {
  /// The value's kind, for messages (never the value).
  var kindName: String {
    switch self {
    case .integer: "an integer"
    case .real: "a real number"
    case .text: "text"
    case .blob: "a blob"
    }
  }
}

extension DatabaseValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
  public init(stringLiteral value: String) { self = .text(value) }
  public init(integerLiteral value: Int64) { self = .integer(value) }
}

/// The database a run writes into: a SQLite file or a PostgreSQL server.
///
/// Everything above it — datasets, the table model, the row writer, the pipeline — speaks this
/// protocol and the `SQLDialect` it hands out, and never names a particular database. A store is
/// one connection, used by one thread.
public protocol Store: AnyObject {
  associatedtype Statement: StoreStatement

  /// How this store spells types, options and parameters in the SQL the engine derives.
  var dialect: any SQLDialect { get }
  /// Runs statements that take no parameters.
  func execute(_ sql: String) throws
  /// Compiles one statement, to be reused with `bind`, `step` and `reset`.
  func prepare(_ sql: String) throws -> Statement
  /// Rows changed by the last INSERT, UPDATE or DELETE.
  var changes: Int { get }
  /// Runs `body` in a transaction that takes the write lock at once: commits when it returns,
  /// rolls back and rethrows when it throws.
  func withTransaction<T>(_ body: () throws -> T) throws -> T
  /// The first column of the first row of a query, as an integer.
  func scalarInt(_ sql: String) throws -> Int64?
  /// The columns of a table, or nil when there is no table of this name.
  func columns(of table: String) throws -> [String]?
  /// Whether an index of this name exists.
  func indexExists(_ name: String) throws -> Bool
  /// The tables of the database (its schema, on a server) with a foreign key to `table` that
  /// deletes `ON DELETE CASCADE`: a delete from `table` removes rows of theirs too, whichever
  /// dataset declared them. A snapshot counts and guards those rows too (`SnapshotMirror`).
  func tablesCascadingDeletes(from table: String) throws -> [String]
  /// How long a statement waits for another connection's lock, in milliseconds; 0 fails at once.
  var busyTimeoutMilliseconds: Int32 { get set }
  /// Secondary indexes are about to be built over the loaded rows: trade cache for sort memory.
  func prepareForIndexBuild() throws
  /// The run's share of memory for the store's page cache (`MemoryBudget.pageCacheBytes`),
  /// where the store caches pages in the process (SQLite: `cache_size`); a server store keeps
  /// its cache on the server and ignores it (the default).
  func usePageCache(bytes: Int) throws
  /// Writes the pages the open transaction changed to the database file, keeping them cached
  /// but clean, where the store caches pages in the process (SQLite: `sqlite3_db_cacheflush`).
  /// A cache full of changed pages keeps only a few slots for the pages reads need (SQLite
  /// recycles clean pages first), so after a pass that changed pages all over a table, reads
  /// of another B-tree miss nearly every time until the changed pages are written.
  func writeChangedPages() throws
  /// A plan's transaction began (`sluice plan`): it reads every table it may write — copies of
  /// them, to compare with after the load — before it writes any.
  func prepareForPlan() throws
  /// Waits (up to the busy timeout) until no other run's transaction can be migrating the same
  /// schema, and holds that until this transaction ends; false when the store needs no such lock
  /// (SQLite's write transaction already excludes every other writer).
  func lockMigrations() throws -> Bool
  /// Waits (up to the busy timeout) until no other run that decides from what the database
  /// holds — an incremental run (the input ledger) or a snapshot (which rows to delete) — is
  /// running against the same tables, and holds that until this transaction ends, so two such
  /// runs never interleave; false when the store needs no such lock (SQLite's write transaction
  /// already excludes every other writer). One that waited in vain is the store's busy error.
  func lockAgainstConcurrentRuns() throws -> Bool
  /// Commits the transaction `withTransaction` runs and at once begins the next, as it began: a
  /// checkpointed run's chunk ends (`ChunkedRun`). The enclosing `withTransaction` commits or
  /// rolls back the last chunk. Savepoints and prepared statements stay usable.
  func commitAndBegin() throws
  /// Undo marks inside the run's transaction, one record at a time.
  func makeSavepoints() throws -> any RecordSavepoints
  /// Records a run in the store's audit tables (`sluice_runs`, `sluice_rejects`), creating them
  /// when missing. Runs inside the caller's transaction.
  func recordAudit(_ entry: AuditEntry) throws
  /// For a run that waited for a lock in vain: who holds it, when the store can tell and the
  /// user can act on it (`; …` to append to the failure), or empty.
  func lockHoldersNote(describing target: DatabaseTarget) -> String
}

extension Store {
  public func usePageCache(bytes: Int) throws {}
  public func writeChangedPages() throws {}
  public func prepareForPlan() throws {}
  public func lockMigrations() throws -> Bool { false }
  public func lockAgainstConcurrentRuns() throws -> Bool { false }
  public func lockHoldersNote(describing target: DatabaseTarget) -> String { "" }
}

/// A compiled statement: bind parameters 1…n, step through its rows, reset, repeat.
public protocol StoreStatement: AnyObject {
  func bind(_ value: DatabaseValue?, at index: Int32) throws
  /// Binds consecutive values to consecutive parameters from `index` on: one call per row.
  func bind(_ values: UnsafeBufferPointer<DatabaseValue?>, from index: Int32) throws
  /// Runs the statement with its current bindings to completion, then resets it.
  func execute() throws
  /// Advances to the next row: true when one is available.
  @discardableResult func step() throws -> Bool
  /// Makes the statement ready to run again; bindings stay until rebound.
  func reset()
  func columnIsNull(_ index: Int32) -> Bool
  func columnValue(_ index: Int32) -> DatabaseValue?
}

extension StoreStatement {
  /// Binds parameters 1…n in order; `nil` binds NULL.
  public func bind(_ values: [DatabaseValue?]) throws {
    for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
  }

  /// Binds parameters 1…n in order, runs to completion and resets.
  public func run(_ values: [DatabaseValue?]) throws {
    defer { reset() }
    for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    while try step() {}
  }
}

/// Begins, releases and rolls back the savepoint around one record of a lenient run.
public protocol RecordSavepoints {
  func begin() throws
  func release() throws
  /// Undoes the record's writes and ends the savepoint.
  func rollback() throws
}

/// A failed store call, classified so the engine can act on it without knowing the store.
public protocol StoreError: Error, CustomStringConvertible {
  var failure: StoreFailure { get }
  /// The store's own words, without values.
  var message: String { get }
}

/// What kind of failure a store call met, for the engine to act on: a row's constraint (a
/// record issue), a lock held too long or a full disk (the run fails, exit 74), or anything else.
public enum StoreFailure: Sendable, Hashable {
  /// A row broke a constraint: a problem with the data, reported as a record issue.
  case constraint(ConstraintViolation)
  /// Another connection held the database past the busy timeout.
  case busy
  /// The disk or the database is full.
  case full
  /// Anything else: the run fails with the store's message.
  case other
}

/// Which constraint a row broke, in the store's terms: its kind, and the columns or the name the
/// store gave (never the values).
public struct ConstraintViolation: Sendable, Hashable {
  public enum Kind: String, Sendable {
    case unique, notNull, check, foreignKey, other
    /// A value the column cannot hold at all (PostgreSQL: text with a NUL character, a
    /// malformed time): the record's data, reported as an invalid value at its field.
    case value
    /// An index entry too large for the store (PostgreSQL's B-tree takes at most 2,704 bytes
    /// per entry): a long natural key or indexed text.
    case tooLarge
  }
  public var kind: Kind
  /// The table the store named, when it named one.
  public var table: String?
  /// The columns the store named (unique and not-null constraints).
  public var columns: [String]
  /// The constraint's name (checks), or the index's (`tooLarge`).
  public var name: String?
  /// The statement parameter (from 1) whose value the store refused before sending it, when it
  /// was that: the writer knows which column it bound there.
  public var parameter: Int?

  public init(kind: Kind, table: String? = nil, columns: [String] = [], name: String? = nil, parameter: Int? = nil) {
    self.kind = kind
    self.table = table
    self.columns = columns
    self.name = name
    self.parameter = parameter
  }
}
