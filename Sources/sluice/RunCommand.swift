import Foundation
import SluiceCatalog
import SluiceCore

/// `sluice run PIPELINE.json [options]`: one import, as the spec and the flags describe it.
enum RunCommand {
  static let help = """
    USAGE: sluice run PIPELINE.json [options]

    Runs the pipeline: reads its input (gzip detected by content), decodes, validates, maps and
    loads every record into the database in one transaction, then prints a per-stage summary
    on stderr and where the database is and what it holds on stdout.

    OPTIONS (override the spec; paths here are relative to the working directory):
      --input PATH           input file, or - for standard input
      --format json|ndjson   a JSON document with an array of records, or one record per line
      --record-path PATH     keys leading to the record array, dotted (data.fruits); '' for a
                             top-level array
      --policy strict|lenient
                             strict: the first invalid record fails the run, nothing is written;
                             lenient: invalid records are skipped and reported
      --on-conflict upsert|replace|ignore|fail
      --db PATH              the SQLite database to create or update
      --report PATH          also write the JSON run report here
      -h, --help             show this help

    Relative paths inside a spec resolve against the spec file's directory.
    """

  static let parser = ArgumentParser(
    valueOptions: ["input", "format", "record-path", "policy", "on-conflict", "db", "report"],
    flags: ["help"], help: help)

  static func main(arguments: [String]) throws -> Int32 {
    if arguments.contains("-h") || arguments.contains("--help") {
      print(help)
      return ExitCode.success
    }
    let parsed = try parser.parse(arguments)
    guard parsed.positionals.count == 1, let specPath = parsed.positionals.first else {
      throw UsageError(
        message: parsed.positionals.isEmpty
          ? "missing the pipeline spec (sluice run PIPELINE.json)"
          : "expected one pipeline spec, got \(parsed.positionals.count) arguments",
        help: help)
    }
    let spec = try PipelineSpec(contentsOf: specPath)
    guard let dataset = Catalog.dataset(named: spec.dataset) else {
      throw SpecError(
        path: specPath,
        message: "unknown dataset '\(spec.dataset)'; known: \(Catalog.datasets.map(\.name).joined(separator: ", "))")
    }
    let configuration = try apply(parsed, to: spec.configuration())

    let report = dataset.run(configuration)
    printError(report.summary())
    if let reportPath = configuration.reportPath {
      do {
        try write(report, to: reportPath)
      } catch {
        printError("sluice: cannot write the report to \(reportPath): \(error.localizedDescription)")
        return report.exitCode == 0 ? ExitCode.cannotCreate : report.exitCode
      }
    }
    if report.committed {
      print("database: \(configuration.database)")
      for table in dataset.tables {
        print("  \(table): \(report.tableRows[table] ?? 0) rows")
      }
    } else if FileManager.default.fileExists(atPath: configuration.database) {
      printError("sluice: the run was rolled back; \(configuration.database) is unchanged")
    } else {
      printError("sluice: the run was rolled back; no database was created")
    }
    return report.exitCode
  }

  /// Applies command-line overrides to the spec's configuration.
  static func apply(_ parsed: ArgumentParser.Parsed, to base: PipelineConfiguration) throws(UsageError)
    -> PipelineConfiguration
  {
    var configuration = base
    let values = parsed.values
    if let input = values["input"] { configuration.input = absolute(input) }
    if let db = values["db"] { configuration.database = absolute(db) }
    if let report = values["report"] { configuration.reportPath = absolute(report) }
    if let format = values["format"] {
      guard let value = PipelineConfiguration.Format(rawValue: format) else {
        throw UsageError(message: "--format must be json or ndjson, not '\(format)'", help: help)
      }
      configuration.format = value
      if value == .ndjson && values["record-path"] == nil { configuration.recordPath = [] }
    }
    if let path = values["record-path"] {
      configuration.recordPath = PipelineSpec.parseRecordPath(path)
    }
    if let policy = values["policy"] {
      guard let preset = Policy.Preset(rawValue: policy) else {
        throw UsageError(message: "--policy must be strict or lenient, not '\(policy)'", help: help)
      }
      configuration.policy = Policy(preset: preset)
    }
    if let conflict = values["on-conflict"] {
      guard let value = ConflictPolicy(rawValue: conflict) else {
        throw UsageError(
          message: "--on-conflict must be one of \(ConflictPolicy.allCases.map(\.rawValue).joined(separator: ", ")), not '\(conflict)'",
          help: help)
      }
      configuration.conflict = value
    }
    if configuration.format == .ndjson && !configuration.recordPath.isEmpty {
      throw UsageError(message: "--record-path applies to --format json, not ndjson", help: help)
    }
    return configuration
  }

  static func absolute(_ path: String) -> String {
    if path == "-" { return path }
    if path.hasPrefix("/") { return (path as NSString).standardizingPath }
    let joined = (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
    return (joined as NSString).standardizingPath
  }

  static func write(_ report: RunReport, to path: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    if !directory.isEmpty {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    try report.jsonData().write(to: URL(fileURLWithPath: path), options: .atomic)
  }
}
