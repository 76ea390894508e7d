/// One input's part in a run: what it is, its stream while it is read, and — measured on the
/// run's ledger — its share of the counts, its bytes and the rows its records wrote.
///
/// The run-wide state (the budget, the quarantine, the failure) is `RunState`'s; this is what a
/// report says about each input on its own.
struct InputProgress {
  let input: PipelineInput
  /// The dataset its records are read as.
  let dataset: String
  /// The opened input while it is read; closed (and its byte counts kept) when it ends.
  private(set) var stream: Input?
  private(set) var isGzip: Bool
  private(set) var compressedBytes: Int64 = 0
  private(set) var decompressedBytes: Int64 = 0
  /// The run's counts when the input began and, once it has ended, when it ended.
  let start: RunLedger.Snapshot
  private(set) var end: RunLedger.Snapshot?
  /// Rows the input's records wrote, per table (empty in a validate run or before its end).
  private(set) var rowsWritten: [String: Int] = [:]

  init(input: PipelineInput, dataset: String, stream: Input, start: RunLedger.Snapshot) {
    self.input = input
    self.dataset = dataset
    self.stream = stream
    self.isGzip = stream.isGzip
    self.start = start
  }

  /// The input was read to its end: keeps its counts and closes its stream.
  mutating func finish(at snapshot: RunLedger.Snapshot, rowsWritten: [String: Int]) {
    end = snapshot
    self.rowsWritten = rowsWritten
    keepByteCounts()
    stream = nil
  }

  private mutating func keepByteCounts() {
    guard let stream else { return }
    compressedBytes = stream.compressedBytes
    decompressedBytes = stream.decompressedBytes
  }

  /// The input's counts: up to its end, or up to `now` while it is read.
  func counts(now: RunLedger.Snapshot) -> RunLedger.Snapshot { (end ?? now).since(start) }

  /// Bytes read from the file so far, readable while the decoding thread reads it.
  var bytesSoFar: Int64 { stream?.progress.value ?? compressedBytes }

  var bytes: (compressed: Int64, decompressed: Int64) {
    guard let stream else { return (compressedBytes, decompressedBytes) }
    return (stream.compressedBytes, stream.decompressedBytes)
  }
}
