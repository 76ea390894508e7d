extension PipelineRunner {
  /// Why the run cannot keep its history tables (`HistoryTable`), or nil: their versions are
  /// brought in line with the tables once, at the end of a run that loads in one transaction,
  /// so a run that commits in chunks (`--checkpoint-every`, `--stage`) or over several
  /// connections (`--jobs`) is refused rather than leaving versions a chunk or a lane skipped.
  package static func historyProblem(configuration: PipelineConfiguration, datasets: [AnyDataset]) -> String? {
    guard configuration.mode == .run || configuration.mode == .replay else { return nil }
    let kept = datasets.flatMap { HistoryTable.tables(of: $0.schema) }.filter { $0.table.parent == nil }.map(
      \.table.name)
    guard let first = kept.first else { return nil }
    let tables = first + (kept.count > 1 ? ", …" : "")
    if let checkpointing = configuration.checkpointing {
      let option = checkpointing.staged ? "--stage" : "--checkpoint-every"
      return
        "\(option) and the history table \(tables) do not go together: a history table's versions are made at the end of a run that loads in one transaction, and this run commits in chunks; drop \(option)"
    }
    if configuration.parallelism.jobs > 1 {
      return
        "--jobs \(configuration.parallelism.jobs) and the history table \(tables) do not go together: a history table's versions are made at the end of a run that loads in one transaction; drop --jobs"
    }
    return nil
  }
}
