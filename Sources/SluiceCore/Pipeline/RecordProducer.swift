import Foundation

/// What the decoding thread hands to the loading thread for one record, in input order.
enum PipelineItem<Record> {
  /// The record passed reading, decoding, validation and mapping.
  case record(Record, RawRecord, warnings: [Issue], coercions: Int)
  /// The record was rejected at `stage` for `issues`.
  case rejected(Stage, [Issue], raw: [UInt8]?, record: RecordLocation?, coercions: Int, warnings: [Issue])
  /// The input cannot be read further; nothing follows.
  case failure(any Error)
}

/// Runs the CPU-bound stages — read, decode, validate, map — on a thread of its own and hands
/// their results, in input order, to the thread that owns the SQLite connection.
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
final class RecordProducer<D: Dataset>: @unchecked Sendable {
  typealias Item = PipelineItem<D.Record>

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
  private let done = DispatchSemaphore(value: 0)
  /// Seconds per stage; read by the consumer only after `wait()`.
  private(set) var seconds: [Stage: Double] = [:]

  init(
    dataset: D, reader: any RecordReader, policy: Policy, handOff: HandOff<Item>, batchSize: Int = 256,
    batchBytes: Int = 1 << 20, keepsRawRecords: Bool = true
  ) {
    self.dataset = dataset
    self.reader = reader
    self.policy = policy
    self.handOff = handOff
    self.batchSize = batchSize
    self.batchBytes = batchBytes
    self.keepsRawRecords = keepsRawRecords
  }

  func start() {
    let thread = Thread { [self] in
      produce()
      handOff.finish()
      done.signal()
    }
    thread.name = "sluice-decode"
    thread.stackSize = 8 << 20  // DTO decoding recurses with the record's nesting
    thread.start()
  }

  /// Blocks until the producing thread has stopped.
  func wait() { done.wait() }

  private func lap(_ stage: Stage, _ mark: inout UInt64) {
    let now = Stopwatch.now()
    seconds[stage, default: 0] += Double(now - mark) / 1e9
    mark = now
  }

  private func produce() {
    let decoder = SluiceDecoder(
      options: .init(
        legacyScalars: policy.legacyScalars, dateFormats: policy.dateFormats,
        reportsUnknownFields: policy.unknownFields != .ignore))
    var diagnostics = DecodeDiagnostics()
    let unknownSeverity: Severity = policy.unknownFields == .reject ? .error : .warning
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
      return handOff.put(batch, weight: batchWeight)
    }
    /// The bytes an item carries to the loading side: the raw record when a rejects file wants it.
    func carried(_ bytes: [UInt8]?) -> [UInt8]? { keepsRawRecords ? bytes : nil }

    while true {
      var mark = Stopwatch.now()
      let raw: RawRecord?
      do {
        raw = try reader.next()
      } catch let error as RecordReadError where error.isRecoverable {
        lap(.read, &mark)
        let issue = Issue(stage: .read, code: error.code, location: error.location, message: error.message)
        let item = Item.rejected(.read, [issue], raw: carried(error.rawRecord), record: nil, coercions: 0, warnings: [])
        guard emit(item, rawBytes: error.rawRecord?.count ?? 0) else { return }
        continue
      } catch {
        _ = emit(.failure(error), rawBytes: 0)
        break
      }
      lap(.read, &mark)
      guard let raw else { break }

      let dto: D.DTO
      diagnostics.reset()
      do {
        dto = try decoder.decode(D.DTO.self, from: raw, diagnostics: &diagnostics)
      } catch {
        lap(.decode, &mark)
        let issue = Issue(
          stage: .decode, code: error.code, location: raw.location(at: error.byteOffset), path: error.path,
          message: error.message)
        let item = Item.rejected(
          .decode, [issue], raw: carried(raw.bytes), record: raw.location, coercions: 0, warnings: [])
        guard emit(item, rawBytes: raw.bytes.count) else { return }
        continue
      }
      let unknown = diagnostics.unknownFields.map { finding in
        Issue(
          stage: .decode, severity: unknownSeverity, code: finding.code,
          location: raw.location(at: finding.byteOffset), path: finding.path, message: finding.message)
      }
      let coercions = diagnostics.coercions
      lap(.decode, &mark)
      if unknownSeverity == .error && !unknown.isEmpty {
        let item = Item.rejected(
          .decode, unknown, raw: carried(raw.bytes), record: raw.location, coercions: coercions, warnings: [])
        guard emit(item, rawBytes: raw.bytes.count) else { return }
        continue
      }

      var validation = Validation()
      dataset.validate(dto, into: &validation)
      lap(.validate, &mark)
      guard validation.isValid else {
        let issues = validation.failures.map { failure in
          Issue(
            stage: .validate, code: failure.rule.code, location: raw.location, path: failure.path,
            message: failure.rule.message, rule: failure.rule.name)
        }
        let item = Item.rejected(
          .validate, issues, raw: carried(raw.bytes), record: raw.location, coercions: coercions, warnings: unknown)
        guard emit(item, rawBytes: raw.bytes.count) else { return }
        continue
      }

      let record: D.Record
      do {
        record = try dataset.map(dto)
      } catch {
        lap(.map, &mark)
        let issue = Issue(stage: .map, code: error.code, location: raw.location, path: error.path, message: error.message)
        let item = Item.rejected(
          .map, [issue], raw: carried(raw.bytes), record: raw.location, coercions: coercions, warnings: unknown)
        guard emit(item, rawBytes: raw.bytes.count) else { return }
        continue
      }
      lap(.map, &mark)
      let kept = keepsRawRecords ? raw : RawRecord(location: raw.location, bytes: [])
      let item = Item.record(record, kept, warnings: unknown, coercions: coercions)
      guard emit(item, rawBytes: raw.bytes.count) else { return }
    }
    if !batch.isEmpty { _ = handOff.put(batch, weight: batchWeight) }
  }
}
