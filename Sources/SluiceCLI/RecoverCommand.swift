import Foundation
@_spi(Internals) import SluiceCore

/// `sluice recover DB [--db-schema NAME] [--apply]`: the parallel runs of a PostgreSQL database
/// that did not end, and the one safe way to settle each (the driver's `RunRecovery`).
///
/// A run killed, or whose connections were lost, between its first prepare and its last commit
/// leaves prepared lane transactions that hold their locks, and a row that says `running` or
/// `committing`. Listing reads and changes nothing; `--apply` commits or rolls back by the run's
/// row, never by a guess, and writes the row's last word.
struct RecoverCommand: Subcommand {
  static let name = "recover"
  static let synopsis = "sluice recover DB [--db-schema NAME] [--apply]"
  static let abstract = "settle parallel runs interrupted while committing (PostgreSQL)"
  static let help = CommandHelp(
    usage: "sluice recover DB [--db-schema NAME] [--apply] [--connect-timeout S]",
    summary: """
      DB is a PostgreSQL connection string (postgresql://user@host:5432/db, or host=… dbname=…; a
      password comes from ~/.pgpass or PGPASSWORD, and is never printed).

      Lists the parallel runs (--jobs) of the database that did not end: each run with prepared
      lane transactions (pg_prepared_xacts, sluice:<database>:<schema>:<run>:<k>/<n>), in any
      schema, and each run of the schema whose sluice_runs row still says running or committing.
      For each: how many of its lane transactions are prepared and committed, whether its commit
      was decided (its row says committing), and the safe action — commit the prepared lanes when
      the commit was decided, roll them back when it was not (then nothing of the run is
      committed), or only correct the row (succeeded, partial or failed). A run whose sluice is
      still running is left alone; what no rule can settle (a prepared transaction of a Sluice from
      before this command, a lane committed without a decision) is shown and left to a person.
      """,
    options: OptionList(
      column: 22,
      entries: [
        OptionEntry(
          .flag("apply"),
          """
          carry out each safe action and write the run's row: succeeded, partial
          (naming the committed lanes' inputs) or failed, with the reason
          """),
        OptionEntry(
          .value("db-schema", "NAME"),
          """
          the schema whose sluice_runs is read for interrupted runs (default: the
          URL's options=-csearch_path=…, else the server's search_path)
          """),
        OptionEntry(.value("connect-timeout", "S"), "seconds to wait for the server (default 10)"),
        .help,
      ]),
    epilogue: """
      EXIT CODES: 0 nothing (left) to recover · 1 runs to recover (listed), or left after --apply
      (in progress, or no safe action) · 64 usage (a SQLite file: only PostgreSQL runs in lanes)
      · 74 the server cannot be reached, refuses the login, or fails an action
      """)

  var database: DatabaseTarget
  var apply: Bool

  init(arguments: [String], context: CommandContext) throws {
    let parsed = try Self.help.parser.parse(arguments)
    guard let database = parsed.positionals.first else {
      throw UsageError("missing the database (sluice recover DB)")
    }
    guard parsed.positionals.count == 1 else {
      throw UsageError("expected one database, got \(parsed.positionals.count) arguments")
    }
    var target = try PipelineConfiguration.target(database, option: "DB", drivers: context.drivers)
    guard target.driver is any RecoveringDriver else {
      throw UsageError(
        "recover applies to a database server whose runs commit in lanes (PostgreSQL: postgresql://… or host=… dbname=…), not the \(target.driver.name) database \(target)"
      )
    }
    try RunsCommand.apply(parsed.values, to: &target)
    self.database = target
    apply = parsed.flags.contains("apply")
  }

  func run() throws -> Int32 {
    guard let driver = database.driver as? any RecoveringDriver else { return ExitCode.usage }
    return try settle(try driver.openRecovery(database))
  }

  /// Lists the interrupted runs and, with `--apply`, settles each by its safe action.
  private func settle<Recovery: RunRecovery>(_ recovery: Recovery) throws -> Int32 {
    let scan = try recovery.scan()
    for run in scan.runs { printOutput(run.summary) }
    for line in scan.unsettled { printOutput(line) }
    guard scan.needsRecovery else {
      printError("sluice: \(database): no interrupted parallel run to recover")
      return ExitCode.success
    }
    guard apply else {
      printError("sluice: run 'sluice recover \(database)\(schemaOption) --apply' to carry out the safe actions above")
      return ExitCode.recoveryNeeded
    }
    var left = !scan.unsettled.isEmpty
    for run in scan.runs where run.isPending {
      if let refusal = run.refusal {
        printOutput("run \(run.runID): left alone: no safe action: \(refusal); decide by hand")
        left = true
      } else {
        printOutput(try recovery.recover(run))
      }
    }
    if try recovery.scan().needsRecovery { left = true }
    return left ? ExitCode.recoveryNeeded : ExitCode.success
  }

  private var schemaOption: String { database.schema.map { " --db-schema \($0)" } ?? "" }
}
