/// Thrown inside the run's transaction to stop the run and roll it back, with the failure the
/// report gives.
package struct RunAbort: Error {
  package var failure: RunReport.Failure
  /// The run's output files (report, rejects, JUnit, HTML) are not this run's to write: they
  /// stay as they are, and only streams get the report of the failure (`RunOutputs.finish`).
  package var leavesOutputFiles = false
  /// What the failure's message ends with when `leavesOutputFiles` kept files at the outputs'
  /// paths: the command line then claims no rejects for them.
  package static let outputFilesLeftNote = "the report and rejects files at the run's paths were left as they were"
  package init(failure: RunReport.Failure, leavesOutputFiles: Bool = false) {
    self.failure = failure
    self.leavesOutputFiles = leavesOutputFiles
  }
}
