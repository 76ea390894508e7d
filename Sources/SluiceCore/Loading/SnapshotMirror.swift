import Foundation

/// A snapshot run's mirror: the top-level rows whose keys did not appear in the run are deleted
/// at its end, their children (and the rows that reference them `ON DELETE CASCADE`) with them.
///
/// The keys the run wrote go, a few hundred per statement, into a temporary table per mirrored
/// table, in the run's own connection — a file-backed B-tree on SQLite, a temporary table on
/// PostgreSQL — so the run never holds them all in memory; the delete is then one anti-join per
/// table. A record rejected at the load stage counts as seen (its row is kept); a record
/// rejected before it became rows (decode, validate) has no key to protect its row, so the run
/// holds the deletes of its dataset's tables back (`holding`).
///
/// Before it deletes, the mirror counts: a run that would delete more than `maxDeleteRate` of a
/// table's rows fails (exit 65, nothing written), so an empty or truncated dump never wipes one.
package final class SnapshotMirror {
  /// One mirrored table: a top-level table with a natural key that records own.
  private struct Mirrored {
    let table: Table
    let serial: Int32
    /// The key's columns among the table's own columns.
    let keyColumns: [Int]
    /// The temporary table of the keys seen.
    let seen: String
    var pending: [DatabaseValue] = []
  }

  private let store: any Store
  private var mirrored: [Mirrored]
  /// Where each mirrored table is in `mirrored`, by table serial.
  private var bySerial: [Int32: Int] = [:]
  private let schema: Schema
  /// Keys per insert statement.
  private let keysPerStatement: Int

  /// Creates the temporary key tables for `tables` (top-level tables with a key; others are
  /// ignored) in `store`, inside the run's transaction.
  package init(store: some Store, tables: [Table], schema: Schema) throws {
    self.store = store
    self.schema = schema
    var mirrored: [Mirrored] = []
    let dialect = store.dialect
    for table in tables where table.parent == nil && !table.key.isEmpty {
      let columns = table.key.compactMap { name in table.columns.firstIndex { $0.name == name } }
      guard columns.count == table.key.count, !mirrored.contains(where: { $0.table.name == table.name }) else {
        continue
      }
      let seen = "sluice_seen_\(mirrored.count)"
      let definitions = columns.enumerated().map { index, column in
        "k\(index) \(dialect.typeName(table.columns[column].type))"
      }
      let keys = columns.indices.map { "k\($0)" }.joined(separator: ", ")
      // A run's connection is its own: no temporary table of this name exists yet (and an
      // unqualified DROP could reach a table of the user's of the same name).
      try store.execute(
        "CREATE TEMPORARY TABLE \(seen) (\(definitions.joined(separator: ", ")), PRIMARY KEY (\(keys)))")
      mirrored.append(Mirrored(table: table, serial: table.serial, keyColumns: columns, seen: seen))
    }
    self.mirrored = mirrored
    for (index, table) in mirrored.enumerated() { bySerial[table.serial] = index }
    let widest = max(mirrored.map(\.keyColumns.count).max() ?? 1, 1)
    keysPerStatement = max(1, min(256, dialect.maxParameters / widest))
  }

  /// The tables it mirrors.
  package var tables: [String] { mirrored.map(\.table.name) }

  /// A record's rows were written (or kept, under `ignore`): its top-level keys were seen.
  package func saw(_ rows: RecordRows) throws {
    for entry in 0..<rows.count {
      let row = rows.entries[entry]
      guard row.parent < 0, let index = bySerial[row.serial] else { continue }
      var values: [DatabaseValue] = []
      for column in mirrored[index].keyColumns {
        guard let value = rows.value(entry, column) else { break }
        values.append(value)
      }
      guard values.count == mirrored[index].keyColumns.count else { continue }
      mirrored[index].pending += values
      if mirrored[index].pending.count >= keysPerStatement * values.count { try flush(index) }
    }
  }

  private func flush(_ index: Int) throws {
    let width = mirrored[index].keyColumns.count
    let values = mirrored[index].pending
    guard !values.isEmpty else { return }
    mirrored[index].pending.removeAll(keepingCapacity: true)
    let dialect = store.dialect
    let rows = stride(from: 0, to: values.count, by: width).map { start in
      "(" + (0..<width).map { dialect.parameter(start + $0 + 1) }.joined(separator: ", ") + ")"
    }
    let keys = (0..<width).map { "k\($0)" }.joined(separator: ", ")
    let insert = try store.prepare(
      "INSERT INTO \(mirrored[index].seen) (\(keys)) VALUES \(rows.joined(separator: ", ")) ON CONFLICT DO NOTHING")
    try insert.run(values)
  }

  /// `NOT EXISTS` the row's key among the keys seen, for table `index` aliased `t`.
  private func unseen(_ index: Int) -> String {
    let table = mirrored[index]
    let dialect = store.dialect
    let matches = table.table.key.enumerated().map { position, name in "s.k\(position) = t.\(dialect.quote(name))" }
    return "NOT EXISTS (SELECT 1 FROM \(table.seen) s WHERE \(matches.joined(separator: " AND ")))"
  }

  /// Deletes the rows of each mirrored table whose keys the run did not write, and returns the
  /// rows deleted per table: the mirrored tables' and — counted before and after — those of the
  /// tables whose rows went with them. Throws `SnapshotRefusal` when a table would lose more
  /// than `maxDeleteRate` of its rows, or when other rows still name the ones to delete
  /// (`ON DELETE RESTRICT`): the caller's transaction then rolls everything back.
  /// Tables in `holding` lose nothing.
  package func apply(maxDeleteRate: Double, holding: Set<String> = []) throws -> [String: Int] {
    for index in mirrored.indices { try flush(index) }
    // Every table the deletes can reach, counted before and after: a mirrored table may lose
    // rows to another's cascade (alerts with their devices) besides its own delete.
    let affected = mirrored.map(\.table.name) + Self.dependents(of: Set(mirrored.map(\.table.name)), in: schema)
    func count(_ table: String) throws -> Int {
      Int(try store.scalarInt("SELECT count(*) FROM \(store.dialect.quote(table))") ?? 0)
    }
    var before: [String: Int] = [:]
    for table in affected { before[table] = try count(table) }
    for index in mirrored.indices where !holding.contains(mirrored[index].table.name) {
      let table = mirrored[index].table.name
      let total = try count(table)
      do {
        try store.execute("DELETE FROM \(store.dialect.quote(table)) AS t WHERE \(unseen(index))")
      } catch let error as any StoreError {
        guard case .constraint = error.failure else { throw error }
        let doomed = Int(
          try store.scalarInt("SELECT count(*) FROM \(store.dialect.quote(table)) t WHERE \(unseen(index))") ?? 0)
        throw SnapshotRefusal(table: table, rows: doomed, of: total, maxDeleteRate: maxDeleteRate, restricted: true)
      }
      let rows = store.changes
      if rows > 0 && Double(rows) > maxDeleteRate * Double(total) {
        throw SnapshotRefusal(table: table, rows: rows, of: total, maxDeleteRate: maxDeleteRate, restricted: false)
      }
    }
    var deleted: [String: Int] = [:]
    for table in affected {
      let gone = (before[table] ?? 0) - (try count(table))
      if gone > 0 { deleted[table] = gone }
    }
    return deleted
  }

  /// The tables whose rows a delete from `tables` can take with it: their children and the
  /// tables that reference them `ON DELETE CASCADE`, and theirs in turn.
  static func dependents(of tables: Set<String>, in schema: Schema) -> [String] {
    var reached = tables
    var found: [String] = []
    var grew = true
    while grew {
      grew = false
      for table in schema.tables where !reached.contains(table.name) {
        let child = table.parent.map { reached.contains($0.table.name) } ?? false
        let cascades = table.columns.contains { column in
          guard let reference = column.reference else { return false }
          return reference.onDelete == .cascade && reached.contains(reference.table.name)
        }
        if child || cascades {
          reached.insert(table.name)
          found.append(table.name)
          grew = true
        }
      }
    }
    return found
  }
}

/// A snapshot that may not delete what it would: more than the guard's share of a table, or
/// rows other rows still name.
package struct SnapshotRefusal: Error, CustomStringConvertible {
  package var table: String
  package var rows: Int
  package var of: Int
  package var maxDeleteRate: Double
  /// Rows of another table name them and may not lose their row (`ON DELETE RESTRICT`).
  package var restricted: Bool

  package var description: String {
    if restricted {
      return
        "snapshot: \(rows) row(s) of \(table) are not in this run's input, but rows of other tables still name them (their references do not cascade); nothing was written"
    }
    let share = of > 0 ? Double(rows) / Double(of) * 100 : 100
    return
      "snapshot: this run would delete \(rows) of the \(of) rows of \(table) (\(Self.percent(share)) > maxDeleteRate \(Self.percent(maxDeleteRate * 100))), more than an incomplete dump should; nothing was written (raise maxDeleteRate if the dump is right)"
  }

  private static func percent(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value))%" : String(format: "%.2f%%", value)
  }
}
