import Foundation
import SluiceCore

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

  /// The stores whose SQL the command can print, by the name `--dialect` takes.
  enum Dialect: String, CaseIterable {
    case sqlite, postgresql

    var sqlDialect: any SQLDialect {
      switch self {
      case .sqlite: SQLiteDialect()
      case .postgresql: PostgreSQLDialect()
      }
    }
  }

  var dataset: AnyDataset
  var dialect: Dialect

  /// The dataset is named among those the tool was given, like a choice among an option's values.
  init(arguments: [String], datasets: [AnyDataset]) throws {
    let parsed = try ArgumentParser(valueOptions: ["dialect"], flags: ["help"]).parse(arguments)
    guard parsed.positionals.count == 1, let name = parsed.positionals.first else {
      throw UsageError("expected one dataset name")
    }
    guard let dataset = datasets.first(where: { $0.name == name }) else {
      throw UsageError("unknown dataset '\(name)'; known: \(datasets.map(\.name).joined(separator: ", "))")
    }
    self.dataset = dataset
    if let text = parsed.values["dialect"] {
      guard let dialect = Dialect(rawValue: text.lowercased()) else {
        throw UsageError(
          "unknown dialect '\(text)'; known: \(Dialect.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      self.dialect = dialect
    } else {
      dialect = .sqlite
    }
  }

  func run() throws -> Int32 {
    for migration in dataset.schema.migrations(dialect: dialect.sqlDialect) {
      printOutput("-- \(migration.identifier)")
      printOutput(migration.sql.trimmingCharacters(in: .whitespacesAndNewlines))
      printOutput()
    }
    return ExitCode.success
  }
}
