/// How a store spells the parts of SQL that differ between databases; `TableSQL` derives every
/// statement from the table declarations through it.
public protocol SQLDialect: Sendable {
  /// The column type for a declared type (`TEXT`, `INTEGER`; PostgreSQL: `timestamptz`, …).
  func typeName(_ type: ColumnType) -> String
  /// What follows the closing parenthesis of `CREATE TABLE` (`STRICT`, `WITHOUT ROWID`).
  func tableOptions(hasCompositeKey: Bool) -> String
  /// Parameter `n` (1-based) of a statement: `?1` or `$1`.
  func parameter(_ n: Int) -> String
  /// `a` and `b` differ, NULLs compared as values (`IS NOT`, `IS DISTINCT FROM`).
  func isDistinct(_ a: String, _ b: String) -> String
  /// An identifier, quoted.
  func quote(_ identifier: String) -> String
  /// How many parameters one statement may take.
  var maxParameters: Int { get }
  /// Whether `INSERT … ON CONFLICT DO UPDATE` into a table with foreign keys costs more than an
  /// insert that leaves an existing key alone followed by an update where a column differs
  /// (SQLite: a statement journal per row). Such a store's row writer takes the two statements;
  /// one that pays a round trip per statement (PostgreSQL) keeps the one upsert. Default: false.
  var prefersInsertThenUpdate: Bool { get }
  /// Whether the row writer stages a table's patches in a temporary table and applies them in
  /// key order (each key's in the order they came) before anything else writes: a patch feed
  /// names rows all over a big table, and key order reads each page once rather than once a
  /// patch. For a store in the process (SQLite); one that pays a round trip per statement
  /// gains nothing from it. Default: false.
  var appliesPatchesInKeyOrder: Bool { get }
}

extension SQLDialect {
  public var prefersInsertThenUpdate: Bool { false }
  public var appliesPatchesInKeyOrder: Bool { false }

  public func quote(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}
