import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// The JSON readers' scan makes each record's tape nodes as it validates the record
/// (`JSONScanner`), so the decoder does not tokenize the bytes a second time. They must be the
/// nodes `RecordTape.tokenize` makes of the same bytes, node for node — every tag, flag, start and
/// end — whatever the buffer's refills cut through, or the decoder reads other values than before.
@Suite("Tape nodes made by the JSON scan")
struct ScannedTapeTests {
  /// The nodes the tape makes of the record's bytes by tokenizing them.
  private func tokenized(_ record: RawRecord) throws -> [RecordTape.Node] {
    var tape = RecordTape()
    try tape.loadJSON(record.bytes)
    return tape.nodes
  }

  private func records(_ text: [UInt8], layout: JSONRecordReader.Layout, chunk: Int) throws -> [RawRecord] {
    try JSONRecordReader(source: MemoryByteSource(text, chunk: chunk), layout: layout).readAll()
  }

  /// Records with every kind of node and the bytes that trip a scan: escapes (in keys too),
  /// multi-byte UTF-8, numbers in every form, literals, empty and nested containers, whitespace
  /// everywhere, and a key that repeats (the sweep's, not the scan's, to refuse).
  static let array = Array(
    #"""
     [ {"id":"a\"b","n":-0.5e+3,"t":true,"f":false,"z":null,"e":{},"l":[],"u":"ünï 🦆 \u00e9\ud83e\udd86"},
      {"k\u0065y" : [ 1 , [2,[3, {"x" : "y"}]], {"":""} ] ,"big":123456789012345678901234567890, "d": 1E-7},
      "plain", 0, [], {}, [[[[]]]], {"a":{"b":{"c":{"d":"e"}}}}, {"dup":1,"dup":2},
      {"orderId":"0000000001","amount":5923206,"currency":"USD","items":[{"sku":"SKU-97100","qty":4,"priceMinor":222160}]}
     ]
    """#.utf8)

  @Test(arguments: [1, 2, 3, 7, 64, 4_096])
  func eachArrayElementsNodesAreThoseTheTapeTokenizes(chunk: Int) throws {
    let records = try records(Self.array, layout: .array(path: []), chunk: chunk)
    #expect(records.count == 10)
    for record in records {
      let scanned = try #require(record.tapeNodes, "record \(record.location.ordinal) came without nodes")
      #expect(scanned == (try tokenized(record)), "record \(record.location.ordinal), chunk \(chunk)")
    }
  }

  /// The scan's plain-run test, eight bytes at a time, finds the first byte that ends a string's
  /// plain run — every byte value at every place among plain bytes, and behind another special
  /// byte — as the byte-by-byte test would.
  @Test func theEightByteTestFindsTheFirstByteThatEndsAPlainRun() {
    func isSpecial(_ byte: UInt8) -> Bool {
      byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80
    }
    func firstSpecial(_ bytes: [UInt8]) -> Int? {
      let word = bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
      let special = JSONScanner.specialBytes(word)
      return special == 0 ? nil : special.trailingZeroBitCount / 8
    }
    var wrong: [String] = []
    for value in 0...255 {
      for place in 0..<8 {
        for after in [UInt8(ascii: "a"), 0x00, 0x22, 0xFF, 0x21, 0x5B] {
          var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
          bytes[place] = UInt8(value)
          if place < 7 { bytes[place + 1] = after }
          let expected = bytes.firstIndex(where: isSpecial)
          if firstSpecial(bytes) != expected { wrong.append("\(value) at \(place) before \(after)") }
        }
      }
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(5))")
  }

  /// NDJSON lines get their nodes from the same scan: the value's, not the line's whitespace.
  @Test(arguments: [1, 3, 4_096])
  func eachNDJSONLinesNodesAreThoseTheTapeTokenizes(chunk: Int) throws {
    let text = Array(
      "  {\"a\": [1, {\"b\": \"c\\n\"}]}  \n\n[true,false,null]\n\"x\"\t\n{\"ü\":-1.5e3}".utf8)
    let records = try records(text, layout: .lines, chunk: chunk)
    #expect(records.count == 4)
    for record in records {
      let scanned = try #require(record.tapeNodes, "line \(record.location.line) came without nodes")
      #expect(scanned == (try tokenized(record)), "line \(record.location.line), chunk \(chunk)")
    }
  }

  /// Every JSON document of JSONTestSuite that the reader accepts, one document each.
  @Test(arguments: [1, 5, 4_096])
  func everyAcceptedJSONTestSuiteDocumentGetsTheTokenizedNodes(chunk: Int) throws {
    var compared = 0
    for path in Corpus.files(in: "jsontestsuite/test_parsing") + Corpus.files(in: "jsontestsuite/test_transform") {
      let text = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      guard let records = try? records(text, layout: .document, chunk: chunk), let record = records.first else {
        continue
      }
      guard let nodes = try? tokenized(record) else {
        // The tape refuses what it cannot hold (nesting past its depth); the scan's nodes, if
        // any, must then not be what the decoder takes instead of that refusal.
        #expect(record.tapeNodes == nil || record.tapeNodes?.isEmpty == false)
        continue
      }
      #expect(record.tapeNodes == nodes, "\((path as NSString).lastPathComponent), chunk \(chunk)")
      compared += 1
    }
    #expect(compared > 100)
  }

  /// A record whose tape would pass the scan's limit is tokenized by the tape instead, which
  /// allocates its nodes once at their counted size; a record whose bytes change after the scan
  /// (a keyed collection's name added) loses its nodes.
  @Test func aHugeRecordOrAChangedOneIsTokenizedInstead() throws {
    let elements = Array(repeating: "0", count: JSONScanner.tapeNodeLimit + 1).joined(separator: ",")
    let huge = try records(Array("[[\(elements)],[1]]".utf8), layout: .array(path: []), chunk: 1 << 16)
    #expect(huge.count == 2)
    #expect(huge[0].tapeNodes == nil)
    #expect(huge[1].tapeNodes == (try tokenized(huge[1])))
    var changed = huge[1]
    changed.bytes = Array("[2]".utf8)
    #expect(changed.tapeNodes == nil)
  }

  /// Decoding with the scanned nodes gives what decoding the bytes alone gives.
  @Test func decodingTheScannedNodesReadsTheSameValues() throws {
    let records = try records(Self.array, layout: .array(path: []), chunk: 3)
    for record in records {
      var diagnostics = DecodeDiagnostics()
      var bytesOnly = RawRecord(location: record.location, bytes: record.bytes)
      bytesOnly.tapeNodes = nil
      let scanned = try? SluiceDecoder().decode(JSONValue.self, from: record, diagnostics: &diagnostics)
      let tokenized = try? SluiceDecoder().decode(JSONValue.self, from: bytesOnly, diagnostics: &diagnostics)
      #expect(scanned == tokenized, "record \(record.location.ordinal)")
    }
  }
}
