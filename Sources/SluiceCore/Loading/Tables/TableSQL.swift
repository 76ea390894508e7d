/// Every statement the engine runs against a table, derived from its declaration in a store's
/// dialect. Parameters are numbered by the column's position in `Table.allColumns`, so one
/// binding of a row serves the insert, the update and the upsert alike.
struct TableSQL {
  let dialect: any SQLDialect

  private func q(_ name: String) -> String { dialect.quote(name) }
  private func p(_ table: Table, _ column: String) -> String {
    guard let index = table.allColumns.firstIndex(where: { $0.name == column }) else {
      preconditionFailure("\(table.name) has no column \(column) for a statement to name")
    }
    return dialect.parameter(index + 1)
  }
  private func keyMatch(_ table: Table, columns: [String]? = nil) -> String {
    (columns ?? table.key).map { "\(q($0)) = \(p(table, $0))" }.joined(separator: " AND ")
  }

  // MARK: - DDL

  func create(_ table: Table) -> String {
    var lines = table.allColumns.map { column in
      var line = "  \(q(column.name)) \(dialect.typeName(column.type))"
      if !column.isNullable { line += " NOT NULL" }
      if let reference = column.reference {
        line += " REFERENCES \(q(reference.table.name))"
        if reference.onDelete == .cascade { line += " ON DELETE CASCADE" }
      } else if let lookup = column.lookup {
        line += " REFERENCES \(q(lookup.table)) (\(q("id")))"
      }
      if let check = checkExpression(column) {
        line += " CONSTRAINT \(q(Self.checkName(table: table.name, column: column.name))) CHECK (\(check))"
      }
      return line
    }
    lines.append("  PRIMARY KEY (\(table.key.map(q).joined(separator: ", ")))")
    if let parent = table.parent {
      let keys = parent.table.key.map(q).joined(separator: ", ")
      lines.append("  FOREIGN KEY (\(keys)) REFERENCES \(q(parent.table.name)) (\(keys)) ON DELETE CASCADE")
    }
    let options = dialect.tableOptions(hasCompositeKey: table.key.count > 1)
    return
      "CREATE TABLE \(q(table.name)) (\n\(lines.joined(separator: ",\n"))\n)\(options.isEmpty ? "" : " " + options);"
  }

  func create(_ index: Index, on table: Table) -> String {
    "CREATE INDEX \(q(index.name)) ON \(q(table.name)) (\(index.columns.map(q).joined(separator: ", ")));"
  }

  func createLookup(_ lookup: LookupDeclaration) -> String {
    var lines = [
      "  \(q("id")) \(dialect.typeName(.integer)) NOT NULL PRIMARY KEY",
      "  \(q("name")) \(dialect.typeName(.text)) NOT NULL UNIQUE",
    ]
    for column in lookup.columns.dropFirst(2).dropLast() {
      lines.append("  \(q(column.name)) \(dialect.typeName(column.type))\(column.isNullable ? "" : " NOT NULL")")
    }
    lines.append("  \(q("retired")) \(dialect.typeName(.boolean)) NOT NULL DEFAULT 0 CHECK (\(q("retired")) IN (0, 1))")
    let options = dialect.tableOptions(hasCompositeKey: false)
    return
      "CREATE TABLE \(q(lookup.table)) (\n\(lines.joined(separator: ",\n"))\n)\(options.isEmpty ? "" : " " + options);"
  }

  /// The name of a column's check constraint, which the store reports when a row breaks it.
  static func checkName(table: String, column: String) -> String { "\(table).\(column) check" }

  private func checkExpression(_ column: Column) -> String? {
    var conditions = column.checks.map { check -> String in
      let name = q(column.name)
      switch check {
      case .atLeast(let bound): return "\(name) >= \(bound)"
      case .atMost(let bound): return "\(name) <= \(bound)"
      case .length(let count): return "length(\(name)) = \(count)"
      case .notEmpty: return "length(\(name)) > 0"
      case .oneOf(let values):
        let list = values.map(dialect.literal).joined(separator: ", ")
        return "\(name) IN (\(list))"
      }
    }
    if column.type == .boolean { conditions.insert("\(q(column.name)) IN (0, 1)", at: 0) }
    return conditions.isEmpty ? nil : conditions.joined(separator: " AND ")
  }

  // MARK: - Rows

  private func columnList(_ table: Table) -> String { table.allColumns.map { q($0.name) }.joined(separator: ", ") }
  private func valueList(_ table: Table) -> String {
    (1...table.allColumns.count).map(dialect.parameter).joined(separator: ", ")
  }

  /// Inserts a whole row; with `ignoringExisting`, a row whose key exists is left alone and the
  /// store reports no change — the insert-first fast path of `upsert` and `ignore`.
  func insert(_ table: Table, ignoringExisting: Bool) -> String {
    let insert = "INSERT INTO \(q(table.name)) (\(columnList(table))) VALUES (\(valueList(table)))"
    return ignoringExisting ? insert + " ON CONFLICT (\(table.key.map(q).joined(separator: ", "))) DO NOTHING" : insert
  }

  /// Inserts `rows` whole rows in one statement (`MultiRowWriter`): row `r`'s column `c` (of
  /// `allColumns`) is parameter `r × columns + c + 1`.
  func insert(_ table: Table, rows: Int) -> String {
    let columns = table.allColumns.count
    let tuples = (0..<rows).map { row in
      "(" + (1...columns).map { dialect.parameter(row * columns + $0) }.joined(separator: ", ") + ")"
    }
    return "INSERT INTO \(q(table.name)) (\(columnList(table))) VALUES \(tuples.joined(separator: ", "))"
  }

  /// Inserts a row or updates the existing one where a column differs, in one statement: the
  /// store reports a change only when something changed. With `rows`, as many rows in one
  /// statement (numbered as `insert(_:rows:)`), each applied in turn as if alone.
  func upsert(_ table: Table, rows: Int? = nil) -> String {
    let keys = Set(table.key)
    let others = table.allColumns.map(\.name).filter { !keys.contains($0) }
    let values = rows.map { self.insert(table, rows: $0) } ?? self.insert(table, ignoringExisting: false)
    let insert = values + " ON CONFLICT (\(table.key.map(q).joined(separator: ", ")))"
    guard !others.isEmpty else { return insert + " DO NOTHING" }
    let assignments = others.map { "\(q($0)) = excluded.\(q($0))" }.joined(separator: ", ")
    // Qualified: PostgreSQL finds a bare column of the condition ambiguous beside `excluded`.
    let changed = others.map { dialect.isDistinct("\(q(table.name)).\(q($0))", "excluded.\(q($0))") }
      .joined(separator: " OR ")
    return insert + " DO UPDATE SET \(assignments) WHERE \(changed)"
  }

  /// Sets `columns` of the row with the row's key (all non-key columns when nil).
  func update(_ table: Table, columns: [String]? = nil) -> String? {
    let keys = Set(table.key)
    let targets = (columns ?? table.allColumns.map(\.name)).filter { !keys.contains($0) }
    guard !targets.isEmpty else { return nil }
    let assignments = targets.map { "\(q($0)) = \(p(table, $0))" }.joined(separator: ", ")
    return "UPDATE \(q(table.name)) SET \(assignments) WHERE \(keyMatch(table))"
  }

  /// Sets `columns` of the row with the row's key where one of them differs, so the store
  /// reports a change only when something changed (a merge row's given columns).
  func updateIfDifferent(_ table: Table, columns: [String]) -> String? {
    let keys = Set(table.key)
    let targets = columns.filter { !keys.contains($0) }
    guard !targets.isEmpty else { return nil }
    let assignments = targets.map { "\(q($0)) = \(p(table, $0))" }.joined(separator: ", ")
    let changed = targets.map { dialect.isDistinct(q($0), p(table, $0)) }.joined(separator: " OR ")
    return "UPDATE \(q(table.name)) SET \(assignments) WHERE \(keyMatch(table)) AND (\(changed))"
  }

  func delete(_ table: Table) -> String {
    "DELETE FROM \(q(table.name)) WHERE \(keyMatch(table))"
  }

  /// Deletes the children of one parent — or every row below a top-level row, at any depth,
  /// whose key starts with the top-level key; parameters are numbered as in the parent's row.
  func deleteChildren(_ child: Table, of parent: Table) -> String {
    let match = parent.key.map { "\(q($0)) = \(p(parent, $0))" }.joined(separator: " AND ")
    return "DELETE FROM \(q(child.name)) WHERE \(match)"
  }

  /// Which of `count` keys exist in a table with a single-column key.
  func existingKeys(_ table: Table, count: Int) -> String {
    let key = q(table.key[0])
    let list = (1...count).map(dialect.parameter).joined(separator: ", ")
    return "SELECT \(key) FROM \(q(table.name)) WHERE \(key) IN (\(list))"
  }

  // MARK: - Patches applied in key order

  /// The temporary table a run stages a top-level table's patches in (`SQLDialect.
  /// appliesPatchesInKeyOrder`): their order, which columns each leaves unchanged, and the
  /// table's own columns with their types and check constraints (named as the table's, so a
  /// value that breaks one is refused when it is staged, as the update would refuse it). NOT
  /// NULL and the key's existence are checked before a patch is written (`RecordRows`, the
  /// look-ups), foreign keys when it is applied.
  func createPatchStage(_ table: Table) -> String {
    var lines = [
      "  \(q(Self.patchOrder)) \(dialect.typeName(.integer)) PRIMARY KEY",
      "  \(q(Self.patchUnchanged)) \(dialect.typeName(.integer)) NOT NULL",
    ]
    for column in table.columns {
      var line = "  \(q(column.name)) \(dialect.typeName(column.type))"
      if let check = checkExpression(column) {
        line += " CONSTRAINT \(q(Self.checkName(table: table.name, column: column.name))) CHECK (\(check))"
      }
      lines.append(line)
    }
    let options = dialect.tableOptions(hasCompositeKey: false)
    return "CREATE TEMP TABLE IF NOT EXISTS \(patchStage(table)) (\n\(lines.joined(separator: ",\n"))\n)"
      + (options.isEmpty ? "" : " " + options)
  }

  /// Stages one patch: its order, its unchanged columns' mask, then the table's own columns.
  func stagePatch(_ table: Table) -> String {
    let values = (1...table.columns.count + 2).map(dialect.parameter).joined(separator: ", ")
    return "INSERT INTO \(patchStage(table)) VALUES (\(values))"
  }

  /// The staged patches by key, each key's in the order they came: mask, then own columns.
  func stagedPatches(_ table: Table) -> String {
    let columns = table.columns.map { q($0.name) }.joined(separator: ", ")
    let order = (table.key + [Self.patchOrder]).map(q).joined(separator: ", ")
    return "SELECT \(q(Self.patchUnchanged)), \(columns) FROM \(patchStage(table)) ORDER BY \(order)"
  }

  func clearPatchStage(_ table: Table) -> String { "DELETE FROM \(patchStage(table))" }

  private func patchStage(_ table: Table) -> String { "temp.\(q("sluice_patches_" + table.name))" }
  private static let patchOrder = "sluice_order"
  private static let patchUnchanged = "sluice_unchanged"

  // MARK: - Lookups

  func lookupUpsert(_ lookup: LookupDeclaration) -> String {
    let names = lookup.columns.dropLast().map(\.name)
    let values = (1...names.count).map(dialect.parameter).joined(separator: ", ")
    let attributes = names.dropFirst()
    let assignments = attributes.map { "\(q($0)) = excluded.\(q($0))" }.joined(separator: ", ")
    let table = q(lookup.table)
    let changed = attributes.map { dialect.isDistinct("\(table).\(q($0))", "excluded.\(q($0))") }.joined(
      separator: " OR ")
    return """
      INSERT INTO \(table) (\(names.map(q).joined(separator: ", ")), \(q("retired"))) VALUES (\(values), 0)
      ON CONFLICT (\(q("id"))) DO UPDATE SET \(assignments), \(q("retired")) = 0 WHERE \(changed) OR \(table).\(q("retired")) = 1
      """
  }

  /// The row of one id: `name`, the enum's columns and `retired`, to compare with the enum.
  func lookupRow(_ lookup: LookupDeclaration) -> String {
    let columns = lookup.columns.dropFirst().map { q($0.name) }.joined(separator: ", ")
    return "SELECT \(columns) FROM \(q(lookup.table)) WHERE \(q("id")) = \(dialect.parameter(1))"
  }

  func lookupRetire(_ lookup: LookupDeclaration, keeping ids: [Int64]) -> String {
    let kept = ids.isEmpty ? "" : " AND \(q("id")) NOT IN (\(ids.map(String.init).joined(separator: ", ")))"
    return "UPDATE \(q(lookup.table)) SET \(q("retired")) = 1 WHERE \(q("retired")) = 0\(kept)"
  }
}
