import Glibc

/// How far a run has come: what the loading thread knows after each batch, handed to
/// `PipelineConfiguration.progress` (the command line draws it as a progress line on a terminal).
public struct RunProgress: Sendable, Equatable {
  public var mode: RunMode
  /// The input being read, from 1, of `inputCount`.
  public var input: Int
  public var inputCount: Int
  /// Bytes read of the inputs so far, as stored (compressed, for gzip).
  public var bytesRead: Int64
  /// Every input's size as stored, when all are regular files; nil when one is a pipe or stdin.
  public var totalBytes: Int64?
  public var recordsRead: Int
  /// Records through every stage: loaded, or — in a validate run — checked.
  public var recordsDone: Int
  public var recordsRejected: Int
  public var elapsedSeconds: Double

  public init(
    mode: RunMode, input: Int, inputCount: Int, bytesRead: Int64, totalBytes: Int64?, recordsRead: Int,
    recordsDone: Int, recordsRejected: Int, elapsedSeconds: Double
  ) {
    self.mode = mode
    self.input = input
    self.inputCount = inputCount
    self.bytesRead = bytesRead
    self.totalBytes = totalBytes
    self.recordsRead = recordsRead
    self.recordsDone = recordsDone
    self.recordsRejected = recordsRejected
    self.elapsedSeconds = elapsedSeconds
  }

  /// The share of the input bytes read, 0…1, when the total is known.
  public var fraction: Double? {
    guard let totalBytes else { return nil }
    guard totalBytes > 0 else { return 1 }
    return min(1, Double(bytesRead) / Double(totalBytes))
  }

  public var recordsPerSecond: Double { elapsedSeconds > 0 ? Double(recordsRead) / elapsedSeconds : 0 }

  /// Seconds left at the pace so far, by bytes; nil until 1 % is read or when the total is unknown.
  public var etaSeconds: Double? {
    guard let fraction, fraction >= 0.01, elapsedSeconds > 0 else { return nil }
    return elapsedSeconds * (1 - fraction) / fraction
  }
}

/// Calls the configuration's progress handler at most once per interval, from the loading thread.
package struct ProgressTicker {
  let handler: @Sendable (RunProgress) -> Void
  let mode: RunMode
  let inputCount: Int
  let totalBytes: Int64?
  let interval: UInt64
  private var next: UInt64 = 0

  init(handler: @escaping @Sendable (RunProgress) -> Void, configuration: PipelineConfiguration) {
    self.handler = handler
    mode = configuration.mode
    inputCount = configuration.inputs.count
    interval = UInt64(max(configuration.progressInterval, 0) * 1e9)
    // The inputs' sizes, known up front when every input is a regular file.
    var total: Int64? = 0
    for input in configuration.inputs {
      var info = stat()
      guard input.path != "-", stat(input.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
        total = nil
        break
      }
      total? += Int64(info.st_size)
    }
    totalBytes = total
  }

  /// Whether a tick is due at `now` (the first is due at once); schedules the next one.
  mutating func isDue(at now: UInt64) -> Bool {
    guard now >= next else { return false }
    next = now &+ interval
    return true
  }
}

extension RunState {
  /// Hands the run's progress to the handler, if one is set and its interval has passed.
  mutating func tickProgress() {
    if let part {
      guard part.wantsProgress else { return }
      let current = inputs.last.map { $0.hasEnded ? 0 : $0.bytesSoFar } ?? 0
      part.report(
        .init(
          input: inputs.last?.index ?? 0, bytesRead: endedInputBytes + current, recordsRead: ledger.recordsRead,
          recordsDone: ledger.statistics[Stage.load.ordinal].recordsOut, recordsRejected: ledger.rejectedRecords))
      return
    }
    guard var ticker = progress else { return }
    let now = Stopwatch.now()
    guard ticker.isDue(at: now) else { return }
    progress = ticker
    let statistics = ledger.statistics
    let done = statistics[(ticker.mode == .validate ? Stage.map : Stage.load).ordinal].recordsOut
    ticker.handler(
      RunProgress(
        mode: ticker.mode, input: max(inputs.count, 1), inputCount: ticker.inputCount,
        bytesRead: inputs.reduce(0) { $0 + $1.bytesSoFar }, totalBytes: ticker.totalBytes,
        recordsRead: ledger.recordsRead, recordsDone: done, recordsRejected: ledger.rejectedRecords,
        elapsedSeconds: Double(now - clockStart) / 1e9))
  }
}
