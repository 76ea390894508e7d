@_spi(Internals) import SluiceCore

/// The Citus layout of a dataset's tables, derived from their declarations: which are reference
/// tables (copied to every node), which are distributed and by which column, which are colocated,
/// and which foreign keys Citus cannot keep. `sluice schema DATASET --dialect citus` prints it
/// after the PostgreSQL DDL.
///
/// The rules, decided over the dataset's family (`SchemaLayout`), follow Citus's own: a
/// distributed table's primary key must contain its distribution column; a foreign key between
/// distributed tables must pair their distribution columns and join colocated tables; one from a
/// reference table to a distributed table is refused. Sluice's keys are natural keys, so:
/// - an enum-owned lookup table is a reference table;
/// - a table with child tables is distributed by its key, and its children — grandchildren and
///   deeper too — are distributed by that key (their key starts with it), colocated with it: a
///   record's rows share a shard;
/// - a top-level table other tables reference, without children (customers, devices, senders),
///   is a reference table: every distributed table may point at it;
/// - any other table is distributed by its own key;
/// - a foreign key these placements break (a comment's post: distributed by their own ids) is
///   dropped — Sluice still resolves references by natural key before it writes;
/// - a history table's versions (`HistoryTable`) are placed as its rows are, colocated with it.
package struct CitusLayout: SchemaLayout {
  public init() {}

  public var name: String { "citus" }

  /// Where a table goes.
  package enum Placement: Equatable, Sendable {
    case reference
    /// Hashed on `column`; colocated with `colocateWith` (a parent), or Citus's default group.
    case distributed(column: String, colocateWith: String?)
  }

  /// Every table of the family of `schema` among `catalog`: the schemas that share a table with
  /// it, directly or through another, in the order their tables first appear.
  package static func family(of schema: Schema, among catalog: [Schema]) -> [Table] {
    var names = Set(schema.tables.map(\.name))
    var members: [Schema] = [schema]
    var grew = true
    while grew {
      grew = false
      for other in catalog where !members.contains(where: { $0.tables.map(\.name) == other.tables.map(\.name) }) {
        guard other.tables.contains(where: { names.contains($0.name) }) else { continue }
        members.append(other)
        names.formUnion(other.tables.map(\.name))
        grew = true
      }
    }
    var seen = Set<String>()
    return members.flatMap(\.tables).filter { seen.insert($0.name).inserted }
  }

  /// Each family table's placement, by name (lookup tables are not listed: always reference).
  package static func placements(of family: [Table]) -> [String: Placement] {
    let parents = Set(family.compactMap { $0.parent?.table.name })
    let referenced = Set(family.flatMap { $0.columns.compactMap { $0.reference?.table.name } })
    var placements: [String: Placement] = [:]
    for table in family {
      if table.parent != nil, let column = table.root.key.first {
        // A child at any depth: by the top-level key, which starts its key, beside its record.
        placements[table.name] = .distributed(column: column, colocateWith: table.root.name)
      } else if let column = table.key.first, parents.contains(table.name) || !referenced.contains(table.name) {
        placements[table.name] = .distributed(column: column, colocateWith: nil)
      } else {
        // Referenced by other tables (or keyless): on every node.
        placements[table.name] = .reference
      }
    }
    return placements
  }

  /// Whether Citus keeps the foreign key from `table.column` to the table it references.
  package static func keepsReference(
    from table: Table, column: Column, to target: Table, placements: [String: Placement]
  ) -> Bool {
    guard case .distributed(let column1, let group1)? = placements[target.name] else { return true }
    guard case .distributed(let column0, let group0)? = placements[table.name] else { return false }
    // Between distributed tables: the referencing column is the table's distribution column,
    // the referenced key the target's, and both sit in one colocation group.
    return column.name == column0 && target.key == [column1] && (group0 ?? table.name) == (group1 ?? target.name)
  }

  /// PostgreSQL's name for a column's unnamed `REFERENCES` constraint.
  static func foreignKeyName(table: String, column: String) -> String { "\(table)_\(column)_fkey" }

  public func statements(
    for schema: Schema, named dataset: String, among catalog: [Schema], dialect: any SQLDialect
  ) -> [String] {
    let placements = Self.placements(of: Self.family(of: schema, among: catalog))
    /// A table's name as a `regclass` literal.
    func table(_ name: String) -> String {
      let plain = name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }
      let identifier = plain && !(name.first?.isNumber ?? true) ? name : dialect.quote(name)
      return dialect.literal(identifier)
    }
    let text = dialect.literal
    var lines = [
      "-- citus layout: \(dataset)",
      "-- Reference tables are laid out before the tables that point at them; meanwhile, a table that",
      "-- still is a plain one may point at a reference table without Citus converting it.",
      "SET citus.enable_local_reference_table_foreign_keys TO off;",
    ]
    for lookup in schema.lookups {
      lines.append("SELECT create_reference_table(\(table(lookup.table)));")
    }
    let ordered =
      schema.tables.filter { placements[$0.name] == .reference }
      + schema.tables.filter { placements[$0.name] != .reference }
    for each in ordered {
      for column in each.columns {
        guard let target = column.reference?.table,
          !Self.keepsReference(from: each, column: column, to: target, placements: placements)
        else { continue }
        lines.append(
          "-- \(each.name).\(column.name) → \(target.name): Citus keeps no foreign key here; Sluice still resolves it.")
        lines.append(
          "ALTER TABLE \(dialect.quote(each.name)) DROP CONSTRAINT \(dialect.quote(Self.foreignKeyName(table: each.name, column: column.name)));"
        )
      }
      switch placements[each.name] {
      case .reference, nil:
        lines.append("SELECT create_reference_table(\(table(each.name)));")
      case .distributed(let column, nil)?:
        lines.append("SELECT create_distributed_table(\(table(each.name)), \(text(column)));")
      case .distributed(let column, let parent?)?:
        lines.append(
          "SELECT create_distributed_table(\(table(each.name)), \(text(column)), colocate_with => \(table(parent)));")
      }
      // A history table's versions sit where its rows do: its key starts with theirs.
      guard each.history != nil else { continue }
      let history = HistoryTable.name(of: each.name)
      switch placements[each.name] {
      case .reference, nil:
        lines.append("SELECT create_reference_table(\(table(history)));")
      case .distributed(let column, let parent)?:
        lines.append(
          "SELECT create_distributed_table(\(table(history)), \(text(column)), colocate_with => \(table(parent ?? each.name)));"
        )
      }
    }
    lines.append("RESET citus.enable_local_reference_table_foreign_keys;")
    return lines
  }
}
