// Fuzz target `json-reader`: JSONRecordReader over an in-memory source, in every layout.
//
// Input: one control byte, then the document.
//   bits 0-1  layout: 0 top-level array, 1 array under a key path, 2 NDJSON, 3 single document
//   bits 2-3  key path for layout 1: ["a"], ["data", "fruits"], ["fruits"], [""]
//   bits 4-5  reader buffer size: 256 KiB (the default), 1, 3, 64 bytes
//   bit  6    the source hands out at most 5 bytes per read
//   bit  7    small limits (depth 8, record 256 bytes, string 32 bytes)
//
// Every record is read until nil or a fatal error; recoverable NDJSON errors are skipped and
// reading goes on. Invariants checked (each a crash when broken):
//   - a record's bytes are exactly the input's bytes at its byte offset, its line is 1 + the
//     newlines before it, and they form one valid JSON document for the reader again; an
//     error's line is 1 + the newlines before its offset; ordinals go up (1, 2, … in arrays);
//   - every call makes progress (at most input length + 2 calls), only NDJSON recovers, and
//     elsewhere only from a key repeated in an object around the records;
//   - with the default limits, the outcome (records, locations, error codes and locations, raw
//     lines) does not depend on the buffer size or on how the source chunks its reads.
import FuzzSupport
@_spi(Internals) import SluiceCore

private let paths: [[String]] = [["a"], ["data", "fruits"], ["fruits"], [""]]
private let bufferSizes = [1 << 18, 1, 3, 64]
private let smallLimits = JSONRecordReader.Limits(maxDepth: 8, maxRecordBytes: 256, maxStringBytes: 32)

private struct Record: Equatable {
  var location: RecordLocation
  var bytes: [UInt8]

  static func == (a: Record, b: Record) -> Bool { a.location == b.location && sameBytes(a.bytes, b.bytes) }
}

private struct Failure: Equatable {
  var code: IssueCode
  var location: RecordLocation
  var isRecoverable: Bool
  var rawRecord: [UInt8]?

  static func == (a: Failure, b: Failure) -> Bool {
    guard a.code == b.code, a.location == b.location, a.isRecoverable == b.isRecoverable else { return false }
    switch (a.rawRecord, b.rawRecord) {
    case (nil, nil): return true
    case (let x?, let y?): return sameBytes(x, y)
    default: return false
    }
  }
}

private struct Outcome: Equatable {
  var records: [Record] = []
  var failures: [Failure] = []
  var recordCount = 0
}

private func readAll(
  _ document: [UInt8], layout: JSONRecordReader.Layout, limits: JSONRecordReader.Limits,
  bufferSize: Int, chunk: Int
) -> Outcome {
  let reader = JSONRecordReader(
    source: MemoryByteSource(document, chunk: chunk), layout: layout, limits: limits,
    bufferSize: bufferSize)
  var outcome = Outcome()
  var calls = 0
  reading: while true {
    calls += 1
    fuzzCheck(calls <= document.count + 2, "no progress: \(calls) calls on \(document.count) bytes")
    do {
      guard let record = try reader.next() else {
        // After the end, the reader stays at the end.
        do {
          let after = try reader.next()
          fuzzCheck(after == nil, "next() after nil returned a record")
        } catch {
          fuzzCheck(false, "next() after nil threw \(error)")
        }
        break reading
      }
      outcome.records.append(Record(location: record.location, bytes: record.bytes))
    } catch let error as RecordReadError {
      outcome.failures.append(
        Failure(
          code: error.code, location: error.location, isRecoverable: error.isRecoverable,
          rawRecord: error.rawRecord))
      observe(error.description)
      if !error.isRecoverable { break reading }
      // Outside NDJSON, only a key repeated in an object around the records is recoverable: the
      // records go on, the repeated key's value is used by neither side (issue 55).
      fuzzCheck(
        layout == .lines || (error.isOutsideRecords && error.code == .duplicateKey),
        "a recoverable error outside NDJSON: \(error)")
    } catch {
      fuzzCheck(false, "next() threw something other than RecordReadError: \(error)")
    }
  }
  outcome.recordCount = reader.recordCount
  return outcome
}

private func check(_ outcome: Outcome, document: [UInt8], layout: JSONRecordReader.Layout) {
  // Newlines before `scanned`, counted incrementally: records come in input order.
  var scanned = 0
  var newlines = 0
  for record in outcome.records {
    let offset = Int(record.location.byteOffset)
    fuzzCheck(
      offset >= scanned && offset + record.bytes.count <= document.count,
      "record \(record.location) of \(record.bytes.count) bytes lies outside the \(document.count)-byte input, or before the previous record"
    )
    fuzzCheck(
      sameBytes(document[offset..<offset + record.bytes.count], record.bytes[...]),
      "record \(record.location): its bytes are not the input's bytes at its offset")
    newlines += count(UInt8(ascii: "\n"), in: document, scanned..<offset)
    scanned = offset
    fuzzCheck(
      record.location.line == newlines + 1,
      "record \(record.location): line \(record.location.line), but \(newlines) newlines precede it")
    // A record is one well-formed JSON value: the reader accepts it again as a document.
    // (A small buffer: the default 256 KiB allocation per record would dominate the run time.)
    let again = JSONRecordReader(
      source: MemoryByteSource(record.bytes), layout: .document, bufferSize: 4096)
    do {
      let copy = try again.next()
      fuzzCheck(
        copy.map { sameBytes($0.bytes, record.bytes) } ?? false,
        "record \(record.location) reads back differently as a document")
    } catch {
      fuzzCheck(false, "record \(record.location) is not a valid JSON document: \(error)")
    }
    observe(record.bytes)
  }
  for failure in outcome.failures {
    let offset = Int(failure.location.byteOffset)
    fuzzCheck(
      offset >= 0 && offset <= document.count,
      "error location \(failure.location) outside the \(document.count)-byte input")
    let newlines = count(UInt8(ascii: "\n"), in: document, 0..<offset)
    fuzzCheck(
      failure.location.line == newlines + 1,
      "error \(failure.code) at \(failure.location): line \(failure.location.line), but \(newlines) newlines precede it"
    )
    observe(failure.code.rawValue)
  }
  // Ordinals count records, malformed ones included: they only go up.
  for (a, b) in zip(outcome.records, outcome.records.dropFirst()) {
    fuzzCheck(a.location.ordinal < b.location.ordinal, "record ordinals \(a.location) then \(b.location)")
  }
  if case .array = layout {
    for (index, record) in outcome.records.enumerated() {
      fuzzCheck(record.location.ordinal == index + 1, "record \(index + 1) has ordinal \(record.location.ordinal)")
    }
  }
  if layout == .lines {
    let recovered = outcome.failures.filter(\.isRecoverable).count
    fuzzCheck(
      outcome.recordCount == outcome.records.count + recovered,
      "NDJSON recordCount \(outcome.recordCount) != \(outcome.records.count) records + \(recovered) bad lines")
  }
  observe(outcome.recordCount)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONReader(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let input = fuzzBytes(start, count)
  guard let control = input.first else { return 0 }
  let document = Array(input.dropFirst())

  let layout: JSONRecordReader.Layout
  switch control & 3 {
  case 0: layout = .array(path: [])
  case 1: layout = .array(path: paths[Int(control >> 2) & 3])
  case 2: layout = .lines
  default: layout = .document
  }
  let bufferSize = bufferSizes[Int(control >> 4) & 3]
  let chunk = control & 0x40 != 0 ? 5 : .max
  let defaultLimits = control & 0x80 == 0
  let limits = defaultLimits ? JSONRecordReader.Limits() : smallLimits

  let outcome = readAll(document, layout: layout, limits: limits, bufferSize: bufferSize, chunk: chunk)
  check(outcome, document: document, layout: layout)

  // Buffer boundaries must not change what is read. (With small limits the size checks run at
  // refills, so which error comes first legitimately depends on the buffer: not compared.)
  if defaultLimits && (bufferSize != bufferSizes[0] || chunk != .max) {
    let reference = readAll(
      document, layout: layout, limits: limits, bufferSize: bufferSizes[0], chunk: .max)
    fuzzCheck(
      outcome == reference,
      "buffer \(bufferSize)/chunk \(chunk) read \(outcome) but the default buffer read \(reference)")
  }
  return 0
}
