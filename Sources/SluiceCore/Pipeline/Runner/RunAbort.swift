/// Thrown inside the run's transaction to stop the run and roll it back, with the failure the
/// report gives.
package struct RunAbort: Error {
  package var failure: RunReport.Failure
  /// The run's output files (report, rejects, JUnit, HTML) are not this run's to write: they
  /// stay as they are, and only streams get the report of the failure (`RunOutputs.finish`).
  package var leavesOutputFiles = false
  package init(failure: RunReport.Failure, leavesOutputFiles: Bool = false) {
    self.failure = failure
    self.leavesOutputFiles = leavesOutputFiles
  }
}
