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
  static var handOffBytes: Int { 16 << 20 }
  /// Records a bulk writer takes at once, at most: the hand-off batches waiting when the loading
  /// thread asks, joined. Each bulk write costs a few round trips and statements whatever its
  /// size, so a writer slower than the decoder catches up by taking what queued meanwhile.
  static var bulkRecords: Int { 4096 }

  /// Runs the reader to its end through every stage but the writes (a validate run).
  func validate(_ reader: any RecordReader, state: inout RunState) throws {
    try consume(reader, state: &state, beforeBatch: { _, _ in }, load: { _, _, _ in true })
  }

  /// Runs the reader to its end, writing each record's rows; under a lenient policy each record
  /// inside a savepoint of its own. With a bulk writer, a batch it accepts is written in one go
  /// before its records are counted; a batch it refuses, or whose rows break a constraint, goes
  /// through `writer` record by record as without one.
  func load(
    _ reader: any RecordReader, writer: RowWriter, bulk: (any BulkWriter)?, savepoints: (any RecordSavepoints)?,
    state: inout RunState
  ) throws {
    /// Per record of the current batch that the bulk writer wrote: whether it kept existing rows.
    var bulkKept: [Bool]? = nil
    var next = 0
    try consume(
      reader, state: &state, joining: bulk == nil ? 1 : Self.bulkRecords,
      beforeBatch: { batch, state in
        var mark = Stopwatch.now()
        defer { state.ledger.lap(.load, from: &mark) }
        bulkKept = nil
        next = 0
        // A record may be rejected for a repeated key before it is written: such a batch goes
        // row by row, in order, so the bulk writer never writes a record the run rejects.
        let rejectsRepeats =
          configuration.policy.duplicateKeys == .reject && batch.contains { !$0.repeatedKeys.isEmpty }
        if let bulk, rejectsRepeats {
          bulk.countRowByRow()
        } else if let bulk {
          var records: [RecordRows] = []
          records.reserveCapacity(batch.count)
          for item in batch {
            if case .load(let rows) = item.verdict { records.append(rows) }
          }
          if !records.isEmpty, records.allSatisfy(bulk.accepts) {
            if let kept = try bulk.write(records) {
              // The bulk writer changed rows the row writer may remember.
              writer.forgetRows()
              bulkKept = kept
              return
            }
          } else if !records.isEmpty {
            bulk.countRowByRow()
          }
        }
        // Every key the batch references that no cache knows, looked up in a few queries.
        writer.beginBatch()
        for item in batch {
          if case .load(let rows) = item.verdict { try writer.want(rows) }
        }
        try writer.fetchWanted()
      },
      load: { rows, item, state in
        if let kept = bulkKept {
          state.ledger.count(.load, passed: true, kept: kept[next])
          next += 1
          return true
        }
        return try write(rows, of: item, writer: writer, savepoints: savepoints, state: &state)
      })
  }

  /// Reads the producer's batches in order — joining those waiting, up to `joining` items — and
  /// hands each item to `load` after `beforeBatch` saw its batch; `load` returns whether the
  /// record was written (or, validating, would be).
  ///
  /// Repeated keys are judged here (`RunState.repeatedKeyIssues`): under `duplicateKeys:
  /// reject` before the record is written, which it then is not; under `warn` once it was, so
  /// that a repeat the writer rejected for another reason is no repeat. A record rejected at the
  /// load stage gives up the keys it registered first (`KeyRegistry.void`).
  private func consume(
    _ reader: any RecordReader, state: inout RunState, joining: Int = 1,
    beforeBatch: ([PipelineItem], inout RunState) throws -> Void,
    load: (RecordRows, PipelineItem, inout RunState) throws -> Bool
  ) throws {
    // Joining batches needs as many waiting: twice the batches, the same bytes.
    let handOff = HandOff<PipelineItem>(
      maxBatches: joining > 1 ? 2 * Self.handOffBatches : Self.handOffBatches, maxBytes: Self.handOffBytes)
    let producer = RecordProducer(
      dataset: dataset, reader: reader, policy: configuration.policy, handOff: handOff,
      keepsRawRecords: state.quarantine != nil, inputPath: state.inputs.last?.input.path ?? "", keys: state.keys,
      inputIndex: state.inputs.last?.index ?? 0)
    let owned = state.keys.ownedTables(in: dataset.schema)
    let rejectsRepeats = configuration.policy.duplicateKeys == .reject
    producer.start()
    defer {
      handOff.cancel()
      producer.wait()
      state.ledger.addSeconds(producer.seconds)
    }
    while let batch = handOff.take(upTo: joining) {
      try beforeBatch(batch, &state)
      for item in batch {
        state.ledger.note(warnings: item.warnings, coercions: item.coercions)
        switch item.verdict {
        case .failure(let error):
          throw error
        case .rejected(let stage, let issues):
          state.ledger.countRejected(at: stage)
          try state.reject(issues, raw: item.raw, record: item.location)
        case .skipped(let reason):
          state.ledger.countSkipped(reason)
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
          if !rejectsRepeats && !item.repeatedKeys.isEmpty {
            for issue in try state.repeatedKeyIssues(of: item, rows, owned: owned) { state.ledger.warn(issue) }
          }
        }
      }
      state.tickProgress()
      try state.checkLane()
    }
  }

  /// Writes one record; false when the writer rejected it.
  private func write(
    _ rows: RecordRows, of item: PipelineItem, writer: RowWriter, savepoints: (any RecordSavepoints)?,
    state: inout RunState
  ) throws -> Bool {
    var rows = rows
    var mark = Stopwatch.now()
    let outcome: RowWriter.Outcome
    do {
      try savepoints?.begin()
      outcome = try writer.write(&rows, at: item.location)
      try savepoints?.release()
    } catch let rejection as RowWriter.Rejection {
      try savepoints?.rollback()
      writer.discardRecord()
      state.ledger.lap(.load, from: &mark)
      state.ledger.count(.load, passed: false)
      try state.reject(rejection.issues, raw: item.raw, record: item.location)
      return false
    }
    writer.commitRecord()
    state.ledger.lap(.load, from: &mark)
    state.ledger.count(.load, passed: true, kept: outcome.keptExisting)
    state.ledger.note(warnings: outcome.warnings, coercions: 0)
    return true
  }
}

/// A record loop with its dataset's types erased (`AnyDataset` makes one), so a run can read
/// inputs of different datasets in turn.
package protocol RecordLoading {
  func validate(_ reader: any RecordReader, state: inout RunState) throws
  func load(
    _ reader: any RecordReader, writer: RowWriter, bulk: (any BulkWriter)?, savepoints: (any RecordSavepoints)?,
    state: inout RunState
  ) throws
}
