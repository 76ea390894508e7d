@_spi(Internals) import SluiceCore

extension Sluice {
  /// `sluice --help`: what Sluice reads and where it loads it, the subcommands from the table,
  /// the datasets this tool was given, the exit codes.
  static func help(datasets: [AnyDataset]) -> String {
    """
    \(description)

    USAGE:
    \(commandList)
      sluice --help | sluice COMMAND --help

    DATASETS:
    \(datasetList(datasets))

    EXIT CODES (sysexits.h):
    \(exitCodes)
    """
  }

  /// What Sluice does, for the top of `--help` and the man page's description.
  static let description = """
    sluice — stream JSON, NDJSON, XML and CSV/TSV dumps (gzip or plain; files, HTTPS or S3) into
    normalized tables in SQLite, PostgreSQL or Citus, and report per stage what was rejected,
    where and why.
    """

  /// The exit codes, as `--help` and the man page list them.
  static let exitCodes = """
      0 success · 64 usage or spec error · 65 data error (run failed, nothing written)
      66 input missing or unreadable · 73 cannot create an output (nothing written)
      74 I/O error: corrupt or truncated input, locked or full database, an output that could not
         be written before the commit (nothing written)
      75 the data was committed, but an output that can only be written after the commit (a report
         to a pipe or device, standard output) was lost
      77 a remote input's server refused access (401, 403)
      1  only with --fail-on-rejects: the data was committed, but the lenient run rejected records
         (not a sysexits code, so that it never reads as "nothing was written")
    """

  /// One line per subcommand, its abstract in a column; a synopsis too long for the column
  /// puts its abstract on the next line.
  static var commandList: String {
    let column = 41
    return subcommands.map { type in
      let synopsis = "  \(type.synopsis)"
      return synopsis.count + 2 <= column
        ? synopsis.padding(toLength: column, withPad: " ", startingAt: 0) + type.abstract
        : synopsis + "\n" + String(repeating: " ", count: column) + type.abstract
    }
    .joined(separator: "\n")
  }

  /// Every dataset, one per line, names padded to the longest (none is cut short).
  static func datasetList(_ datasets: [AnyDataset]) -> String {
    let width = datasets.map(\.name.count).max() ?? 0
    return datasets.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)" }
      .joined(separator: "\n")
  }
}
