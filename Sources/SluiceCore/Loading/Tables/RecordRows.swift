/// The rows one record becomes: "this row for `orders`, these for `order_items`". A dataset fills
/// it in `Dataset.rows(for:into:)`; the engine writes it.
///
/// Values are given in the table's column order, without a child table's parent key and
/// position: a child row belongs to the row of its parent table added last, and the engine numbers
/// it; an extension row likewise, at most one per parent row. Rows of tables that others
/// reference come before the rows that reference them.
///
/// ```swift
/// func rows(for order: Order, into rows: inout RecordRows) {
///   rows.add(Self.customers, order.customer.id, order.customer.name)   // referenced first
///   rows.add(Self.orders, order.id, order.amountMinor, order.status, order.customer.id)
///   for item in order.items { rows.add(Self.items, item.sku, item.quantity) }  // children, numbered
/// }
/// ```
public struct RecordRows: Sendable {
  /// One row: its table's serial, where its values start, and what it belongs to. Plain
  /// integers, so the writer's hot loop copies no references.
  @usableFromInline package struct Entry: Sendable {
    @usableFromInline package let serial: Int32
    @usableFromInline let start: Int32
    /// The parent's entry, for a child row; -1 otherwise.
    @usableFromInline package let parent: Int32
    /// Its index among its parent's children in this table (0-based).
    @usableFromInline let index: Int32
    /// For a patch or a merge: a bit per column left unchanged. Whole rows have none; a row
    /// that is not a patch and has some is a merge.
    @usableFromInline package let unchanged: UInt64
    @usableFromInline package let isPatch: Bool

    @usableFromInline
    init(serial: Int32, start: Int32, parent: Int32, index: Int32, unchanged: UInt64, isPatch: Bool) {
      self.serial = serial
      self.start = start
      self.parent = parent
      self.index = index
      self.unchanged = unchanged
      self.isPatch = isPatch
    }
  }

  /// What the rows break that needs no database to see: a NOT NULL column given nothing, a
  /// patch without its key. Found as rows are added; the record is rejected at the load stage.
  struct Violation: Sendable {
    var path: String
    var code: IssueCode
    var message: String
  }

  /// A reference no earlier row of the record resolves, or a patch's own key: the writer looks
  /// these up in the table.
  package struct OpenReference: Sendable {
    package var entry: Int32
    /// Among the row's own columns.
    package var column: Int32
    package var target: Int32
    package var orphans: OrphanPolicy
    package var isPatchKey: Bool

    /// A reference to a row by its key whose orphans are rejected: a foreign key of the
    /// table's, checked as the row is written, finds the same orphans.
    package var isForeignKeyCheck: Bool { !isPatchKey && orphans == .reject }
  }

  @usableFromInline var values: [DatabaseValue?] = []
  @usableFromInline package var entries: [Entry] = []
  private(set) var violations: [Violation] = []
  package private(set) var openReferences: [OpenReference] = []
  /// Per table with rows in the record: its serial and its last row's entry, so that a child row
  /// finds its parent and its place among its siblings without walking back over the rows
  /// between (an order of 400k items walked back over all the items before each).
  private var lastRows: [(serial: Int32, entry: Int32)] = []
  /// Per entry: the entry of the same table's row before it, or -1, so that a reference looks at
  /// the record's earlier rows of its target table only.
  private var previousOfTable: [Int32] = []

  public init() {
    values.reserveCapacity(32)
    entries.reserveCapacity(8)
  }

  /// Empties the rows for another record, keeping their storage: the decoding thread reuses the
  /// rows of records the loading thread is done with (`RecordProducer`), so that a record's rows
  /// cost no allocation of their six arrays. False, and nothing kept, for the rows of a big
  /// record: what one record needed is not kept for the next.
  mutating func reuse() -> Bool {
    guard values.capacity <= Self.reusedValues, entries.capacity <= Self.reusedValues else { return false }
    values.removeAll(keepingCapacity: true)
    entries.removeAll(keepingCapacity: true)
    if !violations.isEmpty { violations.removeAll(keepingCapacity: true) }
    if !openReferences.isEmpty { openReferences.removeAll(keepingCapacity: true) }
    lastRows.removeAll(keepingCapacity: true)
    previousOfTable.removeAll(keepingCapacity: true)
    return true
  }

  /// The bytes of the rows' own storage (their arrays' capacity): what reused rows keep.
  var storageBytes: Int {
    values.capacity * MemoryLayout<DatabaseValue?>.stride + entries.capacity * MemoryLayout<Entry>.stride
      + previousOfTable.capacity * MemoryLayout<Int32>.stride
      + lastRows.capacity * MemoryLayout<(serial: Int32, entry: Int32)>.stride
      + violations.capacity * MemoryLayout<Violation>.stride
      + openReferences.capacity * MemoryLayout<OpenReference>.stride
  }

  /// The most values (and rows) whose storage `reuse` keeps: 4 KiB of values.
  static var reusedValues: Int { 256 }

  public var isEmpty: Bool { entries.isEmpty }
  public var count: Int { entries.count }

  /// Adds a whole row of `table`: one value per declared column, in order.
  @inlinable
  public mutating func add<each V: DatabaseValueConvertible>(_ table: Table, _ value: repeat each V) {
    let start = values.count
    var nulls: UInt64 = 0
    for value in repeat each value {
      precondition(!value.isUnchanged, "\(table.name): a whole row cannot leave a column unchanged; use patch")
      let converted = value.databaseValue
      if case .none = converted { nulls |= 1 << UInt64(truncatingIfNeeded: values.count - start) }
      values.append(converted)
    }
    append(table, start: start, unchanged: 0, nulls: nulls, isPatch: false)
  }

  /// Adds a whole row of `table` whose values are data, not Swift values (a dataset file's
  /// record): `value(n)` is the `n`-th of `count` declared columns.
  mutating func add(_ table: Table, count: Int, value: (Int) -> DatabaseValue?) {
    let start = values.count
    var nulls: UInt64 = 0
    for column in 0..<count {
      let converted = value(column)
      if converted == nil { nulls |= 1 << UInt64(column) }
      values.append(converted)
    }
    append(table, start: start, unchanged: 0, nulls: nulls, isPatch: false)
  }

  /// Adds a partial row of `table`: one value per declared column, in order, where a
  /// `Patch.unchanged` value leaves its column alone, `.cleared` sets it to NULL and `.set`
  /// writes it. The key's columns must be given. The row must exist: a patch never inserts.
  @inlinable
  public mutating func patch<each V: DatabaseValueConvertible>(_ table: Table, _ value: repeat each V) {
    precondition(table.parent == nil, "\(table.name): only top-level tables take patches")
    let (start, unchanged, nulls) = appendPartial(repeat each value)
    append(table, start: start, unchanged: unchanged, nulls: nulls, isPatch: true)
  }

  /// Adds a row of a shared table (declared `onConflict: .upsert`) that keeps what other records
  /// gave it: one value per declared column, in order, where a `Patch.unchanged` value leaves the
  /// column of an existing row as it is, and is NULL in a new row; every other value is written
  /// either way, as `add` would.
  ///
  /// For rows many records name but only some describe: a chat message knows its sender's id,
  /// while the export's user list (or another message) knows the name. `merge` with the name
  /// `.unchanged` creates the sender if no record did, and never clears a name another gave.
  @inlinable
  public mutating func merge<each V: DatabaseValueConvertible>(_ table: Table, _ value: repeat each V) {
    precondition(
      table.parent == nil && table.onConflict == .upsert,
      "\(table.name): merge is for top-level tables declared onConflict: .upsert")
    let (start, unchanged, nulls) = appendPartial(repeat each value)
    append(table, start: start, unchanged: unchanged, nulls: nulls, isPatch: false)
  }

  /// Appends a partial row's values; returns where they start and, one bit per column, which
  /// are `Patch.unchanged` and which are NULL.
  @inlinable
  mutating func appendPartial<each V: DatabaseValueConvertible>(_ value: repeat each V)
    -> (start: Int, unchanged: UInt64, nulls: UInt64)
  {
    let start = values.count
    var unchanged: UInt64 = 0
    var nulls: UInt64 = 0
    for value in repeat each value {
      let bit: UInt64 = 1 << UInt64(truncatingIfNeeded: values.count - start)
      if value.isUnchanged { unchanged |= bit }
      let converted = value.databaseValue
      if case .none = converted { nulls |= bit }
      values.append(converted)
    }
    return (start, unchanged, nulls)
  }

  @usableFromInline
  mutating func append(_ table: Table, start: Int, unchanged: UInt64, nulls: UInt64, isPatch: Bool) {
    precondition(
      values.count - start == table.ownColumnCount,
      "\(table.name): \(values.count - start) value(s) given for \(table.columns.count) column(s)")
    var parent: Int32 = -1
    var index: Int32 = 0
    let parentSerial = table.parentSerial
    let previous = lastRow(of: table.serial)
    if parentSerial >= 0 {
      let found = lastRow(of: parentSerial)
      precondition(found >= 0, "\(table.name): a child row needs a row of its parent table before it")
      parent = found
      // Rows of this table after the parent's row are its children: the last one is the previous sibling.
      if previous > found { index = entries[Int(previous)].index + 1 }
      precondition(index == 0 || !table.isExtension, "\(table.name): an extension has at most one row per parent row")
    }
    let entry = Entry(
      serial: table.serial, start: Int32(start), parent: parent, index: index, unchanged: unchanged, isPatch: isPatch)
    entries.append(entry)
    previousOfTable.append(previous)
    setLastRow(of: table.serial, to: Int32(entries.count - 1))
    checkTypes(entry, of: table)
    check(entry, of: table, nulls: nulls)
    resolve(entry, of: table)
  }

  /// The entry of the last row of table `serial` in the record, or -1.
  private func lastRow(of serial: Int32) -> Int32 {
    for row in lastRows where row.serial == serial { return row.entry }
    return -1
  }

  private mutating func setLastRow(of serial: Int32, to entry: Int32) {
    for i in lastRows.indices where lastRows[i].serial == serial {
      lastRows[i].entry = entry
      return
    }
    lastRows.append((serial, entry))
  }

  /// Resolves the row's references against the record's earlier rows, on the decoding thread;
  /// what remains is for the writer.
  private mutating func resolve(_ entry: Entry, of table: Table) {
    guard entry.isPatch || table.hasReferences else { return }
    let number = Int32(entries.count - 1)
    /// Whether an earlier whole row of the record has `key` in table `serial`'s key column.
    func writtenEarlier(_ key: DatabaseValue, serial: Int32, keyColumn: Int) -> Bool {
      var earlier = serial == entry.serial ? previousOfTable[Int(number)] : lastRow(of: serial)
      while earlier >= 0 {
        let row = entries[Int(earlier)]
        if !row.isPatch && values[Int(row.start) + keyColumn] == key { return true }
        earlier = previousOfTable[Int(earlier)]
      }
      return false
    }
    if entry.isPatch, let keyColumn = table.singleKeyColumn, let key = values[Int(entry.start) + keyColumn],
      !writtenEarlier(key, serial: table.serial, keyColumn: keyColumn)
    {
      openReferences.append(
        OpenReference(entry: number, column: Int32(keyColumn), target: table.serial, orphans: .reject, isPatchKey: true)
      )
    }
    for (column, target, orphans) in table.references {
      guard let key = values[Int(entry.start) + column], let targetKey = target.singleKeyColumn else { continue }
      if !writtenEarlier(key, serial: target.serial, keyColumn: targetKey) {
        openReferences.append(
          OpenReference(
            entry: number, column: Int32(column), target: target.serial, orphans: orphans, isPatchKey: false))
      }
    }
  }

  /// Each value's kind against its column's type: a dataset that binds text to an integer column
  /// (its own bug, not the data's) gets a record issue naming the table and the column, where the
  /// store would fail the whole run on it.
  private mutating func checkTypes(_ entry: Entry, of table: Table) {
    for (index, type) in table.columnTypes.enumerated() {
      guard let value = values[Int(entry.start) + index], !type.accepts(value) else { continue }
      let column = table.columns[index]
      violations.append(
        Violation(
          path: path(entry, column: table.inheritedCount + index, in: table), code: .typeMismatch,
          message:
            "\(table.name).\(column.name) is \(column.type == .integer ? "an" : "a") \(column.type.rawValue) column, but the dataset gave it \(value.kindName)"
        ))
    }
  }

  /// `nulls` has a bit per column given no value.
  private mutating func check(_ entry: Entry, of table: Table, nulls: UInt64) {
    // Bits only, on the common path: which columns are NULL or left unchanged. A merge's
    // unchanged column is NULL in a new row, so it must be nullable.
    let empty = nulls | entry.unchanged
    let keyGap = entry.isPatch ? empty & table.keyMask : 0
    let nullGap = (entry.isPatch ? empty & ~entry.unchanged : empty) & table.notNullMask
    guard keyGap | nullGap != 0 else { return }
    for (index, column) in table.columns.enumerated() {
      let isUnchanged = entry.unchanged & (1 << UInt64(index)) != 0
      guard values[Int(entry.start) + index] == nil || isUnchanged else { continue }
      if entry.isPatch && table.isKeyColumn[index] {
        violations.append(
          Violation(
            path: path(entry, column: table.inheritedCount + index, in: table), code: .missingField,
            message: "a patch must carry its key \(table.name).\(column.name)"))
      } else if (!isUnchanged || !entry.isPatch) && !column.isNullable {
        violations.append(
          Violation(
            path: path(entry, column: table.inheritedCount + index, in: table), code: .nullValue,
            message: "\(table.name).\(column.name) cannot be NULL"))
      }
    }
  }

  // MARK: - Reading, for the engine

  /// The value of own column `column` of row `entry`.
  @inline(__always)
  func value(_ entry: Int, _ column: Int) -> DatabaseValue? { values[Int(entries[entry].start) + column] }

  /// The value of column `column` of the table's `allColumns`: a child's inherited parent key and
  /// its position, then its own values.
  @inline(__always)
  package func fullValue(_ entry: Int, _ column: Int, in table: Table) -> DatabaseValue? {
    let row = entries[entry]
    let inherited = table.inheritedCount
    if column >= inherited { return values[Int(row.start) + column - inherited] }
    if column < table.parentKeySources.count {
      let source = table.parentKeySources[column]
      // A top-level parent's key is among its own values; a child parent's may be inherited.
      if source >= table.parentInheritedCount {
        return values[Int(entries[Int(row.parent)].start) + source - table.parentInheritedCount]
      }
      if let parent = table.parent?.table { return fullValue(Int(row.parent), source, in: parent) }
    }
    return .integer(table.firstPosition + Int64(row.index))
  }

  /// The record's field path of a column of `allColumns` of row `entry` (`items[2].sku`,
  /// `items[2].taxes[0].rate` for a grandchild).
  func path(_ entry: Int, column: Int, in table: Table) -> String {
    path(entries[entry], column: column, in: table)
  }

  private func path(_ entry: Entry, column: Int, in table: Table) -> String {
    Self.join(element(entry, of: table), table.allColumns[column].field)
  }

  /// Where a row's element sits in the record: `""` for a top-level row, `items[2]` for a
  /// child's, `items[2].taxes[0]` for a grandchild's. An extension's columns sit in its field of
  /// the parent's element, or in that element itself.
  private func element(_ entry: Entry, of table: Table) -> String {
    guard let link = table.parent else { return "" }
    let base = entry.parent >= 0 ? element(entries[Int(entry.parent)], of: link.table) : ""
    return Self.join(base, table.isExtension ? link.field : "\(link.field)[\(entry.index)]")
  }

  private static func join(_ base: String, _ field: String) -> String {
    if base.isEmpty { return field }
    return field.isEmpty ? base : "\(base).\(field)"
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
