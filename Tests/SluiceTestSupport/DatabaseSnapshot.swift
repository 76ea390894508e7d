@_spi(Internals) import SluiceCore
import SluiceSQLite

/// The rows of some tables of a database, as text, so a test can prove a failed run left the
/// database as it found it. A failed run still records itself in the audit tables, so comparing
/// the file's bytes would prove nothing: compare the dataset's tables instead.
public struct DatabaseSnapshot: Equatable, CustomStringConvertible {
  /// Per existing table, its rows (each as its columns' SQL literals joined by `|`), sorted.
  public var tables: [String: [String]]

  public init(tables: [String: [String]]) { self.tables = tables }

  /// Reads every row of each of `tables` that exists; a table that does not is left out.
  public init(of database: String, tables names: [String]) throws {
    let db = try SQLiteConnection(path: database, options: .init(readOnly: false, create: true))
    var tables: [String: [String]] = [:]
    for name in names where (try db.columns(of: name)) != nil {
      let info = try db.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
      try info.bind(.text(name), at: 1)
      var columns: [String] = []
      while try info.step() { columns.append(info.columnText(0) ?? "") }
      let row = columns.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")
      let select = try db.prepare("SELECT \(row) FROM \"\(name)\"")
      var rows: [String] = []
      while try select.step() { rows.append(select.columnText(0) ?? "") }
      tables[name] = rows.sorted()
    }
    self.tables = tables
  }

  /// Rows per table; 0 for a table that does not exist.
  public func count(_ table: String) -> Int { tables[table]?.count ?? 0 }

  public var description: String {
    tables.keys.sorted().map { "\($0): \(tables[$0] ?? [])" }.joined(separator: "\n")
  }
}
