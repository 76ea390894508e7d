import Foundation
@_spi(Internals) import SluiceCore

/// `sluice schema DATASET [--dialect sqlite|postgresql|citus]`: prints the SQL that creates the
/// dataset's tables, lookup tables and indexes, in the store's dialect — and, for a layout a
/// driver offers (`citus`), the driver's DDL followed by the calls that lay the tables out.
///
/// The DDL is the migrations a run would apply, so a database made from it by hand (reviewed,
/// extended, or distributed on Citus before the first load) is adopted by the first run: each
/// table exists with every declared column, and the run records the migrations as applied.
struct SchemaCommand: Subcommand {
  static let name = "schema"
  static let synopsis = "sluice schema DATASET [--dialect sqlite|postgresql|citus]"
  static let abstract = "print the SQL schema of a dataset"
  static let help = CommandHelp(
    usage: "sluice schema DATASET [--dialect sqlite|postgresql|citus]",
    summary: """
      Prints the statements that create the dataset's tables — its enum-owned lookup tables
      first, then its tables parents first, then their indexes — each after a comment naming
      its migration. A database created from them is adopted by the first run. With citus, the
      PostgreSQL statements are followed by the layout: reference tables, distributed tables
      and their colocation, derived from the tables; run them all on the coordinator.
      DATASET is a dataset's name, or a dataset file's path (NAME.dataset.json).
      """,
    options: OptionList(
      column: 19,
      entries: [
        OptionEntry(.value("dialect", "NAME"), "sqlite (default), postgresql, or citus"),
        .help,
      ]))

  var dataset: AnyDataset
  /// The SQL of the registered driver `--dialect` names (its name in lower case), or of the
  /// first registered one.
  var dialect: any SQLDialect
  /// The layout `--dialect` names instead of a driver (`citus`), printed after the driver's DDL.
  var layout: (any SchemaLayout)?
  /// Every dataset's schema, among which a layout finds the dataset's family.
  var catalog: [Schema]

  /// The dataset is named among those the tool was given, like a choice among an option's values.
  init(arguments: [String], context: CommandContext) throws {
    let parsed = try Self.help.parser.parse(arguments)
    guard parsed.positionals.count == 1, let name = parsed.positionals.first else {
      throw UsageError("expected one dataset name")
    }
    self.dataset = try context.dataset(named: name)
    let drivers = context.drivers.drivers
    let known = drivers.map { $0.name.lowercased() }
    let wanted = parsed.values["dialect"]?.lowercased() ?? known.first ?? ""
    catalog = context.datasets.map(\.schema)
    if let driver = drivers.first(where: { $0.name.lowercased() == wanted }) {
      dialect = driver.dialect
      layout = nil
    } else if let (driver, layout) = drivers.lazy.compactMap({ driver in
      driver.layouts.first { $0.name.lowercased() == wanted }.map { (driver, $0) }
    }).first {
      dialect = driver.dialect
      self.layout = layout
    } else {
      let layouts = drivers.flatMap { $0.layouts.map { $0.name.lowercased() } }
      throw UsageError("unknown dialect '\(wanted)'; known: \((known + layouts).joined(separator: ", "))")
    }
  }

  func run() throws -> Int32 {
    for migration in dataset.schema.migrations(dialect: dialect) {
      printOutput("-- \(migration.identifier)")
      printOutput(migration.sql.trimmingCharacters(in: .whitespacesAndNewlines))
      printOutput()
    }
    if let layout {
      for line in layout.statements(for: dataset.schema, named: dataset.name, among: catalog, dialect: dialect) {
        printOutput(line)
      }
    }
    return ExitCode.success
  }
}
