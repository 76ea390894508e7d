import Foundation
@_spi(Internals) import SluiceCore
import SluiceInspect

/// `sluice inspect INPUT`: the format, the record paths and the records' field paths with their
/// types and presence — no values unless asked — or a Swift DTO for them. The work is
/// SluiceCore's `Inspector`; this parses the flags, prints the result and maps the inspection's
/// errors to exit codes.
struct InspectCommand: Subcommand {
  static let name = "inspect"
  static let synopsis = "sluice inspect INPUT [options]"
  static let abstract = "describe a dump: format, record paths, fields (no values), a DTO"
  static let help = CommandHelp(
    usage: """
      sluice inspect INPUT [--format json|ndjson|xml|csv|tsv] [--record-path PATH]
                                  [--sample N | --all] [--show-values] [--json | --swift NAME]
                                  [--delimiter C] [--no-header] [--columns A,B,C] [--encoding NAME]
      """,
    summary: """
      Describes a dump before a pipeline is written for it: gzip or not, the format (detected from
      the content), the record paths it holds (arrays of objects, repeated XML elements) with their
      record counts, then for the records at one path every field path (customer.name, items[].qty)
      with the types seen, how often it is present and null, and text lengths. It prints no values
      unless --show-values is given. Streams in constant memory; reads the input up to three times.

      CSV and TSV (a .csv or .tsv name, or rows that one delimiter splits alike): the dialect is
      sniffed from the first megabyte — the delimiter among , ; tab |, whether the first row is a
      header, the encoding (UTF-8, certain when valid, a guess when 20 valid characters or more
      stand for each stray byte; else windows-1252 or iso-8859-1, a guess) — unless the options
      below give it, and each column's TYPE is what every value reads as under the strict
      decoder: integer, decimal(scale), boolean (true/false, True/False), timestamp(its format),
      enum(values: few, repeated), or text (ids with leading zeros, 007, stay text).
      """,
    options: OptionList(
      column: 25,
      entries: [
        OptionEntry(.value("format", "json|ndjson|xml|csv|tsv"), "the format, instead of detecting it"),
        OptionEntry(
          .value("record-path", "PATH"),
          """
          the records to describe, as sluice run takes it (data.items,
          chats.list[].messages, posts.row, '' for a top-level array);
          default: the longest array of objects (the most repeated element)
          """),
        OptionEntry(
          .value("sample", "N"),
          """
          read N records (default \(InspectOptions.defaultSampleSize)); the record paths are
          listed from the input read up to there
          """),
        OptionEntry(.flag("all"), "read every record and the whole input: exact counts"),
        OptionEntry(.flag("show-values"), "add up to three example values per field, cut to 40 characters"),
        OptionEntry(
          .flag("json"),
          """
          print the result as a JSON document (keys: docs/guides/inspect.md,
          "Inspecting a dump")
          """),
        OptionEntry(
          .value("swift", "NAME"),
          """
          print a Decodable Swift struct NAME for the records instead,
          one that Sluice's strict decoder reads
          """),
      ] + RemoteOptionEntries.entries + DialectOptions.entries(sniffed: true) + [.help]),
    epilogue: """
      EXIT CODES: 0 described · 64 bad flags · 65 malformed input or no records found
                  66 input missing or unreadable · 74 corrupt or truncated gzip stream
                  (or a remote input unreachable) · 77 a remote input's server denied access
      """)

  enum Output {
    case text, json
    case swift(String)
  }

  var input: String
  var options: InspectOptions
  var output: Output

  init(arguments: [String], context: CommandContext) throws {
    let parsed = try Self.help.parser.parse(arguments)
    guard parsed.positionals.count == 1, let input = parsed.positionals.first else {
      throw UsageError(
        parsed.positionals.isEmpty
          ? "missing the input (sluice inspect INPUT)" : "expected one input, got \(parsed.positionals.count) arguments"
      )
    }
    self.input = input
    options = InspectOptions(showsValues: parsed.flags.contains("show-values"))
    options.remote = RemoteAccess(
      transports: context.remote, options: try PipelineConfiguration.remoteOptions(parsed.values, spec: RemoteOptions())
    )
    if let format = parsed.values["format"] {
      guard let value = PipelineConfiguration.Format(rawValue: format) else {
        throw UsageError("--format must be json, ndjson, xml, csv or tsv, not '\(format)'")
      }
      options.format = value
    }
    options.dialect = try CSVDialectOptions.parse(parsed.values, flags: parsed.flags)
    if let path = parsed.values["record-path"] { options.recordPath = PipelineSpec.parseRecordPath(path) }
    if let sample = parsed.values["sample"] {
      if parsed.flags.contains("all") { throw UsageError("--sample and --all exclude each other") }
      guard let count = Int(sample), count > 0 else {
        throw UsageError("--sample must be a positive number of records, not '\(sample)'")
      }
      options.sampleSize = count
    }
    if parsed.flags.contains("all") { options.sampleSize = nil }
    if let name = parsed.values["swift"] {
      if parsed.flags.contains("json") { throw UsageError("--json and --swift exclude each other") }
      output = .swift(name)
    } else {
      output = parsed.flags.contains("json") ? .json : .text
    }
  }

  func validate() throws {
    if input == "-" { throw UsageError("inspect reads a file (it reads it more than once), not standard input") }
    if options.format == .ndjson && options.recordPath != nil {
      throw UsageError("--record-path applies to --format json and xml, not ndjson")
    }
    if case .swift(let name) = output, !SwiftDTOGenerator.isValidTypeName(name) {
      throw UsageError(
        "--swift needs a Swift type name (letters, digits, _; not a keyword or a standard type), not '\(name)'")
    }
  }

  func run() throws -> Int32 {
    var inspection: Inspection
    do {
      // Read from where the command line starts; named as it was given.
      inspection = try Inspector.inspect(path: PipelineConfiguration.absolute(input), options: options)
      inspection.path = RemoteURL.redacted(input)
    } catch var error as InputError {
      error.path = RemoteURL.redacted(input)
      printError("sluice: \(error)")
      return ExitCode.of(error)
    } catch let error as RecordReadError {
      printError("sluice: \(RemoteURL.redacted(input)): \(error)")
      return ExitCode.dataError
    } catch let error as RecordDecodingError {
      printError("sluice: \(RemoteURL.redacted(input)): \(error.message)")
      return ExitCode.dataError
    } catch let error as InspectionError {
      switch error.code {
      case .noRecordPath:
        printError("sluice: \(error)")
        return ExitCode.dataError
      case .unknownEncoding:
        printError("sluice: \(RemoteURL.redacted(input)): \(error)")
        return ExitCode.dataError
      case .recordPathNotApplicable:
        throw UsageError(error.message)
      }
    }
    switch output {
    case .text: printOutput(inspection.text())
    case .json: printOutput(inspection.json())
    case .swift(let name):
      let source = SwiftDTOGenerator(inspection: inspection, typeName: name).source()
      printOutput(source.hasSuffix("\n") ? String(source.dropLast()) : source)
    }
    return ExitCode.success
  }
}
