import Foundation
import SluiceCore

/// `sluice report REPORT.json [--html PATH]`: renders a JSON run report that `--report` wrote —
/// tonight's, or one from an earlier Sluice — as the HTML page `--html` would have written, or
/// as the summary a run prints.
///
/// It reads and writes nothing else: the page is a function of the report alone. Its exit codes
/// follow the table: the file missing or unreadable is 66, like a missing input; a file that is
/// not a run report (not JSON, a key missing, a newer `reportVersion`) is 65, a data error in the
/// command's one input, since the command line itself was right; an HTML path that cannot be
/// created is 73, one that cannot be written 74.
enum ReportCommand {
  static let help = """
    USAGE: sluice report REPORT.json [--html PATH]

    Renders a JSON run report (written by --report): with --html, as one self-contained HTML
    page — the page --html writes during a run, with the stage funnel, issues, drift and timings;
    without, as the summary a run prints, on stdout. Reports written before pipelines had several
    inputs are read as one input.

    OPTIONS:
      --html PATH            write the report as an HTML page here (no scripts, loads nothing)
      -h, --help             show this help

    EXIT CODES: 0 rendered (whatever the run's outcome) · 64 usage · 65 not a run report this
    sluice reads · 66 the report is missing or unreadable · 73 the HTML file cannot be created
    · 74 it cannot be written
    """

  static func main(arguments: [String]) throws -> Int32 {
    if arguments.contains("-h") || arguments.contains("--help") {
      printOutput(help)
      return ExitCode.success
    }
    let parsed = try ArgumentParser(valueOptions: ["html"], flags: [], help: help).parse(arguments)
    guard parsed.positionals.count == 1, let path = parsed.positionals.first else {
      throw UsageError(
        message: parsed.positionals.isEmpty
          ? "missing the report (sluice report REPORT.json --html PATH)"
          : "expected one report file, got \(parsed.positionals.count) arguments",
        help: help)
    }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: RunCommand.absolute(path)))
    } catch {
      let exists = FileManager.default.fileExists(atPath: path)
      printError("sluice: cannot read the report \(path): \(exists ? "it is not a readable file" : "no such file")")
      return ExitCode.noInput
    }
    let report: RunReport
    do {
      report = try RunReport.decode(from: data)
    } catch {
      printError("sluice: \(path) is not a Sluice run report: \(error.message)")
      return ExitCode.dataError
    }
    guard let html = parsed.values["html"] else {
      printOutput(report.summary())
      return ExitCode.success
    }
    do {
      let file = try OutputFile(path: RunCommand.absolute(html), purpose: "HTML report")
      try file.write(HTMLReport.render(report))
      try file.publish()
    } catch {
      printError("sluice: \(error.message)")
      return error.kind == .cannotCreate ? ExitCode.cannotCreate : ExitCode.ioError
    }
    return ExitCode.success
  }
}
