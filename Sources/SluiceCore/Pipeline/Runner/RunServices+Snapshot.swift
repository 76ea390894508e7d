extension PipelineRunner {
  /// Why `inputs` cannot run together, read as `datasets`: a snapshot whose tables an
  /// incremental input also loads. A snapshot deletes the rows whose keys the run did not read,
  /// and an incremental run does not read a file the database already holds: an unchanged dump
  /// would read as an empty one and wipe the tables. A snapshot reads its whole dump every time
  /// (re-running an unchanged one deletes nothing), so the combination is refused.
  package static func snapshotProblem(inputs: [PipelineInput], datasets: [AnyDataset]) -> String? {
    let pairs = Array(zip(inputs, datasets))
    let mirrored = Set(
      pairs.filter { $0.0.isSnapshot }.flatMap { RunServices.mirrorable($0.1.schema).map(\.name) })
    let skippable = Set(pairs.filter { $0.0.isIncremental }.flatMap { $0.1.schema.tables.map(\.name) })
    let shared = mirrored.intersection(skippable).sorted()
    guard let first = shared.first else { return nil }
    return
      "a snapshot and an incremental run cannot load the same tables (\(first)\(shared.count > 1 ? ", …" : "")): an incremental run skips a file the database already holds, so a snapshot would read an unchanged dump as an empty one and delete its rows; a snapshot reads its whole dump every time (an unchanged one deletes nothing): drop --incremental (or 'incremental' in the spec) for the snapshot's inputs"
  }
}

/// Snapshot runs: what the run did not write is deleted at its end (`SnapshotMirror`).
extension RunServices {
  /// The mirror of a run with snapshot inputs: the top-level tables their datasets' records own
  /// (with a key, following the run's conflict policy); nil for a run without.
  func makeMirror(_ store: some Store) throws -> SnapshotMirror? {
    let tables = inputs.filter(\.input.isSnapshot).flatMap { Self.mirrorable($0.dataset.schema) }
    guard !tables.isEmpty else { return nil }
    return try SnapshotMirror(store: store, tables: tables, schema: schema)
  }

  /// The tables of `schema` a snapshot mirrors: top-level, with a key, following the run's
  /// conflict policy.
  static func mirrorable(_ schema: Schema) -> [Table] {
    schema.tables.filter { $0.parent == nil && $0.onConflict == nil && !$0.key.isEmpty }
  }

  /// Deletes what the snapshot did not see, or refuses (exit 65) when the guard says no.
  ///
  /// A record rejected before it became rows — at the read, decode, validate or map stage — was
  /// in the dump, but its key is unknown: the row it would have kept cannot be told from a row
  /// gone from the dump. So a table of a dataset whose snapshot input had such a record loses
  /// nothing this run, and a `snapshotHeld` warning names it and says why.
  func deleteUnseen(_ mirror: SnapshotMirror, state: inout RunState) throws -> [String: Int] {
    var unkeyed: [String: Int] = [:]
    let now = state.ledger.snapshot()
    for progress in state.inputs where inputs[progress.index].input.isSnapshot {
      let rejected = progress.counts(now: now).statistics.filter { $0.stage != .load }.map(\.rejected).reduce(0, +)
      guard rejected > 0 else { continue }
      for table in inputs[progress.index].dataset.schema.tableNames where mirror.tables.contains(table) {
        unkeyed[table, default: 0] += rejected
      }
    }
    for (table, rejected) in unkeyed.sorted(by: { $0.key < $1.key }) {
      state.ledger.warn(
        Issue(
          stage: .load, severity: .warning, code: .snapshotHeld, location: nil, path: table,
          message:
            "the snapshot deleted nothing from \(table): \(rejected) record(s) of its input were rejected before their keys were known, so the rows they would keep cannot be told from rows gone from the dump; once they load (sluice replay), a snapshot deletes what is gone"
        ))
    }
    do {
      return try mirror.apply(maxDeleteRate: configuration.snapshot.maxDeleteRate, holding: Set(unkeyed.keys))
    } catch let refusal as SnapshotRefusal {
      throw RunAbort(failure: .init(kind: .data, message: refusal.description))
    }
  }
}
