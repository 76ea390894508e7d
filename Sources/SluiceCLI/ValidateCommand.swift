@_spi(Internals) import SluiceCore

/// `sluice validate`: the CI data-contract check — every stage but the writes, every issue.
struct ValidateCommand: PipelineSubcommand {
  static let runMode = RunMode.validate
  static let synopsis = "sluice validate PIPELINE.json [options]"
  static let abstract = "check the input against the contract; no writes"
  static let rejects = RejectsFile.writtenWhenGiven
  static let writesDatabase = false
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
    options: specInputOptions + [
      OptionEntry(
        .value("rejects", "PATH"), "write every failing record (raw text and issues) as NDJSON here"),
      OptionEntry(.flag("fail-on-warnings"), "warnings (unknown fields) fail the run too"),
      OptionEntry(
        .value("db", "PATH|URL"),
        """
        also check references (and, with --on-conflict fail, keys)
        against this database, read-only; it must exist (exit 66)
        """),
      OptionEntry(
        .value("on-conflict", "upsert|replace|ignore|fail"),
        "with --db: fail reports keys the database already holds"),
      OptionEntry(
        [.value("db-schema", "NAME"), .value("connect-timeout", "SECONDS"), .value("busy-timeout", "SECONDS")],
        "with --db, as for run"),
      OptionEntry(
        .value("baseline", "FILE"),
        """
        compare the input, inspected whole, with a saved
        'sluice inspect --all --json' of an earlier dump, or a saved
        'sluice contract DATASET': a breaking
        change (a required field gone, a type changed or narrowed,
        null where there was none, the records moved) exits 65
        """),
      OptionEntry(
        .flag("fail-on-drift"),
        """
        with --baseline: a non-breaking change (a new field, integers
        widened to numbers) exits 1
        """),
    ])

  var invocation: PipelineInvocation
}
