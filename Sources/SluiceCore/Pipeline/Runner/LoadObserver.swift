/// What a mode hears from the record loop as it loads, to act between batches — a checkpointed
/// run's chunks (`ChunkedRun`): the loop names no mode, and holds no mode's state.
package protocol LoadObserver: AnyObject {
  /// The most results the loop joins into its next batch, given the `joining` it would.
  func batchLimit(joining: Int) -> Int
  /// Record `record` wrote `rows`, whose keys of `owned` tables it registered in `registry`
  /// (only when repeated keys are looked for).
  func wrote(
    _ rows: RecordRows, owned: KeyRegistry.OwnedTables, record: KeyRegistry.Occurrence, registry: KeyRegistry
  ) throws
  /// The loop took `count` results (records, and broken ones the reader skipped) through
  /// `loader` since it last said.
  func loaded(_ count: Int, state: inout RunState, loader: BatchLoader) throws
}
