internal import CLibPQ
import Foundation
@_spi(Internals) import SluiceCore

/// A statement prepared on the server, run with text parameters: bind, step, reset.
///
/// Values are rendered as PostgreSQL reads them in text format — integers and reals in decimal
/// (a real as its shortest exact form), bytes as `\x` hex — and the server converts each to its
/// column's type. The whole result arrives with the first `step`; later steps walk its rows.
package final class PostgreSQLStatement: StoreStatement {
  let store: PostgreSQLStore
  let name: String
  public let sql: String
  /// The highest `$n` the SQL names: every parameter up to it is sent, unused ones as NULL.
  let parameterCount: Int
  /// Each parameter's text, without a terminator; nil is NULL.
  private var values: [[UInt8]?]
  private var result: OpaquePointer?
  private var row: Int32 = -1
  private var rowCount: Int32 = 0

  init(store: PostgreSQLStore, name: String, sql: String) throws {
    self.store = store
    self.name = name
    self.sql = sql
    let used = Self.parameters(in: sql)
    parameterCount = used.max() ?? 0
    values = Array(repeating: nil, count: parameterCount)
    // A parameter the SQL does not mention has no type to infer (a child delete that matches the
    // parent's key at $3 only): it is declared text, and NULL is sent for it.
    let types: [Oid] = (0..<parameterCount).map { used.contains($0 + 1) ? 0 : 25 }
    let prepared = types.withUnsafeBufferPointer { types in
      PQprepare(store.connection, name, sql, Int32(parameterCount), types.baseAddress)
    }
    defer { PQclear(prepared) }
    try store.check(prepared, sql: sql)
  }

  deinit {
    PQclear(result)
    store.retiredStatements.append(name)
  }

  // MARK: - Binding

  public func bind(_ value: DatabaseValue?, at index: Int32) throws {
    let slot = Int(index) - 1
    guard slot >= 0 && slot < parameterCount else {
      throw PostgreSQLError(
        sqlState: "08P01", message: "parameter \(index) is out of range (the statement has \(parameterCount))",
        server: store.server, sql: sql)
    }
    guard let value else {
      values[slot] = nil
      return
    }
    var bytes = values[slot] ?? []
    bytes.removeAll(keepingCapacity: true)
    switch value {
    case .integer(let number):
      bytes.append(contentsOf: String(number).utf8)
    case .real(let number):
      // Swift's description is the shortest text that reads back as the same double; PostgreSQL
      // reads `inf`, `-inf` and `nan` too.
      bytes.append(contentsOf: number.description.utf8)
    case .text(let text):
      // Text parameters end at their first NUL, and PostgreSQL's text cannot hold one: refuse it
      // rather than store a shortened value.
      if text.utf8.contains(0) {
        var error = PostgreSQLError(
          sqlState: "22021", message: "text contains a NUL character (U+0000), which PostgreSQL cannot store",
          server: store.server, sql: sql)
        error.parameter = Int(index)
        throw error
      }
      bytes.append(contentsOf: text.utf8)
    case .blob(let blob):
      bytes.reserveCapacity(2 + blob.count * 2)
      bytes.append(UInt8(ascii: "\\"))
      bytes.append(UInt8(ascii: "x"))
      let digits = Array("0123456789abcdef".utf8)
      for byte in blob {
        bytes.append(digits[Int(byte >> 4)])
        bytes.append(digits[Int(byte & 0x0F)])
      }
    }
    values[slot] = bytes
  }

  public func bind(_ values: UnsafeBufferPointer<DatabaseValue?>, from index: Int32) throws {
    var parameter = index
    for value in values {
      try bind(value, at: parameter)
      parameter += 1
    }
  }

  // MARK: - Running

  public func execute() throws {
    defer { reset() }
    try run()
  }

  @discardableResult
  public func step() throws -> Bool {
    if result == nil { try run() }
    row += 1
    return row < rowCount
  }

  public func reset() {
    PQclear(result)
    result = nil
    row = -1
    rowCount = 0
  }

  /// Sends the statement with its parameters and waits for the whole result.
  private func run() throws {
    PQclear(result)
    result = nil
    // All parameters in one buffer, each followed by its terminator; their offsets, -1 for NULL.
    var buffer: [CChar] = []
    var offsets: [Int] = []
    offsets.reserveCapacity(parameterCount)
    for value in values {
      guard let value else {
        offsets.append(-1)
        continue
      }
      offsets.append(buffer.count)
      for byte in value { buffer.append(CChar(bitPattern: byte)) }
      buffer.append(0)
    }
    let answer = buffer.withUnsafeBufferPointer { buffer -> OpaquePointer? in
      let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
        offset < 0 ? nil : buffer.baseAddress.map { $0 + offset }
      }
      return pointers.withUnsafeBufferPointer { pointers in
        PQexecPrepared(store.connection, name, Int32(parameterCount), pointers.baseAddress, nil, nil, 0)
      }
    }
    do {
      try store.check(answer, sql: sql)
    } catch {
      PQclear(answer)
      throw error
    }
    result = answer
    rowCount = PQntuples(answer)
    store.noteChanges(answer)
  }

  // MARK: - Columns

  /// The columns of the current result.
  var columnCount: Int32 { result.map { PQnfields($0) } ?? 0 }

  public func columnIsNull(_ index: Int32) -> Bool {
    guard let result, row >= 0, row < rowCount else { return true }
    return PQgetisnull(result, row, index) != 0
  }

  /// The column's value by its type: integers (and booleans, as 0 and 1), reals, bytes, and
  /// everything else as its text.
  public func columnValue(_ index: Int32) -> DatabaseValue? {
    guard let result, row >= 0, row < rowCount, PQgetisnull(result, row, index) == 0,
      let pointer = PQgetvalue(result, row, index)
    else { return nil }
    let text = String(cString: pointer)
    switch PQftype(result, index) {
    case 16: return .integer(text == "t" ? 1 : 0)  // bool
    case 20, 21, 23, 26: return Int64(text).map(DatabaseValue.integer) ?? .text(text)  // int8, int2, int4, oid
    case 700, 701, 1700: return Double(text).map(DatabaseValue.real) ?? .text(text)  // float4, float8, numeric
    case 17: return .blob(Self.bytes(hex: text))  // bytea, `\x…`
    default: return .text(text)
    }
  }

  static func bytes(hex text: String) -> [UInt8] {
    func nibble(_ c: UInt8) -> UInt8 {
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
      default: return 0
      }
    }
    let digits = Array(text.utf8.dropFirst(2))
    return stride(from: 0, to: digits.count - 1, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
  }

  /// The numbers of the `$n` parameters the SQL mentions outside string literals, quoted
  /// identifiers and comments.
  static func parameters(in sql: String) -> Set<Int> {
    var found = Set<Int>()
    let bytes = Array(sql.utf8)
    var index = 0
    func skip(past terminator: UInt8) {
      index += 1
      while index < bytes.count && bytes[index] != terminator { index += 1 }
      index += 1
    }
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: "'"): skip(past: UInt8(ascii: "'"))
      case UInt8(ascii: "\""): skip(past: UInt8(ascii: "\""))
      case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
        skip(past: UInt8(ascii: "\n"))
      case UInt8(ascii: "$"):
        var number = 0
        var end = index + 1
        while end < bytes.count, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") {
          number = number * 10 + Int(bytes[end] - UInt8(ascii: "0"))
          end += 1
        }
        if end > index + 1 { found.insert(number) }
        index = end
      default:
        index += 1
      }
    }
    return found
  }
}
