import Foundation
import Synchronization

/// Runs the CPU-bound stages — read, decode, validate, map, and making the rows — on a thread of
/// its own and hands their results, in input order, to the thread that owns the store.
///
/// It decides nothing: counting, issues, the policy's verdicts and the quarantine all happen on
/// the consuming side, in order, so a run's outcome does not depend on how far ahead this thread
/// got. It only measures the time of its own stages.
///
/// A batch is handed over when it holds `batchSize` items or when its weight — its records' raw
/// bytes plus `itemOverhead` each — reaches `batchBytes`, so big records travel in small batches
/// and the hand-off's byte bound can keep them few. Records' raw bytes travel with them only when
/// `keepsRawRecords` (a rejects file wants them); otherwise the loading side gets their location
/// alone and a big record's bytes are freed as soon as it is decoded.
final class RecordProducer<D: Dataset> {
  typealias Item = PipelineItem

  /// The most storage the emptied rows kept for reuse may hold (`RecordRows.storageBytes`).
  static var spareRowsBytes: Int { 1 << 20 }

  /// What an item is reckoned to weigh beyond its record's raw bytes (the item, its record's
  /// fields, its issues); a guess, but a fixed one, so weight grows with records and bytes.
  static var itemOverhead: Int { 256 }

  private let dataset: D
  private let reader: any RecordReader
  private let policy: Policy
  private let handOff: HandOff<Item>
  private let batchSize: Int
  private let batchBytes: Int
  private let keepsRawRecords: Bool
  /// The input's path, for the map stage's context.
  private let inputPath: String
  /// The input's name (`PipelineInput.name`), for the map stage's context.
  private let inputName: String
  /// Where the records' own natural keys are registered, and the input's place in the pipeline.
  private let keys: KeyRegistry?
  private let inputIndex: Int
  private let done = DispatchSemaphore(value: 0)
  /// Seconds per stage, added by the producing thread.
  private let timings = Mutex<[Stage: Double]>([:])

  /// Seconds per stage so far; complete after `wait()`.
  var seconds: [Stage: Double] { timings.withLock { $0 } }

  init(
    dataset: D, reader: any RecordReader, policy: Policy, handOff: HandOff<Item>, batchSize: Int = 256,
    batchBytes: Int = 1 << 20, keepsRawRecords: Bool = true, inputPath: String = "", inputName: String? = nil,
    keys: KeyRegistry? = nil, inputIndex: Int = 0
  ) {
    self.inputPath = inputPath
    self.inputName = inputName ?? inputPath
    self.keys = keys
    self.inputIndex = inputIndex
    self.dataset = dataset
    self.reader = reader
    self.policy = policy
    self.handOff = handOff
    self.batchSize = batchSize
    self.batchBytes = batchBytes
    self.keepsRawRecords = keepsRawRecords
  }

  func start() {
    // The reader moves to the producing thread for good: this thread never touches it again.
    nonisolated(unsafe) let producer = self
    let handOff = handOff
    let done = done
    let thread = Thread {
      producer.produce()
      handOff.finish()
      done.signal()
    }
    thread.name = "sluice-decode"
    thread.stackSize = 8 << 20  // DTO decoding recurses with the record's nesting
    thread.start()
  }

  /// Blocks until the producing thread has stopped.
  func wait() { done.wait() }

  private func produce() {
    let decoder = SluiceDecoder(
      options: .init(
        legacyScalars: policy.legacyScalars, dateFormats: policy.dateFormats,
        reportsUnknownFields: policy.unknownFields != .ignore), userInfo: dataset.decodingUserInfo)
    var diagnostics = DecodeDiagnostics()
    let unknownSeverity: Severity = policy.unknownFields == .reject ? .error : .warning
    // A dataset file under `"evolution": "discard"` drops its new fields: counted, not listed.
    let discardsNewFields = (dataset as? DeclaredDataset)?.discardsNewFields == true
    let ownedTables = keys?.ownedTables(in: dataset.schema)
    // Per stage (by its ordinal), the nanoseconds spent, and after them a bit per stage timed at
    // least once: a lap is a few instructions, where a dictionary keyed by stage hashed on every
    // one (4 % of a CSV import's instructions). In memory of their own, written through a
    // pointer: variables the nested functions capture cost a dynamic exclusivity check at each
    // of a record's five laps (1 % of the decoding thread).
    let stages = Stage.allCases.count
    let clock = UnsafeMutablePointer<UInt64>.allocate(capacity: stages + 1)
    clock.initialize(repeating: 0, count: stages + 1)
    defer {
      var seconds: [Stage: Double] = [:]
      for stage in Stage.allCases where clock[stages] & (1 << stage.ordinal) != 0 {
        seconds[stage] = Double(clock[stage.ordinal]) / 1e9
      }
      timings.withLock { $0 = seconds }
      clock.deallocate()
    }
    func lap(_ stage: Stage, _ mark: inout UInt64) {
      let now = Stopwatch.now()
      clock[stage.ordinal] &+= now &- mark
      clock[stages] |= 1 << stage.ordinal
      mark = now
    }
    /// Rows of records the loading thread is done with, emptied for the next records to fill
    /// (`RecordRows.reuse`): four batches' worth at most (the loading thread may hand back
    /// several batches between two of this thread's), and at most `spareRowsBytes` of storage.
    var spareRows: [RecordRows] = []
    var spareBytes = 0
    let spareRowsLimit = 4 * batchSize
    func reclaim(_ spent: inout [Item]) {
      while spareRows.count < spareRowsLimit, spareBytes < Self.spareRowsBytes, var item = spent.popLast() {
        guard var rows = item.takeRows(), rows.reuse() else { continue }
        spareBytes += rows.storageBytes
        spareRows.append(rows)
      }
    }
    func spareOrNewRows() -> RecordRows {
      guard let rows = spareRows.popLast() else { return RecordRows() }
      spareBytes -= rows.storageBytes
      return rows
    }
    var batch: [Item] = []
    batch.reserveCapacity(batchSize)
    var batchWeight = 0
    /// Adds an item whose record had `rawBytes` bytes; hands the batch over once it is full.
    func emit(_ item: Item, rawBytes: Int) -> Bool {
      batch.append(item)
      batchWeight += rawBytes + Self.itemOverhead
      guard batch.count >= batchSize || batchWeight >= batchBytes else { return true }
      defer {
        batch.removeAll(keepingCapacity: true)
        batchWeight = 0
      }
      // Time the loading thread leaves this one moves the recent keys to the temporary
      // database; a failure there fails the record that next needs it (the keys stay in memory).
      if let keys, !handOff.hasRoomNow(for: batchWeight) { try? keys.spillWhileIdle() }
      return handOff.put(batch, weight: batchWeight, reclaim: reclaim)
    }
    /// The bytes an item carries to the loading side: the raw record when a rejects file wants it.
    func carried(_ bytes: [UInt8]?) -> [UInt8]? { keepsRawRecords ? bytes : nil }

    // A CSV header's blank and repeated names are said once, with the first row.
    var headerNoted = false
    while true {
      var mark = Stopwatch.now()
      let raw: RawRecord?
      do {
        raw = try reader.next()
      } catch let error as RecordReadError where error.isRecoverable {
        lap(.read, &mark)
        let issue = Issue(
          stage: .read, code: error.code, location: error.location, path: error.path, message: error.message)
        var item = Item(verdict: .rejected(.read, [issue]), location: nil, raw: carried(error.rawRecord))
        // A key repeated around the records: rejected, but no record.
        item.isAfterRecords = error.isOutsideRecords
        guard emit(item, rawBytes: error.rawRecord?.count ?? 0) else { return }
        continue
      } catch let error as RecordReadError {
        _ = emit(Item(verdict: .failure(error)), rawBytes: 0)
        break
      } catch let error as InputError {
        _ = emit(Item(verdict: .failure(error)), rawBytes: 0)
        break
      } catch {
        _ = emit(Item(verdict: .failure(ReadFailure(description: "\(error)"))), rawBytes: 0)
        break
      }
      lap(.read, &mark)
      guard let raw else {
        if let item = afterRecords(fields: reader.documentFields, unreadable: reader.unreadableDocumentFields) {
          lap(.map, &mark)
          _ = emit(item, rawBytes: 0)
        }
        break
      }
      var item = Item(verdict: .rejected(.decode, []), location: raw.location, raw: carried(raw.bytes))
      item.verdict = verdict(for: raw, decoder: decoder, diagnostics: &diagnostics, item: &item, lap: lap, mark: &mark)
      if !headerNoted, let csv = reader as? CSVRecordReader {
        headerNoted = true
        if !csv.renamedColumns.isEmpty {
          item.warnings.append(
            Issue(
              stage: .read, severity: .warning, code: .headerRenamed, location: nil,
              message: CSVRenamedColumn.summary(csv.renamedColumns)))
        }
      }
      guard emit(item, rawBytes: raw.bytes.count) else { return }
      if case .failure = item.verdict { break }
    }
    if !batch.isEmpty { _ = handOff.put(batch, weight: batchWeight) }

    /// The rows the dataset adds after the input's records, from the document's fields; nil
    /// when it adds none.
    func afterRecords(fields: [String: String], unreadable: [String: UnreadableField]) -> Item? {
      var context = MappingContext(
        fields: fields, inputPath: inputPath, inputName: inputName, lenientArrays: policy.lenientArrays,
        unreadableFields: unreadable)
      var rows = RecordRows()
      dataset.rowsAfterRecords(context: &context, into: &rows)
      guard rows.count > 0 || !context.notes.isEmpty || !context.invalidFields.isEmpty else { return nil }
      var item = Item(verdict: .load(rows), location: nil, raw: nil)
      item.isAfterRecords = true
      item.warnings = context.notes.map {
        Issue(stage: .map, severity: .warning, code: $0.code, location: nil, path: $0.path, message: $0.message)
      }
      if !context.invalidFields.isEmpty {
        // A field the dataset read that holds no text: judged as a record's field would be.
        item.verdict = .rejected(
          .decode,
          context.invalidFields.map {
            Issue(
              stage: .decode, code: .invalidValue, location: $0.field.location, path: $0.name,
              message: "expected text, found \($0.field.holds)")
          })
      } else if !rows.violations.isEmpty {
        item.verdict = .rejected(
          .load,
          rows.violations.map { Issue(stage: .load, code: $0.code, location: nil, path: $0.path, message: $0.message) })
      }
      return item
    }

    /// Decodes, validates, maps and makes the rows of one record.
    func verdict(
      for raw: RawRecord, decoder: SluiceDecoder, diagnostics: inout DecodeDiagnostics, item: inout Item,
      lap: (Stage, inout UInt64) -> Void, mark: inout UInt64
    ) -> Item.Verdict {
      let dto: D.DTO
      diagnostics.reset()
      do {
        dto = try decoder.decode(D.DTO.self, from: raw, diagnostics: &diagnostics)
      } catch {
        lap(.decode, &mark)
        return .rejected(
          .decode,
          [
            Issue(
              stage: .decode, code: error.code, location: raw.location(at: error.byteOffset, path: error.path),
              path: error.path,
              message: error.message)
          ])
      }
      if discardsNewFields {
        let dropped = diagnostics.unknownFields.count + diagnostics.unlistedUnknownFields
        diagnostics.unknownFields.removeAll(keepingCapacity: true)
        diagnostics.unlistedUnknownFields = 0
        if dropped > 0 {
          item.unlisted = UnlistedIssues(stage: .decode, severity: .warning, code: .unknownField, count: dropped)
        }
      }
      let locations = raw.locations(at: diagnostics.unknownFields.map(\.byteOffset))
      let unknown = zip(diagnostics.unknownFields, locations).map { finding, location in
        var location = location
        location.column = raw.column(of: finding.path)
        return Issue(
          stage: .decode, severity: unknownSeverity, code: finding.code, location: location, path: finding.path,
          message: finding.message)
      }
      if diagnostics.unlistedUnknownFields > 0 {
        item.unlisted = UnlistedIssues(
          stage: .decode, severity: unknownSeverity, code: .unknownField, count: diagnostics.unlistedUnknownFields)
      }
      item.coercions = diagnostics.coercions
      lap(.decode, &mark)
      if unknownSeverity == .error && !unknown.isEmpty { return .rejected(.decode, unknown) }
      item.warnings = unknown

      var validation = Validation()
      dataset.validate(dto, into: &validation)
      lap(.validate, &mark)
      guard validation.isValid else {
        return .rejected(
          .validate,
          validation.failures.map { failure in
            Issue(
              stage: .validate, code: failure.rule.code, location: raw.location(path: failure.path), path: failure.path,
              message: failure.rule.message, rule: failure.rule.name)
          })
      }

      var rows = spareOrNewRows()
      var context = MappingContext(
        fields: raw.context ?? [:], inputPath: inputPath, inputName: inputName,
        position: raw.position ?? raw.location.ordinal - 1,
        lenientArrays: policy.lenientArrays)
      do {
        dataset.rows(for: try dataset.map(dto, context: &context), into: &rows)
      } catch {
        lap(.map, &mark)
        if error.isSkip { return .skipped(error.message) }
        var issue = Issue(
          stage: .map, code: error.code, location: raw.location(path: error.path), path: error.path,
          message: error.message)
        issue.value = error.value
        return .rejected(.map, [issue])
      }
      for drop in context.drops {
        var issue = Issue(
          stage: .map, severity: .warning, code: drop.code, location: raw.location(path: drop.path), path: drop.path,
          message: drop.message + " (dropped: lenientArrays)")
        issue.value = drop.value
        item.warnings.append(issue)
      }
      for note in context.notes {
        item.warnings.append(
          Issue(
            stage: .map, severity: .warning, code: note.code, location: raw.location(path: note.path), path: note.path,
            message: note.message))
      }
      lap(.map, &mark)
      guard rows.violations.isEmpty else {
        return .rejected(
          .load,
          rows.violations.map {
            Issue(
              stage: .load, code: $0.code, location: raw.location(path: $0.path), path: $0.path, message: $0.message)
          })
      }
      if let keys, let ownedTables {
        // Counted with the map stage, which makes the rows.
        defer { lap(.map, &mark) }
        do {
          let record = KeyRegistry.Occurrence(input: Int32(clamping: inputIndex), ordinal: Int64(raw.location.ordinal))
          item.repeatedKeys = try keys.register(rows, owned: ownedTables, by: record)
        } catch {
          return .failure(error)
        }
      }
      return .load(rows)
    }
  }
}

/// An error a reader threw that is neither a `RecordReadError` nor an `InputError`, carried to
/// the loading thread as its description.
struct ReadFailure: Error, Sendable, CustomStringConvertible {
  var description: String
}
