/// What a state shares with the others when several read one run's inputs at once — each lane
/// of a parallel run has one (`ParallelRun.LanePart`); a run read by one state has none. The
/// state asks it, without knowing the mode, for the error budget across the parts, whether to
/// go on, and where its progress goes.
package protocol RunPart: Sendable {
  /// Counts one rejected record of the pipeline's `index`-th input and returns the records
  /// rejected so far in it and every input before it: what the absolute error budget judges.
  func countRejected(atInput index: Int) -> Int
  /// Throws when the part must not go on in the pipeline's `index`-th input: an earlier input
  /// failed, so a serial run would never have read it.
  func checkGoesOn(atInput index: Int) throws
  /// Whether the run shows progress: the part's figures are published only then.
  var wantsProgress: Bool { get }
  /// The part's latest progress figures, for the run's progress line.
  func report(_ progress: PartProgress)
}

/// One part's latest progress figures (`RunPart.report`).
package struct PartProgress: Sendable {
  var input: Int
  var bytesRead: Int64
  var recordsRead: Int
  var recordsDone: Int
  var recordsRejected: Int
}
