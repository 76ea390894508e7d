@_spi(Internals) import SluiceCore

/// `sluice validate`: the CI data-contract check — every stage but the writes, every issue.
struct ValidateCommand: PipelineSubcommand {
  static let runMode = RunMode.validate
  static let synopsis = "sluice validate PIPELINE.json [options]"
  static let abstract = "check the input against the contract; no writes"
  static let rejects = RejectsFile.writtenWhenGiven
  static let writesDatabase = false
  static let valueOptions: Set<String> = [
    "input", "input-dir", "format", "record-path", "policy", "report", "junit", "html", "rejects", "db", "db-schema",
    "connect-timeout", "on-conflict", "busy-timeout", "baseline",
  ]
  static let flags: Set<String> = ["fail-on-warnings", "fail-on-drift"]

  static let help = makeHelp(
    usage: "sluice validate PIPELINE.json [options]",
    summary: """
      Checks the input against the dataset's contract: every stage but the writes, the whole
      input (every input, for a spec that lists several), every issue reported. Never creates or
      modifies a database. Exits 65 when any record has an error-level issue, 0 otherwise.
      With --db, also checks what needs the database, opened for reading only (SQLite mode=ro,
      a read-only transaction on PostgreSQL): references to rows that do not exist (orphans,
      under each reference's policy) and, with --on-conflict fail, keys already there.
      """,
    options: specInputOptions + "\n" + """
          --rejects PATH         write every failing record (raw text and issues) as NDJSON here
          --fail-on-warnings     warnings (unknown fields) fail the run too
          --db PATH|URL          also check references (and, with --on-conflict fail, keys)
                                 against this database, read-only; it must exist (exit 66)
          --on-conflict upsert|replace|ignore|fail
                                 with --db: fail reports keys the database already holds
          --db-schema NAME, --connect-timeout SECONDS, --busy-timeout SECONDS
                                 with --db, as for run
          --baseline FILE        compare the input, inspected whole, with a saved
                                 'sluice inspect --all --json' of an earlier dump: a breaking
                                 change (a required field gone, a type changed or narrowed,
                                 null where there was none, the records moved) exits 65
          --fail-on-drift        with --baseline: a non-breaking change (a new field, integers
                                 widened to numbers) exits 1
      """)

  var invocation: PipelineInvocation
}
