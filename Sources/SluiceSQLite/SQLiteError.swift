import Foundation
@_spi(Internals) import SluiceCore

/// A failed SQLite call: its result codes, SQLite's message, and the statement's SQL.
///
/// It never carries bound values: SQL text holds only placeholders.
package struct SQLiteError: StoreError, Sendable {
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

  public var failure: StoreFailure {
    if isConstraintViolation { return .constraint(violation) }
    if isBusy { return .busy }
    if code == 13 { return .full }
    return .other
  }

  /// The constraint as SQLite's message names it: `UNIQUE constraint failed: orders.order_id`,
  /// `NOT NULL constraint failed: orders.currency`, `CHECK constraint failed: <name>`,
  /// `FOREIGN KEY constraint failed`, `cannot store TEXT value in INTEGER column t.c`.
  var violation: ConstraintViolation {
    func columns(after prefix: String) -> (String?, [String]) {
      let names = message.dropFirst(prefix.count).split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      let table = names.first?.split(separator: ".").first.map(String.init)
      return (table, names.map { String($0.split(separator: ".").last ?? "") })
    }
    if message.hasPrefix("UNIQUE constraint failed: ") {
      let (table, names) = columns(after: "UNIQUE constraint failed: ")
      return ConstraintViolation(kind: .unique, table: table, columns: names)
    }
    if message.hasPrefix("NOT NULL constraint failed: ") {
      let (table, names) = columns(after: "NOT NULL constraint failed: ")
      return ConstraintViolation(kind: .notNull, table: table, columns: names)
    }
    if message.hasPrefix("CHECK constraint failed: ") {
      return ConstraintViolation(kind: .check, name: String(message.dropFirst("CHECK constraint failed: ".count)))
    }
    if message.hasPrefix("FOREIGN KEY constraint failed") {
      return ConstraintViolation(kind: .foreignKey)
    }
    return ConstraintViolation(kind: .other)
  }

  public var description: String {
    var text = "SQLite error \(code) (extended \(extendedCode)): \(message)"
    if let sql { text += " — in: \(sql)" }
    return text
  }
}
