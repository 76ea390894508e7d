import Foundation
@_spi(Internals) import SluiceCore
import SluiceInspect

/// `sluice contract DATASET [--format json-schema]`: prints the dataset's records as a JSON
/// Schema (draft 2020-12), derived from its DTO and rules, for the teams that write the dumps.
struct ContractCommand: Subcommand {
  static let name = "contract"
  static let synopsis = "sluice contract DATASET [--format json-schema]"
  static let abstract = "print a dataset's records as a JSON Schema"
  static let help = CommandHelp(
    usage: """
      sluice contract DATASET [--format json-schema] [--policy strict|lenient]
                             [--date-formats NAME,…]
      """,
    summary: """
      Prints a JSON Schema (draft 2020-12) of the dataset's records, derived from the dataset
      itself: the keys and types its DTO asks for (required, optional, null versus missing for a
      patch), arrays, nested objects, kinds of a polymorphic record as a oneOf keyed by their
      discriminator, enum-backed fields as enums, and the rules JSON Schema can state (ranges,
      lengths, non-blank, patterns, one-of, dates). What it cannot state — a cross-field rule, a
      row the database must hold — is listed under x-sluice-unexpressed with its field path.
      Give it to the team that writes the dumps; `validate --baseline` reads it back. DATASET
      is a dataset's name, or a dataset file's path (NAME.dataset.json).
      """,
    options: OptionList(
      column: 25,
      entries: [
        OptionEntry(.value("format", "NAME"), "json-schema (the default and only format)"),
        OptionEntry(
          .value("policy", "NAME"),
          """
          strict (default): unknown fields are not allowed
          (additionalProperties: false); lenient: they are
          """),
        OptionEntry(
          .value("date-formats", "NAMES"),
          """
          the pipeline's date formats, comma-separated (default iso8601;
          epochSeconds, epochMilliseconds, or a pattern)
          """),
        .help,
      ]))

  var dataset: AnyDataset
  var options: DatasetContract.Options

  init(arguments: [String], context: CommandContext) throws {
    let parsed = try Self.help.parser.parse(arguments)
    guard parsed.positionals.count == 1, let name = parsed.positionals.first else {
      throw UsageError("expected one dataset name; known: \(context.datasets.map(\.name).joined(separator: ", "))")
    }
    self.dataset = try context.dataset(named: name)
    let format = parsed.values["format"] ?? "json-schema"
    guard format == "json-schema" else {
      throw UsageError("--format must be json-schema, not '\(format)'")
    }
    var policy = Policy.strict
    if let name = parsed.values["policy"] {
      guard let preset = Policy.Preset(rawValue: name) else {
        throw UsageError("--policy must be strict or lenient, not '\(name)'")
      }
      policy = Policy(preset: preset)
    }
    if let names = parsed.values["date-formats"] {
      do {
        policy.dateFormats = try names.split(separator: ",").map { try DateFormat(specName: String($0)) }
      } catch {
        throw UsageError("--date-formats: \(error)")
      }
      guard !policy.dateFormats.isEmpty else { throw UsageError("--date-formats names no format") }
    }
    options = DatasetContract.Options(policy: policy)
  }

  func run() throws -> Int32 {
    printOutput(dataset.contract(options).document.text())
    return ExitCode.success
  }
}
