import Synchronization

/// What the lanes of a parallel run share while they load: which lane runs next, the first
/// failure by input, the rejected records per input (the absolute error budget spans every
/// lane), and the progress line.
///
/// A lane stops as soon as it would go on to an input after one that failed: a serial run would
/// never have read it. A lane on an earlier input goes on until it ends or fails, so the failure
/// the run reports — the lowest failed input's — is the one a serial run reports, whatever the
/// timing.
package final class LaneCoordination: Sendable {
  private struct State {
    var nextLane = 0
    var failedInput = Int.max
    var progress: [Int: LaneProgress] = [:]
    var ticker: ProgressTicker?
  }

  /// One lane's latest progress figures.
  typealias LaneProgress = PartProgress

  let laneCount: Int
  private let state: Mutex<State>
  /// Rejected records per input, as a Fenwick tree: a prefix's sum in O(log inputs).
  private let rejected: Mutex<[Int]>
  let clockStart = Stopwatch.now()
  /// Whether the run has a progress handler: lanes publish their figures only then. Lanes only
  /// load (a validate run is serial), so progress counts loaded records.
  let wantsProgress: Bool

  package init(laneCount: Int, inputCount: Int, progress: ProgressTicker?) {
    self.laneCount = laneCount
    rejected = Mutex(Array(repeating: 0, count: inputCount + 1))
    wantsProgress = progress != nil
    state = Mutex(State(ticker: progress))
  }

  /// The next lane to run, in the order of their first inputs; nil when every lane has started
  /// or a failure makes the rest pointless.
  package func takeLane() -> Int? {
    state.withLock { state in
      guard state.nextLane < laneCount else { return nil }
      defer { state.nextLane += 1 }
      return state.nextLane
    }
  }

  /// The pipeline's `input`-th input failed.
  package func fail(at input: Int) {
    state.withLock { $0.failedInput = min($0.failedInput, input) }
  }

  /// Whether a lane must stop rather than go on reading `input`: an earlier input failed.
  package func mustStop(at input: Int) -> Bool {
    state.withLock { $0.failedInput < input }
  }

  /// Counts one rejected record of the pipeline's `input`-th input and returns the records
  /// rejected so far in it and every input before it: what a serial run would have counted at
  /// this record at the least (earlier inputs still loading in other lanes may add more), so a
  /// budget it finds spent, a serial run would have found spent too. Budgets spent without any
  /// lane noticing are found once all have loaded (`PipelineRunner.serialFailure`).
  func countRejected(atInput input: Int) -> Int {
    rejected.withLock { tree in
      var node = input + 1
      while node < tree.count {
        tree[node] += 1
        node += node & -node
      }
      var sum = 0
      node = input + 1
      while node > 0 {
        sum += tree[node]
        node -= node & -node
      }
      return sum
    }
  }

  /// Publishes a lane's figures and, when the interval has passed, calls the progress handler
  /// with the sums over every lane.
  func report(lane: Int, _ figures: LaneProgress) {
    let (handler, progress) = state.withLock { state -> ((@Sendable (RunProgress) -> Void)?, RunProgress?) in
      state.progress[lane] = figures
      guard var ticker = state.ticker else { return (nil, nil) }
      let now = Stopwatch.now()
      guard ticker.isDue(at: now) else { return (nil, nil) }
      state.ticker = ticker
      let lanes = state.progress.values
      return (
        ticker.handler,
        RunProgress(
          mode: ticker.mode, input: (lanes.map(\.input).max() ?? 0) + 1, inputCount: ticker.inputCount,
          bytesRead: lanes.reduce(0) { $0 + $1.bytesRead }, totalBytes: ticker.totalBytes,
          recordsRead: lanes.reduce(0) { $0 + $1.recordsRead }, recordsDone: lanes.reduce(0) { $0 + $1.recordsDone },
          recordsRejected: lanes.reduce(0) { $0 + $1.recordsRejected },
          elapsedSeconds: Double(now - clockStart) / 1e9)
      )
    }
    if let handler, let progress { handler(progress) }
  }
}

/// A lane stopped because an earlier input failed: not a failure of its own.
package struct LaneStopped: Error {
  package init() {}
}
