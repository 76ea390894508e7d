/// The names of a dataset file's tables, indexes and columns, compared as the stores compare
/// them, so that a file one store would refuse is refused by the builder for every store.
///
/// SQLite's identifiers ignore the case of ASCII letters, quoted or not; PostgreSQL's quoted ones
/// do not. A file with `orders` and `Orders` would load into PostgreSQL and fail on SQLite with a
/// raw SQL error after the run began, so two names that are one under ASCII case-folding are one
/// name here. Tables, lookup tables and indexes share SQLite's schema namespace (PostgreSQL's
/// relations share one too); a table's columns — its inherited key and position included — share
/// another. Names are plain ASCII by then (`DatasetFileBuilder.checkName`).
package struct DatasetFileNames {
  typealias Mistake = DatasetFileBuilder.Mistake

  /// A name taken, what it names (`table`, `index`, `key column`) and its JSON path; nil for a
  /// name the engine gives (a lookup's `id`) or one from another file.
  struct Entry {
    var name: String
    var what: String
    var path: String?
    /// Where a name from elsewhere comes from: `of another dataset this file references`.
    var origin: String? = nil
    /// What the entry is, for messages: `the table orders ('tables[1].name')`.
    var description: String {
      "the \(what) \(name)" + (origin.map { " \($0)" } ?? "") + (path.map { " ('\($0)')" } ?? "")
    }
  }

  /// Why the names must differ, for messages.
  private let rule: String
  private var taken: [String: Entry] = [:]

  init(rule: String) {
    self.rule = rule
  }

  /// The schema namespace: tables, lookup tables, indexes.
  static func schema() -> DatasetFileNames {
    DatasetFileNames(rule: "tables, lookup tables and indexes share one namespace in a database")
  }

  /// One table's columns.
  static func columns() -> DatasetFileNames {
    DatasetFileNames(rule: "a table's columns, its key and position included, need names of their own")
  }

  /// The entry `name` is, as the stores compare names.
  func entry(for name: String) -> Entry? { taken[Self.folded(name)] }

  /// Takes `name`, or throws at `path` naming what took it first.
  mutating func take(_ name: String, as what: String, at path: String?) throws {
    let entry = Entry(name: name, what: what, path: path)
    if let earlier = taken[Self.folded(name)] { throw Mistake(path: path ?? "", message: clash(entry, earlier)) }
    taken[Self.folded(name)] = entry
  }

  /// Why `entry` cannot take the name `earlier` took.
  func clash(_ entry: Entry, _ earlier: Entry) -> String {
    if earlier.name == entry.name && earlier.what == entry.what, let path = earlier.path {
      return "the \(entry.what) \(entry.name) is declared twice (first at '\(path)')"
    }
    if earlier.name == entry.name {
      return "the \(entry.what) \(entry.name) has the name of \(earlier.description): \(rule); name it otherwise"
    }
    return
      "the \(entry.what) \(entry.name) differs only in case from \(earlier.description): SQLite's names ignore case, so it could not hold both, and a dataset file loads the same into every store; name it otherwise"
  }

  /// A name as SQLite compares it: ASCII letters folded to lower case.
  static func folded(_ name: String) -> String {
    String(decoding: name.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
  }

  /// PostgreSQL's system columns, which every table has: a table declaring one fails there
  /// (42701, column name conflicts with a system column name). `oid` is one before PostgreSQL 12.
  package static let systemColumns: Set<String> = ["tableoid", "xmin", "cmin", "xmax", "cmax", "ctid", "oid"]

  /// Checks a column's name (`checkName`), and that it is not one of PostgreSQL's system columns,
  /// in any case.
  static func checkColumnName(_ name: String, path: String, rules: StoreNameRules) throws {
    try DatasetFileBuilder.checkName(name, path: path, rules: rules)
    guard !systemColumns.contains(folded(name)) else {
      throw Mistake(
        path: path,
        message:
          "'\(name)' is the name of a PostgreSQL system column (tableoid, xmin, cmin, xmax, cmax, ctid, oid), which no table may declare; name it otherwise"
      )
    }
  }
}
