import Foundation
import SluiceCatalog
import SluiceCore

/// The `sluice` tool: picks a subcommand, runs it, and turns any error into a message on stderr
/// and an exit code.
enum SluiceCommand {
  static let help = """
    sluice — stream JSON and NDJSON dumps (gzip or plain) into normalized SQLite tables, and
    report per stage what was rejected, where and why.

    USAGE:
      sluice run PIPELINE.json [options]     import the pipeline's input(s) into its database
      sluice validate PIPELINE.json [options]
                                             check the input against the contract; no writes
      sluice replay PIPELINE.json --rejects PATH
                                             load the records of a fixed rejects file
      sluice schema DATASET                  print the SQL schema of a dataset
      sluice inspect INPUT [options]         describe a dump: format, record paths, field types
                                             and presence (no values), or a Swift DTO for it
      sluice --help | sluice COMMAND --help

    DATASETS:
    \(datasetList)

    EXIT CODES (sysexits.h):
      0 success · 64 usage or spec error · 65 data error (run failed, nothing written)
      66 input missing or unreadable · 73 cannot create an output (nothing written)
      74 I/O error: corrupt or truncated input, locked or full database, an output that could not
         be written before the commit (nothing written)
      75 the data was committed, but an output that can only be written after the commit (a report
         to a pipe or device, standard output) was lost
    """

  static func main(arguments: [String]) -> Int32 {
    guard let name = arguments.first else {
      printError(help)
      return ExitCode.usage
    }
    let rest = Array(arguments.dropFirst())
    do {
      switch name {
      case "--help", "-h", "help":
        printOutput(help)
        return ExitCode.success
      case "run", "validate", "replay":
        return try RunCommand.main(RunMode(rawValue: name) ?? .run, arguments: rest)
      case "schema":
        return try SchemaCommand.main(arguments: rest)
      case "inspect":
        return try InspectCommand.main(arguments: rest)
      default:
        throw UsageError(message: "unknown command '\(name)'", help: help)
      }
    } catch let error as UsageError {
      let command = ["run", "validate", "replay", "schema", "inspect"].contains(name) ? "\(name) " : ""
      printError("sluice: \(error.message)\nRun 'sluice \(command)--help' for usage.")
      return ExitCode.usage
    } catch let error as SpecError {
      printError("sluice: pipeline spec \(error)")
      return ExitCode.usage
    } catch {
      printError("sluice: \(error)")
      return ExitCode.ioError
    }
  }

  /// Every dataset, one per line, names padded to the longest (none is cut short).
  static var datasetList: String {
    let width = Catalog.datasets.map(\.name.count).max() ?? 0
    return Catalog.datasets.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)" }
      .joined(separator: "\n")
  }
}
