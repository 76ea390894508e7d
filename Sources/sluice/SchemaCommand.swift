import Foundation
import SluiceCatalog

/// `sluice schema DATASET`: prints the SQL that creates the dataset's tables.
enum SchemaCommand {
  static let help = "USAGE: sluice schema DATASET"

  static func main(arguments: [String]) throws -> Int32 {
    if arguments.contains("-h") || arguments.contains("--help") {
      print(help)
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
    for migration in dataset.migrations {
      print("-- \(migration.identifier)")
      print(migration.sql.trimmingCharacters(in: .whitespacesAndNewlines))
      print()
    }
    return ExitCode.success
  }
}
