import Foundation
import SluiceCatalog
import SluiceCore

/// `sluice schema DATASET`: prints the SQL that creates the dataset's tables.
enum SchemaCommand {
  static let help = "USAGE: sluice schema DATASET"

  static func main(arguments: [String]) throws -> Int32 {
    if arguments.contains("-h") || arguments.contains("--help") {
      printOutput(help)
      return ExitCode.success
    }
    guard arguments.count == 1, let name = arguments.first else {
      throw UsageError(message: "expected one dataset name", help: help)
    }
    guard let dataset = Catalog.dataset(named: name) else {
      throw UsageError(
        message: "unknown dataset '\(name)'; known: \(Catalog.datasets.map(\.name).joined(separator: ", "))",
        help: help)
    }
    for migration in dataset.schema.migrations(dialect: SQLiteDialect()) {
      printOutput("-- \(migration.identifier)")
      printOutput(migration.sql.trimmingCharacters(in: .whitespacesAndNewlines))
      printOutput()
    }
    return ExitCode.success
  }
}
