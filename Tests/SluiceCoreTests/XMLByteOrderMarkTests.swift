import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// A UTF-8 byte order mark before the XML declaration — how every Stack Exchange dump file
/// starts — read from a file, where the input's first read hands the reader only the two bytes
/// it peeked at for gzip's magic.
@Suite struct XMLByteOrderMarkTests {
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
