/// A broken constraint as a Citus worker words it, and the shard numbers taken off its names.
///
/// Citus runs a statement on the workers' shards (`fruits_102034`, whose primary key is
/// `fruits_pkey_102034`) and passes their errors on. From most statements the client gets the
/// worker's SQLSTATE and fields with the shards' names; from a distributed `COPY` it gets
/// `XX000` and the worker's primary message alone — `duplicate key value violates unique
/// constraint "fruits_pkey_102034"` — so the constraint is read from the message. PostgreSQL's
/// messages name objects between double quotes and never quote values (those are in DETAIL,
/// which is never read).
struct CitusConstraintMessage {
  var sqlState: String
  var constraint: String?
  var table: String?
  var column: String?

  /// The constraint error `message` reports, or nil when it reports something else.
  init?(_ message: String) {
    let names = Self.quoted(message)
    func name(_ index: Int) -> String? { index < names.count ? names[index] : nil }
    if message.hasPrefix("duplicate key value violates unique constraint ") {
      sqlState = "23505"
      constraint = name(0)
    } else if message.hasPrefix("null value in column "), message.contains(" violates not-null constraint") {
      sqlState = "23502"
      column = name(0)
      table = name(1)
    } else if message.hasPrefix("new row for relation "), message.contains(" violates check constraint ") {
      sqlState = "23514"
      table = name(0)
      constraint = name(1)
    } else if message.hasPrefix("insert or update on table "), message.contains(" violates foreign key constraint ") {
      sqlState = "23503"
      table = name(0)
      constraint = name(1)
    } else if message.hasPrefix("update or delete on table "), message.contains(" violates foreign key constraint ") {
      // The referenced table's row, named by a row of the table after "on table".
      sqlState = "23503"
      constraint = name(1)
      table = name(2)
    } else {
      return nil
    }
  }

  /// The names between double quotes, in order.
  static func quoted(_ message: String) -> [String] {
    message.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
      .filter { $0.offset % 2 == 1 }.map { String($0.element) }
  }

  /// The shard number a shard's name ends with (`102034` of `fruits_102034`), or nil.
  static func shardNumber(of name: String) -> Substring? {
    guard let underscore = name.lastIndex(of: "_") else { return nil }
    let digits = name[name.index(after: underscore)...]
    return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) ? digits : nil
  }

  /// The table and constraint a shard's error names, without the shard's number: a table name
  /// loses it unless a table of the schema has the name as it is (`isTable`); the constraint
  /// loses the same number, or, when the table is not named, its own when the name without it
  /// is an index of the schema (`isIndex`).
  static func shardless(
    table: String?, constraint: String?, isTable: (String) -> Bool, isIndex: (String) -> Bool
  ) -> (table: String?, constraint: String?) {
    if let table, !isTable(table), let number = shardNumber(of: table) {
      let suffix = "_" + number
      let constraint = constraint.map { $0.hasSuffix(suffix) ? String($0.dropLast(suffix.count)) : $0 }
      return (String(table.dropLast(suffix.count)), constraint)
    }
    if let constraint, !isIndex(constraint), let number = shardNumber(of: constraint) {
      let plain = String(constraint.dropLast(number.count + 1))
      if isIndex(plain) { return (table, plain) }
    }
    return (table, constraint)
  }
}
