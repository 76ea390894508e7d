@_spi(Internals) import SluiceCore

/// One `sluice` subcommand, shaped like a swift-argument-parser command written by hand.
///
/// The type describes itself — the dispatcher finds it by `name`, `sluice --help` lists its
/// `synopsis` and `abstract` — and its life is parse → validate → run: `init` reads the command
/// line (a line that means nothing throws `UsageError`), `validate` checks what the arguments
/// name (a spec, a dataset, a number's range) before any work, `run` does the work and returns
/// the exit code. Errors become messages and exit codes in one place, `FailureExit`.
protocol Subcommand {
  /// The word after `sluice`.
  static var name: String { get }
  /// The command line as `sluice --help` lists it: `sluice schema DATASET`.
  static var synopsis: String { get }
  /// What it does, in a few words, for `sluice --help`.
  static var abstract: String { get }
  /// The subcommand's options and its own `--help`, declared once: the parser, the help text
  /// and the command reference are made from it.
  static var help: CommandHelp { get }

  /// Parses the arguments that follow the subcommand's name.
  init(arguments: [String], context: CommandContext) throws
  /// Checks what parsing alone cannot, before any work is done.
  mutating func validate() throws
  /// Does the work; returns the exit code.
  func run() throws -> Int32
}

extension Subcommand {
  mutating func validate() throws {}
}

/// What a command runs over: the datasets and the store drivers the program registered.
struct CommandContext {
  let datasets: [AnyDataset]
  let drivers: StoreDrivers
  /// The transports for remote inputs the program registered (none: URLs are refused).
  var remote: [any RemoteInputs] = []
  /// Options `run` takes beyond its own, from a program built for tests.
  var extra: ExtraRunOptions? = nil

  /// The dataset a command line names: one of the tool's, or a dataset file (a name ending in
  /// `.json`, relative to the working directory).
  func dataset(named name: String) throws -> AnyDataset {
    if DatasetFile.isFileName(name) { return try DatasetFile.load(name, catalog: datasets, drivers: drivers) }
    guard let dataset = datasets.first(where: { $0.name == name }) else {
      throw UsageError(
        "unknown dataset '\(name)'; known: \(datasets.map(\.name).joined(separator: ", ")), or a dataset file (NAME.json)"
      )
    }
    return dataset
  }
}

/// Value options a program adds to `sluice run` (neither listed in its help nor known to the
/// shipped binary), and what they do to the run's configuration: the fault injection of the
/// tests' `sluice-faults` binary (`Tests/SluiceFaults`), which kills a run at a chosen point
/// as `kill -9` would.
package struct ExtraRunOptions: Sendable {
  package var names: Set<String>
  package var apply: @Sendable (_ values: [String: String], _ configuration: inout PipelineConfiguration) -> Void

  package init(
    names: Set<String>,
    apply: @escaping @Sendable (_ values: [String: String], _ configuration: inout PipelineConfiguration) -> Void
  ) {
    self.names = names
    self.apply = apply
  }
}
