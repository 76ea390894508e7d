import Foundation
@_spi(Internals) import SluiceCore

/// `sluice schema DATASET [--dialect sqlite|postgresql]`: prints the SQL that creates the
/// dataset's tables, lookup tables and indexes, in the store's dialect.
///
/// The DDL is the migrations a run would apply, so a database made from it by hand (reviewed,
/// extended, or distributed on Citus before the first load) is adopted by the first run: each
/// table exists with every declared column, and the run records the migrations as applied.
struct SchemaCommand: Subcommand {
  static let name = "schema"
  static let synopsis = "sluice schema DATASET [--dialect sqlite|postgresql]"
  static let abstract = "print the SQL schema of a dataset"
  static let help = """
    USAGE: sluice schema DATASET [--dialect sqlite|postgresql]

    Prints the statements that create the dataset's tables — its enum-owned lookup tables
    first, then its tables parents first, then their indexes — each after a comment naming
    its migration. A database created from them is adopted by the first run.

    OPTIONS:
      --dialect NAME   sqlite (default) or postgresql
      -h, --help       show this help
    """

  var dataset: AnyDataset
  /// The SQL of the registered driver `--dialect` names (its name in lower case), or of the
  /// first registered one.
  var dialect: any SQLDialect

  /// The dataset is named among those the tool was given, like a choice among an option's values.
  init(arguments: [String], context: CommandContext) throws {
    let parsed = try ArgumentParser(valueOptions: ["dialect"], flags: ["help"]).parse(arguments)
    guard parsed.positionals.count == 1, let name = parsed.positionals.first else {
      throw UsageError("expected one dataset name")
    }
    guard let dataset = context.datasets.first(where: { $0.name == name }) else {
      throw UsageError(
        "unknown dataset '\(name)'; known: \(context.datasets.map(\.name).joined(separator: ", "))")
    }
    self.dataset = dataset
    let drivers = context.drivers.drivers
    let known = drivers.map { $0.name.lowercased() }
    let wanted = parsed.values["dialect"]?.lowercased() ?? known.first ?? ""
    guard let driver = drivers.first(where: { $0.name.lowercased() == wanted }) else {
      throw UsageError("unknown dialect '\(wanted)'; known: \(known.joined(separator: ", "))")
    }
    dialect = driver.dialect
  }

  func run() throws -> Int32 {
    for migration in dataset.schema.migrations(dialect: dialect) {
      printOutput("-- \(migration.identifier)")
      printOutput(migration.sql.trimmingCharacters(in: .whitespacesAndNewlines))
      printOutput()
    }
    return ExitCode.success
  }
}
