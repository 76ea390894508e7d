@_spi(Internals) import SluiceCore

/// `sluice validate`: the CI data-contract check — every stage but the writes, every issue.
struct ValidateCommand: PipelineSubcommand {
  static let runMode = RunMode.validate
  static let synopsis = "sluice validate PIPELINE.json [options]"
  static let abstract = "check the input against the contract; no writes"
  static let rejects = RejectsFile.writtenWhenGiven
  static let writesDatabase = false
  static let valueOptions: Set<String> = [
    "input", "input-dir", "format", "record-path", "policy", "report", "junit", "html", "rejects",
  ]
  static let flags: Set<String> = ["fail-on-warnings"]

  static let help = makeHelp(
    usage: "sluice validate PIPELINE.json [options]",
    summary: """
      Checks the input against the dataset's contract: every stage but the writes, the whole
      input (every input, for a spec that lists several), every issue reported. Never creates or
      modifies a database. Exits 65 when any record has an error-level issue, 0 otherwise.
      """,
    options: specInputOptions + "\n" + """
          --rejects PATH         write every failing record (raw text and issues) as NDJSON here
          --fail-on-warnings     warnings (unknown fields) fail the run too
      """)

  var invocation: PipelineInvocation
}
