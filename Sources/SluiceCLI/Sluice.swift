@_spi(Internals) import SluiceCore

#if canImport(Glibc)
  import Glibc
#endif

/// The `sluice` tool as a library: a package with datasets of its own runs the same command
/// line over them with `Sluice.main(datasets:drivers:)`, with the store drivers it links.
///
/// ```swift
/// // main.swift of a package with a dataset of its own, loading into the databases whose
/// // driver targets it links (see Examples/custom-dataset):
/// Sluice.main(datasets: [AnyDataset(BooksDataset())], drivers: drivers)
/// ```
///
/// `run(arguments:datasets:)` picks the subcommand from `subcommands` — the table `--help`
/// lists too — parses, validates and runs it, and turns any error into a message on stderr and
/// an exit code (`FailureExit`).
public enum Sluice {
  /// Every subcommand, in the order `sluice --help` lists them.
  static var subcommands: [any Subcommand.Type] {
    [
      RunCommand.self, ValidateCommand.self, PlanCommand.self, ReplayCommand.self, SchemaCommand.self,
      ContractCommand.self,
      RunsCommand.self,
      RecoverCommand.self, ReportCommand.self, InspectCommand.self, InitCommand.self,
      VersionCommand.self, CompletionsCommand.self,
    ]
  }

  /// Runs the command line of this process over `datasets` and exits with its status.
  ///
  /// Installs the standard streams' signal handling first (`StandardStreams.install()`), so a
  /// closed pipe or a file-size limit is a reported error, never a silent death.
  public static func main(datasets: [AnyDataset], drivers: [any StoreDriver]) -> Never {
    main(datasets: datasets, drivers: drivers, remote: [], extraRunOptions: nil)
  }

  /// `main(datasets:drivers:)` reading remote inputs too, through the transports in `remote`
  /// (SluiceRemote's `CurlRemoteInputs` for `https://` and `s3://`).
  public static func main(datasets: [AnyDataset], drivers: [any StoreDriver], remote: [any RemoteInputs]) -> Never {
    main(datasets: datasets, drivers: drivers, remote: remote, extraRunOptions: nil)
  }

  /// `main(datasets:drivers:)` with options of the caller's own added to `run` (the tests'
  /// fault-injection binary, `Tests/SluiceFaults`: the shipped command line has none).
  package static func main(
    datasets: [AnyDataset], drivers: [any StoreDriver], remote: [any RemoteInputs] = [],
    extraRunOptions: ExtraRunOptions?
  ) -> Never {
    StandardStreams.install()
    let arguments = Array(CommandLine.arguments.dropFirst())
    exit(
      run(
        arguments: arguments, datasets: datasets, drivers: drivers, io: CommandIO(), remote: remote,
        extra: extraRunOptions))
  }

  /// Runs `sluice arguments…` over `datasets` and the store `drivers`, writing to the
  /// process's standard output and error; returns the exit code. Dataset names must be unique.
  public static func run(arguments: [String], datasets: [AnyDataset], drivers: [any StoreDriver]) -> Int32 {
    run(arguments: arguments, datasets: datasets, drivers: drivers, io: CommandIO())
  }

  /// Runs `sluice arguments…` with its output, its diagnostics and its working directory in `io`:
  /// commands run side by side in one process, as the tests run them.
  package static func run(
    arguments: [String], datasets: [AnyDataset], drivers: [any StoreDriver], io: CommandIO,
    remote: [any RemoteInputs] = [], extra: ExtraRunOptions? = nil
  ) -> Int32 {
    CommandIO.$current.withValue(io) {
      runHere(
        arguments: arguments,
        context: CommandContext(datasets: datasets, drivers: StoreDrivers(drivers), remote: remote, extra: extra))
    }
  }

  private static func runHere(arguments: [String], context: CommandContext) -> Int32 {
    let names = context.datasets.map(\.name)
    precondition(Set(names).count == names.count, "two datasets share a name: \(names)")
    var status = dispatch(arguments, context: context)
    if let failure = CommandIO.current.failure, status == ExitCode.success {
      // A pipeline command decides for itself (its data may be committed); anything else just
      // failed to deliver its results.
      printError("sluice: cannot write to standard output: \(failure)")
      status = ExitCode.ioError
    }
    return status
  }

  private static func dispatch(_ arguments: [String], context: CommandContext) -> Int32 {
    let datasets = context.datasets
    guard let name = arguments.first else {
      printError(help(datasets: datasets))
      return ExitCode.usage
    }
    if ["--help", "-h", "help"].contains(name) {
      printOutput(help(datasets: datasets))
      return ExitCode.success
    }
    // `sluice --version` is `sluice version`, as tools spell it.
    let command = name == "--version" ? VersionCommand.name : name
    guard let type = subcommands.first(where: { $0.name == command }) else {
      return fail(UsageError("unknown command '\(name)'"), command: nil)
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("-h") || rest.contains("--help") {
      printOutput(type.help.text)
      return ExitCode.success
    }
    do {
      var command = try type.init(arguments: rest, context: context)
      try command.validate()
      return try command.run()
    } catch {
      return fail(error, command: command)
    }
  }

  private static func fail(_ error: any Error, command: String?) -> Int32 {
    let exit = FailureExit(error, command: command)
    printError("sluice: \(exit.message)")
    return exit.status
  }
}
