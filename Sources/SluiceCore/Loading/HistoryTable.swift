import Foundation

/// How a table keeps its past rows.
public enum TableHistory: String, Sendable {
  /// Slowly changing dimension, type 2: every version of a row is kept, with the time it became
  /// current, the time it stopped being current (NULL while it is) and the run that made it.
  case scd2
}

/// The versions of a history table's rows (`"history": "scd2"`): a companion table
/// `sluice_history_<table>` beside the declared table, which keeps holding the current rows.
///
/// The declared table stays what every other part of Sluice writes and reads — upserts, patches,
/// references by natural key, a snapshot's deletes, `plan` — so none of that changes. At the end
/// of a run, inside its transaction and after its audit row, two set-based statements bring the
/// history in line with the table: every current version whose key left the table, or whose
/// values differ from the row's, is closed (`sluice_valid_to` = the run's start), and every row
/// without a current version opens one (`sluice_valid_from` = the run's start). An unchanged
/// dump therefore changes nothing, a snapshot's deleted key is closed, and a key that comes back
/// opens a new version. Child tables keep their own versions the same way, keyed by their
/// parent's key and position, so "as of T" is one and the same condition on every table.
///
/// The history table has the declared table's columns (no foreign keys: a version outlives the
/// row it was) and the three `sluice_` columns, whose prefix no user column may take; its key is
/// the natural key and `sluice_valid_from`, so on Citus it is distributed and colocated like the
/// table it follows.
package struct HistoryTable: Sendable {
  /// The table whose rows it versions.
  package let table: Table
  /// Its own name: `sluice_history_<table>`.
  package let name: String

  package static let prefix = "sluice_history_"
  package static let validFrom = "sluice_valid_from"
  package static let validTo = "sluice_valid_to"
  package static let runID = "sluice_run_id"

  package init(_ table: Table) {
    self.table = table
    self.name = Self.name(of: table.name)
  }

  /// The history table's name for table `name`.
  package static func name(of name: String) -> String { prefix + name }

  /// The history tables of `schema`'s tables that keep one, in the schema's order.
  package static func tables(of schema: Schema) -> [HistoryTable] {
    schema.tables.filter { $0.history == .scd2 }.map(HistoryTable.init)
  }

  /// The migration that creates it.
  package func migration(dialect: any SQLDialect) -> Migration {
    Migration("create table \(name)", sql: create(dialect: dialect), creates: .table(name, columns: columnNames))
  }

  /// Every column: the table's, then the three of the history.
  var columnNames: [String] { table.allColumns.map(\.name) + [Self.validFrom, Self.validTo, Self.runID] }

  func create(dialect: any SQLDialect) -> String {
    let q = dialect.quote
    var lines = table.allColumns.map { column in
      "  \(q(column.name)) \(dialect.typeName(column.type))\(column.isNullable ? "" : " NOT NULL")"
    }
    lines.append("  \(q(Self.validFrom)) \(dialect.typeName(.timestamp)) NOT NULL")
    lines.append("  \(q(Self.validTo)) \(dialect.typeName(.timestamp))")
    lines.append("  \(q(Self.runID)) \(dialect.typeName(.integer)) NOT NULL")
    lines.append("  PRIMARY KEY (\((table.key + [Self.validFrom]).map(q).joined(separator: ", ")))")
    let options = dialect.tableOptions(hasCompositeKey: true)
    return "CREATE TABLE \(q(name)) (\n\(lines.joined(separator: ",\n"))\n)\(options.isEmpty ? "" : " " + options);"
  }

  /// Closes the current versions the table no longer holds as they are, then opens a version for
  /// each row without a current one, both at `time`, made by run `runID`. Returns the versions
  /// closed and opened. Call inside the run's transaction.
  package func synchronize(in store: some Store, at time: Date, runID: Int64) throws -> (closed: Int, opened: Int) {
    let dialect = store.dialect
    let q = dialect.quote
    let history = q(name)
    let current = q(table.name)
    let keys = table.key
    let values = table.allColumns.map(\.name).filter { !keys.contains($0) }
    let sameKey = keys.map { "t.\(q($0)) = h.\(q($0))" }
    let sameValues = values.map { "NOT (\(dialect.isDistinct("t.\(q($0))", "h.\(q($0))")))" }
    let stamp = TimestampText.text(time)
    // A version is current while its valid_to is NULL; the table's row is what it should be.
    let close = try store.prepare(
      """
      UPDATE \(history) AS h SET \(q(Self.validTo)) = \(dialect.parameter(1))
      WHERE h.\(q(Self.validTo)) IS NULL
        AND NOT EXISTS (SELECT 1 FROM \(current) AS t WHERE \((sameKey + sameValues).joined(separator: " AND ")))
      """)
    try close.run([.text(stamp)])
    let closed = store.changes
    let columns = table.allColumns.map { q($0.name) }
    let open = try store.prepare(
      """
      INSERT INTO \(history) (\((columns + [Self.validFrom, Self.validTo, Self.runID].map(q)).joined(separator: ", ")))
      SELECT \(columns.map { "t.\($0)" }.joined(separator: ", ")), \(dialect.parameter(1)), NULL, \(dialect.parameter(2))
      FROM \(current) AS t
      WHERE NOT EXISTS (
        SELECT 1 FROM \(history) AS h WHERE \(sameKey.joined(separator: " AND ")) AND h.\(q(Self.validTo)) IS NULL)
      """)
    try open.run([.text(stamp), .integer(runID)])
    return (closed, store.changes)
  }

  /// Brings every history table of `schema` in line with its table, as of the run that started
  /// at `startedAt` and whose audit row the transaction has just inserted; returns the versions
  /// closed and opened per history table (those that changed).
  package static func synchronize(_ schema: Schema, in store: some Store, startedAt: Date) throws -> [String: Int] {
    let tables = tables(of: schema)
    guard !tables.isEmpty else { return [:] }
    // The run's audit row is the one this transaction inserted with this start: a run lasts
    // longer than the millisecond the start is written to.
    let runID = try store.scalarInt(
      "SELECT max(run_id) FROM \(AuditTables.runs) WHERE started_at = \(store.dialect.literal(TimestampText.text(startedAt)))"
    )
    guard let runID else { throw HistoryError(message: "history: the run's audit row was not found") }
    var changed: [String: Int] = [:]
    for history in tables {
      let (closed, opened) = try history.synchronize(in: store, at: startedAt, runID: runID)
      if closed + opened > 0 { changed[history.name] = closed + opened }
    }
    return changed
  }
}

/// The history tables could not be brought in line with the run.
package struct HistoryError: Error, CustomStringConvertible {
  package var message: String
  package var description: String { message }
}
