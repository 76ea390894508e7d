/// One change schema evolution makes, as `sluice plan` lists it and `sluice_migrations`
/// records it.
package struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
  package enum Kind: Sendable, Hashable {
    /// A nullable column for a new scalar field; `declared` is the field's type as the file says
    /// it (`INTEGER`, `DECIMAL(2)`).
    case addColumn(table: String, column: String, declared: String, type: ColumnType)
    /// A child table for a new array: created by the schema's own `create table` migration.
    case createTable(String)
    /// An integer or decimal column whose values gained decimal places: decimals are stored as
    /// whole minor units, so the values held are multiplied by 10^(to - from).
    case rescale(table: String, column: String, from: Int, to: Int)
  }

  package var kind: Kind

  package var description: String {
    switch kind {
    case .addColumn(let table, let column, let declared, _): "add column \(table).\(column) \(declared) NULL"
    case .createTable(let table): "create table \(table)"
    case .rescale(let table, let column, let from, let to):
      "widen column \(table).\(column) \(from == 0 ? "INTEGER" : "DECIMAL(\(from))") to DECIMAL(\(to))"
    }
  }

  /// The migration that applies it, identified by its description; nil for a table, which the
  /// schema's `create table` migration makes.
  package func migration(dialect: any SQLDialect) -> Migration? {
    switch kind {
    case .addColumn(let table, let column, _, let type):
      var migration = Migration(
        description,
        sql: "ALTER TABLE \(dialect.quote(table)) ADD COLUMN \(dialect.quote(column)) \(dialect.typeName(type))")
      // A database created by this very run has the column already.
      migration.creates = .column(table, column)
      return migration
    case .createTable:
      return nil
    case .rescale(let table, let column, let from, let to):
      var factor = "1"
      factor += String(repeating: "0", count: to - from)
      let name = dialect.quote(column)
      return Migration(description, sql: "UPDATE \(dialect.quote(table)) SET \(name) = \(name) * \(factor)")
    }
  }
}
