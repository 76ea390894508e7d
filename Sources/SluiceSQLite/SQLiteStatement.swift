internal import CSQLite
@_spi(Internals) import SluiceCore

/// A prepared statement, reused for a whole run: bind, step, reset.
package final class SQLiteStatement: StoreStatement {
  let handle: OpaquePointer
  public let sql: String
  private let connection: SQLiteConnection

  /// `SQLITE_TRANSIENT` is a macro Swift does not import: "-1" cast to the destructor type tells
  /// SQLite to copy the bytes before the bind call returns.
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
  /// `SQLITE_STATIC`: SQLite reads the bytes where they are, until the parameter is bound again.
  private static let borrowed = unsafeBitCast(0, to: sqlite3_destructor_type.self)

  /// Texts up to this many bytes are bound from `slots`; longer ones SQLite copies.
  package static var slotCapacity: Int { 512 }
  /// The same for a statement of many parameters (a multi-row insert, `MultiRowWriter`): its
  /// slots would take 512 bytes each, a 512-row insert of six columns 1.5 MiB; keys, codes,
  /// names and timestamps fit in 64.
  package static var wideSlotCapacity: Int { 64 }
  /// Statements of more parameters than this have slots of `wideSlotCapacity` bytes.
  package static var wideStatementParameters: Int { 64 }
  /// This statement's slots' size.
  let slotCapacity: Int
  /// Per parameter, a buffer its text is copied into and bound from, allocated when the parameter
  /// first takes a text. A text bound as `SQLITE_TRANSIENT` costs SQLite a `malloc` and a `free`
  /// on every bind — the old copy is freed when the parameter is bound again — about 350
  /// instructions of the 470 a text's bind took, ten times per order; these buffers are the
  /// statement's own, so a value is valid for as long as SQLite may read it, whatever its caller
  /// does with the string after the call.
  /// (A buffer of pointers rather than an array: no exclusivity check or bounds check per bind.)
  private let slots: UnsafeMutableBufferPointer<UnsafeMutableRawPointer?>

  init(connection: SQLiteConnection, sql: String) throws {
    self.connection = connection
    self.sql = sql
    var pointer: OpaquePointer?
    let status = sqlite3_prepare_v3(
      connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
    guard status == SQLITE_OK, let pointer else {
      sqlite3_finalize(pointer)
      throw connection.error(sql: sql)
    }
    handle = pointer
    let parameters = Int(sqlite3_bind_parameter_count(pointer))
    slotCapacity = parameters > Self.wideStatementParameters ? Self.wideSlotCapacity : Self.slotCapacity
    slots = .allocate(capacity: parameters)
    slots.initialize(repeating: nil)
  }

  deinit {
    sqlite3_finalize(handle)
    for slot in slots { slot?.deallocate() }
    slots.deallocate()
  }

  public func bind(_ value: DatabaseValue?, at index: Int32) throws {
    let status: Int32
    switch value {
    case nil:
      status = sqlite3_bind_null(handle, index)
    case .integer(let number):
      status = sqlite3_bind_int64(handle, index, number)
    case .real(let number):
      status = sqlite3_bind_double(handle, index, number)
    case .text(let text):
      try bind(text, at: index)
      return
    case .blob(let bytes):
      status = bytes.withUnsafeBytes { buffer in
        // A zero-length blob still needs a non-null pointer, or SQLite binds NULL.
        sqlite3_bind_blob(
          handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), Self.transient)
      }
    }
    guard status == SQLITE_OK else { throw connection.error(sql: sql) }
  }

  public func bind(_ values: UnsafeBufferPointer<DatabaseValue?>, from index: Int32) throws {
    var parameter = index
    for value in values {
      try bind(value, at: parameter)
      parameter += 1
    }
  }

  /// Binds text without building a `DatabaseValue` (the loaders' hot path).
  @inline(__always)
  public func bind(_ text: String, at index: Int32) throws {
    var text = text
    let status = text.withUTF8 { utf8 in
      // A parameter the SQL does not have, or a statement still running, is SQLite's error to
      // report; a long text is SQLite's to copy.
      guard utf8.count <= slotCapacity, index >= 1, index <= slots.count, sqlite3_stmt_busy(handle) == 0 else {
        return sqlite3_bind_text(
          handle, index, UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self),
          Int32(utf8.count), Self.transient)
      }
      let slot = slots[Int(index) - 1] ?? allocateSlot(index)
      // An empty text still needs a non-null pointer, or SQLite binds NULL: the slot is one.
      if let source = utf8.baseAddress { slot.copyMemory(from: source, byteCount: utf8.count) }
      return sqlite3_bind_text(
        handle, index, slot.assumingMemoryBound(to: CChar.self), Int32(utf8.count), Self.borrowed)
    }
    guard status == SQLITE_OK else { throw connection.error(sql: sql) }
  }

  private func allocateSlot(_ index: Int32) -> UnsafeMutableRawPointer {
    let slot = UnsafeMutableRawPointer.allocate(byteCount: slotCapacity, alignment: 8)
    slots[Int(index) - 1] = slot
    return slot
  }

  @inline(__always)
  public func bind(_ number: Int64, at index: Int32) throws {
    guard sqlite3_bind_int64(handle, index, number) == SQLITE_OK else { throw connection.error(sql: sql) }
  }

  /// Runs a statement whose parameters are already bound, to completion, then resets it.
  @inline(__always)
  public func execute() throws {
    defer { sqlite3_reset(handle) }
    while try step() {}
  }

  /// Advances to the next row: true when a row is available, false when the statement is done.
  @discardableResult
  public func step() throws -> Bool {
    switch sqlite3_step(handle) {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default: throw connection.error(sql: sql)
    }
  }

  /// Makes the statement ready to run again; bindings are kept until rebound.
  public func reset() {
    // The error of a failed step is reported by step itself; reset repeats it, so ignore it here.
    sqlite3_reset(handle)
  }

  /// How many columns a row of the statement's result has.
  public var columnCount: Int32 { sqlite3_column_count(handle) }
  public func columnInt64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }
  public func columnDouble(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }
  public func columnIsNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }
  public func columnValue(_ index: Int32) -> DatabaseValue? {
    switch sqlite3_column_type(handle, index) {
    case SQLITE_INTEGER: return .integer(columnInt64(index))
    case SQLITE_FLOAT: return .real(columnDouble(index))
    case SQLITE_TEXT: return columnText(index).map(DatabaseValue.text)
    case SQLITE_BLOB:
      let count = Int(sqlite3_column_bytes(handle, index))
      guard let bytes = sqlite3_column_blob(handle, index) else { return .blob([]) }
      return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
    default: return nil
    }
  }
  public func columnText(_ index: Int32) -> String? {
    guard let text = sqlite3_column_text(handle, index) else { return nil }
    return String(cString: text)
  }
}
