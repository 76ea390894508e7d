@_spi(Internals) import SluiceCore

/// `sluice replay`: loads the records of a fixed rejects file through the same pipeline.
struct ReplayCommand: PipelineSubcommand {
  static let runMode = RunMode.replay
  static let synopsis = "sluice replay PIPELINE.json --rejects PATH"
  static let abstract = "load the records of a fixed rejects file"
  static let rejects = RejectsFile.read
  static let writesDatabase = true
  static let valueOptions: Set<String> = [
    "rejects", "policy", "on-conflict", "db", "db-schema", "connect-timeout", "busy-timeout", "report", "junit", "html",
  ]
  static let flags: Set<String> = ["fail-on-rejects", "count-rows"]

  static let help = makeHelp(
    usage: "sluice replay PIPELINE.json --rejects PATH [options]",
    summary: """
      Runs the records of a rejects file (written by --rejects, then fixed) through the pipeline
      again and loads them into the spec's database. The spec must have a single input.
      """,
    options: """
          --rejects PATH         the rejects file to replay (required)
          --policy strict|lenient
          --on-conflict upsert|replace|ignore|fail
          --db PATH|URL          the SQLite database to update, or a postgresql:// URL
          --db-schema NAME       PostgreSQL: the schema of the tables (default public)
          --connect-timeout SECONDS
                                 PostgreSQL: how long to wait for the server (default 10)
          --busy-timeout SECONDS how long to wait for another process's lock, or for a FIFO
                                 given as an input or output to be opened at its other end
                                 (default 5)
          --report PATH          write the JSON run report here
          --junit PATH           write the contract's checks as JUnit XML here
          --html PATH            write the run report as one self-contained HTML page here
      """ + "\n" + failOnRejectsOption)

  var invocation: PipelineInvocation
}
