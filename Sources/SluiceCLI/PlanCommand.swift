@_spi(Internals) import SluiceCore

/// `sluice plan`: the whole run against the database, then a rollback, and what it would have
/// changed per table.
struct PlanCommand: PipelineSubcommand {
  static let runMode = RunMode.plan
  static let synopsis = "sluice plan PIPELINE.json [options]"
  static let abstract = "what a run would change, table by table; nothing is written"
  static let rejects = RejectsFile.writtenWhenGiven
  static let writesDatabase = true
  static let help = makeHelp(
    usage: "sluice plan PIPELINE.json [--db PATH|URL] [--max-changes N|P%] [--json] [options]",
    summary: """
      Runs the pipeline into its database exactly as 'sluice run' would — migrations, lookup
      tables, every record, a snapshot's deletions — then rolls the transaction back, and prints
      per table what the run would insert, update (and which columns), leave unchanged and
      delete, the lookup rows it would change and the migrations it would apply, with the usual
      summary and issues. Nothing is written: no row, no audit entry, no input-ledger row (a
      SQLite file is byte for byte what it was; one that did not exist is not left behind).
      Writes only the outputs given on the command line, never the spec's report or rejects.
      """,
    options: specInputOptions + [
      OptionEntry(.value("db", "PATH|URL"), "the database to plan against (the spec's by default)"),
      OptionEntry(
        [
          .value("on-conflict", "upsert|replace|ignore|fail"), .value("db-schema", "NAME"),
          .value("connect-timeout", "SECONDS"), .value("busy-timeout", "SECONDS"), .value("memory-budget", "SIZE"),
          .flag("incremental"),
          .flag("reload-changed"), .flag("verify-content"), .flag("snapshot"), .value("max-delete-rate", "R"),
        ],
        "as for run"),
      OptionEntry(
        .value("max-changes", "N|P%"),
        """
        a gate: exit 1 when the run would insert, update and delete more
        than N rows, or more than P % of the rows the tables hold
        """),
      OptionEntry(.flag("evolve"), "as for run: plan the schema changes too (no file is rewritten)"),
      OptionEntry(.flag("json"), "print the plan as JSON on stdout"),
      OptionEntry(
        .value("rejects", "PATH"),
        """
        write the records the run would reject here (--report and --html
        carry the plan too)
        """),
      OptionEntry(.flag("count-rows"), "count every table's rows as the run would leave them"),
    ])

  var invocation: PipelineInvocation
}
