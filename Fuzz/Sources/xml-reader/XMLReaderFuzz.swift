// Fuzz target `xml-reader`: XMLRecordReader over an in-memory source, then every record it
// hands out decoded into catalog DTOs under XML's conventions.
//
// Input: one control byte, then the document.
//   bits 0-1  record path: [] (the root's children), ["orders", "order"], ["posts", "row"],
//             ["a", "b", "c"]
//   bits 2-3  source chunk and reader chunk size: 32 KiB (the default), 1, 7, 4096 bytes
//   bit  4    small limits (depth 4, record 512 bytes, 4 attributes, text 64 bytes)
//   bits 5-6  DTO: the orders export (`OrderDTO`, then validated and mapped), a Stack Exchange
//             post (`PostDTO`, validated and mapped), a Stack Exchange tag, the fruits DTO
//   bit  7    unknown fields reported
//
// Every record is read until nil or a fatal error; recoverable errors (a record over a limit)
// are skipped and reading goes on. Invariants checked (each a crash when broken):
//   - records and recoverable errors carry ordinals 1, 2, 3, …; a fatal error's is not smaller;
//   - in a UTF-8 document (no other encoding declared or detected), a record's offset is that
//     of a `<` in the input, and its line — and a recoverable error's — is 1 + the line breaks
//     before it (`\n`: libxml2 does not count a lone `\r`);
//   - a record's text (what a rejects file keeps) is one valid JSON document;
//   - nothing from a DTD is applied: an attribute in a record appears in the input as a name
//     followed by `=`, and a null (`xsi:nil`) only when the input holds `nil=` or `nil =`;
//   - decoding issues and unknown fields point inside the input, at or after the record;
//   - every call makes progress, the end stays the end, and a fatal error stays the answer;
//   - with the default limits, whether the document fails does not depend on the chunk size,
//     nor what is read from one that does not (records, their texts and places, recoverable
//     errors with their paths); of one that fails, what either reading delivered agrees.
import Foundation
import FuzzSupport
import SluiceCatalog
@_spi(Internals) import SluiceCore

private let paths: [[String]] = [[], ["orders", "order"], ["posts", "row"], ["a", "b", "c"]]
private let chunkSizes = [1 << 15, 1, 7, 4096]
private let smallLimits = XMLRecordReader.Limits(
  maxDepth: 4, maxRecordBytes: 512, maxAttributes: 4, maxTextBytes: 64)
/// The tape marks a key that came from an attribute in the top bit of its line.
private let attributeLineFlag: UInt32 = 1 << 31

private struct Record: Equatable {
  var location: RecordLocation
  var bytes: [UInt8]
  var tape: RecordTape?

  static func == (a: Record, b: Record) -> Bool {
    a.location == b.location && sameBytes(a.bytes, b.bytes)
  }
}

private struct Failure: Equatable {
  var code: IssueCode
  var location: RecordLocation
  var path: String
  var message: String
  var isRecoverable: Bool
}

private struct Outcome: Equatable {
  var records: [Record] = []
  var skipped: [Failure] = []
  var fatal: Failure?
  var recordCount = 0

  /// What must not depend on the chunk size: whether the document failed, and everything read
  /// from one that did not. Of one that failed, what came before the failure agrees as far as
  /// both readings went, but how far that is, and how it failed, may differ: libxml2's push
  /// parser looks ahead for the end of a construct before parsing it (in a malformed internal
  /// subset it may meet a declaration Sluice refuses with one chunking and the syntax error
  /// first with another), and converts another encoding a block at a time (a bad byte fails
  /// the whole block before any of it is parsed).
  static func sameOutcome(_ a: Outcome, _ b: Outcome) -> Bool {
    switch (a.fatal, b.fatal) {
    case (nil, nil):
      return a.records == b.records && a.skipped == b.skipped && a.recordCount == b.recordCount
    case (.some, .some):
      return a.records.prefix(b.records.count) == b.records.prefix(a.records.count)
        && a.skipped.prefix(b.skipped.count) == b.skipped.prefix(a.skipped.count)
    default:
      return false
    }
  }
}

private func readAll(
  _ document: [UInt8], path: [String], limits: XMLRecordReader.Limits, chunk: Int
) -> Outcome {
  let reader = XMLRecordReader(
    source: MemoryByteSource(document, chunk: chunk), path: path, limits: limits, chunkSize: chunk)
  var outcome = Outcome()
  var calls = 0
  reading: while true {
    calls += 1
    fuzzCheck(calls <= document.count + 2, "no progress: \(calls) calls on \(document.count) bytes")
    do {
      guard let record = try reader.next() else {
        do {
          let after = try reader.next()
          fuzzCheck(after == nil, "next() after nil returned a record")
        } catch {
          fuzzCheck(false, "next() after nil threw \(error)")
        }
        break reading
      }
      outcome.records.append(
        Record(location: record.location, bytes: record.bytes, tape: record.tape))
    } catch let error as RecordReadError {
      let failure = Failure(
        code: error.code, location: error.location, path: error.path, message: error.message,
        isRecoverable: error.isRecoverable)
      observe(error.description)
      if error.isRecoverable {
        outcome.skipped.append(failure)
        continue
      }
      outcome.fatal = failure
      do {
        _ = try reader.next()
        fuzzCheck(false, "next() after a fatal \(error.code) returned")
      } catch let again as RecordReadError {
        fuzzCheck(
          again.code == error.code && again.message == error.message,
          "a fatal error changed: \(again)")
      } catch {
        fuzzCheck(false, "next() after a fatal error threw \(error)")
      }
      break reading
    } catch {
      fuzzCheck(false, "next() threw something other than RecordReadError: \(error)")
    }
  }
  outcome.recordCount = reader.recordCount
  return outcome
}

/// Whether the parser reads the input's own bytes: no byte order mark or encoding declaration
/// for something other than UTF-8, nothing libxml2 would take for UTF-16 or UCS-4.
private func isPlainUTF8(_ document: [UInt8]) -> Bool {
  let head = document.prefix(4)
  if head.contains(0) { return false }
  if let first = head.first, first == 0xFE || first == 0xFF || first == 0x4C { return false }
  // libxml2 reads UTF-8 as it is only when the declaration names it exactly; any other name
  // (`utf.-8`, which iconv takes for UTF-8) goes through a converter.
  let prologue = String(decoding: document.prefix(256), as: UTF8.self).lowercased()
  guard let range = prologue.range(of: "encoding") else { return true }
  let rest = prologue[range.upperBound...].drop {
    $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "="
  }
  guard let quote = rest.first, quote == "\"" || quote == "'" else { return false }
  let value = rest.dropFirst().prefix { $0 != quote }
  return value == "utf-8" || value == "utf8"
}

/// The document as UTF-8: decoded as UTF-16 after its byte order mark, or with the single-byte
/// encoding its declaration names (the names libxml2 and iconv take for ISO-8859-1 and
/// windows-1252); nil for any other.
private func transcodedToUTF8(_ document: [UInt8]) -> [UInt8]? {
  if document.starts(with: [0xFF, 0xFE]) || document.starts(with: [0xFE, 0xFF]) {
    return String(data: Data(document), encoding: .utf16).map { Array($0.utf8) }
  }
  let prologue = String(decoding: document.prefix(256), as: UTF8.self).lowercased()
  let encodings: [(String, String.Encoding)] = [
    ("iso-8859-1", .isoLatin1), ("iso_8859-1", .isoLatin1), ("latin1", .isoLatin1), ("latin-1", .isoLatin1),
    ("windows-1252", .windowsCP1252), ("cp1252", .windowsCP1252),
  ]
  for (name, encoding) in encodings where prologue.contains("\"\(name)\"") || prologue.contains("'\(name)'") {
    return String(data: Data(document), encoding: encoding).map { Array($0.utf8) }
  }
  return nil
}

/// Line breaks before `offset` as Sluice counts them, in JSON and XML alike: `\n` (libxml2 does
/// not count a lone `\r`, which XML reads as a line break).
private func lineBreaks(in document: [UInt8], before offset: Int) -> Int {
  count(UInt8(ascii: "\n"), in: document, 0..<offset)
}

/// Whether `name` occurs in the document as an attribute is written: the name, then optional
/// whitespace and `=`.
private func occursAsAttribute(_ name: ArraySlice<UInt8>, in document: [UInt8]) -> Bool {
  guard !name.isEmpty, document.count >= name.count else { return false }
  var start = 0
  while start + name.count <= document.count {
    if document[start] == name.first, sameBytes(document[start..<start + name.count], name) {
      var next = start + name.count
      while next < document.count, [0x20, 0x09, 0x0A, 0x0D].contains(document[next]) { next += 1 }
      if next < document.count, document[next] == UInt8(ascii: "=") { return true }
    }
    start += 1
  }
  return false
}

private func containsNil(_ document: [UInt8]) -> Bool {
  let text = String(decoding: document, as: UTF8.self)
  return text.contains("nil=") || text.contains("nil =") || text.contains("nil\n=")
    || text.contains("nil\t=")
    || text.contains("nil\r=")
}

private func check(_ outcome: Outcome, document: [UInt8]) {
  let positions = isPlainUTF8(document)
  var expected = 1
  var recordIndex = 0
  var skippedIndex = 0
  // Records and skipped records interleave in ordinal order.
  while recordIndex < outcome.records.count || skippedIndex < outcome.skipped.count {
    let location: RecordLocation
    if skippedIndex < outcome.skipped.count
      && (recordIndex == outcome.records.count
        || outcome.skipped[skippedIndex].location.ordinal
          < outcome.records[recordIndex].location.ordinal)
    {
      location = outcome.skipped[skippedIndex].location
      skippedIndex += 1
    } else {
      location = outcome.records[recordIndex].location
      recordIndex += 1
    }
    fuzzCheck(
      location.ordinal == expected, "ordinal \(location.ordinal) where \(expected) was next")
    expected += 1
    let offset = Int(location.byteOffset)
    fuzzCheck(
      offset >= 0 && offset < document.count,
      "a record at \(location) outside the \(document.count)-byte input")
    if positions {
      fuzzCheck(
        document[offset] == UInt8(ascii: "<"), "a record at \(location) does not start at a '<'")
      let breaks = lineBreaks(in: document, before: offset)
      fuzzCheck(
        location.line == breaks + 1, "a record at \(location): \(breaks) line breaks precede it")
    }
  }
  if let fatal = outcome.fatal {
    fuzzCheck(
      fatal.location.ordinal >= expected - 1,
      "a fatal error's ordinal \(fatal.location) after record \(expected - 1)")
    fuzzCheck(
      fatal.location.byteOffset >= 0
        && (!positions || fatal.location.byteOffset <= Int64(document.count)),
      "a fatal error at \(fatal.location) outside the \(document.count)-byte input")
    observe(fatal.message)
  }
  fuzzCheck(
    outcome.recordCount >= outcome.records.count + outcome.skipped.count,
    "recordCount \(outcome.recordCount)")

  // Attribute names are looked for in the input as the parser read it: a document in another
  // encoding (ISO-8859-1 `ô` is one byte, F4; the record holds its UTF-8, C3 B4) is compared
  // after Foundation decodes it as it says; one in an encoding this cannot decode is not checked.
  let plainDocument = isPlainUTF8(document) ? document : transcodedToUTF8(document)

  for record in outcome.records {
    // The text a rejects file keeps is one JSON document.
    let again = JSONRecordReader(
      source: MemoryByteSource(record.bytes), layout: .document, bufferSize: 4096)
    do {
      let copy = try again.next()
      fuzzCheck(
        copy.map { sameBytes($0.bytes, record.bytes) } ?? false,
        "record \(record.location) is not one JSON value")
    } catch {
      fuzzCheck(false, "record \(record.location) is not valid JSON: \(error)")
    }
    guard let tape = record.tape else {
      fuzzCheck(false, "an XML record without its tape")
      continue
    }
    // Nothing from a DTD: each attribute is written in the input, a null comes from xsi:nil.
    for index in tape.nodes.indices {
      let node = tape.nodes[index]
      if node.isKey, index < tape.sourceLines.count,
        tape.sourceLines[index] & attributeLineFlag != 0, let plainDocument
      {
        let name = tape.bytes[tape.textRange(of: index)]
        fuzzCheck(
          occursAsAttribute(name, in: plainDocument),
          "record \(record.location) has an attribute '\(String(decoding: name, as: UTF8.self))' the input does not write"
        )
      }
      if node.kind == .null {
        fuzzCheck(
          containsNil(document), "record \(record.location) holds a null, but the input no xsi:nil")
      }
    }
    observe(record.bytes)
  }
}

/// Whether a `<!DOCTYPE` declaration holds a `>` inside a quoted literal before its internal
/// subset (or its end).
private func hasQuotedGreaterThanInDoctype(_ document: [UInt8]) -> Bool {
  let marker = Array("<!DOCTYPE".utf8)
  guard document.count > marker.count else { return false }
  var start = 0
  while start + marker.count <= document.count {
    if document[start] == UInt8(ascii: "<"),
      sameBytes(document[start..<start + marker.count], marker[...])
    {
      var quote: UInt8 = 0
      var index = start + marker.count
      while index < document.count {
        let byte = document[index]
        if quote != 0 {
          if byte == quote { quote = 0 } else if byte == UInt8(ascii: ">") { return true }
        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
          quote = byte
        } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: ">") {
          break
        }
        index += 1
      }
    }
    start += 1
  }
  return false
}

// MARK: - Decoding

nonisolated(unsafe) private var decoders: [SluiceDecoder?] = [nil, nil]

private func decoder(reportingUnknown: Bool) -> SluiceDecoder {
  let index = reportingUnknown ? 1 : 0
  if let decoder = decoders[index] { return decoder }
  let decoder = SluiceDecoder(options: .init(reportsUnknownFields: reportingUnknown))
  decoders[index] = decoder
  return decoder
}

private func decode<T: Decodable>(
  _ type: T.Type, _ record: RawRecord, document: [UInt8], with decoder: SluiceDecoder,
  then use: (T) -> Void
) {
  var diagnostics = DecodeDiagnostics()
  func checkPlace(_ byteOffset: Int?, _ what: @autoclosure () -> String) {
    let place = record.location(at: byteOffset)
    fuzzCheck(
      place.byteOffset >= record.location.byteOffset && place.byteOffset <= Int64(document.count),
      "\(T.self): \(what()) at \(place), record at \(record.location), \(document.count)-byte input"
    )
    fuzzCheck(
      place.line >= record.location.line,
      "\(T.self): \(what()) on line \(place.line), before its record")
    observe(place.line)
  }
  do {
    let value = try decoder.decode(type, from: record, diagnostics: &diagnostics)
    for finding in diagnostics.unknownFields {
      checkPlace(finding.byteOffset, "unknown field \(finding.path)")
      observe(finding.path)
    }
    use(value)
  } catch {
    checkPlace(error.byteOffset, "\(error)")
    observe(error.code.rawValue)
    observe(error.path)
  }
}

private func decodeAll(_ outcome: Outcome, document: [UInt8], dto: Int, reportingUnknown: Bool) {
  let decoder = decoder(reportingUnknown: reportingUnknown)
  for record in outcome.records {
    guard let tape = record.tape else { continue }
    let raw = RawRecord(location: record.location, tape: tape)
    switch dto {
    case 0:
      decode(OrderDTO.self, raw, document: document, with: decoder) { order in
        let dataset = OrdersDataset()
        var validation = Validation()
        dataset.validate(order, into: &validation)
        observe(validation.failures.count)
        do throws(MappingError) {
          let mapped = try dataset.map(order)
          var rows = RecordRows()
          dataset.rows(for: mapped, into: &rows)
          observe(rows.count)
        } catch {
          observe(error.code.rawValue)
        }
      }
    case 1:
      decode(StackExchange.PostDTO.self, raw, document: document, with: decoder) { post in
        let dataset = StackExchangePostsDataset()
        var validation = Validation()
        dataset.validate(post, into: &validation)
        observe(validation.failures.count)
        do throws(MappingError) {
          let mapped = try dataset.map(post)
          var rows = RecordRows()
          dataset.rows(for: mapped, into: &rows)
          observe(rows.count)
        } catch {
          observe(error.code.rawValue)
        }
      }
    case 2:
      decode(StackExchange.TagDTO.self, raw, document: document, with: decoder) { observe($0.id) }
    default:
      decode(FruitDTO.self, raw, document: document, with: decoder) { observe($0.recipes.count) }
    }
  }
}

// MARK: - Entry point

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLReader(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let input = fuzzBytes(start, count)
  guard let control = input.first else { return 0 }
  let document = Array(input.dropFirst())
  let path = paths[Int(control & 3)]
  let chunk = chunkSizes[Int(control >> 2) & 3]
  let defaultLimits = control & 0x10 == 0
  let limits = defaultLimits ? XMLRecordReader.Limits() : smallLimits

  let outcome = readAll(document, path: path, limits: limits, chunk: chunk)
  check(outcome, document: document)
  decodeAll(
    outcome, document: document, dto: Int(control >> 5) & 3, reportingUnknown: control & 0x80 != 0)

  // How the input is chunked must not change what is read. (With small limits, whether a long
  // start tag is seen before libxml2 parses it depends on the slices: not compared. Nor is a
  // document whose DOCTYPE holds a quoted `>` before its internal subset: libxml2 2.9's push
  // parser looks for the DOCTYPE's end with a plain search for `>`, and parses it too early
  // when the quoted one is the last it has — a syntax error with small chunks only.)
  if defaultLimits && chunk != chunkSizes[0] && !hasQuotedGreaterThanInDoctype(document) {
    let reference = readAll(document, path: path, limits: limits, chunk: chunkSizes[0])
    fuzzCheck(
      Outcome.sameOutcome(outcome, reference),
      "chunk \(chunk) read \(outcome.records.count) records, \(outcome.skipped), \(String(describing: outcome.fatal)); 32 KiB read \(reference.records.count), \(reference.skipped), \(String(describing: reference.fatal))"
    )
  }
  return 0
}
