/// A Swift enum that owns a lookup table in the database (design rule 12).
///
/// The enum is the source of truth: at the start of every run `LookupTable.synchronize` inserts
/// cases the table lacks, updates attributes that changed, and marks rows whose case is gone as
/// retired — kept, so history still joins. Each case declares its id: ids never come from the
/// declaration order, so reordering the cases changes nothing, and a released id is never reused.
public protocol LookupEnum: CaseIterable, RawRepresentable, Sendable where RawValue == String {
  /// The table's name (`order_statuses`).
  static var lookupTable: String { get }
  /// The extra columns, in order, with their SQL types (`["is_final": "INTEGER"]`).
  static var lookupColumns: [(name: String, type: String)] { get }
  /// The case's permanent id.
  var lookupID: Int64 { get }
  /// The case's values for `lookupColumns`, in the same order.
  var lookupValues: [SQLiteValue?] { get }
}

extension LookupEnum {
  public static var lookupColumns: [(name: String, type: String)] { [] }
  public var lookupValues: [SQLiteValue?] { [] }
}

/// Creates and synchronizes enum-owned lookup tables.
public enum LookupTable {
  /// The DDL of an enum's table: `id`, `name` (the raw value), the enum's columns, `retired`.
  public static func createStatement<E: LookupEnum>(for type: E.Type) -> String {
    let columns = E.lookupColumns.map { "  \($0.name) \($0.type),\n" }.joined()
    return """
      CREATE TABLE \(E.lookupTable) (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
      \(columns)  retired INTEGER NOT NULL DEFAULT 0 CHECK (retired IN (0, 1))
      ) STRICT;
      """
  }

  /// Brings the table in line with the enum; returns how many rows it inserted, updated and
  /// retired. Runs inside the caller's transaction.
  @discardableResult
  public static func synchronize<E: LookupEnum>(_ type: E.Type, in connection: SQLiteConnection) throws
    -> (inserted: Int, updated: Int, retired: Int)
  {
    let table = E.lookupTable
    let columns = ["id", "name"] + E.lookupColumns.map(\.name)
    let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
    let changed = (["name"] + E.lookupColumns.map(\.name)).map { "\($0) IS NOT excluded.\($0)" }
    let assignments = (["name"] + E.lookupColumns.map(\.name)).map { "\($0) = excluded.\($0)" }
    let upsert = try connection.prepare(
      """
      INSERT INTO \(table) (\(columns.joined(separator: ", ")), retired) VALUES (\(placeholders), 0)
      ON CONFLICT (id) DO UPDATE SET \(assignments.joined(separator: ", ")), retired = 0
      WHERE \(changed.joined(separator: " OR ")) OR retired = 1
      """)
    let exists = try connection.prepare("SELECT 1 FROM \(table) WHERE id = ?")
    var inserted = 0
    var updated = 0
    var seen = Set<Int64>()
    for value in E.allCases {
      precondition(seen.insert(value.lookupID).inserted, "\(E.self) declares lookup id \(value.lookupID) twice")
      try exists.bind([.integer(value.lookupID)])
      let existed = try exists.step()
      exists.reset()
      try upsert.run([.integer(value.lookupID), .text(value.rawValue)] + value.lookupValues)
      if !existed {
        inserted += 1
      } else if connection.changes > 0 {
        updated += 1
      }
    }
    let ids = seen.sorted().map(String.init).joined(separator: ", ")
    try connection.execute(
      "UPDATE \(table) SET retired = 1 WHERE retired = 0\(ids.isEmpty ? "" : " AND id NOT IN (\(ids))")")
    return (inserted, updated, connection.changes)
  }
}
