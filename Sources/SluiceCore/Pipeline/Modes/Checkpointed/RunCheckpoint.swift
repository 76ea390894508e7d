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
  /// The SHA-256 of the rejects so far (the first `state.quarantineBytes` bytes): a resume takes
  /// them over only from a file that begins with exactly them — not from another run's rejects
  /// file at the same path. Nil in checkpoints written before (then only `rejectsStaging` is).
  var rejectsDigest: String? = nil
  /// The indexes a first load deferred to its last chunk (migration identifiers): a resume
  /// defers them too, rather than build them over the rows committed so far and keep them up
  /// to date while it loads the rest. Nil when none were (and in checkpoints written before).
  var deferredIndexes: [String]? = nil
  /// The report (JSON) of a run whose last chunk committed, kept until its outputs — report
  /// files and rejects — are in place; nil while the run goes on. A resume of such a run only
  /// puts them in place.
  var finishedReport: String? = nil

  /// The input the run was reading: its place and saved progress.
  var openInput: InputProgress.Saved? { state.inputs.last { $0.end == nil } }

  /// What must not change between a run and its resumption.
  static func identity(of services: RunServices) -> String {
    let configuration = services.configuration
    var parts = [
      "policy \(configuration.policy.summary)", "conflict \(configuration.conflict.rawValue)",
      "mode \(configuration.mode.rawValue)",
    ]
    for source in services.inputs {
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

  /// How a checkpoint's JSON is read: as `StateJSONEncoder` wrote it.
  private static var decoding: SluiceDecoder.Options {
    var options = SluiceDecoder.Options(dateFormats: [], reportsUnknownFields: false)
    options.datesAsReferenceSeconds = true
    return options
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
      // Sluice's own decoder, not Foundation's `JSONDecoder`: its code is resident anyway, while
      // a `JSONDecoder` would bring its own in at a resumed run's start, where the run's memory
      // peaks.
      let reader = JSONRecordReader(source: MemoryByteSource(Array(state.utf8)), layout: .document)
      guard let record = try reader.next() else { throw corrupt(pipeline, "its state is empty") }
      var diagnostics = DecodeDiagnostics()
      checkpoint = try SluiceDecoder(options: Self.decoding).decode(
        RunCheckpoint.self, from: record, diagnostics: &diagnostics)
    } catch let error as RunAbort {
      throw error
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
    // Not Foundation's `JSONEncoder`, and dates as numbers: its code, and the calendar and ICU
    // data a formatted date needs, would come into memory at the first chunk's commit, where a
    // run's memory is at its peak (3.7 MiB of it, measured).
    let state = try StateJSONEncoder.encode(checkpoint)
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
