import Foundation
import SluiceCatalog
import SluiceCore

/// `sluice run`, `sluice validate` and `sluice replay`: one pipeline, as the spec and the flags
/// describe it. They share the spec, the overrides and the outputs; they differ in what they
/// read and whether they write. A pipeline may read several inputs (`inputs` in its spec);
/// replay takes a single-input one.
enum RunCommand {
  static func help(_ mode: RunMode) -> String {
    let usage: String
    let summary: String
    var options = """
          --input PATH           input file, or - for standard input (single-input pipelines)
          --input-dir DIR        read the spec's relative inputs from DIR instead of the folder
                                 they live in (absolute ones stay): tonight's dump folder
          --format json|ndjson|xml
                                 a JSON document with an array of records, one JSON record per
                                 line, or an XML document whose records are elements
                                 (single-input pipelines)
          --record-path PATH     json: keys leading to the record array, dotted (data.fruits);
                                 xml: element names from the root to the records (orders.order,
                                 namespaces matched by local name); '' for a top-level array
                                 (json) or the root's children (xml) (single-input pipelines)
          --policy strict|lenient
                                 picks a preset, replacing the spec's policy unless it is the same
                                 preset (then the spec's overrides stay)
          --report PATH          write the JSON run report here
          --junit PATH           write the contract's checks as JUnit XML here
          --html PATH            write the run report as one self-contained HTML page here
      """
    switch mode {
    case .run:
      usage = "sluice run PIPELINE.json [options]"
      summary = """
        Runs the pipeline: reads its input (gzip detected by content), decodes, validates, maps and
        loads every record into the database in one transaction, then prints a per-stage summary on
        stderr and where the database is and what it holds on stdout. A spec that lists several
        inputs loads them in order, all in that one transaction: a failure in any rolls back all,
        and a missing one fails the run (exit 66) before the database is opened.
        """
      options += """

              --on-conflict upsert|replace|ignore|fail
              --db PATH              the SQLite database to create or update
              --rejects PATH         write every rejected record (raw text and issues) as NDJSON here
              --busy-timeout SECONDS how long to wait for another process's lock (default 5)
          """
    case .validate:
      usage = "sluice validate PIPELINE.json [options]"
      summary = """
        Checks the input against the dataset's contract: every stage but the writes, the whole
        input (every input, for a spec that lists several), every issue reported. Never creates or
        modifies a database. Exits 65 when any record has an error-level issue, 0 otherwise.
        """
      options += """

              --rejects PATH         write every failing record (raw text and issues) as NDJSON here
              --fail-on-warnings     warnings (unknown fields) fail the run too
          """
    case .replay:
      usage = "sluice replay PIPELINE.json --rejects PATH [options]"
      summary = """
        Runs the records of a rejects file (written by --rejects, then fixed) through the pipeline
        again and loads them into the spec's database. The spec must have a single input.
        """
      options = """
              --rejects PATH         the rejects file to replay (required)
              --policy strict|lenient
              --on-conflict upsert|replace|ignore|fail
              --db PATH              the SQLite database to update
              --busy-timeout SECONDS how long to wait for another process's lock (default 5)
              --report PATH          write the JSON run report here
              --junit PATH           write the contract's checks as JUnit XML here
              --html PATH            write the run report as one self-contained HTML page here
          """
    }
    return """
      USAGE: \(usage)

      \(summary)

      OPTIONS (override the spec; paths here are relative to the working directory):
      \(options)
        -h, --help             show this help

      Relative paths inside a spec resolve against the spec file's directory (inputs: against
      --input-dir when given).
      """
  }

  static func parser(_ mode: RunMode) -> ArgumentParser {
    var values: Set<String> = ["policy", "report", "junit", "html", "rejects"]
    var flags: Set<String> = ["help"]
    switch mode {
    case .run: values.formUnion(["input", "input-dir", "format", "record-path", "on-conflict", "db", "busy-timeout"])
    case .validate:
      values.formUnion(["input", "input-dir", "format", "record-path"])
      flags.insert("fail-on-warnings")
    case .replay: values.formUnion(["on-conflict", "db", "busy-timeout"])
    }
    return ArgumentParser(valueOptions: values, flags: flags, help: help(mode))
  }

  static func main(_ mode: RunMode, arguments: [String]) throws -> Int32 {
    if arguments.contains("-h") || arguments.contains("--help") {
      printOutput(help(mode))
      return ExitCode.success
    }
    let parsed = try parser(mode).parse(arguments)
    guard parsed.positionals.count == 1, let specPath = parsed.positionals.first else {
      throw UsageError(
        message: parsed.positionals.isEmpty
          ? "missing the pipeline spec (sluice \(mode.rawValue) PIPELINE.json)"
          : "expected one pipeline spec, got \(parsed.positionals.count) arguments",
        help: help(mode))
    }
    let spec = try PipelineSpec(contentsOf: specPath)
    let datasets = try spec.datasets(in: Catalog.datasets)
    if mode == .replay && spec.inputs.count > 1 {
      throw UsageError(
        message: "replay loads one rejects file as one dataset's records; \(specPath) lists \(spec.inputs.count) inputs",
        help: help(mode))
    }
    let inputDirectory = parsed.values["input-dir"].map(absolute)
    var configuration = try apply(parsed, to: spec.configuration(inputDirectory: inputDirectory), mode: mode)
    configuration.mode = mode
    switch mode {
    case .run: break
    case .validate:
      configuration.failsOnWarnings = parsed.flags.contains("fail-on-warnings")
      configuration.rejectsPath = parsed.values["rejects"].map(absolute)
    case .replay:
      guard let rejects = parsed.values["rejects"] else {
        throw UsageError(message: "replay needs --rejects PATH", help: help(mode))
      }
      configuration.input = absolute(rejects)
      configuration.rejectsPath = nil
    }

    // One dataset per input the run reads: a glob input is one per file it matches.
    let report = PipelineRunner(
      configuration: configuration, datasets: try spec.datasets(for: configuration, in: Catalog.datasets)
    ).run()
    printError(report.summary())
    for problem in report.outputErrors { printError("sluice: \(problem)") }
    if let rejects = configuration.rejectsPath, !report.outputErrors.contains(where: { $0.contains(rejects) }) {
      printError("sluice: \(report.quarantined) rejected record(s) written to \(rejects)")
    }
    if mode == .validate {
      let read = report.statistics(for: .read).recordsIn
      let errors = report.issues.isEmpty ? 0 : report.issueCounts.values.reduce(0, +)
      printOutput(
        report.status == .succeeded
          ? "valid: \(read) record(s) meet the \(report.dataset) contract"
          : "invalid: \(read) record(s) checked, \(errors) issue(s); see above")
    } else if report.committed {
      printOutput("database: \(configuration.database)")
      var listed = Set<String>()
      for table in datasets.flatMap(\.tables) where listed.insert(table).inserted {
        printOutput("  \(table): \(report.tableRows[table] ?? 0) rows")
      }
    } else {
      printError("sluice: the run was rolled back; no data was written to \(configuration.database)")
    }
    var status = report.exitCode
    if let failure = StandardOutput.shared.failure, status == ExitCode.success {
      printError("sluice: cannot write to standard output: \(failure)")
      status = report.committed ? RunReport.committedButOutputFailed : ExitCode.ioError
    }
    if status == RunReport.committedButOutputFailed {
      printError("sluice: the data was committed to \(configuration.database); only the output(s) above were lost")
    }
    return status
  }

  /// Applies command-line overrides to the spec's configuration.
  static func apply(_ parsed: ArgumentParser.Parsed, to base: PipelineConfiguration, mode: RunMode) throws(UsageError)
    -> PipelineConfiguration
  {
    var configuration = base
    let values = parsed.values
    if values["input"] != nil && values["input-dir"] != nil {
      throw UsageError(message: "--input names the input; --input-dir re-bases the spec's: give one", help: help(mode))
    }
    if configuration.hasSeveralInputs {
      for option in ["input", "format", "record-path"] where values[option] != nil {
        throw UsageError(
          message: "--\(option) is ambiguous: the pipeline lists \(configuration.inputs.count) inputs, each with its own; use --input-dir DIR to read them from another folder",
          help: help(mode))
      }
    }
    if let input = values["input"] { configuration.input = absolute(input) }
    if let db = values["db"] { configuration.database = absolute(db) }
    if let report = values["report"] { configuration.reportPath = absolute(report) }
    if let junit = values["junit"] { configuration.junitPath = absolute(junit) }
    if let html = values["html"] { configuration.htmlPath = absolute(html) }
    if mode == .run, let rejects = values["rejects"] { configuration.rejectsPath = absolute(rejects) }
    if let format = values["format"] {
      guard let value = PipelineConfiguration.Format(rawValue: format) else {
        throw UsageError(message: "--format must be json, ndjson or xml, not '\(format)'", help: help(mode))
      }
      // A path written for another format means nothing in this one.
      if value != configuration.format && values["record-path"] == nil { configuration.recordPath = [] }
      configuration.format = value
    }
    if let path = values["record-path"] {
      configuration.recordPath = PipelineSpec.parseRecordPath(path)
    }
    if let policy = values["policy"] {
      guard let preset = Policy.Preset(rawValue: policy) else {
        throw UsageError(message: "--policy must be strict or lenient, not '\(policy)'", help: help(mode))
      }
      if configuration.policy.preset != preset { configuration.policy = Policy(preset: preset) }
    }
    if let timeout = values["busy-timeout"] {
      guard let seconds = Double(timeout), seconds >= 0, seconds <= 86_400 else {
        throw UsageError(message: "--busy-timeout must be a number of seconds from 0 to 86400, not '\(timeout)'", help: help(mode))
      }
      configuration.busyTimeoutSeconds = seconds
    }
    if let conflict = values["on-conflict"] {
      guard let value = ConflictPolicy(rawValue: conflict) else {
        throw UsageError(
          message: "--on-conflict must be one of \(ConflictPolicy.allCases.map(\.rawValue).joined(separator: ", ")), not '\(conflict)'",
          help: help(mode))
      }
      configuration.conflict = value
    }
    if !configuration.hasSeveralInputs && configuration.format == .ndjson && !configuration.recordPath.isEmpty {
      throw UsageError(message: "--record-path applies to --format json, not ndjson", help: help(mode))
    }
    return configuration
  }

  static func absolute(_ path: String) -> String {
    if path == "-" { return path }
    if path.hasPrefix("/") { return (path as NSString).standardizingPath }
    let joined = (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
    return (joined as NSString).standardizingPath
  }
}
