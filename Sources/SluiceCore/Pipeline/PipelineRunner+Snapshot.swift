/// Snapshot runs: what the run did not write is deleted at its end (`SnapshotMirror`).
extension PipelineRunner {
  /// The mirror of a run with snapshot inputs: the top-level tables their datasets' records own
  /// (with a key, following the run's conflict policy); nil for a run without.
  func makeMirror(_ store: some Store) throws -> SnapshotMirror? {
    let tables = inputs.filter(\.input.isSnapshot).flatMap { source in
      source.dataset.schema.tables.filter { $0.parent == nil && $0.onConflict == nil && !$0.key.isEmpty }
    }
    guard !tables.isEmpty else { return nil }
    return try SnapshotMirror(store: store, tables: tables, schema: schema)
  }

  /// Deletes what the snapshot did not see, or refuses (exit 65) when the guard says no.
  func deleteUnseen(_ mirror: SnapshotMirror) throws -> [String: Int] {
    do {
      return try mirror.apply(maxDeleteRate: configuration.maxDeleteRate)
    } catch let refusal as SnapshotRefusal {
      throw RunAbort(failure: .init(kind: .data, message: refusal.description))
    }
  }
}
