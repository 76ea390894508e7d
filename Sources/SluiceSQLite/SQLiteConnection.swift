internal import CSQLite
@_spi(Internals) import SluiceCore

/// One open SQLite database: owns the `sqlite3*` handle, prepares statements, runs transactions.
///
/// Foreign keys are switched on at open, and a busy timeout lets a nightly job wait briefly for
/// another writer instead of failing at once. Not thread-safe: one connection per writer.
package final class SQLiteConnection: Store {
  let handle: OpaquePointer
  public let path: String
  /// How long a statement waits for another connection's lock before it fails with
  /// `SQLITE_BUSY`; 0 fails at once.
  public var busyTimeoutMilliseconds: Int32 {
    didSet { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
  }

  package struct OpenOptions: Sendable {
    public var readOnly = false
    public var create = true
    public var busyTimeoutMilliseconds: Int32 = 5_000
    /// Read-only, and the file changes under nobody: no lock is taken and no side file
    /// (`-wal`, `-shm`) is created (SQLite's `immutable` URI parameter).
    public var immutable = false
    public init(
      readOnly: Bool = false, create: Bool = true, busyTimeoutMilliseconds: Int32 = 5_000, immutable: Bool = false
    ) {
      self.readOnly = readOnly || immutable
      self.create = create
      self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
      self.immutable = immutable
    }
  }

  /// Process-wide settings, applied once before SQLite initializes itself.
  private static let configured: Void = {
    _ = sluice_sqlite_disable_memory_statistics()
  }()

  public init(path: String, options: OpenOptions = OpenOptions()) throws {
    Self.configured
    self.path = path
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    if options.readOnly {
      flags |= SQLITE_OPEN_READONLY
    } else {
      flags |= SQLITE_OPEN_READWRITE
      if options.create { flags |= SQLITE_OPEN_CREATE }
    }
    var name = path
    if options.immutable {
      flags |= SQLITE_OPEN_URI
      name = "file:" + Self.uriEscaped(path) + "?immutable=1"
    }
    var pointer: OpaquePointer?
    let status = sqlite3_open_v2(name, &pointer, flags, nil)
    // "Whether or not an error occurs when it is opened, resources associated with the database
    // connection handle should be released by passing it to sqlite3_close() when it is no
    // longer required."
    guard status == SQLITE_OK, let pointer else {
      let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      let extended = pointer.map { sqlite3_extended_errcode($0) } ?? status
      sqlite3_close_v2(pointer)
      throw SQLiteError(code: status & 0xFF, extendedCode: extended, message: message)
    }
    handle = pointer
    busyTimeoutMilliseconds = options.busyTimeoutMilliseconds
    sqlite3_busy_timeout(handle, options.busyTimeoutMilliseconds)
    try execute("PRAGMA foreign_keys = ON")
  }

  /// A path as the path of a `file:` URI: `%`, `?` and `#` (and anything not printable ASCII)
  /// percent-encoded, byte by byte.
  static func uriEscaped(_ path: String) -> String {
    var result = ""
    for byte in path.utf8 {
      if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "?")
        && byte != UInt8(ascii: "#")
      {
        result.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    return result
  }

  deinit {
    // close_v2 defers the close until every statement is finalized, so order does not matter.
    sqlite3_close_v2(handle)
  }

  /// Runs one or more statements that take no parameters.
  public func execute(_ sql: String) throws {
    var message: UnsafeMutablePointer<CChar>?
    let status = sqlite3_exec(handle, sql, nil, nil, &message)
    guard status == SQLITE_OK else {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
      sqlite3_free(message)
      throw SQLiteError(
        code: status & 0xFF, extendedCode: sqlite3_extended_errcode(handle), message: text,
        sql: sql)
    }
  }

  /// Compiles one statement, to be reused with `bind`, `step` and `reset`.
  public func prepare(_ sql: String) throws -> SQLiteStatement {
    try SQLiteStatement(connection: self, sql: sql)
  }

  /// Rows changed by the last INSERT, UPDATE or DELETE.
  public var changes: Int { Int(sqlite3_changes(handle)) }

  public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

  /// Runs `body` in a transaction that takes the write lock at BEGIN.
  public func withTransaction<T>(_ body: () throws -> T) throws -> T {
    try withTransaction(.immediate, body)
  }

  /// Runs `body` in a transaction: commits when it returns, rolls back when it throws and
  /// rethrows the body's error (a failing rollback does not hide it).
  public func withTransaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
    try execute("BEGIN \(kind.rawValue)")
    let result: T
    do {
      result = try body()
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
    do {
      try execute("COMMIT")
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
    return result
  }

  public func commitAndBegin() throws {
    try execute("COMMIT")
    try execute("BEGIN \(TransactionKind.immediate.rawValue)")
  }

  package enum TransactionKind: String, Sendable {
    case deferred = "DEFERRED"
    /// Takes the write lock at BEGIN, so a locked database fails before any work is done.
    case immediate = "IMMEDIATE"
    case exclusive = "EXCLUSIVE"
  }

  /// The first column of the first row of a query, as an integer.
  public func scalarInt(_ sql: String) throws -> Int64? {
    let statement = try prepare(sql)
    guard try statement.step() else { return nil }
    return statement.columnIsNull(0) ? nil : statement.columnInt64(0)
  }

  public var dialect: any SQLDialect { SQLiteDialect() }

  public func columns(of table: String) throws -> [String]? {
    let statement = try prepare("SELECT name FROM pragma_table_info(?1)")
    try statement.bind(.text(table), at: 1)
    var columns: [String] = []
    while try statement.step() { columns.append(statement.columnText(0) ?? "") }
    return columns.isEmpty ? nil : columns
  }

  public func tablesCascadingDeletes(from table: String) throws -> [String] {
    let statement = try prepare(
      """
      SELECT DISTINCT m.name FROM main.sqlite_schema m, pragma_foreign_key_list(m.name) f
      WHERE m.type = 'table' AND f."table" = ?1 COLLATE NOCASE AND upper(f.on_delete) = 'CASCADE'
      ORDER BY m.name
      """)
    defer { statement.reset() }
    try statement.bind(.text(table), at: 1)
    var tables: [String] = []
    while try statement.step() { tables.append(statement.columnText(0) ?? "") }
    return tables
  }

  public func indexExists(_ name: String) throws -> Bool {
    let statement = try prepare("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?1")
    try statement.bind(.text(name), at: 1)
    return try statement.step()
  }

  /// SQLite's page cache during a run until the run sets its budget's (`usePageCache`), in KiB.
  static var pageCacheKibibytes: Int { 16 * 1024 }
  /// The temporary database's page cache (a snapshot's keys seen, a plan's copies), in KiB:
  /// part of the budget's base (`MemoryBudget.temporaryCacheBytes`).
  static var temporaryCacheKibibytes: Int { MemoryBudget.temporaryCacheBytes / 1024 }
  /// The page cache while deferred indexes are built after a load, in KiB.
  static var indexBuildCacheKibibytes: Int { 4 * 1024 }

  /// Opens a database for a bulk import: 16 KiB pages for a new one, a 16 MiB page cache until the run sets its budget's (`usePageCache`).
  public static func openForImport(path: String, busyTimeoutMilliseconds: Int32) throws -> SQLiteConnection {
    let connection = try SQLiteConnection(path: path, options: .init(busyTimeoutMilliseconds: busyTimeoutMilliseconds))
    // A database is new when it has no pages — asked of SQLite rather than of the file, so that
    // a file left by a killed first run (emptied by the hot journal's rollback, which this read
    // triggers) is new too. Set before the first table exists: 16 KiB pages made a 1M-order
    // load ~10% faster than the default 4 KiB. Existing databases keep theirs.
    if try connection.scalarInt("PRAGMA page_count") == 0 {
      try connection.execute("PRAGMA page_size = 16384")
    }
    // A bigger page cache keeps the indexes' hot pages in memory during a bulk load; it is a
    // fixed amount, so memory still does not grow with the input.
    try connection.execute("PRAGMA cache_size = -\(pageCacheKibibytes)")
    // Temporary tables (a snapshot's keys seen) are written in key order and probed in key
    // order: a small cache serves them, and keeps them out of the run's memory budget.
    try connection.execute("PRAGMA temp.cache_size = -\(temporaryCacheKibibytes)")
    return connection
  }

  /// The run's budget for the page cache (`MemoryBudget.pageCacheBytes`; 9 MiB at the default).
  public func usePageCache(bytes: Int) throws {
    try execute("PRAGMA cache_size = -\(max(bytes / 1024, 1024))")
  }

  /// SQLite's sorter takes as much memory again as the page cache; a small cache keeps the index
  /// build within the run's memory budget (it spills to a temporary file).
  public func prepareForIndexBuild() throws {
    try execute("PRAGMA cache_size = -\(Self.indexBuildCacheKibibytes)")
  }

  public func writeChangedPages() throws {
    let code = sqlite3_db_cacheflush(handle)
    guard code == SQLITE_OK else { throw error(sql: nil) }
  }

  public func makeSavepoints() throws -> any RecordSavepoints { try SQLiteSavepoints(self) }

  func error(sql: String?) -> SQLiteError {
    SQLiteError(
      code: sqlite3_errcode(handle) & 0xFF, extendedCode: sqlite3_extended_errcode(handle),
      message: String(cString: sqlite3_errmsg(handle)), sql: sql)
  }
}

/// One savepoint per record, so a lenient run can drop a record that failed half-way.
struct SQLiteSavepoints: RecordSavepoints {
  let beginStatement: SQLiteStatement
  let releaseStatement: SQLiteStatement
  let rollbackStatement: SQLiteStatement

  init(_ connection: SQLiteConnection) throws {
    beginStatement = try connection.prepare("SAVEPOINT sluice_record")
    releaseStatement = try connection.prepare("RELEASE sluice_record")
    rollbackStatement = try connection.prepare("ROLLBACK TO sluice_record")
  }

  func begin() throws { try beginStatement.run([]) }
  func release() throws { try releaseStatement.run([]) }
  func rollback() throws {
    try rollbackStatement.run([])
    try releaseStatement.run([])
  }
}

extension String {
  fileprivate func leftPadded(to length: Int) -> String {
    count >= length ? self : String(repeating: "0", count: length - count) + self
  }
}

extension SQLiteConnection: BulkLoadingStore {
  /// Multi-row `INSERT`s (`MultiRowWriter`): SQLite has no `COPY`, and a statement per row costs
  /// it more than the row does.
  package func makeBulkWriter(schema: Schema, conflict: ConflictPolicy) throws -> (any BulkWriter)? {
    MultiRowWriter(store: self, schema: schema, conflict: conflict)
  }
}
