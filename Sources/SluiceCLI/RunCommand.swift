import SluiceCore

/// `sluice run`: loads the pipeline's inputs into its database in one transaction.
struct RunCommand: PipelineSubcommand {
  static let runMode = RunMode.run
  static let synopsis = "sluice run PIPELINE.json [options]"
  static let abstract = "import the pipeline's input(s) into its database"
  static let rejects = RejectsFile.written
  static let writesDatabase = true
  static let valueOptions: Set<String> = [
    "input", "input-dir", "format", "record-path", "policy", "report", "junit", "html", "on-conflict", "db",
    "rejects", "busy-timeout",
  ]
  static let flags: Set<String> = ["fail-on-rejects"]

  static let help = makeHelp(
    usage: "sluice run PIPELINE.json [options]",
    summary: """
      Runs the pipeline: reads its input (gzip detected by content), decodes, validates, maps and
      loads every record into the database in one transaction, then prints a per-stage summary on
      stderr and where the database is and what it holds on stdout. A spec that lists several
      inputs loads them in order, all in that one transaction: a failure in any rolls back all,
      and a missing one fails the run (exit 66) before the database is opened.
      """,
    options: specInputOptions + "\n" + """
          --on-conflict upsert|replace|ignore|fail
                                 a record whose key exists: update it and replace its children
                                 (upsert), delete and insert it (replace: rows that reference it
                                 with ON DELETE CASCADE, such as a device's alerts, go too),
                                 keep the existing row (ignore), or reject it (fail)
          --db PATH              the SQLite database to create or update
          --rejects PATH         write every rejected record (raw text and issues) as NDJSON here
          --busy-timeout SECONDS how long to wait for another process's lock (default 5)
      """ + "\n" + failOnRejectsOption)

  var invocation: PipelineInvocation
}
