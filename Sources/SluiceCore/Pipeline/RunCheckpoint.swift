import Foundation

/// Where a checkpointed run stood when it committed its last chunk: everything a resumed run
/// needs to finish it exactly as the run would have finished uninterrupted — its counts, issue
/// samples, input ledger and rejects so far, the input it was reading and how many of that
/// input's records (and broken records the reader skipped) it had taken.
///
/// It lives in the database, in `sluice_checkpoints`, one row per pipeline, written in the same
/// transaction as the chunk's rows; the natural keys the run's records wrote, which later records
/// are checked against for repeats, go chunk by chunk to `sluice_checkpoint_keys`. The final
/// chunk's commit deletes the keys and leaves the checkpoint with the run's report in it
/// (`finishedReport`) until the run's outputs are in place: a run killed between its last commit
/// and their renames still has its report and rejects, which `--resume` puts in place.
package struct RunCheckpoint: Codable {
  /// The checkpoint's own format; a resume refuses another. 2: keys as compact BLOBs, dates as
  /// seconds (1, base64 text and ISO 8601 text, was never released).
  static let currentVersion = 2

  var version = currentVersion
  /// What the run is: datasets, inputs (path, format, record path), policy and conflict policy;
  /// a resume whose pipeline is not the same refuses.
  var identity: String
  var recordsPerChunk: Int
  /// Chunks committed so far.
  var chunk: Int
  /// Rows the lookup tables' synchronization wrote in the first chunk.
  var lookupRows: [String: Int]
  /// What the loaders of the run counted (reference look-ups, bulk writes), the open input's
  /// loader included.
  var totals: LoadTotals
  var state: RunState.Saved
  /// The temporary file the rejects were staged in (`OutputFile.stagingPath`).
  var rejectsStaging: String?
  /// The report (JSON) of a run whose last chunk committed, kept until its outputs — report
  /// files and rejects — are in place; nil while the run goes on. A resume of such a run only
  /// puts them in place.
  var finishedReport: String? = nil

  /// The input the run was reading: its place and saved progress.
  var openInput: InputProgress.Saved? { state.inputs.last { $0.end == nil } }

  /// What must not change between a run and its resumption.
  static func identity(of runner: PipelineRunner) -> String {
    let configuration = runner.configuration
    var parts = [
      "policy \(configuration.policy.summary)", "conflict \(configuration.conflict.rawValue)",
      "mode \(configuration.mode.rawValue)",
    ]
    for source in runner.inputs {
      let input = source.input
      parts.append(
        "input \(source.dataset.name) \(input.format.rawValue) \(input.recordPath.joined(separator: "/")) \(input.isIncremental ? "incremental " : "")\(input.path)"
      )
    }
    return parts.joined(separator: "\n")
  }
}

/// The checkpoint tables of a store: `sluice_checkpoints` (the unfinished checkpointed run of
/// each pipeline, and who is running it) and `sluice_checkpoint_keys` (its keys, per chunk).
package enum CheckpointTable {
  static let table = "sluice_checkpoints"
  static let keysTable = "sluice_checkpoint_keys"

  /// One unfinished run as the table holds it.
  package struct Row {
    var checkpoint: RunCheckpoint
    /// Who ran it last: `pid N on HOST since TIME`.
    var owner: String
    var updatedAt: String
  }

  static func create(in store: some Store) throws {
    let text = store.dialect.typeName(.text)
    let integer = store.dialect.typeName(.integer)
    try store.execute(
      """
      CREATE TABLE IF NOT EXISTS \(table) (pipeline \(text) PRIMARY KEY, owner \(text) NOT NULL, \
      started_at \(text) NOT NULL, updated_at \(text) NOT NULL, chunk \(integer) NOT NULL, \
      records \(integer) NOT NULL, state \(text) NOT NULL)
      """)
    try store.execute(
      """
      CREATE TABLE IF NOT EXISTS \(keysTable) (pipeline \(text) NOT NULL, chunk \(integer) NOT NULL, \
      part \(integer) NOT NULL, keys \(store.dialect.typeName(.blob)) NOT NULL, PRIMARY KEY (pipeline, chunk, part))
      """)
  }

  /// The unfinished run of `pipeline`, or nil; throws a checkpoint it cannot read.
  package static func load(_ pipeline: String, from store: some Store) throws -> Row? {
    guard try store.columns(of: table) != nil else { return nil }
    let p = store.dialect.parameter
    let query = try store.prepare("SELECT owner, updated_at, state FROM \(table) WHERE pipeline = \(p(1))")
    defer { query.reset() }
    try query.bind(.text(pipeline), at: 1)
    guard try query.step() else { return nil }
    guard case .text(let owner) = query.columnValue(0), case .text(let updated) = query.columnValue(1),
      case .text(let state) = query.columnValue(2)
    else { throw corrupt(pipeline, "a column is not text") }
    let checkpoint: RunCheckpoint
    do {
      let decoder = JSONDecoder()
      checkpoint = try decoder.decode(RunCheckpoint.self, from: Data(state.utf8))
    } catch {
      throw corrupt(pipeline, "its state does not decode (\(error))")
    }
    guard checkpoint.version == RunCheckpoint.currentVersion else {
      throw corrupt(
        pipeline, "it is of format \(checkpoint.version); this Sluice reads \(RunCheckpoint.currentVersion)")
    }
    return Row(checkpoint: checkpoint, owner: owner, updatedAt: updated)
  }

  /// Every pipeline's unfinished run: pipeline, owner, start, last commit, chunks and records.
  package static func unfinished(in store: some Store) throws -> [(
    pipeline: String, owner: String, startedAt: String, updatedAt: String, chunk: Int64, records: Int64
  )] {
    guard try store.columns(of: table) != nil else { return [] }
    let query = try store.prepare(
      "SELECT pipeline, owner, started_at, updated_at, chunk, records FROM \(table) ORDER BY pipeline")
    defer { query.reset() }
    var rows: [(String, String, String, String, Int64, Int64)] = []
    while try query.step() {
      func text(_ column: Int32) -> String {
        if case .text(let value) = query.columnValue(column) { value } else { "" }
      }
      func integer(_ column: Int32) -> Int64 {
        if case .integer(let value) = query.columnValue(column) { value } else { 0 }
      }
      rows.append((text(0), text(1), text(2), text(3), integer(4), integer(5)))
    }
    return rows
  }

  /// One line per unfinished checkpointed run, for `sluice runs`: how far it got, who ran it,
  /// and what `--resume` would do.
  package static func notes(in store: some Store) throws -> [String] {
    try unfinished(in: store).map { run in
      if (try? load(run.pipeline, from: store))?.checkpoint.finishedReport != nil {
        return
          "pipeline \(run.pipeline): a checkpointed run started \(run.startedAt) committed its last chunk at \(run.updatedAt), but was stopped before it put its report and rejects in place (\(run.owner)): 'sluice run SPEC --resume' puts them there"
      }
      var note =
        "pipeline \(run.pipeline): a checkpointed run started \(run.startedAt) is unfinished — interrupted, or still running (\(run.owner)): \(run.chunk) chunk(s) committed, \(run.records) record(s), the last commit at \(run.updatedAt)"
      if let open = (try? load(run.pipeline, from: store))?.checkpoint.openInput {
        note +=
          "; 'sluice run SPEC --resume' goes on in \(open.path) after its record \(open.consumed) (the earlier ones are read again, not decoded)"
      }
      return note
    }
  }

  /// Writes the checkpoint of `pipeline` as `owner`'s: inserts it when `inserting`, otherwise
  /// updates the row only while `owner` still holds it — false when another process took the
  /// run over (resumed it) since.
  static func save(
    _ checkpoint: RunCheckpoint, pipeline: String, owner: String, inserting: Bool, records: Int, in store: some Store
  ) throws -> Bool {
    // Dates as numbers (the default), exact: a date strategy that formats them (ISO 8601) brings
    // Foundation's calendar code and ICU's data into memory at the first chunk's commit, where
    // a run's memory is at its peak (3 MiB of it, measured).
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let state = String(decoding: try encoder.encode(checkpoint), as: UTF8.self)
    let now = TimestampText.text(Date())
    let p = store.dialect.parameter
    if inserting {
      let insert = try store.prepare(
        "INSERT INTO \(table) (pipeline, owner, started_at, updated_at, chunk, records, state) VALUES (\((1...7).map(p).joined(separator: ", ")))"
      )
      try insert.run([
        .text(pipeline), .text(owner), .text(TimestampText.text(checkpoint.state.startedAt)), .text(now),
        .integer(Int64(checkpoint.chunk)), .integer(Int64(records)), .text(state),
      ])
      return true
    }
    let update = try store.prepare(
      "UPDATE \(table) SET updated_at = \(p(1)), chunk = \(p(2)), records = \(p(3)), state = \(p(4)) WHERE pipeline = \(p(5)) AND owner = \(p(6))"
    )
    try update.run([
      .text(now), .integer(Int64(checkpoint.chunk)), .integer(Int64(records)), .text(state), .text(pipeline),
      .text(owner),
    ])
    return store.changes == 1
  }

  /// Makes `owner` the holder of `pipeline`'s unfinished run (a resume takes it over).
  static func claim(_ pipeline: String, owner: String, in store: some Store) throws {
    let p = store.dialect.parameter
    try store.prepare("UPDATE \(table) SET owner = \(p(1)) WHERE pipeline = \(p(2))").run([
      .text(owner), .text(pipeline),
    ])
  }

  /// Adds keys one chunk's records wrote, as its part `part`.
  static func saveKeys(_ keys: [UInt8], pipeline: String, chunk: Int, part: Int, in store: some Store) throws {
    let p = store.dialect.parameter
    try store.prepare(
      "INSERT INTO \(keysTable) (pipeline, chunk, part, keys) VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)))"
    ).run([.text(pipeline), .integer(Int64(chunk)), .integer(Int64(part)), .blob(keys)])
  }

  /// Each chunk's keys, in chunk order, for `body`.
  static func forEachKeys(_ pipeline: String, in store: some Store, _ body: ([UInt8]) throws -> Void) throws {
    let p = store.dialect.parameter
    let query = try store.prepare(
      "SELECT keys FROM \(keysTable) WHERE pipeline = \(p(1)) ORDER BY chunk, part")
    defer { query.reset() }
    try query.bind(.text(pipeline), at: 1)
    while try query.step() {
      guard case .blob(let keys) = query.columnValue(0) else {
        throw corrupt(pipeline, "a chunk's keys are not a BLOB")
      }
      try body(keys)
    }
  }

  /// The run of `pipeline` finished (or starts over): its checkpoint goes.
  static func delete(_ pipeline: String, in store: some Store) throws {
    guard try store.columns(of: table) != nil else { return }
    let p = store.dialect.parameter
    try store.prepare("DELETE FROM \(table) WHERE pipeline = \(p(1))").run([.text(pipeline)])
    try deleteKeys(pipeline, in: store)
  }

  /// The keys of `pipeline`'s run go (its last chunk committed: no record comes after them).
  static func deleteKeys(_ pipeline: String, in store: some Store) throws {
    let p = store.dialect.parameter
    try store.prepare("DELETE FROM \(keysTable) WHERE pipeline = \(p(1))").run([.text(pipeline)])
  }

  /// The outputs of `pipeline`'s committed run are in place: its finished checkpoint, which
  /// `owner` wrote or claimed, goes (and nothing else: a checkpoint of a run begun since has
  /// another owner).
  static func settle(_ pipeline: String, owner: String, in store: some Store) throws {
    let p = store.dialect.parameter
    try store.withTransaction {
      try store.prepare("DELETE FROM \(table) WHERE pipeline = \(p(1)) AND owner = \(p(2))").run([
        .text(pipeline), .text(owner),
      ])
    }
  }

  static func corrupt(_ pipeline: String, _ why: String) -> RunAbort {
    RunAbort(
      failure: .init(
        kind: .io,
        message:
          "the checkpoint of pipeline \(pipeline) in \(table) cannot be read: \(why); run again without --resume and with --restart to start over"
      ))
  }
}

/// The natural keys of the records one chunk wrote, with the record that wrote each, as a BLOB:
/// what a resumed run checks later records' keys against.
///
/// Compact, because a run writes one per record it loads and deletes them all at its end: the
/// table names once, then per key its table's number, its type, its value — an integer as a
/// zigzag varint, text and blobs by the bytes they share with the previous such key (ids
/// mostly grow, and share most of theirs) and the rest — and its record, the ordinal as the
/// varint of its difference from the previous key's. About 8 bytes for an order's key where
/// base64 text of fixed-width fields took 41.
struct CheckpointKeys {
  private var tables: [String] = []
  private var tableIndex: [Int32: Int] = [:]
  private var bytes: [UInt8] = []
  /// The previous text or blob key's bytes, and the previous key's record.
  private var previousBytes: [UInt8] = []
  private var previousInput: Int32 = 0
  private var previousOrdinal: Int64 = 0
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  mutating func append(_ key: KeyRegistry.Key, first: KeyRegistry.Occurrence, registry: KeyRegistry) {
    let index: Int
    if let known = tableIndex[key.table] {
      index = known
    } else {
      index = tables.count
      tables.append(registry.tableName(of: key.table))
      tableIndex[key.table] = index
    }
    Self.putVarint(UInt64(index), into: &bytes)
    switch key.value {
    case .integer(let value):
      bytes.append(0)
      Self.putVarint(Self.zigzag(value), into: &bytes)
    case .real(let value):
      bytes.append(1)
      for shift in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value.bitPattern >> (8 * shift))) }
    case .text(let value):
      bytes.append(2)
      putSharingPrefix(Array(value.utf8))
    case .blob(let value):
      bytes.append(3)
      putSharingPrefix(value)
    }
    Self.putVarint(Self.zigzag(Int64(first.input) &- Int64(previousInput)), into: &bytes)
    Self.putVarint(Self.zigzag(first.ordinal &- previousOrdinal), into: &bytes)
    previousInput = first.input
    previousOrdinal = first.ordinal
    count += 1
  }

  /// `value` as the count of bytes it shares with the previous text or blob key, then the rest.
  private mutating func putSharingPrefix(_ value: [UInt8]) {
    var shared = 0
    let limit = min(value.count, previousBytes.count)
    while shared < limit, value[shared] == previousBytes[shared] { shared += 1 }
    Self.putVarint(UInt64(shared), into: &bytes)
    Self.putVarint(UInt64(value.count - shared), into: &bytes)
    bytes.append(contentsOf: value[shared...])
    previousBytes = value
  }

  private static func putVarint(_ value: UInt64, into bytes: inout [UInt8]) {
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  private static func zigzag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
  }

  private static func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
  }

  /// The BLOB `sluice_checkpoint_keys` stores: the table names, then the keys.
  var encoded: [UInt8] {
    var header: [UInt8] = []
    Self.putVarint(UInt64(tables.count), into: &header)
    for name in tables {
      Self.putVarint(UInt64(name.utf8.count), into: &header)
      header.append(contentsOf: name.utf8)
    }
    return header + bytes
  }

  /// Reads `bytes` back, handing each key to `body` in the order they were written.
  static func decode(
    _ bytes: [UInt8], pipeline: String, _ body: (String, DatabaseValue, KeyRegistry.Occurrence) throws -> Void
  ) throws {
    var at = 0
    func short() -> RunAbort { CheckpointTable.corrupt(pipeline, "keys end too early") }
    func takeVarint() throws -> UInt64 {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        guard at < bytes.count, shift < 64 else { throw short() }
        let byte = bytes[at]
        at += 1
        value |= UInt64(byte & 0x7F) << shift
        if byte < 0x80 { return value }
        shift += 7
      }
    }
    func takeCount() throws -> Int {
      let value = try takeVarint()
      guard value <= UInt64(bytes.count - at) else { throw short() }
      return Int(value)
    }
    func takeBytes(_ count: Int) throws -> ArraySlice<UInt8> {
      guard at + count <= bytes.count else { throw short() }
      defer { at += count }
      return bytes[at..<(at + count)]
    }
    var tables: [String] = []
    for _ in 0..<(try takeCount()) {
      tables.append(String(decoding: try takeBytes(try takeCount()), as: UTF8.self))
    }
    var previousBytes: [UInt8] = []
    var input: Int64 = 0
    var ordinal: Int64 = 0
    func takeSharingPrefix() throws -> [UInt8] {
      let shared = try takeVarint()
      guard shared <= UInt64(previousBytes.count) else {
        throw CheckpointTable.corrupt(pipeline, "a key shares more than the previous one has")
      }
      let value = Array(previousBytes[..<Int(shared)]) + (try takeBytes(try takeCount()))
      previousBytes = value
      return value
    }
    while at < bytes.count {
      let table = try takeVarint()
      guard table < UInt64(tables.count) else { throw CheckpointTable.corrupt(pipeline, "a key names no table") }
      let value: DatabaseValue
      switch try takeBytes(1).first ?? 0xFF {
      case 0: value = .integer(unzigzag(try takeVarint()))
      case 1:
        var pattern: UInt64 = 0
        for (shift, byte) in try takeBytes(8).enumerated() { pattern |= UInt64(byte) << (8 * UInt64(shift)) }
        value = .real(Double(bitPattern: pattern))
      case 2: value = .text(String(decoding: try takeSharingPrefix(), as: UTF8.self))
      case 3: value = .blob(try takeSharingPrefix())
      default: throw CheckpointTable.corrupt(pipeline, "a key has no known type")
      }
      input &+= unzigzag(try takeVarint())
      ordinal &+= unzigzag(try takeVarint())
      guard let recordInput = Int32(exactly: input) else {
        throw CheckpointTable.corrupt(pipeline, "a key's record names no input")
      }
      try body(tables[Int(table)], value, .init(input: recordInput, ordinal: ordinal))
    }
  }
}

/// A checkpointed run's chunks: counts the records the loading side takes, and every
/// `recordsPerChunk` of them (at the end of a batch) writes the checkpoint and commits.
///
/// A chunk's commit makes its rows, its part of the input ledger's counts, its issue samples and
/// its keys durable together, and syncs the rejects file's staging before it, so a crash at any
/// point leaves the database at the end of the last committed chunk and the rejects at least
/// that far; a resumed run cuts them back to exactly there.
package final class ChunkedRun {
  let store: any Store
  let pipeline: String
  /// `pid N on HOST since TIME`: who runs the chunks, so that a second process resuming the
  /// run takes it over visibly, and this one then stops (`takenOver`).
  let owner: String
  let identity: String
  let recordsPerChunk: Int
  private(set) var chunk: Int
  /// Records taken since the last commit, and in all.
  private var sinceCommit = 0
  private var records: Int
  /// Whether the checkpoint row exists yet (the first commit inserts it).
  private var inserted: Bool
  /// The loaders' counts of the inputs that have ended.
  var endedTotals: LoadTotals
  let lookupRows: [String: Int]
  /// Whether each chunk takes the store's lock against concurrent runs again (an incremental
  /// run's decisions).
  let relocks: Bool
  /// Keys the chunk's records wrote (only when repeated keys are looked for), and how many
  /// parts of them were saved already: they go to the database every `keysPerPart`, so memory
  /// does not grow with the chunk.
  private var keys = CheckpointKeys()
  private var keyParts = 0
  static var keysPerPart: Int { 8_192 }
  /// The rejects staging file of the run this one resumed or restarted, until the first commit
  /// of this run's checkpoint (which names this run's file) lets it go.
  private(set) var superseded: String?
  /// Tests: called with `.committed(chunk)` just after each commit.
  let afterCommit: (@Sendable (ChunkPoint) -> Void)?

  init(
    store: any Store, pipeline: String, owner: String, identity: String, recordsPerChunk: Int,
    resumedFrom checkpoint: RunCheckpoint?, lookupRows: [String: Int], relocks: Bool, superseded: String?,
    afterCommit: (@Sendable (ChunkPoint) -> Void)?
  ) {
    self.store = store
    self.pipeline = pipeline
    self.owner = owner
    self.identity = identity
    self.recordsPerChunk = recordsPerChunk
    chunk = checkpoint?.chunk ?? 0
    records = checkpoint?.state.ledger.statistics.first?.recordsIn ?? 0
    inserted = checkpoint != nil
    endedTotals = checkpoint?.totals ?? LoadTotals()
    self.lookupRows = checkpoint?.lookupRows ?? lookupRows
    self.relocks = relocks
    self.superseded = superseded
    self.afterCommit = afterCommit
  }

  /// The record `record` wrote the keys of its owned rows: they go with the chunk.
  func wrote(_ rows: RecordRows, owned: KeyRegistry.OwnedTables, record: KeyRegistry.Occurrence, registry: KeyRegistry)
    throws
  {
    for entry in 0..<rows.count {
      guard let key = KeyRegistry.key(of: entry, in: rows, owned: owned) else { continue }
      keys.append(key, first: record, registry: registry)
    }
    if keys.count >= Self.keysPerPart { try saveKeys() }
  }

  /// Saves the keys gathered since the last part, in the chunk's transaction.
  private func saveKeys() throws {
    guard !keys.isEmpty else { return }
    try CheckpointTable.saveKeys(keys.encoded, pipeline: pipeline, chunk: chunk + 1, part: keyParts, in: store)
    keys = CheckpointKeys()
    keyParts += 1
  }

  /// How many more results the chunk takes before it commits.
  var recordsLeftInChunk: Int { max(recordsPerChunk - sinceCommit, 1) }

  /// The loading side took `count` results; commits when a chunk is full.
  func took(_ count: Int, state: inout RunState, loader: BatchLoader) throws {
    sinceCommit += count
    records += count
    guard sinceCommit >= recordsPerChunk else { return }
    try commit(state: &state, openRowsWritten: loader.rowsWritten, openTotals: loader.totals)
  }

  /// Writes the checkpoint and the chunk's keys, syncs the rejects, commits, begins the next.
  func commit(state: inout RunState, openRowsWritten: [String: Int], openTotals: LoadTotals) throws {
    var totals = endedTotals
    totals.add(openTotals)
    if let quarantine = state.quarantine { try quarantine.file.prepare() }
    let checkpoint = RunCheckpoint(
      identity: identity, recordsPerChunk: recordsPerChunk, chunk: chunk + 1, lookupRows: lookupRows, totals: totals,
      state: state.saved(openRowsWritten: openRowsWritten), rejectsStaging: state.quarantine?.file.stagingPath)
    guard
      try CheckpointTable.save(
        checkpoint, pipeline: pipeline, owner: owner, inserting: !inserted, records: records, in: store)
    else { throw takenOver() }
    try saveKeys()
    try store.commitAndBegin()
    keyParts = 0
    inserted = true
    chunk += 1
    sinceCommit = 0
    if let superseded {
      unlink(superseded)
      self.superseded = nil
    }
    afterCommit?(.committed(chunk))
    if relocks { _ = try store.lockAgainstConcurrentRuns() }
  }

  /// The last chunk, in its transaction: the keys go, and the checkpoint stays with the run's
  /// report in it (its rejects synced beforehand) until the outputs are in place.
  func finish(_ report: RunReport, state: RunState) throws {
    var checkpoint = RunCheckpoint(
      identity: identity, recordsPerChunk: recordsPerChunk, chunk: chunk + 1, lookupRows: lookupRows,
      totals: endedTotals, state: state.saved(openRowsWritten: [:]), rejectsStaging: state.quarantine?.file.stagingPath)
    checkpoint.finishedReport = String(decoding: try report.jsonData(), as: UTF8.self)
    guard
      try CheckpointTable.save(
        checkpoint, pipeline: pipeline, owner: owner, inserting: !inserted, records: records, in: store)
    else { throw takenOver() }
    try CheckpointTable.deleteKeys(pipeline, in: store)
  }

  /// Another process resumed the run since this one's last commit.
  private func takenOver() -> RunAbort {
    let holder = (try? CheckpointTable.load(pipeline, from: store))?.owner ?? "another process"
    return RunAbort(
      failure: .init(
        kind: .io,
        message:
          "another run took this one over (\(holder) resumed it): this process stopped; its last chunk was rolled back and the other run goes on from the last checkpoint"
      ))
  }

  /// Who this process is, for `owner`.
  static func ownerName(startedAt: Date) -> String {
    "pid \(getpid()) on \(ProcessInfo.processInfo.hostName) since \(TimestampText.text(startedAt))"
  }
}
