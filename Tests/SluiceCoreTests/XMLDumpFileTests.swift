import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// What legacy dump files (Stack Exchange's among them) need of the XML reader: a UTF-8 byte
/// order mark before the declaration, read from a file, where the input's first read hands the
/// reader only the two bytes it peeked at for gzip's magic; and attribute values holding escaped
/// HTML, whose `&amp;` must arrive as `&`.
@Suite struct XMLDumpFileTests {
  static let body = "<tags>\r\n  <row Id=\"1\" TagName=\"a\" />\r\n  <row Id=\"2\" TagName=\"b\" />\r\n</tags>"

  static let documents: [(name: String, text: String)] = [
    ("bom-and-declaration", "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n" + body),
    ("bom-only", "\u{FEFF}" + body),
    ("declaration-only", "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n" + body),
  ]

  @Test(arguments: documents.map(\.name), [false, true])
  func recordsAfterAByteOrderMarkAreRead(document: String, gzip: Bool) throws {
    let text = try #require(Self.documents.first { $0.name == document }).text
    let directory = try TemporaryDirectory()
    let path = try directory.write("tags.xml", gzip ? Gzip.compress(text) : Array(text.utf8))
    let reader = XMLRecordReader(source: try Input(path: path), path: ["tags", "row"])
    var records: [RawRecord] = []
    while let record = try reader.next() { records.append(record) }
    #expect(records.count == 2)
    #expect(records.map(\.location.ordinal) == [1, 2])
    let firstLine = text.hasPrefix("\u{FEFF}<tags>") ? 2 : 3
    #expect(records.map(\.location.line) == [firstLine, firstLine + 1])
    #expect(records.first.map { String(decoding: $0.bytes, as: UTF8.self) }?.contains("\"TagName\"") == true)
  }
}

extension XMLDumpFileTests {
  struct Row: Decodable, Equatable {
    var text: String
    var title: String
    var id: Int
  }

  /// Every way a document can write `&` in an attribute, next to the other references.
  @Test(arguments: [
    ("Q&amp;A", "Q&A"), ("&#38; &#x26;", "& &"), ("&lt;p&gt;R&amp;amp;D&lt;/p&gt;", "<p>R&amp;D</p>"),
    ("&amp;#38;", "&#38;"), ("a&#xA;b &quot;c&apos;", "a\nb \"c'"), ("&amp;&amp;&amp;", "&&&"),
    ("no escapes", "no escapes"),
  ])
  func attributeValuesDecodeEveryEscapedAmpersand(written: String, decoded: String) throws {
    let directory = try TemporaryDirectory()
    let document =
      "\u{FEFF}<?xml version=\"1.0\"?>\n<rows><row id=\"7\" text=\"\(written)\"><title>\(written)</title></row></rows>"
    let reader = XMLRecordReader(
      source: try Input(path: try directory.write("rows.xml", document)), path: ["rows", "row"])
    let record = try #require(try reader.next())
    var diagnostics = DecodeDiagnostics()
    let row = try SluiceDecoder().decode(Row.self, from: record, diagnostics: &diagnostics)
    // The attribute and the element text of the same escapes decode alike.
    #expect(row == Row(text: decoded, title: decoded, id: 7))
  }
}
