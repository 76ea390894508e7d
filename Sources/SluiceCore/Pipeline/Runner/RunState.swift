import Foundation

/// One run's state and the policy's verdicts: each rejected record is quarantined and judged —
/// a strict run stops at the first, a lenient one when its budget is spent — and so is the run
/// as a whole once its inputs are read. The counting is the ledger's.
///
/// What is the run's, whatever input is being read: the ledger's totals (so the error budget
/// spans every input), the quarantine, the failure. What is an input's own: its entry in
/// `inputs`, begun when the input is opened and finished when it has been read.
package struct RunState {
  let policy: Policy
  let isDryRun: Bool
  /// Whether issues and messages name the input they are about (a run with several).
  let namesInputs: Bool
  private(set) var startedAt = Date()
  let clockStart = Stopwatch.now()
  package var ledger: RunLedger
  package var quarantine: QuarantineWriter?
  var failure: RunReport.Failure?
  /// The run failed because another connection held the database past the busy timeout.
  package var waitedForLock = false
  /// The run failed before it had outputs of its own to write (`RunAbort.leavesOutputFiles`).
  var leavesOutputFiles = false
  /// What the report tells the operator besides the counts (`RunReport.notes`).
  var notes: [String] = []
  /// The inputs opened so far, in order; the last is the one being read unless it has ended.
  /// In a serial run only the first `RunReport.inputSectionLimit` stay once they have ended;
  /// later ones are summed into `omitted` as they end, so a glob of a hundred thousand files
  /// keeps a thousand.
  package private(set) var inputs: [InputProgress] = []
  /// The ended inputs past the first `RunReport.inputSectionLimit`, summed (serial runs).
  private(set) var omitted = OmittedInputs()
  /// The records `omitted` read and rejected, per declared input (its glob pattern, or its
  /// path): what `checkSomethingLoaded` judges.
  private(set) var omittedByDeclaration: [String: DeclaredCounts] = [:]
  /// Replays name their inputs' format `rejects` in the report.
  let isReplay: Bool
  /// The configuration's progress handler and when it is next due (`tickProgress`).
  package var progress: ProgressTicker?
  /// What this state shares with the others that read the run's inputs at once (a lane's:
  /// `RunPart`); nil when it reads them alone.
  package var part: (any RunPart)?
  /// Bytes read of the inputs that have ended, so a lane's progress does not sum them per batch.
  private(set) var endedInputBytes: Int64 = 0
  /// The natural keys the run's records own, across its inputs (`KeyRegistry`). A lane of a
  /// parallel run has its own: a table belongs to one lane, so its keys are all in it.
  package let keys: KeyRegistry
  /// Every input's path, by its place in the pipeline: a repeated key names its first record's.
  let inputPaths: [String]
  /// The input ledger's entries of the inputs that have ended or were skipped, in the order
  /// they did (`sluice_inputs`; a validate run keeps none).
  package private(set) var inputLedger: [InputLedgerEntry] = []
  /// What an incremental run decided about inputs, by their place: skipped (the content was
  /// held) or loaded again over other content under the same name.
  package private(set) var incremental: [Int: IncrementalNote] = [:]
  /// The content this run loaded, by dataset, size and first 64 KiB's digest: each input's
  /// whole digest and path, so an incremental input finds an earlier one of the same run
  /// without a walk over all of them.
  package private(set) var loadedContent: [LoadedContentKey: [(sha256: String, path: String)]] = [:]

  package struct LoadedContentKey: Hashable {
    var dataset: String
    var size: Int64
    var headSHA256: String
  }

  /// How many inputs an incremental run skipped.
  package private(set) var skippedInputs = 0

  /// An incremental run's decision about one input, for its report section.
  package struct IncrementalNote: Sendable, Codable {
    var skipped: RunReport.SkippedInput?
    var changedSinceRun: Int64?
  }

  package init(configuration: PipelineConfiguration, rules: [ValidationRule]) {
    policy = configuration.policy
    isDryRun = configuration.isDryRun
    isReplay = configuration.mode == .replay
    namesInputs = configuration.hasSeveralInputs
    ledger = RunLedger(issueSampleLimit: configuration.issueSampleLimit, rules: rules)
    progress = configuration.progress.map { ProgressTicker(handler: $0, configuration: configuration) }
    keys = KeyRegistry(limits: configuration.keyRegistryLimits, makeSpill: configuration.keySpill)
    inputPaths = configuration.inputs.map(\.path)
  }

  // MARK: - Inputs

  /// Starts counting an opened input's records as its own; `index` is its place in the
  /// pipeline (by default the next one, as a serial run reads them).
  mutating func begin(_ input: PipelineInput, dataset: String, stream: Input, index: Int? = nil) {
    var progress = InputProgress(
      index: index ?? inputs.count, input: input, dataset: dataset, stream: stream, start: ledger.snapshot())
    progress.firstSample = ledger.issues.samples.count
    let bytes = quarantine?.byteCount ?? 0
    progress.quarantineBytes = bytes..<bytes
    inputs.append(progress)
    ledger.input = namesInputs ? input.path : nil
    quarantine?.input = input.path
    quarantine?.format = input.format
  }

  /// The input being read was read to its end; `rowsWritten` are the rows its records wrote,
  /// `digest` its bytes' (nil when it was not hashed: a validate run).
  mutating func endInput(rowsWritten: [String: Int] = [:], digest: InputDigest? = nil) {
    guard let last = inputs.indices.last else { return }
    if let digest { recordInLedger(inputs[last], digest: digest) }
    inputs[last].finish(at: ledger.snapshot(), rowsWritten: rowsWritten, digest: digest)
    inputs[last].quarantineBytes = inputs[last].quarantineBytes.lowerBound..<(quarantine?.byteCount ?? 0)
    endedInputBytes += inputs[last].bytesSoFar
    if part == nil && inputs[last].index >= RunReport.inputSectionLimit { foldLastInput() }
  }

  /// Adds an ended input's row to the ledger.
  private mutating func recordInLedger(_ progress: InputProgress, digest: InputDigest) {
    let counts = progress.counts(now: ledger.snapshot())
    let fingerprint = progress.fingerprint
    let remote = progress.remoteObject
    inputLedger.append(
      InputLedgerEntry(
        position: progress.index, path: progress.input.path, dataset: progress.dataset, status: .loaded,
        size: fingerprint != nil || remote != nil ? digest.bytes : nil, modifiedAt: fingerprint?.modified,
        fingerprint: fingerprint?.text, sha256: digest.sha256, headSHA256: digest.headSHA256,
        recordsRead: counts.recordsRead, recordsLoaded: counts.statistics[Stage.load.ordinal].recordsOut,
        recordsRejected: counts.rejectedRecords, recordsSkipped: counts.statistics.map(\.skipped).reduce(0, +),
        etag: remote?.etag, lastModified: remote?.lastModified))
    if let fingerprint {
      loadedContent[
        LoadedContentKey(dataset: progress.dataset, size: fingerprint.size, headSHA256: digest.headSHA256),
        default: []
      ].append((digest.sha256, progress.input.path))
    }
  }

  /// An incremental run did not read the input at `index`: the database already held its
  /// content. `entry` is its ledger row.
  package mutating func skip(inputAt index: Int, _ skipped: RunReport.SkippedInput, entry: InputLedgerEntry) {
    incremental[index] = IncrementalNote(skipped: skipped)
    inputLedger.append(entry)
    skippedInputs += 1
  }

  /// An incremental run loads the input at `index` again though run `run` loaded other content
  /// under its name (`--reload-changed`).
  package mutating func reload(inputAt index: Int, changedSince run: Int64) {
    incremental[index] = IncrementalNote(changedSinceRun: run)
  }

  /// The ledger entries of a parallel run's lanes, merged in input order.
  package mutating func adopt(inputLedger entries: [InputLedgerEntry]) {
    inputLedger = entries.sorted { $0.position < $1.position }
  }

  /// The report's format name of `input`.
  func formatName(of input: PipelineInput) -> String { isReplay ? "rejects" : input.format.rawValue }

  /// Sums the input that just ended into `omitted` and lets go of its entry.
  private mutating func foldLastInput() {
    guard let last = inputs.popLast() else { return }
    let section = last.section(format: formatName(of: last.input), now: ledger.snapshot())
    omitted.add(section)
    let counts = last.counts(now: ledger.snapshot())
    omittedByDeclaration[Self.declaration(of: last.input), default: .init()].add(
      read: counts.recordsRead, rejected: counts.rejectedRecords)
  }

  /// The input of the spec `input` is, or is one file of: its glob pattern, or its path.
  static func declaration(of input: PipelineInput) -> String { input.pattern ?? input.path }

  /// The rows every input's records wrote, per table, the folded ones included.
  package var rowsWrittenByInputs: [String: Int] {
    inputs.reduce(into: omitted.rowsWritten) { rows, input in rows.merge(input.rowsWritten, uniquingKeysWith: +) }
  }

  /// Ends the input being read, if one is, where a failure stopped it: a lane keeps its counts
  /// up to there for the merged report.
  package mutating func endOpenInput() {
    guard let last = inputs.last, !last.hasEnded else { return }
    endInput()
  }

  /// The state of a run whose inputs several lanes read: `ledger` merged from theirs, `inputs`
  /// every input any lane opened, in input order.
  package mutating func adopt(ledger: RunLedger, inputs: [InputProgress]) {
    self.ledger = ledger
    self.inputs = inputs.sorted { $0.index < $1.index }
  }

  /// The progress of the pipeline's `index`-th input, if it was opened.
  func progress(ofInput index: Int) -> InputProgress? {
    // A serial run's inputs are the first ones, in order; a parallel run's, or one that skipped
    // inputs, may have gaps. Either way they are in input order.
    if index < inputs.count && inputs[index].index == index { return inputs[index] }
    var low = 0
    var high = inputs.count
    while low < high {
      let middle = (low + high) / 2
      if inputs[middle].index < index { low = middle + 1 } else { high = middle }
    }
    return low < inputs.count && inputs[low].index == index ? inputs[low] : nil
  }

  /// The stream of the input being read, if one is.
  var currentStream: Input? { inputs.last?.stream }

  /// ` of PATH` in a run with several inputs, to follow "record N" in a message; empty otherwise.
  var inputSuffix: String { ledger.input.map { " of \($0)" } ?? "" }
}

/// The records an input the spec declares read and rejected, over all the files it names.
package struct DeclaredCounts: Codable, Sendable {
  var read = 0
  var rejected = 0

  mutating func add(read: Int, rejected: Int) {
    self.read += read
    self.rejected += rejected
  }
}

// MARK: - Checkpoints
// (Here, not in a file of their own: restoring a checkpoint sets the state's private counts.)

extension RunState {
  /// What a checkpoint keeps of the run so far: everything the report, the input ledger and the
  /// policy's budget count on. `openRowsWritten` are the rows the input being read wrote so far.
  package struct Saved: Codable {
    var startedAt: Date
    var ledger: RunLedger.Saved
    var inputs: [InputProgress.Saved]
    var omitted: OmittedInputs
    var omittedByDeclaration: [String: DeclaredCounts]?
    var endedInputBytes: Int64
    var inputLedger: [InputLedgerEntry]
    var incremental: [Int: IncrementalNote]
    var loadedContent: [SavedContent]
    var skippedInputs: Int
    var quarantined: Int
    var quarantineBytes: Int
  }

  package struct SavedContent: Codable {
    var dataset: String
    var size: Int64
    var headSHA256: String
    var sha256: String
    var path: String
  }

  func saved(openRowsWritten: [String: Int]) -> Saved {
    Saved(
      startedAt: startedAt, ledger: ledger.saved,
      inputs: inputs.map { $0.saved(rowsWritten: openRowsWritten) }, omitted: omitted,
      omittedByDeclaration: omittedByDeclaration,
      endedInputBytes: endedInputBytes, inputLedger: inputLedger, incremental: incremental,
      loadedContent: loadedContent.flatMap { key, entries in
        entries.map {
          SavedContent(
            dataset: key.dataset, size: key.size, headSHA256: key.headSHA256, sha256: $0.sha256, path: $0.path)
        }
      }.sorted { ($0.path, $0.sha256) < ($1.path, $1.sha256) },
      skippedInputs: skippedInputs, quarantined: quarantine?.count ?? 0, quarantineBytes: quarantine?.byteCount ?? 0)
  }

  /// Puts the run back as `saved` left it, but for the input it stopped in, which the resumed
  /// run opens again (`resume(_:)`); `pipelineInputs` are the pipeline's inputs, by place.
  mutating func restore(_ saved: Saved, pipelineInputs: [PipelineInput]) {
    startedAt = saved.startedAt
    ledger = RunLedger(saved: saved.ledger, rules: ledger.rules)
    inputs = saved.inputs.filter { $0.end != nil }.map { InputProgress(saved: $0, input: pipelineInputs[$0.index]) }
    omitted = saved.omitted
    omittedByDeclaration = saved.omittedByDeclaration ?? [:]
    endedInputBytes = saved.endedInputBytes
    inputLedger = saved.inputLedger
    incremental = saved.incremental
    for content in saved.loadedContent {
      loadedContent[.init(dataset: content.dataset, size: content.size, headSHA256: content.headSHA256), default: []]
        .append((content.sha256, content.path))
    }
    skippedInputs = saved.skippedInputs
  }

  /// Opens again the input a checkpoint stopped in, counting on from `saved`.
  mutating func resume(_ saved: InputProgress.Saved, input: PipelineInput, stream: Input) {
    inputs.append(InputProgress(resuming: saved, input: input, stream: stream))
    ledger.input = namesInputs ? input.path : nil
    quarantine?.input = input.path
    quarantine?.format = input.format
  }

  /// The loading side took `count` more results of the input being read.
  mutating func consumed(_ count: Int) {
    guard let last = inputs.indices.last else { return }
    inputs[last].consumed += count
  }
}
