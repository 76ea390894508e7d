import Foundation
import SluiceSQLite

/// The fruits and recipes tables of a SQLite database as the fruits tests compare them: the
/// catalog's fruits (SluiceCatalogTests) and the declared fruits (SluiceCoreTests) load the same
/// tables.
package enum FruitsTables {
  /// Every row of both tables, in key order, as text (a fruit as `id|name|color`): equal dumps
  /// mean equal tables.
  package static func dump(_ database: String) throws -> [String] {
    let db = try SQLiteConnection(path: database, options: .init(readOnly: true))
    var rows: [String] = []
    for sql in [
      "SELECT fruit_id, name, color FROM fruits ORDER BY fruit_id",
      "SELECT fruit_id, position, title, description, video_tutorial FROM recipes ORDER BY fruit_id, position",
    ] {
      let statement = try db.prepare(sql)
      while try statement.step() {
        rows.append((0..<5).compactMap { statement.columnText(Int32($0)) }.joined(separator: "|"))
      }
    }
    return rows
  }

  /// The rows `table` holds.
  package static func count(_ table: String, in database: String) throws -> Int64? {
    try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt("SELECT count(*) FROM \(table)")
  }
}
