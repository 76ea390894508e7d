// Fuzz target `replay`: the bytes as a rejects (quarantine) file, read as `sluice replay` reads
// it — `QuarantineReader`, line by line, a bad line skipped and reading going on — and every
// record it gives decoded into catalog DTOs under both conventions a replay can meet: a JSON
// pipeline's (typed scalars) and an XML pipeline's (scalars are text, arrays are repeated keys or
// a wrapper's children; a hand-fixed record may hold real JSON arrays too), whichever the entry's
// `format` says. A decoded order or fruit goes on through the dataset's validate, map and rows.
//
// Input: the rejects file itself, no control byte (the seeds are real rejects lines).
//
// Invariants checked (each a crash when broken):
//   - every error's and unknown field's byte offset lies inside the record;
//   - ordinals go up, line by line; an XML entry's record bytes are its tape's text;
//   - the XML reading never rejects what the JSON reading accepts, for the DTOs whose fields are
//     all required (orders, fruits): the XML reading only widens what a scalar may be, and a
//     JSON array reads as itself; it gives the same DTO and the same unknown fields (paths and
//     offsets) — and for every DTO, it accepts what the JSON reading accepts;
//   - decoding does not depend on what the decoder decoded before: the first record's outcome is
//     the same when decoded again after all the others (no state leaks from record to record).
import Foundation
import FuzzSupport
import SluiceCatalog
@_spi(Internals) import SluiceCore

/// One decoder per convention, built once and reused from record to record, as a run does.
nonisolated(unsafe) private let decoder = SluiceDecoder()
nonisolated(unsafe) private let legacyDecoder = SluiceDecoder(options: .init(legacyScalars: true))

/// What one decode came to: the error (code, path, offset) or the unknown fields.
private struct Outcome: Equatable {
  var succeeded: Bool
  var code: IssueCode?
  var path = ""
  var byteOffset: Int?
  var unknown: [String] = []
  var unknownOffsets: [Int] = []
}

private enum Convention { case json, xml }

/// The record under a convention: JSON's as the reader gives it, XML's as a tape made from the
/// same text, marked `xml` (what `QuarantineReader` does for an entry whose format is `xml`).
private func record(_ raw: RawRecord, as convention: Convention) -> RawRecord? {
  switch convention {
  case .json:
    return RawRecord(location: raw.location, bytes: raw.bytes)
  case .xml:
    var tape = RecordTape()
    do {
      try tape.loadJSON(raw.bytes, origin: .xml)
    } catch {
      return nil
    }
    return RawRecord(location: raw.location, tape: tape)
  }
}

private func decode<T: Decodable>(
  _ type: T.Type, _ raw: RawRecord, with decoder: SluiceDecoder, use: (T) -> Void = { _ in }
) -> (Outcome, T?) {
  var diagnostics = DecodeDiagnostics()
  do {
    let value = try decoder.decode(type, from: raw, diagnostics: &diagnostics)
    var outcome = Outcome(succeeded: true)
    for finding in diagnostics.unknownFields {
      fuzzCheck(
        finding.byteOffset >= 0 && finding.byteOffset <= raw.bytes.count,
        "\(T.self): unknown field \(finding.path) at byte \(finding.byteOffset) of a \(raw.bytes.count)-byte record")
      outcome.unknown.append(finding.path)
      outcome.unknownOffsets.append(finding.byteOffset)
    }
    observe(raw.location(at: outcome.unknownOffsets.last).line)
    use(value)
    return (outcome, value)
  } catch {
    if let offset = error.byteOffset {
      fuzzCheck(
        offset >= 0 && offset <= raw.bytes.count,
        "\(T.self): error at byte \(offset) of a \(raw.bytes.count)-byte record: \(error)")
    }
    observe(raw.location(at: error.byteOffset).line)
    observe(error.message)
    return (Outcome(succeeded: false, code: error.code, path: error.path, byteOffset: error.byteOffset), nil)
  }
}

/// Decodes `raw` into `T` under both conventions and checks that XML accepts what JSON accepts;
/// with `same`, also that it gives the same value and the same unknown fields. Returns the
/// outcome under the record's own convention.
private func both<T: Decodable>(
  _ type: T.Type, _ raw: RawRecord, own: Convention, same: ((T, T) -> Bool)? = nil, use: (T) -> Void = { _ in }
) -> Outcome {
  guard let json = record(raw, as: .json), let xml = record(raw, as: .xml) else {
    fuzzCheck(false, "a record QuarantineReader gave does not load as a tape again")
    return Outcome(succeeded: false)
  }
  let (jsonOutcome, jsonValue) = decode(type, json, with: decoder, use: use)
  let (xmlOutcome, xmlValue) = decode(type, xml, with: decoder, use: use)
  if jsonOutcome.succeeded {
    fuzzCheck(
      xmlOutcome.succeeded,
      "\(T.self): the JSON reading decodes, the XML reading fails: "
        + "\(xmlOutcome.code.map { "\($0)" } ?? "") at '\(xmlOutcome.path)'")
    if let same, let jsonValue, let xmlValue {
      fuzzCheck(same(jsonValue, xmlValue), "\(T.self): the XML reading decodes another value than the JSON reading")
      fuzzCheck(
        jsonOutcome.unknown == xmlOutcome.unknown && jsonOutcome.unknownOffsets == xmlOutcome.unknownOffsets,
        "\(T.self): unknown fields differ: JSON \(jsonOutcome.unknown), XML \(xmlOutcome.unknown)")
    }
  }
  return own == .json ? jsonOutcome : xmlOutcome
}

private func sameOrder(_ a: OrderDTO, _ b: OrderDTO) -> Bool {
  a.identifier == b.identifier && a.amountMinor == b.amountMinor && a.currency == b.currency && a.status == b.status
    && a.createdAt == b.createdAt && a.customer.id == b.customer.id && a.customer.name == b.customer.name
    && a.items.count == b.items.count
    && zip(a.items, b.items).allSatisfy { $0.sku == $1.sku && $0.qty == $1.qty && $0.priceMinor == $1.priceMinor }
}

private func load(_ order: OrderDTO) {
  let dataset = OrdersDataset()
  var validation = Validation()
  dataset.validate(order, into: &validation)
  observe(validation.failures.count)
  do throws(MappingError) {
    var rows = RecordRows()
    dataset.rows(for: try dataset.map(order), into: &rows)
    observe(rows.count)
  } catch {
    observe(error.code.rawValue)
  }
}

private func load(_ fruit: FruitDTO) {
  let dataset = FruitsDataset()
  var validation = Validation()
  dataset.validate(fruit, into: &validation)
  observe(validation.failures.count)
  do throws(MappingError) {
    var rows = RecordRows()
    dataset.rows(for: try dataset.map(fruit), into: &rows)
    observe(rows.count)
  } catch {
    observe(error.code.rawValue)
  }
}

/// Every DTO under both conventions; the outcomes under the record's own convention.
private func decodeAll(_ raw: RawRecord, own: Convention) -> [Outcome] {
  var outcomes: [Outcome] = []
  outcomes.append(both(OrderDTO.self, raw, own: own, same: sameOrder, use: load))
  outcomes.append(both(FruitDTO.self, raw, own: own, same: ==, use: load))
  outcomes.append(both(MessageDTO.self, raw, own: own))
  outcomes.append(both(Telegram.MessageDTO.self, raw, own: own, use: { observe($0.text.plainText) }))
  outcomes.append(both(ProfilePatchDTO.self, raw, own: own))
  outcomes.append(both(StackExchange.PostDTO.self, raw, own: own))
  // What a lenient pipeline with legacyScalars makes of it, under its own convention.
  if let own = record(raw, as: own) {
    outcomes.append(decode(OrderDTO.self, own, with: legacyDecoder, use: load).0)
  }
  return outcomes
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReplay(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let input = fuzzBytes(start, count)
  let reader = QuarantineReader(source: MemoryByteSource(input))
  var first: (record: RawRecord, own: Convention, outcomes: [Outcome])?
  var lastOrdinal = 0
  var records = 0
  // At most one call per line and one more; a line is at least one byte.
  for _ in 0...(count + 1) {
    let raw: RawRecord?
    do {
      raw = try reader.next()
    } catch let error as RecordReadError {
      // A skipped line is a record of its own; an error that ends the input (UTF-16, say) may
      // come before the first (ordinal 0).
      let ordinal = error.location.ordinal
      fuzzCheck(
        error.isRecoverable ? ordinal > lastOrdinal : ordinal >= lastOrdinal,
        "\(error.isRecoverable ? "skipped line" : "error") at ordinal \(ordinal) after \(lastOrdinal)")
      lastOrdinal = ordinal
      observe(error.code.rawValue)
      if error.isRecoverable { continue }
      break
    } catch {
      break
    }
    guard let raw else { break }
    fuzzCheck(raw.location.ordinal > lastOrdinal, "ordinal \(raw.location.ordinal) after \(lastOrdinal)")
    lastOrdinal = raw.location.ordinal
    records += 1
    let own: Convention = raw.tape == nil ? .json : .xml
    if let tape = raw.tape { fuzzCheck(sameBytes(tape.bytes, raw.bytes), "an XML record's bytes are not its tape's") }
    let outcomes = decodeAll(raw, own: own)
    if first == nil { first = (raw, own, outcomes) }
    if records >= 64 { break }
  }
  // The first record again, after every other: the same outcomes.
  if let first, records > 1 {
    let again = decodeAll(first.record, own: first.own)
    fuzzCheck(again == first.outcomes, "the first record decodes differently after the others")
  }
  observe(records)
  return 0
}
