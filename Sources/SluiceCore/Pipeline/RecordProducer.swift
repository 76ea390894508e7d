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
final class RecordProducer<D: Dataset>: @unchecked Sendable {
  typealias Item = PipelineItem<D.Record>

  private let dataset: D
  private let reader: any RecordReader
  private let policy: Policy
  private let handOff: HandOff<Item>
  private let batchSize: Int
  private let done = DispatchSemaphore(value: 0)
  /// Seconds per stage; read by the consumer only after `wait()`.
  private(set) var seconds: [Stage: Double] = [:]

  init(dataset: D, reader: any RecordReader, policy: Policy, handOff: HandOff<Item>, batchSize: Int = 256) {
    self.dataset = dataset
    self.reader = reader
    self.policy = policy
    self.handOff = handOff
    self.batchSize = batchSize
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
    func emit(_ item: Item) -> Bool {
      batch.append(item)
      guard batch.count >= batchSize else { return true }
      defer { batch.removeAll(keepingCapacity: true) }
      return handOff.put(batch)
    }

    while true {
      var mark = Stopwatch.now()
      let raw: RawRecord?
      do {
        raw = try reader.next()
      } catch let error as RecordReadError where error.isRecoverable {
        lap(.read, &mark)
        let issue = Issue(stage: .read, code: error.code, location: error.location, message: error.message)
        guard emit(.rejected(.read, [issue], raw: error.rawRecord, record: nil, coercions: 0, warnings: [])) else { return }
        continue
      } catch {
        _ = emit(.failure(error))
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
        guard emit(.rejected(.decode, [issue], raw: raw.bytes, record: raw.location, coercions: 0, warnings: [])) else { return }
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
        guard emit(.rejected(.decode, unknown, raw: raw.bytes, record: raw.location, coercions: coercions, warnings: [])) else { return }
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
        guard emit(.rejected(.validate, issues, raw: raw.bytes, record: raw.location, coercions: coercions, warnings: unknown)) else { return }
        continue
      }

      let record: D.Record
      do {
        record = try dataset.map(dto)
      } catch {
        lap(.map, &mark)
        let issue = Issue(stage: .map, code: error.code, location: raw.location, path: error.path, message: error.message)
        guard emit(.rejected(.map, [issue], raw: raw.bytes, record: raw.location, coercions: coercions, warnings: unknown)) else { return }
        continue
      }
      lap(.map, &mark)
      guard emit(.record(record, raw, warnings: unknown, coercions: coercions)) else { return }
    }
    if !batch.isEmpty { _ = handOff.put(batch) }
  }
}
