import Foundation
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// What the XML reader's fast paths (issue 43) must keep: names and values of every length
/// around the tape builder's short copies (1, 2, 4, 8, 16 and 32 bytes), with and without a
/// character JSON escapes, split by entities and across the parser's slices, read from a real
/// file, come out as the exact JSON text; each element's node sits at its `<` (offset and line);
/// and names that are prefixes of one another, or `#text`, are told apart when arrays are read.
@Suite struct XMLTapeCopyTests {
  /// A name of `length` bytes, unlike any other length's.
  static func name(_ length: Int) -> String { "n" + String(repeating: "a", count: length - 1) }

  /// Text of `length` characters as XML writes it and as the tape's JSON text must hold it.
  /// With `escape`, one character in it (at the start, the middle or the end, by length) is one
  /// JSON escapes; an entity reference splits every value in two for libxml2's callbacks.
  static func text(_ length: Int, escape: Bool, attribute: Bool) -> (xml: String, json: String) {
    var xml = ""
    var json = ""
    let escapes: [(xml: String, json: String)] =
      attribute
      ? [("&quot;", "\\\""), ("\\", "\\\\")] : [("\"", "\\\""), ("\\", "\\\\"), ("\n", "\\n"), ("\t", "\\t")]
    let escapedAt = escape ? [0, length / 2, length - 1][length % 3] : -1
    for index in 0..<length {
      if index == escapedAt {
        let pick = escapes[length % escapes.count]
        xml += pick.xml
        json += pick.json
      } else if index == length / 3 {
        xml += "&lt;"
        json += "<"
      } else {
        let digit = String(index % 10)
        xml += digit
        json += digit
      }
    }
    return (xml, json)
  }

  static let lengths = Array(0...40) + [63, 64, 65, 200]

  /// One record per length: `<rec a="…">` on one line, its child `<naa…>…` on the next.
  static func document(escape: Bool) -> (xml: String, records: [String]) {
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<r>\n"
    var records: [String] = []
    for length in lengths {
      let attribute = text(length, escape: escape, attribute: true)
      let value = text(length, escape: escape, attribute: false)
      let name = name(max(1, length))
      xml += "<rec a=\"\(attribute.xml)\">\n<\(name)>\(value.xml)</\(name)></rec>\n"
      records.append("{\"a\":\"\(attribute.json)\",\"\(name)\":\"\(value.json)\"}")
    }
    return (xml + "</r>\n", records)
  }

  @Test(arguments: [false, true], [1, 7, 4096, 1 << 15])
  func namesAndValuesOfEveryLengthAreCopiedExactly(escape: Bool, chunkSize: Int) throws {
    let (xml, expected) = Self.document(escape: escape)
    let directory = try TemporaryDirectory()
    let path = try directory.write("records.xml", xml)
    let reader = XMLRecordReader(source: try Input(path: path), path: ["r", "rec"], chunkSize: chunkSize)
    let bytes = Array(xml.utf8)
    var records: [RawRecord] = []
    while let record = try reader.next() { records.append(record) }
    #expect(records.map { String(decoding: $0.bytes, as: UTF8.self) } == expected)
    // Each record at its `<rec`, its child's key at `<naa…`, one line below.
    let starts = Self.offsets(of: "<rec ", in: bytes)
    #expect(records.map(\.location.byteOffset) == starts.map(Int64.init))
    for (record, start) in zip(records, starts) {
      let tape = try #require(record.tape)
      let child = Self.offsets(of: "\n<n", in: Array(bytes[start...])).first.map { $0 + 1 }
      #expect(tape.sourcePosition(of: 3)?.offset == child)
      #expect(tape.sourcePosition(of: 3)?.lines == 1)
      #expect(tape.sourcePosition(of: 1)?.offset == 0)
    }
  }

  static func offsets(of needle: String, in bytes: [UInt8]) -> [Int] {
    let pattern = Array(needle.utf8)
    guard bytes.count >= pattern.count else { return [] }
    return (0...(bytes.count - pattern.count)).filter { bytes[$0..<$0 + pattern.count].elementsEqual(pattern) }
  }
}

extension XMLTapeCopyTests {
  struct Prefixes: Decodable, Equatable {
    var a: [Int]
    var ab: Int
    var abc: [Int]
    var list: [Int]
  }

  /// `a`, `ab` and `abc` share their first bytes; `list` has an attribute and its own text
  /// (`#text`) besides its items, neither of which is one.
  @Test func namesThatArePrefixesOfOneAnotherAreDifferentKeys() throws {
    let xml = """
      <r><rec><a>1</a><ab>2</ab><a>3</a><abc><x>4</x><x>5</x></abc>\
      <list kind="k">note<i>6</i><i>7</i></list></rec></r>
      """
    let directory = try TemporaryDirectory()
    let reader = XMLRecordReader(source: try Input(path: try directory.write("prefixes.xml", xml)), path: ["r", "rec"])
    let record = try #require(try reader.next())
    var diagnostics = DecodeDiagnostics()
    let value = try SluiceDecoder().decode(Prefixes.self, from: record, diagnostics: &diagnostics)
    #expect(value == Prefixes(a: [1, 3], ab: 2, abc: [4, 5], list: [6, 7]))
  }
}
