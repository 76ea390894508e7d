internal import CSQLite
@_spi(Internals) import SluiceCore

/// The SQLite `SQLiteKeySpill` needs, and no more: one private temporary database, statements
/// bound, stepped and reset, and deferred transactions. It is not the SQLite driver's connection
/// (SluiceSQLite's `SQLiteConnection`, a `Store`), so that a driver of another database can spill
/// its keys here without linking the SQLite driver: the PostgreSQL driver must not depend on
/// SluiceSQLite (`.ci/check-seams` refuses it). Issue 56 keeps the two wrappers: the driver's is
/// a whole `Store` (savepoints, classified errors, busy timeouts, WAL and journals, staging),
/// of which the spill needs none; this one is the few calls a private temporary file takes.
final class SpillDatabase {
  let handle: OpaquePointer

  /// Process-wide settings, applied once before SQLite initializes itself: the same the SQLite
  /// driver applies, whichever of the two opens a database first (afterwards it changes nothing).
  private static let configured: Void = {
    _ = sluice_sqlite_disable_memory_statistics()
  }()

  /// Opens `path`; the empty path is a private temporary database, deleted when it is closed.
  /// Multi-thread mode: the caller never uses it from two threads at once.
  init(path: String) throws(SpillDatabaseError) {
    Self.configured
    var pointer: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    let status = sqlite3_open_v2(path, &pointer, flags, nil)
    guard status == SQLITE_OK, let pointer else {
      let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close_v2(pointer)
      throw SpillDatabaseError(message: message)
    }
    handle = pointer
  }

  deinit {
    // close_v2 defers the close until every statement is finalized, so order does not matter.
    sqlite3_close_v2(handle)
  }

  /// Runs one or more statements that take no parameters.
  func execute(_ sql: String) throws(SpillDatabaseError) {
    var message: UnsafeMutablePointer<CChar>?
    let status = sqlite3_exec(handle, sql, nil, nil, &message)
    guard status == SQLITE_OK else {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
      sqlite3_free(message)
      throw SpillDatabaseError(message: text)
    }
  }

  /// Compiles one statement, to be reused with `bind`, `step` and `reset`.
  func prepare(_ sql: String) throws(SpillDatabaseError) -> SpillStatement {
    try SpillStatement(database: self, sql: sql)
  }

  /// Rows changed by the last INSERT, UPDATE or DELETE.
  var changes: Int { Int(sqlite3_changes(handle)) }

  /// Runs `body` in a deferred transaction: commits when it returns, rolls back when it throws and
  /// rethrows the body's error (a failing rollback does not hide it).
  func withTransaction<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN DEFERRED")
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

  var lastError: SpillDatabaseError { SpillDatabaseError(message: String(cString: sqlite3_errmsg(handle))) }
}

/// A prepared statement of a `SpillDatabase`, reused for the whole run.
final class SpillStatement {
  private let handle: OpaquePointer
  private let database: SpillDatabase

  /// `SQLITE_TRANSIENT` is a macro Swift does not import: "-1" cast to the destructor type tells
  /// SQLite to copy the bytes before the bind call returns.
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  fileprivate init(database: SpillDatabase, sql: String) throws(SpillDatabaseError) {
    self.database = database
    var pointer: OpaquePointer?
    let status = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
    guard status == SQLITE_OK, let pointer else {
      sqlite3_finalize(pointer)
      throw database.lastError
    }
    handle = pointer
  }

  deinit { sqlite3_finalize(handle) }

  func bind(_ value: DatabaseValue, at index: Int32) throws(SpillDatabaseError) {
    let status: Int32
    switch value {
    case .integer(let number):
      status = sqlite3_bind_int64(handle, index, number)
    case .real(let number):
      status = sqlite3_bind_double(handle, index, number)
    case .text(var text):
      status = text.withUTF8 { utf8 in
        sqlite3_bind_text(
          handle, index, UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self),
          Int32(utf8.count), Self.transient)
      }
    case .blob(let bytes):
      status = bytes.withUnsafeBytes { buffer in
        // A zero-length blob still needs a non-null pointer, or SQLite binds NULL.
        sqlite3_bind_blob(
          handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), Self.transient)
      }
    }
    guard status == SQLITE_OK else { throw database.lastError }
  }

  func bind(_ number: Int64, at index: Int32) throws(SpillDatabaseError) {
    guard sqlite3_bind_int64(handle, index, number) == SQLITE_OK else { throw database.lastError }
  }

  /// Runs a statement whose parameters are already bound, to completion, then resets it.
  func execute() throws(SpillDatabaseError) {
    defer { sqlite3_reset(handle) }
    while try step() {}
  }

  /// Advances to the next row: true when a row is available, false when the statement is done.
  @discardableResult
  func step() throws(SpillDatabaseError) -> Bool {
    switch sqlite3_step(handle) {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default: throw database.lastError
    }
  }

  /// Makes the statement ready to run again; bindings are kept until rebound.
  func reset() {
    // The error of a failed step is reported by step itself; reset repeats it, so ignore it here.
    sqlite3_reset(handle)
  }

  func columnInt64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

  func columnValue(_ index: Int32) -> DatabaseValue? {
    switch sqlite3_column_type(handle, index) {
    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
    case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
    case SQLITE_TEXT:
      guard let text = sqlite3_column_text(handle, index) else { return nil }
      return .text(String(cString: text))
    case SQLITE_BLOB:
      let count = Int(sqlite3_column_bytes(handle, index))
      guard let bytes = sqlite3_column_blob(handle, index) else { return .blob([]) }
      return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
    default: return nil
    }
  }
}

/// A failed SQLite call of the spill, in SQLite's words.
struct SpillDatabaseError: Error {
  var message: String
}
