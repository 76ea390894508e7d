@_spi(Internals) import SluiceCore

/// PostgreSQL's spelling of the SQL the engine derives from table declarations.
///
/// Values travel as text parameters, and the types are chosen so that what the engine binds for
/// SQLite reads the same here:
/// - `integer` → `bigint` (the engine's `Int64`);
/// - `boolean` → `smallint` with the engine's `CHECK (col IN (0, 1))`: rows bind booleans as the
///   integers 0 and 1 for both stores, so the column keeps that contract rather than `boolean`,
///   which would reject `1`;
/// - `real` → `double precision`;
/// - `timestamp` → `timestamptz`: the engine binds canonical UTC text
///   (`2023-01-01T00:00:05.000Z`), which PostgreSQL reads as that instant, and the column then
///   sorts, compares and does date arithmetic as a time; read it back with
///   `to_char(col AT TIME ZONE 'UTC', …)` or as `timestamptz` (each session is set to UTC);
/// - `blob` → `bytea`.
package struct PostgreSQLDialect: SQLDialect {
  public init() {}

  public func typeName(_ type: ColumnType) -> String {
    switch type {
    case .text: return "text"
    case .integer: return "bigint"
    case .boolean: return "smallint"
    case .real: return "double precision"
    case .timestamp: return "timestamptz"
    case .blob: return "bytea"
    }
  }

  public func tableOptions(hasCompositeKey: Bool) -> String { "" }
  public func parameter(_ n: Int) -> String { "$\(n)" }
  public func isDistinct(_ a: String, _ b: String) -> String { "\(a) IS DISTINCT FROM \(b)" }
  /// The protocol counts parameters in 16 bits.
  public var maxParameters: Int { 65_535 }

  /// PostgreSQL keeps the first 63 bytes of a longer identifier (`NAMEDATALEN` - 1), silently:
  /// two declared names that agree on those bytes would be one object there.
  public static let identifierLimit = 63
}
