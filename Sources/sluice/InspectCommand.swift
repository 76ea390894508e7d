import Foundation
import SluiceCore

/// `sluice inspect INPUT`: the format, the record paths and the records' field paths with their
/// types and presence — no values unless asked — or a Swift DTO for them. The work is
/// SluiceCore's `Inspector`; this parses the flags and maps errors to exit codes.
enum InspectCommand {
  static let help = """
    USAGE: sluice inspect INPUT [--format json|ndjson|xml] [--record-path PATH]
                                [--sample N | --all] [--show-values] [--json | --swift NAME]

    Describes a dump before a pipeline is written for it: gzip or not, the format (detected from
    the content), the record paths it holds (arrays of objects, repeated XML elements) with their
    record counts, then for the records at one path every field path (customer.name, items[].qty)
    with the types seen, how often it is present and null, and text lengths. It prints no values
    unless --show-values is given. Streams in constant memory; reads the input up to three times.

    OPTIONS:
      --format json|ndjson|xml
                             the format, instead of detecting it
      --record-path PATH     the records to describe, as sluice run takes it (data.items,
                             chats.list[].messages, posts.row, '' for a top-level array);
                             default: the longest array of objects (the most repeated element)
      --sample N             read N records (default \(InspectOptions.defaultSampleSize)); the record paths are
                             listed from the input read up to there
      --all                  read every record and the whole input: exact counts
      --show-values          add up to three example values per field, cut to 40 characters
      --json                 print the result as a JSON document (keys: README.md, "Inspecting
                             a dump")
      --swift NAME           print a Decodable Swift struct NAME for the records instead,
                             one that Sluice's strict decoder reads
      -h, --help             show this help

    EXIT CODES: 0 described · 64 bad flags · 65 malformed input or no records found
                66 input missing or unreadable · 74 corrupt or truncated gzip stream
    """

  static let parser = ArgumentParser(
    valueOptions: ["format", "record-path", "sample", "swift"], flags: ["all", "show-values", "json", "help"], help: help)

  static func main(arguments: [String]) throws -> Int32 {
    if arguments.contains("-h") || arguments.contains("--help") {
      printOutput(help)
      return ExitCode.success
    }
    let parsed = try parser.parse(arguments)
    guard parsed.positionals.count == 1, let input = parsed.positionals.first else {
      throw UsageError(
        message: parsed.positionals.isEmpty
          ? "missing the input (sluice inspect INPUT)" : "expected one input, got \(parsed.positionals.count) arguments",
        help: help)
    }
    if input == "-" {
      throw UsageError(message: "inspect reads a file (it reads it more than once), not standard input", help: help)
    }
    var options = InspectOptions(showsValues: parsed.flags.contains("show-values"))
    if let format = parsed.values["format"] {
      guard let value = PipelineConfiguration.Format(rawValue: format) else {
        throw UsageError(message: "--format must be json, ndjson or xml, not '\(format)'", help: help)
      }
      options.format = value
    }
    if let path = parsed.values["record-path"] {
      if options.format == .ndjson {
        throw UsageError(message: "--record-path applies to --format json and xml, not ndjson", help: help)
      }
      options.recordPath = PipelineSpec.parseRecordPath(path)
    }
    if let sample = parsed.values["sample"] {
      if parsed.flags.contains("all") { throw UsageError(message: "--sample and --all exclude each other", help: help) }
      guard let count = Int(sample), count > 0 else {
        throw UsageError(message: "--sample must be a positive number of records, not '\(sample)'", help: help)
      }
      options.sampleSize = count
    }
    if parsed.flags.contains("all") { options.sampleSize = nil }
    let swiftName = parsed.values["swift"]
    if let swiftName {
      if parsed.flags.contains("json") { throw UsageError(message: "--json and --swift exclude each other", help: help) }
      guard SwiftDTOGenerator.isValidTypeName(swiftName) else {
        throw UsageError(
          message: "--swift needs a Swift type name (letters, digits, _; not a keyword or a standard type), not '\(swiftName)'",
          help: help)
      }
    }

    let inspection: Inspection
    do {
      inspection = try Inspector.inspect(path: input, options: options)
    } catch let error as InputError {
      printError("sluice: \(error)")
      switch error.code {
      case .notFound, .unreadable: return ExitCode.noInput
      case .corruptStream, .truncatedStream: return ExitCode.ioError
      }
    } catch let error as RecordReadError {
      printError("sluice: \(input): \(error)")
      return ExitCode.dataError
    } catch let error as RecordDecodingError {
      printError("sluice: \(input): \(error)")
      return ExitCode.dataError
    } catch let error as InspectionError {
      printError("sluice: \(error)")
      switch error.code {
      case .noRecordPath: return ExitCode.dataError
      case .recordPathNotApplicable: return ExitCode.usage
      }
    }
    if let swiftName {
      let source = SwiftDTOGenerator(inspection: inspection, typeName: swiftName).source()
      printOutput(source.hasSuffix("\n") ? String(source.dropLast()) : source)
    } else if parsed.flags.contains("json") {
      printOutput(inspection.json())
    } else {
      printOutput(inspection.text())
    }
    return ExitCode.success
  }
}
