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
/// The guard counts every table the deletes can reach — the mirrored tables, their children, and
/// every table of the database whose foreign keys cascade from them, whichever dataset declared
/// it (alerts with their devices) — when the run begins, before it writes: a run whose deletes
/// remove more than `maxDeleteRate` of the rows any of those tables held then fails (exit 65,
/// nothing written), so an empty or truncated dump never wipes one, and the rows the run itself
/// inserts never dilute the share.
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
  /// Every table the deletes can reach, mirrored ones first, and the rows each held when the
  /// run began: the guard's base.
  private let reached: [(table: String, rowsBefore: Int)]
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
    var reached: [(table: String, rowsBefore: Int)] = []
    for table in try Self.reach(from: mirrored.map(\.table.name), in: schema, store: store) {
      reached.append((table, Int(try store.scalarInt("SELECT count(*) FROM \(dialect.quote(table))") ?? 0)))
    }
    self.reached = reached
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

  /// `statement` (`DELETE FROM … AS t` or `SELECT count(*) FROM … t`) of the rows of table
  /// `index` whose key is not among the keys seen.
  ///
  /// The keys are named through a common table expression, not the temporary table itself:
  /// Citus refuses a statement on a distributed table whose subquery names a table that is not
  /// distributed ("relation sluice_seen_0 is not distributed"), but plans a CTE's rows
  /// separately and ships them to the shards. SQLite flattens the CTE and PostgreSQL inlines
  /// it, so both keep the anti-join on the temporary table's key index.
  private func unseen(_ index: Int, _ statement: String) -> String {
    let table = mirrored[index]
    let dialect = store.dialect
    let matches = table.table.key.enumerated().map { position, name in "s.k\(position) = t.\(dialect.quote(name))" }
    return
      "WITH sluice_seen AS (SELECT * FROM \(table.seen)) \(statement) WHERE NOT EXISTS (SELECT 1 FROM sluice_seen s WHERE \(matches.joined(separator: " AND ")))"
  }

  /// The rows each table the deletes can reach held when the run began (a plan lists those
  /// that are not the run's own).
  package var rowsBefore: [String: Int] {
    Dictionary(reached.map { ($0.table, $0.rowsBefore) }, uniquingKeysWith: { first, _ in first })
  }

  /// Deletes the rows of each mirrored table whose keys the run did not write, and returns the
  /// rows deleted per table — counted before and after, the mirrored tables' and those of every
  /// table whose rows went with them. Throws `SnapshotRefusal` when a table would lose more than
  /// `maxDeleteRate` of the rows it held when the run began, or when other rows still name the
  /// ones to delete (`ON DELETE RESTRICT`): the caller's transaction then rolls everything back.
  /// Tables in `holding` lose nothing.
  package func apply(maxDeleteRate: Double, holding: Set<String> = []) throws -> [String: Int] {
    for index in mirrored.indices { try flush(index) }
    func count(_ table: String) throws -> Int {
      Int(try store.scalarInt("SELECT count(*) FROM \(store.dialect.quote(table))") ?? 0)
    }
    var before: [String: Int] = [:]
    for (table, _) in reached { before[table] = try count(table) }
    for index in mirrored.indices where !holding.contains(mirrored[index].table.name) {
      let table = mirrored[index].table.name
      do {
        try store.execute(unseen(index, "DELETE FROM \(store.dialect.quote(table)) AS t"))
      } catch let error as any StoreError {
        guard case .constraint = error.failure else { throw error }
        let doomed = Int(
          try store.scalarInt(unseen(index, "SELECT count(*) FROM \(store.dialect.quote(table)) t")) ?? 0)
        throw SnapshotRefusal(
          table: table, rows: doomed, of: rowsBefore[table] ?? 0, maxDeleteRate: maxDeleteRate, restricted: true)
      }
    }
    var deleted: [String: Int] = [:]
    let mirroredNames = Set(mirrored.map(\.table.name))
    for (table, existed) in reached {
      let gone = (before[table] ?? 0) - (try count(table))
      guard gone > 0 else { continue }
      deleted[table] = gone
      // A table that held nothing when the run began loses nothing to it; one that did loses
      // at most the guard's share.
      if Double(gone) > maxDeleteRate * Double(existed) {
        throw SnapshotRefusal(
          table: table, rows: gone, of: existed, maxDeleteRate: maxDeleteRate, restricted: false,
          cascaded: !mirroredNames.contains(table))
      }
    }
    return deleted
  }

  /// The tables a delete from `tables` can reach, `tables` first: their children in the
  /// datasets' model and every table of the database whose foreign keys cascade from them, and
  /// theirs in turn.
  private static func reach(from tables: [String], in schema: Schema, store: some Store) throws -> [String] {
    var found = tables
    var reached = Set(tables)
    var next = 0
    for table in dependents(of: reached, in: schema) where reached.insert(table).inserted { found.append(table) }
    while next < found.count {
      for table in try store.tablesCascadingDeletes(from: found[next]) where reached.insert(table).inserted {
        found.append(table)
      }
      next += 1
    }
    return found
  }

  /// The tables whose rows a delete from `tables` can take with it, as the datasets declare
  /// them: their children and the tables that reference them `ON DELETE CASCADE`, and theirs in
  /// turn.
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
  /// The rows are `table`'s that a foreign key `ON DELETE CASCADE` took with the rows the
  /// snapshot deleted from another table.
  package var cascaded = false

  package var description: String {
    if restricted {
      return
        "snapshot: \(rows) row(s) of \(table) are not in this run's input, but rows of other tables still name them (their references do not cascade); nothing was written"
    }
    let share = of > 0 ? Double(rows) / Double(of) * 100 : 100
    let how = cascaded ? ", through foreign keys ON DELETE CASCADE from the rows it deletes," : ""
    return
      "snapshot: this run would delete\(how) \(rows) of the \(of) rows \(table) held before it (\(Self.percent(share)) > maxDeleteRate \(Self.percent(maxDeleteRate * 100))), more than an incomplete dump should; nothing was written (raise maxDeleteRate if the dump is right)"
  }

  private static func percent(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value))%" : String(format: "%.2f%%", value)
  }
}
