@_spi(Internals) import SluiceCore
import SluiceSQLite

/// The rows of some tables, each row as text with its values written the same way whichever store
/// held them — integers and booleans as decimals, reals as Swift prints the double, text quoted,
/// bytes as hex, timestamps as the canonical UTC text the engine binds — and sorted, so the same
/// load into SQLite and into PostgreSQL compares equal row for row.
public struct TableRows: Equatable, CustomStringConvertible {
  /// Per existing table: its column names, then its rows.
  public var tables: [String: [String]]

  public init(tables: [String: [String]]) { self.tables = tables }

  public init(sqlite path: String, tables names: [String]) throws {
    let db = try SQLiteConnection(path: path, options: .init(readOnly: true))
    var tables: [String: [String]] = [:]
    for name in names {
      guard let columns = try db.columns(of: name) else { continue }
      let select = try db.prepare("SELECT \(columns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \"\(name)\"")
      var rows: [String] = []
      while try select.step() {
        rows.append((0..<columns.count).map { Self.render(select.columnValue(Int32($0))) }.joined(separator: " | "))
      }
      tables[name] = [columns.joined(separator: ", ")] + rows.sorted()
    }
    self.tables = tables
  }

  package static func render(_ value: DatabaseValue?) -> String {
    switch value {
    case nil: return "NULL"
    case .integer(let number): return String(number)
    case .real(let number): return "\(number)"
    case .text(let text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let bytes): return "x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'"
    }
  }

  /// Rows per table (without the header); 0 for a table that does not exist.
  public func count(_ table: String) -> Int { max((tables[table]?.count ?? 0) - 1, 0) }

  public var description: String {
    tables.keys.sorted().map { "\($0): \(tables[$0] ?? [])" }.joined(separator: "\n")
  }
}
