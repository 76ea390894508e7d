internal import CSQLite
@_spi(Internals) import SluiceCore

/// SQLite's spelling: STRICT tables, `WITHOUT ROWID` for composite keys, numbered `?` parameters.
package struct SQLiteDialect: SQLDialect {
  public init() {}

  public func typeName(_ type: ColumnType) -> String {
    switch type {
    case .text, .timestamp: return "TEXT"
    case .integer, .boolean: return "INTEGER"
    case .real: return "REAL"
    case .blob: return "BLOB"
    }
  }

  public func tableOptions(hasCompositeKey: Bool) -> String {
    // A composite natural key is the table's real identity: storing rows in its B-tree instead
    // of a rowid one saves an index and a lookup per insert.
    hasCompositeKey ? "STRICT, WITHOUT ROWID" : "STRICT"
  }

  public func parameter(_ n: Int) -> String { "?\(n)" }

  /// An alias of the rowid, which SQLite numbers on insert.
  public var generatedKey: String { "INTEGER PRIMARY KEY" }

  /// An upsert into a table with foreign keys gets a statement journal (see `RowWriter.Plan`).
  public var prefersInsertThenUpdate: Bool { true }

  /// Patches over a table bigger than the page cache each read and dirty a page of their own
  /// (see `SQLDialect.appliesPatchesInKeyOrder`).
  public var appliesPatchesInKeyOrder: Bool { true }

  /// Bare when the name is a plain identifier and not one of SQLite's keywords, so the DDL
  /// `sluice schema` prints reads like hand-written SQL; quoted otherwise.
  public func quote(_ identifier: String) -> String {
    let plain =
      identifier.utf8.first.map {
        $0 == UInt8(ascii: "_") || ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z")
      } == true
      && identifier.utf8.allSatisfy {
        $0 == UInt8(ascii: "_") || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
          || (($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z"))
      }
    if plain && sqlite3_keyword_check(identifier, Int32(identifier.utf8.count)) == 0 { return identifier }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
  public func isDistinct(_ a: String, _ b: String) -> String { "\(a) IS NOT \(b)" }
  public var maxParameters: Int { 32_766 }
}
