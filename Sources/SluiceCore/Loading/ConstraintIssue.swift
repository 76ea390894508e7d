/// A constraint a row broke, in the store's terms (`ConstraintViolation`), said as the record
/// issue a person can act on: which table, which key, column or check, at the field path of the
/// row's value in the record — never the value itself.
enum ConstraintIssue {
  static func issue(
    for violation: ConstraintViolation, table: Table, entry: Int, _ rows: RecordRows, at location: RecordLocation?,
    error: any StoreError
  ) -> Issue {
    let columns = table.allColumns
    func path(_ name: String?) -> String {
      guard let name, let column = columns.firstIndex(where: { $0.name == name }) else { return "" }
      return rows.path(entry, column: column, in: table)
    }
    let message: String
    var at = ""
    var code = IssueCode.constraint
    switch violation.kind {
    case .unique where Set(violation.columns) == Set(table.key):
      message = "\(table.name): a row with this key exists already (primary key \(table.key.joined(separator: ", ")))"
      at = path(table.key.last)
    case .unique:
      message = "\(table.name): unique constraint on \(violation.columns.joined(separator: ", ")) violated"
      at = path(violation.columns.first)
    case .notNull:
      message = "\(table.name).\(violation.columns.first ?? "?") cannot be NULL (NOT NULL)"
      at = path(violation.columns.first)
    case .check:
      let column = columns.first { TableSQL.checkName(table: table.name, column: $0.name) == violation.name }
      message = "\(table.name): check \(column.map { describe($0) } ?? violation.name ?? "") violated"
      at = path(column?.name)
    case .foreignKey:
      message = "\(table.name): a foreign key is violated (a row refers to one that does not exist, or is referred to)"
    case .other:
      message = "\(table.name): constraint violated: \(error.message)"
    case .value:
      // The column the store named, else the one bound at the parameter it refused (every
      // statement of this writer binds column n at parameter n + 1).
      let name =
        violation.columns.first
        ?? violation.parameter.flatMap { columns.indices.contains($0 - 1) ? columns[$0 - 1].name : nil }
      code = .invalidValue
      message = "\(table.name)\(name.map { ".\($0)" } ?? ""): the database cannot store this value: \(error.message)"
      at = path(name)
    case .tooLarge:
      let indexed =
        violation.columns.isEmpty ? largestIndexedColumn(entry: entry, rows, table: table) : violation.columns
      message =
        "\(table.name): a value of \(indexed.isEmpty ? "the row" : indexed.joined(separator: ", ")) is too large for an index: \(error.message)"
      at = path(indexed.first)
    }
    return Issue(stage: .load, code: code, location: location, path: at, message: message)
  }

  /// The column whose value weighs most among those an index of the table covers — its key and
  /// its declared indexes — when the store did not say which index an entry was too large for.
  private static func largestIndexedColumn(entry: Int, _ rows: RecordRows, table: Table) -> [String] {
    let indexed = Set(table.key + table.indexes.flatMap(\.columns))
    var largest: (name: String, size: Int)?
    for (column, declared) in table.allColumns.enumerated() where indexed.contains(declared.name) {
      let size: Int
      switch rows.fullValue(entry, column, in: table) {
      case .text(let text)?: size = text.utf8.count
      case .blob(let bytes)?: size = bytes.count
      default: size = 8
      }
      if size > largest?.size ?? -1 { largest = (declared.name, size) }
    }
    return largest.map { [$0.name] } ?? []
  }

  private static func describe(_ column: Column) -> String {
    let conditions = column.checks.map { check -> String in
      switch check {
      case .atLeast(let bound): return "\(column.name) >= \(bound)"
      case .atMost(let bound): return "\(column.name) <= \(bound)"
      case .length(let count): return "length(\(column.name)) = \(count)"
      case .notEmpty: return "\(column.name) not empty"
      case .oneOf(let values): return "\(column.name) in (\(values.joined(separator: ", ")))"
      }
    }
    return conditions.isEmpty ? "\(column.name) in (0, 1)" : conditions.joined(separator: " and ")
  }
}
