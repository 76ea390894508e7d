/// A pipeline ready to run: the front door of the engine.
///
/// Each input of the configuration is read as its dataset's records — one dataset for every
/// input, or one per input — through reader → decoder → validator → mapper → rows → store, all
/// inputs in one transaction, with one report and one audit row (`PipelineRunner` does the
/// work). `run()` never throws: what happened to the data is in the report.
///
/// ```swift
/// let drivers = StoreDrivers([SQLiteDriver()])  // import SluiceSQLite
/// let configuration = PipelineConfiguration(
///   name: "books", input: "books.ndjson.gz", format: .ndjson, policy: .lenient,
///   database: try drivers.target(for: "books.sqlite"))
/// let report = try Pipeline(dataset: BooksDataset(), configuration: configuration).run()
/// print(report.summary())  // per stage: in, out, rejected, warnings; the top issues
/// if report.status != .succeeded { /* the report says why; nothing was written */ }
/// ```
///
/// The exit codes of the command line are SluiceCLI's (`Sluice.run(arguments:datasets:drivers:)`).
public struct Pipeline: Sendable {
  let runner: PipelineRunner

  /// A pipeline whose every input is `dataset`'s records.
  public init(dataset: some Dataset, configuration: PipelineConfiguration) throws(PipelineError) {
    try self.init(datasets: configuration.inputs.map { _ in AnyDataset(dataset) }, configuration: configuration)
  }

  /// A pipeline whose `n`-th input is `datasets[n]`'s records; datasets that share a table must
  /// declare it alike (`Schema.union`).
  public init(datasets: [AnyDataset], configuration: PipelineConfiguration) throws(PipelineError) {
    runner = try PipelineRunner(configuration: configuration, datasets: datasets)
  }

  public var configuration: PipelineConfiguration { runner.configuration }

  /// Runs the pipeline and returns its report; failures are in the report.
  public func run() -> RunReport { runner.run() }
}

/// A pipeline that cannot be made from its configuration and datasets: no dataset for an input,
/// datasets that declare one table differently, or a setting the run would ignore (a validate
/// run with checkpoints, a plan with `jobs`: `PipelineConfiguration.ignoredSetting`).
public struct PipelineError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public init(message: String) { self.message = message }
  public var description: String { message }
}
