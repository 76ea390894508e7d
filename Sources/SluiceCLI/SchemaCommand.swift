import Foundation
import SluiceCore

/// `sluice schema DATASET`: prints the SQL that creates the dataset's tables.
struct SchemaCommand: Subcommand {
  static let name = "schema"
  static let synopsis = "sluice schema DATASET"
  static let abstract = "print the SQL schema of a dataset"
  static let help = "USAGE: sluice schema DATASET"

  var dataset: AnyDataset

  /// The dataset is named among those the tool was given, like a choice among an option's values.
  init(arguments: [String], datasets: [AnyDataset]) throws {
    guard arguments.count == 1, let name = arguments.first else {
      throw UsageError("expected one dataset name")
    }
    guard let dataset = datasets.first(where: { $0.name == name }) else {
      throw UsageError("unknown dataset '\(name)'; known: \(datasets.map(\.name).joined(separator: ", "))")
    }
    self.dataset = dataset
  }

  func run() throws -> Int32 {
    for migration in dataset.schema.migrations(dialect: SQLiteDialect()) {
      printOutput("-- \(migration.identifier)")
      printOutput(migration.sql.trimmingCharacters(in: .whitespacesAndNewlines))
      printOutput()
    }
    return ExitCode.success
  }
}
