import Foundation
import Testing

@_spi(Internals) @testable import SluiceCore

/// The checkpoint's JSON encoder: what it writes is JSON any parser reads (Foundation's, here),
/// `SluiceDecoder` reads it back exactly, the text does not depend on a dictionary's order, and
/// what it cannot write faithfully is refused.
@Suite("State JSON encoder: the checkpoint's JSON, read back exactly")
struct StateJSONEncoderTests {
  enum Kind: String, Codable, Equatable {
    case plain
    case odd = "o\"dd"
  }

  enum Shape: Codable, Equatable {
    case point
    case circle(radius: Double)
    case labelled(String, Int)
  }

  struct Inner: Codable, Equatable {
    var name: String
    var counts: [String: Int]
    var byInput: [Int: String]
    var missing: Int?
    var present: Int?
  }

  struct Sample: Codable, Equatable {
    var text: String
    var integers: [Int64]
    var unsigned: UInt64
    var doubles: [Double]
    var flag: Bool
    var kind: Kind
    var shapes: [Shape]
    var inner: Inner
    var nested: [[Inner]]
    var empty: [String]
    var emptyObject: [String: Int]
    var optionalArray: [Int?]
    var dates: [Date]
  }

  static let sample = Sample(
    text: "quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} é 🙂 \u{2028} end",
    integers: [0, -1, Int64.min, Int64.max],
    unsigned: UInt64.max,
    doubles: [
      0, -0.0, 0.1, 1.0 / 3, 1e300, .leastNonzeroMagnitude, -2.5e-7, 1_723_456_789.123_456_7, 4_503_599_627_370_497,
    ],
    flag: true, kind: .odd,
    shapes: [.point, .circle(radius: 2.25), .labelled("a\"b", -3)],
    inner: Inner(
      name: "", counts: ["b": 2, "a": 1, "ä": 3], byInput: [10: "ten", 2: "two"], missing: nil, present: 0),
    nested: [[], [Inner(name: "x", counts: [:], byInput: [:], missing: nil, present: nil)]],
    empty: [], emptyObject: [:], optionalArray: [1, nil, 3],
    dates: [
      Date(timeIntervalSinceReferenceDate: 786_345_123.456_789), Date(timeIntervalSince1970: 0),
      Date(timeIntervalSince1970: -1.25),
    ])

  @Test func whatItWritesIsJSONThatSluiceDecoderAndFoundationReadBackExactly() throws {
    let text = try StateJSONEncoder.encode(Self.sample)
    #expect(try JSONDecoder().decode(Sample.self, from: Data(text.utf8)) == Self.sample)
    let reader = JSONRecordReader(source: MemoryByteSource(Array(text.utf8)), layout: .document)
    let record = try #require(try reader.next())
    var diagnostics = DecodeDiagnostics()
    var options = SluiceDecoder.Options(dateFormats: [])
    options.datesAsReferenceSeconds = true
    let decoded = try SluiceDecoder(options: options).decode(Sample.self, from: record, diagnostics: &diagnostics)
    #expect(decoded == Self.sample)
    #expect(diagnostics.unknownFields.isEmpty)
    // Bit for bit: -0.0 keeps its sign, and every double and date its last bit.
    #expect(zip(decoded.doubles, Self.sample.doubles).allSatisfy { $0.bitPattern == $1.bitPattern })
    #expect(
      zip(decoded.dates, Self.sample.dates).allSatisfy {
        $0.timeIntervalSinceReferenceDate.bitPattern == $1.timeIntervalSinceReferenceDate.bitPattern
      })
  }

  @Test func keysAreSortedAndNilsLeftOutAsJSONEncoderDoes() throws {
    let text = try StateJSONEncoder.encode(Self.sample.inner)
    #expect(text == #"{"byInput":{"10":"ten","2":"two"},"counts":{"a":1,"b":2,"ä":3},"name":"","present":0}"#)
    let foundation = JSONEncoder()
    foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    #expect(text == String(decoding: try foundation.encode(Self.sample.inner), as: UTF8.self))
  }

  @Test func controlCharactersAreEscapedAndTheRestWrittenAsUTF8() throws {
    #expect(try StateJSONEncoder.encode("a\u{1}\u{1f}\r/é") == #""a\u0001\u001f\r/é""#)
  }

  @Test func valuesItCannotWriteFaithfullyAreRefusedWithTheirPath() throws {
    struct Blob: Encodable { var at = [Data([1])] }
    #expect {
      try StateJSONEncoder.encode(Blob())
    } throws: { error in
      guard case EncodingError.invalidValue(_, let context) = error else { return false }
      return context.codingPath.map(\.stringValue) == ["at", "0"]
    }
    #expect(throws: EncodingError.self) { try StateJSONEncoder.encode(["x": Double.nan]) }
    #expect(throws: EncodingError.self) { try StateJSONEncoder.encode([Double.infinity]) }
    #expect(throws: EncodingError.self) { try StateJSONEncoder.encode(Decimal(1)) }
    #expect(throws: EncodingError.self) { try StateJSONEncoder.encode(URL(string: "file:///x")) }
  }
}
