/// How a validate run finds its input's changes from a baseline (`--baseline`,
/// `PipelineConfiguration.baselinePath`): a saved `sluice inspect --json` or `sluice contract`
/// read back, and the input inspected whole against it.
///
/// The engine reports the changes (`BaselineChange`: in the run report, JUnit and HTML) and fails
/// the run on a breaking one; finding them is the tooling's — the inspector, in SluiceInspect,
/// which the engine does not link. A program that sets `baselinePath` sets this too, as the
/// command line does: `configuration.baselineComparison = .inspection` (SluiceInspect).
public struct BaselineComparison: Sendable {
  /// Why a baseline and an input cannot be compared (exit 65): a baseline that cannot be read, an
  /// input the inspector cannot read, each in a sentence.
  package struct Failure: Error, Sendable {
    package var message: String

    package init(message: String) {
      self.message = message
    }
  }

  /// The changes from the baseline at `baselinePath` to `input`; throws `Failure` when they cannot
  /// be compared.
  package let changes: @Sendable (_ baselinePath: String, _ input: PipelineInput) throws -> [BaselineChange]

  package init(
    changes: @escaping @Sendable (_ baselinePath: String, _ input: PipelineInput) throws -> [BaselineChange]
  ) {
    self.changes = changes
  }
}
