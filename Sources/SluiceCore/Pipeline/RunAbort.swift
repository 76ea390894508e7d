/// Thrown inside the run's transaction to stop the run and roll it back, with the failure the
/// report gives.
package struct RunAbort: Error {
  package var failure: RunReport.Failure
  package init(failure: RunReport.Failure) { self.failure = failure }
}
