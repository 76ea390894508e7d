@_spi(Internals) import SluiceCore

/// `sluice version` (and `sluice --version`): the version, the commit the binary was built from
/// and the C libraries it runs against, each with the version it reports at run time.
///
/// An operator reads it to know what is installed — which SQLite or libpq a security notice
/// concerns — and pastes it into a bug report. The libraries are those of the engine and of the
/// drivers and transports the program registered, each listed once.
struct VersionCommand: Subcommand {
  static let name = "version"
  static let synopsis = "sluice version | sluice --version"
  static let abstract = "print the version, the commit and the libraries"
  static let help = CommandHelp(
    usage: "sluice version | sluice --version",
    summary: """
      Prints the version of Sluice, the commit it was built from (unknown for a build from a
      working copy rather than from a release archive), then each C library it runs against with
      the version that library reports at run time: zlib, libxml2 and libcrypto, then those of
      the database drivers (SQLite, libpq) and of the remote inputs (libcurl).
      """,
    options: OptionList(column: 19, entries: [.help]))

  /// The libraries of the engine, the drivers and the transports, each once.
  var libraries: [LinkedLibrary]

  init(arguments: [String], context: CommandContext) throws {
    let parsed = try Self.help.parser.parse(arguments)
    guard parsed.positionals.isEmpty else {
      throw UsageError("version takes no arguments")
    }
    var seen = Set<String>()
    libraries =
      (LinkedLibrary.engine + context.drivers.drivers.flatMap(\.linkedLibraries)
      + context.remote.flatMap(\.linkedLibraries)).filter { seen.insert($0.name).inserted }
  }

  /// `sluice 0.1.0`, `commit …`, then one `NAME VERSION` line per library.
  var text: String {
    var lines = [
      "sluice \(SluiceVersion.number)",
      "commit \(SluiceVersion.commit ?? "unknown (built from a working copy, not a release archive)")",
    ]
    lines += libraries.map { "\($0.name) \($0.version)" }
    return lines.joined(separator: "\n")
  }

  func run() throws -> Int32 {
    printOutput(text)
    return ExitCode.success
  }
}
