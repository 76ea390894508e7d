/// A failed SQLite call: its result codes, SQLite's message, and the statement's SQL.
///
/// It never carries bound values: SQL text holds only placeholders.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
  /// The primary result code (`SQLITE_CONSTRAINT` is 19, `SQLITE_BUSY` 5, `SQLITE_FULL` 13).
  public var code: Int32
  /// The extended result code (`SQLITE_CONSTRAINT_PRIMARYKEY` is 1555).
  public var extendedCode: Int32
  public var message: String
  public var sql: String?

  public init(code: Int32, extendedCode: Int32, message: String, sql: String? = nil) {
    self.code = code
    self.extendedCode = extendedCode
    self.message = message
    self.sql = sql
  }

  /// A constraint violation (unique, primary key, foreign key, not null, check): a problem with
  /// the data, reportable as a record issue rather than a failure of the database.
  public var isConstraintViolation: Bool { code == 19 }
  /// The database is locked by another connection and the busy timeout ran out.
  public var isBusy: Bool { code == 5 || code == 6 }

  public var description: String {
    var text = "SQLite error \(code) (extended \(extendedCode)): \(message)"
    if let sql { text += " — in: \(sql)" }
    return text
  }
}
