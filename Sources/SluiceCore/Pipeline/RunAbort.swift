/// Thrown inside the run's transaction to stop the run and roll it back, with the failure the
/// report gives.
struct RunAbort: Error {
  var failure: RunReport.Failure
}
