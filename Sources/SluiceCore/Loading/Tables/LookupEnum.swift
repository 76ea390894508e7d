/// A Swift enum that owns a lookup table in the database.
///
/// The enum is the source of truth: at the start of every run the engine inserts cases the table
/// lacks, updates attributes that changed, and marks rows whose case is gone as retired — kept,
/// so history still joins. Each case declares its id: ids never come from the declaration order,
/// so reordering the cases changes nothing, and a released id is never reused.
///
/// A table column declared with `.lookup("status_id", OrderStatus.self)` holds these ids, and
/// brings the enum's table into the dataset's schema.
public protocol LookupEnum: CaseIterable, RawRepresentable, Sendable, DatabaseValueConvertible
where RawValue == String {
  /// The table's name (`order_statuses`).
  static var lookupTable: String { get }
  /// The extra columns, in order (`.boolean("is_final")`).
  static var lookupColumns: [Column] { get }
  /// The case's permanent id.
  var lookupID: Int64 { get }
  /// The case's values for `lookupColumns`, in the same order.
  var lookupValues: [DatabaseValue?] { get }
}

extension LookupEnum {
  public static var lookupColumns: [Column] { [] }
  public var lookupValues: [DatabaseValue?] { [] }
}

/// An enum's lookup table with its enum's cases, taken once so the engine needs no generics to
/// create and synchronize it.
public struct LookupDeclaration: Sendable {
  public struct Case: Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var values: [DatabaseValue?]
  }

  public let table: String
  /// `id`, `name`, the enum's columns, `retired`.
  public let columns: [Column]
  public let cases: [Case]

  /// A lookup table declared as data (a dataset file's `lookups`): ids unique, one value per
  /// extra column in each case (the file's loader checks both first).
  init(table: String, extraColumns: [Column], cases: [Case]) {
    self.table = table
    columns = [.integer("id"), .text("name")] + extraColumns + [.boolean("retired")]
    self.cases = cases
  }

  public init<E: LookupEnum>(_ type: E.Type) {
    table = E.lookupTable
    columns = [.integer("id"), .text("name")] + E.lookupColumns + [.boolean("retired")]
    var seen = Set<Int64>()
    cases = E.allCases.map { value in
      precondition(seen.insert(value.lookupID).inserted, "\(E.self) declares lookup id \(value.lookupID) twice")
      precondition(value.lookupValues.count == E.lookupColumns.count, "\(E.self).\(value): one value per lookup column")
      return Case(id: value.lookupID, name: value.rawValue, values: value.lookupValues)
    }
  }
}

/// Creates and synchronizes enum-owned lookup tables.
package enum LookupTable {
  /// The DDL of an enum's table: `id`, `name` (the raw value), the enum's columns, `retired`.
  public static func createStatement<E: LookupEnum>(for type: E.Type, dialect: any SQLDialect)
    -> String
  {
    TableSQL(dialect: dialect).createLookup(LookupDeclaration(type))
  }

  @discardableResult
  public static func synchronize<E: LookupEnum>(_ type: E.Type, in store: some Store) throws
    -> (inserted: Int, updated: Int, retired: Int)
  {
    try synchronize(LookupDeclaration(type), in: store)
  }

  /// Brings the table in line with the enum; returns how many rows it inserted, updated and
  /// retired. Runs inside the caller's transaction.
  @discardableResult
  public static func synchronize(_ lookup: LookupDeclaration, in store: some Store) throws
    -> (inserted: Int, updated: Int, retired: Int)
  {
    let sql = TableSQL(dialect: store.dialect)
    let upsert = try store.prepare(sql.lookupUpsert(lookup))
    let current = try store.prepare(sql.lookupRow(lookup))
    var inserted = 0
    var updated = 0
    for value in lookup.cases {
      try current.bind(.integer(value.id), at: 1)
      let existed = try current.step()
      // A row that already says what the enum says is left alone rather than upserted: an
      // upsert locks the row it conflicts with even when its WHERE skips the update, so every
      // run would hold every lookup row to its commit, and two runs into the same database —
      // several machines loading shares of the files — would wait on each other.
      let expected = [DatabaseValue.text(value.name)] + value.values + [.integer(0)]
      let unchanged = existed && expected.indices.allSatisfy { current.columnValue(Int32($0)) == expected[$0] }
      current.reset()
      if unchanged { continue }
      try upsert.run([.integer(value.id), .text(value.name)] + value.values)
      if !existed {
        inserted += 1
      } else if store.changes > 0 {
        updated += 1
      }
    }
    try store.execute(sql.lookupRetire(lookup, keeping: lookup.cases.map(\.id)))
    return (inserted, updated, store.changes)
  }
}
