/// One input's part in a run: what it is, its stream while it is read, and — measured on the
/// run's ledger — its share of the counts, its bytes and the rows its records wrote.
///
/// The run-wide state (the budget, the quarantine, the failure) is `RunState`'s; this is what a
/// report says about each input on its own.
package struct InputProgress {
  /// The input's place among the pipeline's inputs, from 0.
  package let index: Int
  let input: PipelineInput
  /// The dataset its records are read as.
  let dataset: String
  /// The opened input while it is read; closed (and its byte counts kept) when it ends.
  private(set) var stream: Input?
  private(set) var isGzip: Bool
  /// Who the file was when it was opened (nil for standard input or a pipe).
  let fingerprint: FileFingerprint?
  /// What the server said of a remote object when it was opened (nil for a file).
  let remoteObject: RemoteObject?
  private(set) var compressedBytes: Int64 = 0
  private(set) var decompressedBytes: Int64 = 0
  /// The run's counts when the input began and, once it has ended, when it ended.
  let start: RunLedger.Snapshot
  private(set) var end: RunLedger.Snapshot?
  /// The digest of the input's bytes, once it has been read to its end in a run that writes.
  private(set) var digest: InputDigest?
  /// Rows the input's records wrote, per table (empty in a validate run or before its end).
  private(set) var rowsWritten: [String: Int] = [:]
  /// Where the input's issue samples begin in the ledger's, and its bytes in the quarantine:
  /// what a parallel run needs to put its lanes' samples and rejects back in input order.
  package var firstSample = 0
  package var quarantineBytes: Range<Int> = 0..<0
  /// The reader's results (records, and the broken ones it skipped) the loading side has taken
  /// so far: where a resumed run picks the input up (`RunCheckpoint`).
  package var consumed = 0

  init(index: Int, input: PipelineInput, dataset: String, stream: Input, start: RunLedger.Snapshot) {
    self.index = index
    self.input = input
    self.dataset = dataset
    self.stream = stream
    self.isGzip = stream.isGzip
    self.fingerprint = stream.fingerprint
    self.remoteObject = stream.remoteObject
    self.start = start
  }

  /// The input as a checkpoint keeps it; a resumed run opens the input again and counts on.
  package struct Saved: Codable {
    var index: Int
    var path: String
    var dataset: String
    var isGzip: Bool
    var fingerprint: FileFingerprint?
    /// A remote input's ETag and size when the interrupted run read it.
    var remoteObject: RemoteObject?
    var compressedBytes: Int64
    var decompressedBytes: Int64
    var start: RunLedger.Snapshot
    var end: RunLedger.Snapshot?
    var digest: InputDigest?
    var rowsWritten: [String: Int]
    var firstSample: Int
    var quarantineBytes: Range<Int>
    var consumed: Int
  }

  /// What a checkpoint keeps of this input; `rowsWritten` are the rows of an input still being
  /// read (its loader's, added to what the runs it resumes wrote), the ended input's otherwise.
  func saved(rowsWritten open: [String: Int]) -> Saved {
    let bytes = bytes
    return Saved(
      index: index, path: input.path, dataset: dataset, isGzip: isGzip, fingerprint: fingerprint,
      remoteObject: remoteObject,
      compressedBytes: bytes.compressed, decompressedBytes: bytes.decompressed, start: start, end: end, digest: digest,
      rowsWritten: hasEnded ? rowsWritten : rowsWritten.merging(open, uniquingKeysWith: +), firstSample: firstSample,
      quarantineBytes: quarantineBytes,
      consumed: consumed)
  }

  /// An input that ended before the checkpoint, as it was.
  init(saved: Saved, input: PipelineInput) {
    index = saved.index
    self.input = input
    dataset = saved.dataset
    stream = nil
    isGzip = saved.isGzip
    fingerprint = saved.fingerprint
    remoteObject = saved.remoteObject
    compressedBytes = saved.compressedBytes
    decompressedBytes = saved.decompressedBytes
    start = saved.start
    end = saved.end
    digest = saved.digest
    rowsWritten = saved.rowsWritten
    firstSample = saved.firstSample
    quarantineBytes = saved.quarantineBytes
    consumed = saved.consumed
  }

  /// The input the checkpoint stopped in, opened again as `stream`: it counts from where it was.
  init(resuming saved: Saved, input: PipelineInput, stream: Input) {
    self.init(index: saved.index, input: input, dataset: saved.dataset, stream: stream, start: saved.start)
    // What the interrupted runs' loaders wrote; this run's loader counts on from zero.
    rowsWritten = saved.rowsWritten
    firstSample = saved.firstSample
    quarantineBytes = saved.quarantineBytes
    consumed = saved.consumed
  }

  /// Whether the input has ended (read to its end, or stopped by a failure).
  var hasEnded: Bool { end != nil }

  /// The input was read to its end: keeps its counts and closes its stream.
  mutating func finish(at snapshot: RunLedger.Snapshot, rowsWritten: [String: Int], digest: InputDigest?) {
    end = snapshot
    self.rowsWritten = rowsWritten
    self.digest = digest
    keepByteCounts()
    stream = nil
  }

  private mutating func keepByteCounts() {
    guard let stream else { return }
    compressedBytes = stream.compressedBytes
    decompressedBytes = stream.decompressedBytes
  }

  /// The input's counts: up to its end, or up to `now` while it is read.
  package func counts(now: RunLedger.Snapshot) -> RunLedger.Snapshot { (end ?? now).since(start) }

  /// Bytes read from the file so far, readable while the decoding thread reads it.
  var bytesSoFar: Int64 { stream?.progress.value ?? compressedBytes }

  var bytes: (compressed: Int64, decompressed: Int64) {
    guard let stream else { return (compressedBytes, decompressedBytes) }
    return (stream.compressedBytes, stream.decompressedBytes)
  }

  /// The input's section of the report, its counts up to `now` unless it has ended; `format`
  /// as the report names it (`rejects` in a replay).
  func section(format: String, now: RunLedger.Snapshot) -> RunReport.InputSection {
    let counts = counts(now: now)
    let bytes = bytes
    return RunReport.InputSection(
      path: input.path, format: format, dataset: dataset, opened: true,
      gzip: isGzip, compressedBytes: bytes.compressed, decompressedBytes: bytes.decompressed,
      stages: counts.statistics,
      issueCounts: Dictionary(uniqueKeysWithValues: counts.issueCounts.map { ($0.key.rawValue, $0.value) }),
      coercions: counts.coercions, rowsWritten: rowsWritten, sha256: digest?.sha256)
  }
}
