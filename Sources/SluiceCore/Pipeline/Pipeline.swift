/// Runs one dataset's pipeline: every input of the configuration is read as `D`'s records.
///
/// How a run goes — one transaction, the policy's verdicts, the report and the audit row — is
/// `PipelineRunner`'s, which also runs inputs of several datasets; this is the generic front for
/// code that holds a dataset's type.
public struct Pipeline<D: Dataset> {
  public let dataset: D
  public let configuration: PipelineConfiguration

  public init(dataset: D, configuration: PipelineConfiguration) {
    self.dataset = dataset
    self.configuration = configuration
  }

  /// Runs the pipeline and returns its report; it never throws; failures are in the report.
  public func run() -> RunReport {
    AnyDataset(dataset).run(configuration)
  }
}
