import Foundation
@_spi(Internals) import SluiceCore

/// `sluice report REPORT.json [--html PATH]`: renders a JSON run report that `--report` wrote —
/// tonight's, or one from an earlier Sluice — as the HTML page `--html` would have written, or
/// as the summary a run prints.
///
/// The page is a function of the report alone: nothing else is read, and the HTML file is
/// written like every output (a temporary file renamed over the path). Its errors follow the
/// table (`FailureExit`): an HTML path that is the report itself is 64, found before anything
/// is read; the file missing or unreadable is 66, like a missing input; a file
/// that is not a run report (not JSON, a key missing, a newer `reportVersion`) is 65, a data
/// error in the command's one input, since the command line itself was right; an HTML path
/// that cannot be created is 73, one that cannot be written 74.
struct ReportCommand: Subcommand {
  static let name = "report"
  static let synopsis = "sluice report REPORT.json [--html PATH]"
  static let abstract = "render a JSON run report (as an HTML page)"
  static let help = CommandHelp(
    usage: "sluice report REPORT.json [--html PATH]",
    summary: """
      Renders a JSON run report (written by --report): with --html, as one self-contained HTML
      page — the page --html writes during a run, with the stage funnel, issues, drift and timings;
      without, as the summary a run prints, on stdout. Reports written before pipelines had several
      inputs are read as one input.
      """,
    options: OptionList(
      column: 25,
      entries: [
        OptionEntry(.value("html", "PATH"), "write the report as an HTML page here (no scripts, loads nothing)"),
        .help,
      ]),
    epilogue: """
      EXIT CODES: 0 rendered (whatever the run's outcome) · 64 usage, or an HTML path that is the
      report itself · 65 not a run report this sluice reads · 66 the report is missing or
      unreadable · 73 the HTML file cannot be created · 74 it cannot be written
      """)

  var reportPath: String
  var htmlPath: String?

  init(arguments: [String], context: CommandContext) throws {
    let parsed = try Self.help.parser.parse(arguments)
    guard parsed.positionals.count == 1, let path = parsed.positionals.first else {
      throw UsageError(
        parsed.positionals.isEmpty
          ? "missing the report (sluice report REPORT.json --html PATH)"
          : "expected one report file, got \(parsed.positionals.count) arguments")
    }
    reportPath = path
    htmlPath = parsed.values["html"].map(PipelineConfiguration.absolute)
  }

  func run() throws -> Int32 {
    if let htmlPath {
      let files = RunFiles([
        .init(role: "JSON report it renders", path: PipelineConfiguration.absolute(reportPath), isRead: true),
        .init(role: "HTML report", path: htmlPath, isRead: false, option: "--html"),
      ])
      if let problem = files.problem() { throw UsageError(problem) }
    }
    let report = try read()
    guard let htmlPath else {
      printOutput(report.summary())
      return ExitCode.success
    }
    let file = try OutputFile(path: htmlPath, purpose: "HTML report")
    try file.write(HTMLReport.render(report))
    try file.publish()
    return ExitCode.success
  }

  /// The report at `reportPath`, or why it cannot be had.
  private func read() throws(ReportFileError) -> RunReport {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: PipelineConfiguration.absolute(reportPath)))
    } catch {
      let exists = FileManager.default.fileExists(atPath: PipelineConfiguration.absolute(reportPath))
      throw ReportFileError(
        code: .unreadable,
        message: "cannot read the report \(reportPath): \(exists ? "it is not a readable file" : "no such file")")
    }
    do {
      return try RunReport.decode(from: data)
    } catch {
      throw ReportFileError(code: .notAReport, message: "\(reportPath) is not a Sluice run report: \(error.message)")
    }
  }
}

/// A report file `sluice report` cannot use.
struct ReportFileError: Error, CustomStringConvertible {
  enum Code {
    /// Missing, a directory, no permission: exit 66.
    case unreadable
    /// Not JSON, not a run report, or one of a newer version: exit 65.
    case notAReport
  }

  var code: Code
  var message: String
  var description: String { message }
}
