/// Keys of a spec that its run would take and then ignore, refused when the spec is read
/// (`PipelineConfiguration+Combinations` refuses the same, and what a command line adds, for the
/// run itself).
extension PipelineSpec {
  /// The first key of the spec that a run of it would ignore, as a sentence naming it and the
  /// key it does not go with; nil when every key applies.
  var ignoredKey: String? {
    let checkpointed = stages ? "'stage'" : checkpointEvery != nil ? "'checkpointEvery'" : nil
    let jobs = jobs ?? 1
    if let checkpointed, jobs > 1 {
      return
        "'jobs' \(jobs) and \(checkpointed) do not go together: a checkpointed run commits chunk by chunk on one connection, so the inputs would load one after another; drop one"
    }
    if let checkpointed, let snapshot = inputs.first(where: \.isSnapshot) {
      return
        "'snapshot' (\(snapshot.input)) and \(checkpointed) do not go together: a checkpointed run commits in chunks, and a snapshot deletes what the whole run did not see, so it loads in one transaction; drop one"
    }
    if jobs > 1, let input = inputs.first(where: { $0.isIncremental || $0.isSnapshot }) {
      return
        "'jobs' \(jobs) and '\(input.isIncremental ? "incremental" : "snapshot")' (\(input.input)) do not go together: an incremental or snapshot run decides from the tables inside one transaction, so its inputs load one after another; drop one"
    }
    if maxDeleteRate != nil, !inputs.contains(where: \.isSnapshot) {
      return
        "'maxDeleteRate' applies to a snapshot run, and no input is a snapshot: set 'snapshot' too, or drop 'maxDeleteRate'"
    }
    return nil
  }
}
