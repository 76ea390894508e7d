/// A dataset's tables, parents first, with the lookup tables their columns bring along.
///
/// From it the engine derives the migrations (one per table and per index, named after them, so
/// a database records which exist) and `sluice schema`'s DDL.
public struct Schema: Sendable {
  /// The dataset's own tables, parents and referenced tables before the tables that point at them.
  public let tables: [Table]
  /// The enum-owned lookup tables the columns hold ids of, in first-use order.
  public let lookups: [LookupDeclaration]
  /// The changes schema evolution makes to these tables in this run (`DatasetEvolution`): their
  /// migrations follow the tables' own.
  package var evolution: [SchemaChange] = []

  public init(_ tables: [Table]) {
    var seen: [String: Table] = [:]
    var lookups: [LookupDeclaration] = []
    for table in tables {
      precondition(seen[table.name] == nil, "table \(table.name) is declared twice")
      if let parent = table.parent {
        precondition(
          seen[parent.table.name] === parent.table, "\(table.name): its parent \(parent.table.name) must come first")
      }
      for column in table.columns {
        if let reference = column.reference {
          precondition(
            seen[reference.table.name] === reference.table,
            "\(table.name).\(column.name) references \(reference.table.name), which must be declared before it")
        }
        if let lookup = column.lookup, !lookups.contains(where: { $0.table == lookup.table }) {
          lookups.append(lookup)
        }
      }
      seen[table.name] = table
    }
    self.tables = tables
    self.lookups = lookups
  }

  /// The schema of a run that loads several datasets: each table once, in the order tables first
  /// appear, so a later dataset's tables may reference an earlier one's (alerts naming devices).
  ///
  /// Datasets that both list a table must share its declaration — the same `Table`, as a dataset
  /// that references another's tables lists them — since rows name their table by identity.
  public static func union(_ schemas: [Schema]) throws(SchemaConflict) -> Schema {
    var tables: [Table] = []
    for schema in schemas {
      for table in schema.tables {
        if let known = tables.first(where: { $0.name == table.name }) {
          guard known === table else { throw SchemaConflict(table: table.name) }
          continue
        }
        tables.append(table)
      }
    }
    var union = Schema(tables)
    // The inputs of one dataset (a glob's files) share its schema: each change once.
    for change in schemas.flatMap(\.evolution) where !union.evolution.contains(change) {
      union.evolution.append(change)
    }
    return union
  }

  /// Every table name the dataset writes or owns, for row counts: tables, then lookups.
  public var tableNames: [String] { tables.map(\.name) + lookups.map(\.table) }

  /// The migrations that create the schema: lookups, then tables in order, then their indexes.
  package func migrations(dialect: any SQLDialect) -> [Migration] {
    let sql = TableSQL(dialect: dialect)
    var migrations = lookups.map { lookup in
      Migration(
        "create table \(lookup.table)", sql: sql.createLookup(lookup),
        creates: .table(lookup.table, columns: lookup.columns.map(\.name)))
    }
    migrations += tables.map { table in
      Migration(
        "create table \(table.name)", sql: sql.create(table),
        creates: .table(table.name, columns: table.allColumns.map(\.name)))
    }
    // A history table's versions (`HistoryTable`), after the table it follows.
    migrations += HistoryTable.tables(of: self).map { $0.migration(dialect: dialect) }
    migrations += evolution.compactMap { $0.migration(dialect: dialect) }
    for table in tables {
      migrations += table.indexes.map { index in
        Migration(
          "create index \(index.name)", sql: sql.create(index, on: table), isDeferrableIndex: index.isDeferrable,
          indexedTable: table.name, creates: .index(index.name))
      }
    }
    return migrations
  }
}

/// Two datasets of one run declare different tables of the same name.
public struct SchemaConflict: Error, Sendable, CustomStringConvertible {
  public var table: String
  public var description: String {
    "two datasets declare different tables named \(table); a run can load them together only if they share the declaration"
  }
}
