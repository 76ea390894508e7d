@_spi(Internals) import SluiceCore

/// `sluice replay`: loads the records of a fixed rejects file through the same pipeline.
struct ReplayCommand: PipelineSubcommand {
  static let runMode = RunMode.replay
  static let synopsis = "sluice replay PIPELINE.json --rejects PATH"
  static let abstract = "load the records of a fixed rejects file"
  static let rejects = RejectsFile.read
  static let writesDatabase = true
  static let help = makeHelp(
    usage: "sluice replay PIPELINE.json --rejects PATH [options]",
    summary: """
      Runs the records of a rejects file (written by --rejects, then fixed) through the pipeline
      again and loads them into the spec's database. The spec must have a single input.
      """,
    options: [
      OptionEntry(.value("rejects", "PATH"), "the rejects file to replay (required)"),
      policyOption,
      OptionEntry(
        .value("on-conflict", "upsert|replace|ignore|fail"), "a record whose key exists, as for run"),
      OptionEntry(.value("db", "PATH|URL"), "the SQLite database to update, or a postgresql:// URL"),
      OptionEntry(.value("db-schema", "NAME"), "PostgreSQL: the schema of the tables (default public)"),
      OptionEntry(
        .value("connect-timeout", "SECONDS"), "PostgreSQL: how long to wait for the server (default 10)"),
      RunCommand.busyTimeoutOption,
      RunCommand.memoryBudgetOption,
      OptionEntry(.value("report", "PATH"), "write the JSON run report here"),
      OptionEntry(.value("junit", "PATH"), "write the contract's checks as JUnit XML here"),
      OptionEntry(.value("html", "PATH"), "write the run report as one self-contained HTML page here"),
    ] + MetricsOutput.entries + [
      failOnRejectsOption,
      RunCommand.countRowsOption,
    ])

  var invocation: PipelineInvocation
}
