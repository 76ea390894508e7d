import Foundation
@_spi(Internals) import SluiceCore

/// `sluice runs DB [--last N] [--json]` and `sluice runs DB RUN_ID [--json]`: the run history a
/// database's audit tables keep — a SQLite file's or a PostgreSQL schema's — read without writing.
///
/// The list is what a person checks after a night of cron jobs — which runs failed, which
/// rejected records — and `--json` is the same for a script. One run's view adds its issues
/// grouped by stage, code and field path: where its data goes wrong, never what the data was.
struct RunsCommand: Subcommand {
  static let name = "runs"
  static let synopsis = "sluice runs DB [RUN_ID] [--last N] [--json] [--db-schema NAME]"
  static let abstract = "recent runs from the database's audit table, or one run's issues"
  static let help = CommandHelp(
    usage: """
      sluice runs DB [--last N] [--json] [--db-schema NAME]
             sluice runs DB RUN_ID [--json] [--db-schema NAME]
      """,
    summary: """
      DB is a SQLite file or a PostgreSQL URL (postgresql://user@host:5432/db; a password comes
      from ~/.pgpass or PGPASSWORD, and is never printed).

      Lists the runs the database records (its sluice_runs table), newest first: run id,
      pipeline, mode, start (UTC), duration, status, records read, loaded and rejected (a failed
      run's loaded records were rolled back with the rest), and why a failed run failed. With
      RUN_ID, prints that run's summary, its per-stage counts, its issues grouped by stage,
      code and field path with their counts (from sluice_rejects, which keeps the first issues of
      each code and never a record's values), and the inputs it loaded or, incremental, skipped,
      each with its size, modification time and SHA-256 (from the input ledger, sluice_inputs;
      the first \(RunReport.inputSectionLimit) one by one and the rest summed, as in a run report). The database is opened read-only: nothing is
      created, changed or locked for writing (PostgreSQL: a read-only session) — but for the hot
      journal of a transaction a crashed process left, which is rolled back as the next run would
      (or, where the user may not write, read through a private copy), and said so.
      """,
    options: OptionList(
      column: 22,
      entries: [
        OptionEntry(.value("last", "N"), "list the N most recent runs (default \(defaultLast))"),
        OptionEntry(
          .flag("json"),
          """
          print JSON: an array with one object per run, or for RUN_ID an object
          with the run and its issue groups
          """),
        OptionEntry(
          .value("db-schema", "NAME"),
          """
          PostgreSQL: the schema of the audit tables (default: the URL's
          options=-csearch_path=…, else the server's search_path, normally public)
          """),
        OptionEntry(.value("connect-timeout", "S"), "PostgreSQL: seconds to wait for the server (default 10)"),
        .help,
      ]),
    epilogue: """
      EXIT CODES: 0 listed (an empty history too) · 64 usage · 66 no such database, no run history
      in it (no sluice_runs table), or no such run: what was named is not there · 65 the file is
      not a SQLite database, or an audit row is not what Sluice writes · 74 the database cannot be
      read (locked past 5 s, an I/O error; a PostgreSQL server that cannot be reached or refuses
      the login)
      """)
  static let defaultLast = 20

  var database: DatabaseTarget
  var runID: Int64?
  var last: Int?
  var json: Bool

  init(arguments: [String], context: CommandContext) throws {
    let parsed = try Self.help.parser.parse(arguments)
    guard let database = parsed.positionals.first else {
      throw UsageError("missing the database (sluice runs DB)")
    }
    guard parsed.positionals.count <= 2 else {
      throw UsageError("expected a database and at most one run id, got \(parsed.positionals.count) arguments")
    }
    var target = try PipelineConfiguration.target(database, option: "DB", drivers: context.drivers)
    if parsed.positionals.count == 2 {
      let text = parsed.positionals[1]
      guard let id = Int64(text), id > 0 else {
        throw UsageError(
          "RUN_ID must be a run's number, as 'sluice runs \(target)' lists them, not '\(text)'")
      }
      runID = id
    }
    if let text = parsed.values["last"] {
      guard let count = Int(text), count > 0 else {
        throw UsageError("--last must be a whole number of runs, 1 or more, not '\(text)'")
      }
      last = count
    }
    json = parsed.flags.contains("json")
    try Self.apply(parsed.values, to: &target)
    self.database = target
  }

  /// `--db-schema` and `--connect-timeout`, for the commands that read a database's history.
  static func apply(_ values: [String: String], to target: inout DatabaseTarget) throws(UsageError) {
    if let name = values["db-schema"] {
      try PipelineConfiguration.check(schema: name, for: target)
      target.schema = name
    }
    if let text = values["connect-timeout"] {
      guard target.driver.connectsToServer else {
        throw UsageError("--connect-timeout applies to a database server, not the \(target.driver.name) file \(target)")
      }
      guard let seconds = Int(text), seconds > 0 else {
        throw UsageError("--connect-timeout must be a whole number of seconds, 1 or more, not '\(text)'")
      }
      target.connectTimeoutSeconds = seconds
    }
  }

  func validate() throws {
    if let runID, last != nil {
      throw UsageError("--last counts recent runs; with RUN_ID (\(runID)) there is one run to show")
    }
  }

  func run() throws -> Int32 {
    let history = try database.driver.openHistory(database)
    // Advisory: a history that cannot say more still lists its runs.
    for note in (try? history.notes()) ?? [] { printError("sluice: \(note)") }
    if let runID {
      let run = try history.run(id: runID)
      let issues = try history.issueGroups(ofRun: runID)
      let inputs = ListedInputs(try history.inputs(ofRun: runID))
      if json {
        printOutput(
          try Self.json(RunDetail(run: run, issues: issues, inputs: inputs.listed, inputsOmitted: inputs.omitted)))
      } else {
        for line in Self.detailLines(run, issues: issues) + Self.inputLines(inputs) {
          printOutput(TerminalText.escape(line))
        }
      }
      return ExitCode.success
    }
    let runs = try history.recentRuns(limit: last ?? Self.defaultLast)
    if json {
      printOutput(try Self.json(runs))
    } else if runs.isEmpty {
      printError("sluice: \(database) records no runs")
    } else {
      for line in Self.listLines(runs) { printOutput(TerminalText.escape(line)) }
    }
    return ExitCode.success
  }

  /// One run and its issue groups, as `--json` prints them for RUN_ID.
  struct RunDetail: Encodable {
    var run: RecordedRun
    var issues: [IssueGroup]
    /// The run's first rows in the input ledger (`sluice_inputs`), as many as a run report lists.
    var inputs: [InputLedgerEntry]
    /// The rest of them, summed; absent when every input is listed.
    var inputsOmitted: OmittedLedgerInputs?
  }

  /// A run's inputs as its view shows them: the first `RunReport.inputSectionLimit` one by one,
  /// the rest summed, as a run report lists a glob's. A run of 100,000 files printed them all:
  /// 60 MB of JSON, and 379 MB of memory to encode it.
  struct ListedInputs {
    var listed: [InputLedgerEntry]
    var omitted: OmittedLedgerInputs?
    /// Every input of the run, and those an incremental run skipped.
    var count: Int
    var skipped: Int

    init(_ inputs: [InputLedgerEntry], limit: Int = RunReport.inputSectionLimit) {
      listed = Array(inputs.prefix(limit))
      count = inputs.count
      skipped = inputs.reduce(0) { $0 + ($1.status == .skipped ? 1 : 0) }
      guard inputs.count > limit else { return }
      var rest = OmittedLedgerInputs()
      for input in inputs[limit...] { rest.add(input) }
      omitted = rest
    }
  }

  /// The ledger rows of a run that its view does not list, summed.
  struct OmittedLedgerInputs: Encodable {
    var count = 0
    /// Of those, the inputs an incremental run skipped (their content already loaded).
    var skipped = 0
    /// Their sizes in bytes (compressed, for gzip), summed; standard input counts none.
    var bytes: Int64 = 0
    var recordsRead = 0
    var recordsLoaded = 0
    var recordsRejected = 0
    var recordsSkipped = 0

    mutating func add(_ input: InputLedgerEntry) {
      count += 1
      if input.status == .skipped { skipped += 1 }
      bytes += input.size ?? 0
      recordsRead += input.recordsRead
      recordsLoaded += input.recordsLoaded
      recordsRejected += input.recordsRejected
      recordsSkipped += input.recordsSkipped
    }
  }

  static func json(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }
}
