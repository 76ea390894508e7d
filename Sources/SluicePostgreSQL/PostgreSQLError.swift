@_spi(Internals) import SluiceCore

/// A failed PostgreSQL call: the server's SQLSTATE and primary message, the constraint, table and
/// column it names, and the statement's SQL.
///
/// It never carries values. Bound values travel apart from the SQL; the server's DETAIL field
/// (`Key (order_id)=(42) already exists.`, `Failing row contains (…)`) is never read; and the
/// primary message of a data exception (class 22, `invalid input syntax for type bigint: "x"`)
/// or of a raised exception, which quote values, is replaced by a fixed text.
package struct PostgreSQLError: StoreError, Sendable {
  /// The five-character SQLSTATE (`23505`), or `08006` when the connection was lost and the
  /// server said nothing.
  public var sqlState: String
  public var message: String
  /// The constraint the server named (`orders_pkey`, `orders.currency check`).
  public var constraint: String?
  public var table: String?
  public var column: String?
  /// The columns of the unique index a 23505 names, as the store's catalog knows them.
  public var uniqueColumns: [String] = []
  /// The columns of the index a 54000 names (an entry too large for it), as the catalog knows them.
  public var indexColumns: [String] = []
  /// The parameter (from 1) whose value was refused before the statement was sent.
  public var parameter: Int?
  /// Where the server is (`host … port … database …`), never with a password.
  public var server: String
  public var sql: String?

  public init(
    sqlState: String, message: String, constraint: String? = nil, table: String? = nil, column: String? = nil,
    server: String, sql: String? = nil
  ) {
    self.sqlState = sqlState
    self.message = message
    self.constraint = constraint
    self.table = table
    self.column = column
    self.server = server
    self.sql = sql
  }

  /// The message for a SQLSTATE whose server text may quote a value.
  static func valueFreeMessage(sqlState: String, message: String) -> String {
    if sqlState.hasPrefix("22") { return "a value is not valid for its column (SQLSTATE \(sqlState))" }
    if sqlState == "P0001" { return "raised by a function or trigger (SQLSTATE P0001)" }
    return message
  }

  /// Whether the connection itself failed: class 08, or the server shutting down (57P01–57P03).
  public var isConnectionFailure: Bool {
    sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
  }

  public var failure: StoreFailure {
    switch sqlState {
    case "23505":
      return .constraint(ConstraintViolation(kind: .unique, table: table, columns: uniqueColumns, name: constraint))
    case "23502":
      return .constraint(
        ConstraintViolation(kind: .notNull, table: table, columns: column.map { [$0] } ?? [], name: constraint))
    case "23514": return .constraint(ConstraintViolation(kind: .check, table: table, name: constraint))
    case "23503": return .constraint(ConstraintViolation(kind: .foreignKey, table: table, name: constraint))
    // Deadlock, lock not available (lock_timeout): another connection holds what this one needs.
    case "40P01", "55P03": return .busy
    case "53100": return .full
    // program_limit_exceeded: in a record's statement, an index entry over the B-tree's limit
    // (`index row size 3016 exceeds btree version 4 maximum 2704 for index "orders_pkey"`, or
    // past 8191 bytes `index row requires 9016 bytes`) — a long key, the record's data.
    case "54000":
      return .constraint(ConstraintViolation(kind: .tooLarge, table: table, columns: indexColumns, name: constraint))
    default:
      // A value the column's type cannot hold (text with NUL, a malformed time): the record's
      // data, like a broken constraint.
      if sqlState.hasPrefix("22") {
        return .constraint(
          ConstraintViolation(
            kind: .value, table: table, columns: column.map { [$0] } ?? [], name: constraint, parameter: parameter))
      }
      if sqlState.hasPrefix("23") {
        return .constraint(ConstraintViolation(kind: .other, table: table, name: constraint))
      }
      return .other
    }
  }

  public var description: String {
    var text = "PostgreSQL error \(sqlState) (\(server)): \(message)"
    if let sql { text += " — in: \(sql)" }
    return text
  }
}
