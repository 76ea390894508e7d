/// The runs of a database that did not end — their process killed or their connections lost
/// while several transactions were being committed together — and the one safe way to settle
/// each: what `sluice recover` lists and, with `--apply`, does.
package protocol RunRecovery {
  associatedtype Interrupted: InterruptedRun
  /// The database as messages name it: without a password.
  var database: String { get }
  /// The interrupted runs, and lines about what no rule can settle (left for a person).
  func scan() throws -> RecoveryScan<Interrupted>
  /// Settles one run by its safe action, after reading it again; returns what was done.
  func recover(_ run: Interrupted) throws -> String
}

/// One interrupted run as a recovery sees it.
package protocol InterruptedRun: Sendable {
  var runID: Int64 { get }
  /// One line: the run, its transactions, its decision, and the safe action.
  var summary: String { get }
  /// Whether something is to be done.
  var isPending: Bool { get }
  /// Why no rule settles it safely (left for a person), or nil when one does.
  var refusal: String? { get }
}

/// What a recovery's scan found.
package struct RecoveryScan<Run: InterruptedRun>: Sendable {
  package var runs: [Run]
  /// What no rule can settle, one line each (left for a person).
  package var unsettled: [String]

  package init(runs: [Run], unsettled: [String]) {
    self.runs = runs
    self.unsettled = unsettled
  }

  package var needsRecovery: Bool { runs.contains { $0.isPending } || !unsettled.isEmpty }
}
