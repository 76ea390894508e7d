/// The loading side of a run: takes the producer's items in input order, counts them, applies
/// the policy to rejected ones, and writes the rest.
///
/// Reading, decoding, validating, mapping and making rows run on the producer's thread while
/// this one writes, so the two cores work at once; everything that decides the run's outcome
/// happens here, in input order.
struct RecordLoop<D: Dataset>: RecordLoading {
  let dataset: D
  let configuration: PipelineConfiguration

  /// Batches in flight between the decoding and the loading thread, and their bytes: enough
  /// to keep both threads busy, little enough that a run's memory does not depend on its input
  /// (a record bigger than this travels alone).
  static var handOffBatches: Int { 8 }
  /// Records per batch the producer hands over (fewer when they are big: `RecordProducer`).
  static var producerBatchRecords: Int { 256 }

  /// Runs the reader to its end through every stage but the writes (a validate run); with
  /// `check` (`validate --db`), the load stage's checks that need the database too.
  func validate(_ reader: any RecordReader, check: ReferenceCheck?, state: inout RunState) throws {
    guard let check else {
      try consume(reader, state: &state, beforeBatch: { _, _ in }, load: { _, _, _ in true })
      return
    }
    try consume(
      reader, state: &state,
      beforeBatch: { batch, state in
        var mark = Stopwatch.now()
        defer { state.ledger.lap(.load, from: &mark) }
        try check.begin(batch.compactMap { if case .load(let rows) = $0.verdict { rows } else { nil } })
      },
      load: { rows, item, state in try Self.count(check.check(rows, at: item.location), of: item, state: &state) })
  }

  /// Runs the reader to its end, writing each record's rows through `loader` (which writes a
  /// batch in bulk when it can, else record by record; `BatchLoader`) and counting what became
  /// of each.
  func load(
    _ reader: any RecordReader, loader: BatchLoader, observer: (any LoadObserver)?, state: inout RunState
  ) throws {
    try consume(
      reader, state: &state, joining: loader.recordsPerBatch, observer: observer,
      beforeBatch: { batch, state in
        var mark = Stopwatch.now()
        defer { state.ledger.lap(.load, from: &mark) }
        var records: [RecordRows] = []
        records.reserveCapacity(batch.count)
        for item in batch {
          if case .load(let rows) = item.verdict { records.append(rows) }
        }
        // A record may be rejected for a repeated key before it is written: such a batch goes
        // record by record, in order, so that no record the run rejects is written in bulk.
        let rejectsRepeats =
          configuration.policy.duplicateKeys == .reject && batch.contains { !$0.repeatedKeys.isEmpty }
        try loader.begin(records, rowByRow: rejectsRepeats)
      },
      load: { rows, item, state in
        // A batch written in bulk was timed as a whole when it began: its records cost no clock.
        let outcome: BatchLoader.Outcome
        if loader.wroteBatchInBulk {
          outcome = try loader.write(rows, at: item.location)
        } else {
          var mark = Stopwatch.now()
          outcome = try loader.write(rows, at: item.location)
          state.ledger.lap(.load, from: &mark)
        }
        return try Self.count(outcome, of: item, state: &state)
      },
      afterBatch: { count, state in try observer?.loaded(count, state: &state, loader: loader) })
    var mark = Stopwatch.now()
    defer { state.ledger.lap(.load, from: &mark) }
    try loader.finish()
  }

  /// Counts what the load stage made of a record — written (or, validating, would be) or
  /// rejected — and applies the policy to a rejection; true when it was written.
  private static func count(_ outcome: BatchLoader.Outcome, of item: PipelineItem, state: inout RunState) throws
    -> Bool
  {
    switch outcome {
    case .written(_, let warnings) where item.isAfterRecords:
      state.ledger.note(warnings: warnings, coercions: 0)
      return true
    case .written(let keptExisting, let warnings):
      state.ledger.count(.load, passed: true, kept: keptExisting)
      state.ledger.note(warnings: warnings, coercions: 0)
      return true
    case .rejected(let issues):
      if !item.isAfterRecords { state.ledger.count(.load, passed: false) }
      try state.reject(issues, raw: item.raw, record: item.location)
      return false
    }
  }

  /// Reads the producer's batches in order — joining those waiting, up to `joining` items — and
  /// hands each item to `load` after `beforeBatch` saw its batch; `load` returns whether the
  /// record was written (or, validating, would be).
  ///
  /// Repeated keys are judged here (`RunState.repeatedKeyIssues`): under `duplicateKeys:
  /// reject` before the record is written, which it then is not; under `warn` once it was, so
  /// that a repeat the writer rejected for another reason is no repeat. A record rejected at the
  /// load stage gives up the keys it registered first (`KeyRegistry.void`). `observer` bounds
  /// each batch and hears of each record's keys.
  private func consume(
    _ reader: any RecordReader, state: inout RunState, joining: Int = 1, observer: (any LoadObserver)? = nil,
    beforeBatch: ([PipelineItem], inout RunState) throws -> Void,
    load: (RecordRows, PipelineItem, inout RunState) throws -> Bool,
    afterBatch: (Int, inout RunState) throws -> Void = { _, _ in }
  ) throws {
    // Joining batches needs as many waiting: room for the batches a join takes beyond one, up
    // to twice the batches, the same bytes. (Small records rarely reach the bytes: each batch
    // of room is about 0.4 MiB of orders' rows more.)
    let handOff = HandOff<PipelineItem>(
      maxBatches: Self.handOffBatches
        + min(Self.handOffBatches, (joining - 1) / Self.producerBatchRecords),
      maxBytes: configuration.memoryBudget.handOffBytes)
    let producer = RecordProducer(
      dataset: dataset, reader: reader, policy: configuration.policy, handOff: handOff,
      batchSize: Self.producerBatchRecords,
      keepsRawRecords: state.quarantine != nil, inputPath: state.inputs.last?.input.path ?? "",
      inputName: state.inputs.last?.input.name,
      keys: configuration.policy.duplicateKeys == .ignore ? nil : state.keys,
      inputIndex: state.inputs.last?.index ?? 0)
    let owned = state.keys.ownedTables(in: dataset.schema)
    let rejectsRepeats = configuration.policy.duplicateKeys == .reject
    // The observer hears of the keys records wrote (a mode that resumes looks repeats up in them).
    let keepsKeys = configuration.policy.duplicateKeys != .ignore
    producer.start()
    defer {
      handOff.cancel()
      producer.wait()
      state.ledger.addSeconds(producer.seconds)
    }
    while let batch = handOff.take(upTo: observer?.batchLimit(joining: joining) ?? joining) {
      try beforeBatch(batch, &state)
      for item in batch {
        state.ledger.note(warnings: item.warnings, coercions: item.coercions)
        // After the listed issues of their kind, which are sampled first.
        if let unlisted = item.unlisted, unlisted.severity == .warning { state.ledger.count(unlisted) }
        switch item.verdict {
        case .failure(let error):
          throw error
        case .rejected(let stage, let issues):
          if !item.isAfterRecords { state.ledger.countRejected(at: stage) }
          try state.reject(
            issues, raw: item.raw, record: item.location,
            unlisted: item.unlisted.flatMap { $0.severity == .error ? $0 : nil })
        case .skipped(let reason):
          state.ledger.countSkipped(reason)
        case .load(let rows) where item.isAfterRecords:
          // No record: nothing registered its keys, and the observer does not count it.
          _ = try load(rows, item, &state)
        case .load(let rows):
          state.ledger.countPassed(through: .map)
          if rejectsRepeats && !item.repeatedKeys.isEmpty {
            let issues = try state.repeatedKeyIssues(of: item, rows, owned: owned)
            if !issues.isEmpty {
              state.ledger.count(.load, passed: false)
              try state.keys.void(rows, owned: owned, record: state.occurrence(of: item))
              try state.reject(issues, raw: item.raw, record: item.location)
              continue
            }
          }
          guard try load(rows, item, &state) else {
            try state.keys.void(rows, owned: owned, record: state.occurrence(of: item))
            continue
          }
          if keepsKeys, let observer {
            try observer.wrote(rows, owned: owned, record: state.occurrence(of: item), registry: state.keys)
          }
          if !rejectsRepeats && !item.repeatedKeys.isEmpty {
            for issue in try state.repeatedKeyIssues(of: item, rows, owned: owned) { state.ledger.warn(issue) }
          }
        }
      }
      // The rows after an input's records are no result a resumed run takes again.
      try afterBatch(batch.count - batch.count(where: \.isAfterRecords), &state)
      handOff.recycle(consume batch)
      state.tickProgress()
      try state.checkGoesOn()
    }
  }
}

/// A record loop with its dataset's types erased (`AnyDataset` makes one), so a run can read
/// inputs of different datasets in turn.
package protocol RecordLoading {
  func validate(_ reader: any RecordReader, check: ReferenceCheck?, state: inout RunState) throws
  func load(
    _ reader: any RecordReader, loader: BatchLoader, observer: (any LoadObserver)?, state: inout RunState
  ) throws
}
