@_spi(Internals) import SluiceCore

/// `run`, `validate` and `replay`: one pipeline, as its spec and the flags describe it.
///
/// They share the spec, the overrides, the outputs and the whole flow (`PipelineInvocation`);
/// what sets them apart is data each declares: the mode the engine runs in, what `--rejects`
/// means, whether they load a database, which options they take. A pipeline may read several
/// inputs (`inputs` in its spec); replay takes a single-input one.
protocol PipelineSubcommand: Subcommand {
  /// The mode the engine runs in, and that the report and the audit row record.
  static var runMode: RunMode { get }
  /// What `--rejects PATH` names.
  static var rejects: RejectsFile { get }
  /// Loads into the database and prints what it holds, rather than checking the contract only.
  static var writesDatabase: Bool { get }
  var invocation: PipelineInvocation { get set }
  init(invocation: PipelineInvocation)
}

/// What `--rejects PATH` means to a pipeline subcommand.
enum RejectsFile {
  /// Where rejected records are written, in place of the spec's `rejects` (run).
  case written
  /// Where rejected records are written; without the option none are, whatever the spec says
  /// (validate: a contract check writes only the files it is asked for).
  case writtenWhenGiven
  /// The records to read: required, and nothing is quarantined (replay).
  case read
}

extension PipelineSubcommand {
  static var name: String { runMode.rawValue }

  init(arguments: [String], context: CommandContext) throws {
    self.init(invocation: try PipelineInvocation(Self.self, arguments: arguments, context: context))
  }

  mutating func validate() throws { try invocation.validate() }

  func run() throws -> Int32 { try invocation.run() }

  /// The options every subcommand that reads the spec's inputs takes, as its help lists them.
  static var specInputOptions: [OptionEntry] {
    [
      OptionEntry(.value("input", "PATH"), "input file, or - for standard input (single-input pipelines)"),
      OptionEntry(
        .value("input-dir", "DIR"),
        """
        read the spec's relative inputs from DIR instead of the folder
        they live in (absolute ones stay): tonight's dump folder
        """),
      OptionEntry(
        .value("format", "json|ndjson|xml|csv|tsv"),
        """
        a JSON document with an array of records, one JSON record per
        line, an XML document whose records are elements, or CSV or
        TSV rows keyed by their header (single-input pipelines)
        """),
      OptionEntry(
        .value("record-path", "PATH"),
        """
        json: keys leading to the record array, dotted (data.fruits);
        xml: element names from the root to the records (orders.order,
        namespaces matched by local name); '' for a top-level array
        (json) or the root's children (xml) (single-input pipelines)
        """),
    ] + RemoteOptionEntries.entries + DialectOptions.entries(sniffed: false) + [
      policyOption,
      OptionEntry(.value("report", "PATH"), "write the JSON run report here"),
      OptionEntry(.value("junit", "PATH"), "write the contract's checks as JUnit XML here"),
      OptionEntry(.value("html", "PATH"), "write the run report as one self-contained HTML page here"),
    ] + MetricsOutput.entries
  }

  /// `--policy`, as every pipeline subcommand lists it.
  static var policyOption: OptionEntry {
    OptionEntry(
      .value("policy", "strict|lenient"),
      """
      picks a preset, replacing the spec's policy unless it is the same
      preset (then the spec's overrides stay)
      """)
  }

  /// `--fail-on-rejects`, as the subcommands that load list it.
  static var failOnRejectsOption: OptionEntry {
    OptionEntry(
      .flag("fail-on-rejects"),
      """
      exit 1 when records were rejected, although the run succeeded
      and committed the rest (a lenient run within its budget): cron
      and CI notice; 65 still means nothing was written
      """)
  }

  /// A pipeline subcommand's help, around its own usage, summary and options: the options every
  /// one of them takes (`--progress`, `--help`) close the list.
  static func makeHelp(usage: String, summary: String, options: [OptionEntry]) -> CommandHelp {
    CommandHelp(
      usage: usage, summary: summary,
      options: OptionList(
        heading: "OPTIONS (override the spec; paths here are relative to the working directory):", indent: 4,
        column: 27,
        entries: options + [
          OptionEntry(
            [.flag("progress"), .flag("no-progress")],
            """
            draw a progress line on stderr (bytes read of the input's size,
            records read and loaded, records/s, rejects, elapsed, ETA), or
            not; by default only when stderr is a terminal
            """),
          .help,
        ]),
      epilogue: options.contains { $0.options.contains { $0.name == "input-dir" } }
        ? """
        Relative paths inside a spec resolve against the spec file's directory (inputs: against
        --input-dir when given).
        """
        : "Relative paths inside a spec resolve against the spec file's directory.")
  }
}
