import Foundation
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

/// The tape's memory and the positions it derives instead of storing.
@Suite("Record tape")
struct RecordTapeTests {
  private func tape(_ json: String) throws -> RecordTape {
    var tape = RecordTape()
    try tape.loadJSON(Array(json.utf8))
    return tape
  }

  @Test func aNodeIsOneWordSoTheTapeIsAtMostTwiceTheRecord() throws {
    #expect(MemoryLayout<RecordTape.Node>.stride == 4)
    // Two bytes per value, the densest JSON there is: one node each, four bytes per node.
    let zeros = "[" + Array(repeating: "0", count: 100_000).joined(separator: ",") + "]"
    let dense = try tape(zeros)
    #expect(dense.nodes.count == 100_001)
    #expect(dense.nodes.count * MemoryLayout<RecordTape.Node>.stride <= 2 * zeros.utf8.count + 4)
    let brackets = "[" + Array(repeating: "[[{}]]", count: 10_000).joined(separator: ",") + "]"
    let nested = try tape(brackets)
    #expect(nested.nodes.count * MemoryLayout<RecordTape.Node>.stride <= 2 * brackets.utf8.count)
  }

  @Test func bigRecordsGetTheirNodeArrayAtItsFinalSize() throws {
    let zeros = "[" + Array(repeating: "0", count: 600_000).joined(separator: ",") + "]"
    let big = try tape(zeros)
    #expect(big.nodes.count == 600_001)
    #expect(big.nodes.capacity < 600_001 + 600_001 / 8)
    #expect(Array(zeros.utf8).withUnsafeBufferPointer { RecordTape.nodeCount($0) } == 600_001)
  }

  @Test func nodeCountMatchesTheTokenizer() throws {
    let samples = [
      #"{"a": [1, -2.5e+3, "x\"]y", true, false, null], "b": {"c": {}, "d": []}, "e\\": "\u00e9"}"#,
      #"[[], {}, [[["nested"]]], 0, "", {"k": null}]"#,
      #""just a string""#,
      "  42  ",
    ]
    for json in samples {
      let counted = Array(json.utf8).withUnsafeBufferPointer { RecordTape.nodeCount($0) }
      #expect(counted == (try tape(json)).nodes.count, "\(json)")
    }
  }

  @Test func containerStartsAreTheirOpeningBrackets() throws {
    let json = #" { "a" : [ 1 , [ ] , { "b" : "]{[" } ] , "c" : { } , "d" : [ [ [ 2 ] ] ] } "#
    let tape = try tape(json)
    let bytes = Array(json.utf8)
    // Opening brackets outside strings, in document order.
    var brackets: [Int] = []
    var inString = false
    for (index, byte) in bytes.enumerated() {
      if byte == UInt8(ascii: "\"") { inString.toggle() }
      if !inString && (byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{")) { brackets.append(index) }
    }
    let containers = tape.nodes.indices.filter { tape.nodes[$0].isContainer }
    #expect(containers.map { tape.start(of: $0) } == brackets)
  }

  @Test func scalarTextsAreFoundAgainFromTheirStarts() throws {
    let tape = try tape(#"{"k\"ey": "va\\l\"ue", "n": -12.5e-3, "t": true, "f": false, "z": null, "e": ""}"#)
    let texts = tape.nodes.indices.filter { !tape.nodes[$0].isContainer }.map {
      String(decoding: tape.bytes[tape.textRange(of: $0)], as: UTF8.self)
    }
    #expect(texts == [#"k\"ey"#, #"va\\l\"ue"#, "n", "-12.5e-3", "t", "true", "f", "false", "z", "null", "e", ""])
  }

  @Test func decoderGivesBackAHugeRecordsStorage() throws {
    struct Small: Decodable { var id: String }
    let decoder = SluiceDecoder()
    var diagnostics = DecodeDiagnostics()
    let big = #"{"id": "x", "junk": ["# + Array(repeating: "0", count: 1_500_000).joined(separator: ",") + "]}"
    let raw = RawRecord(location: RecordLocation(ordinal: 1, byteOffset: 0, line: 1), bytes: Array(big.utf8))
    let value = try decoder.decode(Small.self, from: raw, diagnostics: &diagnostics)
    #expect(value.id == "x")
    #expect(diagnostics.unknownFields.map(\.path) == ["junk"])
    // Nothing the size of the record stays with the decoder after it.
    #expect(decoder.state.tape.bytes.isEmpty)
    #expect(decoder.state.tape.nodes.capacity <= RecordTape.retainedNodeCapacity)
  }

  @Test func errorsAtContainersPointAtTheirBrackets() throws {
    struct Inner: Decodable { var needed: Int }
    struct Outer: Decodable {
      var list: [Int]
      var inner: Inner
    }
    let json = #"{"list": [1, 2], "inner":   {"other": 1}}"#
    var diagnostics = DecodeDiagnostics()
    let raw = RawRecord(location: RecordLocation(ordinal: 1, byteOffset: 0, line: 1), bytes: Array(json.utf8))
    #expect {
      try SluiceDecoder().decode(Outer.self, from: raw, diagnostics: &diagnostics)
    } throws: { error in
      guard let error = error as? RecordDecodingError else { return false }
      let brace = json.utf8.count - 13
      return error.code == .missingField && error.path == "inner.needed" && error.byteOffset == brace
    }
  }
}
