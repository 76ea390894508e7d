/// The rows one record becomes: "this row for `orders`, these for `order_items`". A dataset fills
/// it in `Dataset.rows(for:into:)`; the engine writes it.
///
/// Values are given in the table's column order, without a child table's parent key and
/// position: a child row belongs to the row of its parent table added last, and the engine numbers
/// it. Rows of tables that others reference come before the rows that reference them.
public struct RecordRows: Sendable {
  /// One row: its table, where its values start, and what it belongs to.
  @usableFromInline struct Entry: Sendable {
    @usableFromInline let table: Table
    @usableFromInline let start: Int
    /// The parent's entry, for a child row; -1 otherwise.
    @usableFromInline let parent: Int
    /// Its index among its parent's children in this table (0-based).
    @usableFromInline let index: Int
    /// For a patch: a bit per column left unchanged. Full rows have none.
    @usableFromInline var unchanged: UInt64
    @usableFromInline let isPatch: Bool

    @usableFromInline
    init(table: Table, start: Int, parent: Int, index: Int, unchanged: UInt64, isPatch: Bool) {
      self.table = table
      self.start = start
      self.parent = parent
      self.index = index
      self.unchanged = unchanged
      self.isPatch = isPatch
    }
  }

  @usableFromInline var values: [DatabaseValue?] = []
  @usableFromInline var entries: [Entry] = []

  public init() {}

  public var isEmpty: Bool { entries.isEmpty }
  public var count: Int { entries.count }

  /// Adds a whole row of `table`: one value per declared column, in order.
  @inlinable
  public mutating func add<each V: DatabaseValueConvertible>(_ table: Table, _ value: repeat each V) {
    let start = values.count
    for value in repeat each value {
      precondition(!value.isUnchanged, "\(table.name): a whole row cannot leave a column unchanged; use patch")
      values.append(value.databaseValue)
    }
    append(table, start: start, unchanged: 0, isPatch: false)
  }

  /// Adds a partial row of `table`: one value per declared column, in order, where a
  /// `Patch.unchanged` value leaves its column alone, `.cleared` sets it to NULL and `.set`
  /// writes it. The key's columns must be given. The row must exist: a patch never inserts.
  @inlinable
  public mutating func patch<each V: DatabaseValueConvertible>(_ table: Table, _ value: repeat each V) {
    precondition(table.parent == nil, "\(table.name): only top-level tables take patches")
    let start = values.count
    var unchanged: UInt64 = 0
    for value in repeat each value {
      if value.isUnchanged { unchanged |= 1 << UInt64(values.count - start) }
      values.append(value.databaseValue)
    }
    append(table, start: start, unchanged: unchanged, isPatch: true)
  }

  @usableFromInline
  mutating func append(_ table: Table, start: Int, unchanged: UInt64, isPatch: Bool) {
    precondition(
      values.count - start == table.columns.count,
      "\(table.name): \(values.count - start) value(s) given for \(table.columns.count) column(s)")
    var parent = -1
    var index = 0
    if let link = table.parent {
      guard let found = entries.lastIndex(where: { $0.table === link.table }) else {
        preconditionFailure("\(table.name): a child row needs a row of \(link.table.name) before it")
      }
      parent = found
      if let sibling = entries[(found + 1)...].lastIndex(where: { $0.table === table }) {
        index = entries[sibling].index + 1
      }
    }
    entries.append(Entry(table: table, start: start, parent: parent, index: index, unchanged: unchanged, isPatch: isPatch))
  }

  // MARK: - Reading, for the engine

  /// The value of own column `column` of row `entry`.
  @inline(__always)
  func value(_ entry: Int, _ column: Int) -> DatabaseValue? { values[entries[entry].start + column] }

  /// The value of column `column` of `allColumns`, with a child's inherited key and position.
  func fullValue(_ entry: Int, _ column: Int) -> DatabaseValue? {
    let row = entries[entry]
    guard let link = row.table.parent else { return values[row.start + column] }
    let inherited = link.table.key.count
    if column < inherited {
      let parentColumn = link.table.columns.firstIndex { $0.name == link.table.key[column] }!
      return value(row.parent, parentColumn)
    }
    if link.position != nil {
      if column == inherited { return .integer(link.firstPosition + Int64(row.index)) }
      return values[row.start + column - inherited - 1]
    }
    return values[row.start + column - inherited]
  }

  /// The record's field path of a column of `allColumns` of row `entry` (`items[2].sku`).
  func path(_ entry: Int, column: Int) -> String {
    let row = entries[entry]
    let field = row.table.allColumns[column].field
    guard let link = row.table.parent else { return field }
    let element = "\(link.field)[\(row.index)]"
    return field.isEmpty ? element : "\(element).\(field)"
  }

  /// Checks what needs no database: NOT NULL columns given nothing, patches without their key.
  func violations() -> [(entry: Int, column: Int, code: IssueCode, message: String)] {
    var found: [(Int, Int, IssueCode, String)] = []
    for (number, entry) in entries.enumerated() {
      let offset = entry.table.allColumns.count - entry.table.columns.count
      let key = Set(entry.table.key)
      for (index, column) in entry.table.columns.enumerated() {
        let isUnchanged = entry.unchanged & (1 << UInt64(index)) != 0
        if entry.isPatch && key.contains(column.name) && (isUnchanged || values[entry.start + index] == nil) {
          found.append((number, offset + index, .missingField, "a patch must carry its key \(entry.table.name).\(column.name)"))
        } else if !isUnchanged && !column.isNullable && values[entry.start + index] == nil {
          found.append((number, offset + index, .nullValue, "\(entry.table.name).\(column.name) cannot be NULL"))
        }
      }
    }
    return found
  }
}

/// A Swift value a row can carry: text, numbers, booleans, timestamps, lookup enums, optionals
/// (nil is NULL) and `Patch` values.
public protocol DatabaseValueConvertible {
  var databaseValue: DatabaseValue? { get }
  /// True for `Patch.unchanged`: the column is left as it is.
  var isUnchanged: Bool { get }
}

extension DatabaseValueConvertible {
  @inlinable public var isUnchanged: Bool { false }
}

extension String: DatabaseValueConvertible {
  @inlinable public var databaseValue: DatabaseValue? { .text(self) }
}
extension Int64: DatabaseValueConvertible {
  @inlinable public var databaseValue: DatabaseValue? { .integer(self) }
}
extension Int: DatabaseValueConvertible {
  @inlinable public var databaseValue: DatabaseValue? { .integer(Int64(self)) }
}
extension Double: DatabaseValueConvertible {
  @inlinable public var databaseValue: DatabaseValue? { .real(self) }
}
extension Bool: DatabaseValueConvertible {
  @inlinable public var databaseValue: DatabaseValue? { .integer(self ? 1 : 0) }
}
extension Timestamp: DatabaseValueConvertible {
  @inlinable public var databaseValue: DatabaseValue? { .text(text) }
}
extension DatabaseValue: DatabaseValueConvertible {
  @inlinable public var databaseValue: DatabaseValue? { self }
}
extension Array: DatabaseValueConvertible where Element == UInt8 {
  @inlinable public var databaseValue: DatabaseValue? { .blob(self) }
}
extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
  @inlinable public var databaseValue: DatabaseValue? { self?.databaseValue ?? nil }
}
extension Patch: DatabaseValueConvertible where Value: DatabaseValueConvertible {
  @inlinable public var databaseValue: DatabaseValue? {
    if case .set(let value) = self { return value.databaseValue }
    return nil
  }
  @inlinable public var isUnchanged: Bool {
    if case .unchanged = self { return true }
    return false
  }
}

extension LookupEnum {
  /// A lookup enum is stored as its case's id.
  @inlinable public var databaseValue: DatabaseValue? { .integer(lookupID) }
}
