/// How a driver's database spreads a dataset's tables over several servers — Citus's distributed
/// and reference tables on PostgreSQL — printed by `sluice schema DATASET --dialect NAME` after the
/// DDL, so nobody copies the calls out of a README.
///
/// A layout decides each table from the declarations alone (keys, parents, references), over the
/// dataset's *family*: every dataset of the program that shares a table with it, directly or
/// through another, since a table laid out one way for one dataset must suit the others that
/// write it (devices alone would be distributed; alerts reference them, so they are not).
public protocol SchemaLayout: Sendable {
  /// The name `--dialect` takes (`citus`).
  var name: String { get }
  /// The lines that lay out `schema`'s tables, created beforehand by the driver's DDL, given the
  /// schemas of every dataset of the program (the family is found among them): statements, each
  /// on one line ending with `;`, and `--` comments explaining them.
  func statements(for schema: Schema, named dataset: String, among catalog: [Schema], dialect: any SQLDialect)
    -> [String]
}
