import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

// XML records through `SluiceDecoder`, convention by convention (see `DecodingState+XML` and the
// README): attributes and children are fields, arrays are repeated siblings or a wrapper's
// children, an empty element is absent, text with attributes is under `#text`, CDATA is text,
// entities and character references are decoded, namespaces match by local name, and declared
// encodings decode. A failure names its code, its field path and, through the record, the byte
// offset and line of the element at fault.

// MARK: - DTOs

private struct Line: Decodable, Equatable {
  var sku: String
  var qty: Int
}

private struct Order: Decodable, Equatable {
  var id: Int
  var status: String
  var customer: String
  var total: Decimal
}

private struct Lines: Decodable, Equatable {
  var lines: [Line]
}

private struct RepeatedLines: Decodable, Equatable {
  var line: [Line]
}

private struct Tags: Decodable, Equatable {
  var tags: [String]
}

private struct Part: Decodable, Equatable {
  var sku: String
}

private struct Parts: Decodable, Equatable {
  var part: [Part]
}

private struct Name: Decodable, Equatable {
  var name: String
}

private struct Names: Decodable, Equatable {
  var names: [Name]
}

private struct Address: Decodable, Equatable {
  var city: String
}

private struct Optionals: Decodable, Equatable {
  var note: String?
  var count: Int?
  var address: Address?
  var lines: [Line]?
}

private struct Required<Value: Decodable & Equatable>: Decodable, Equatable {
  var value: Value
}

private struct Price: Decodable, Equatable {
  var currency: String
  var amount: Decimal?

  enum CodingKeys: String, CodingKey {
    case currency
    case amount = "#text"
  }
}

private struct Priced: Decodable, Equatable {
  var price: Price
}

private struct Text: Decodable, Equatable {
  var text: String
}

private struct Labelled: Decodable, Equatable {
  var label: String
  var text: String
}

private enum Status: String, Decodable {
  case pending, paid
}

private enum Level: Int, Decodable {
  case low = 1
  case high = 2
}

private struct Scalars: Decodable, Equatable {
  var int: Int
  var negative: Int64
  var small: UInt8
  var double: Double
  var decimal: Decimal
  var flag: Bool
  var date: Date
  var status: Status
  var level: Level
}

/// The orders export's shape (issue 10): `orderId` an attribute, `customer` with an `id`
/// attribute, `items` a wrapper.
private struct OrderDTO: Decodable, Equatable {
  let identifier: String
  let amountMinor: Int64
  let currency: String
  let status: String
  let createdAt: Date
  let customer: CustomerDTO
  let items: [OrderItemDTO]

  enum CodingKeys: String, CodingKey {
    case identifier = "orderId"
    case amountMinor = "amount"
    case currency, status, createdAt, customer, items
  }
}

private struct CustomerDTO: Decodable, Equatable {
  let id: Int64
  let name: String
}

private struct OrderItemDTO: Decodable, Equatable {
  let sku: String
  let qty: Int
  let priceMinor: Int64
}

// MARK: - Helpers

/// The first record of `document` (records at `r.rec` unless said otherwise).
private func firstRecord(_ document: [UInt8], path: [String] = ["r", "rec"], chunkSize: Int = 1 << 15) throws
  -> RawRecord
{
  let reader = XMLRecordReader(source: MemoryByteSource(document, chunk: chunkSize), path: path, chunkSize: chunkSize)
  return try #require(try reader.next())
}

/// `record` wrapped in `<r>…</r>`, so the record is `<rec>` on line 2.
private func document(_ record: String) -> [UInt8] {
  Array("<r>\n\(record)\n</r>\n".utf8)
}

private func decode<T: Decodable>(
  _ type: T.Type, _ record: String, options: SluiceDecoder.Options = .init()
) throws -> (value: T, diagnostics: DecodeDiagnostics) {
  try decode(type, bytes: document(record), options: options)
}

private func decode<T: Decodable>(
  _ type: T.Type, bytes: [UInt8], path: [String] = ["r", "rec"], chunkSize: Int = 1 << 15,
  options: SluiceDecoder.Options = .init()
) throws -> (value: T, diagnostics: DecodeDiagnostics) {
  let raw = try firstRecord(bytes, path: path, chunkSize: chunkSize)
  var diagnostics = DecodeDiagnostics()
  let value = try SluiceDecoder(options: options).decode(type, from: raw, diagnostics: &diagnostics)
  return (value, diagnostics)
}

private func value<T: Decodable>(_ type: T.Type, _ record: String) throws -> T {
  try decode(type, record).value
}

/// The location of the `occurrence`-th `needle` in `bytes`: where an issue should point.
private func location(of needle: String, in bytes: [UInt8], occurrence: Int = 1) -> (byteOffset: Int64, line: Int) {
  let pattern = Array(needle.utf8)
  var seen = 0
  for start in 0...(bytes.count - pattern.count) where bytes[start..<start + pattern.count].elementsEqual(pattern) {
    seen += 1
    if seen == occurrence {
      return (Int64(start), 1 + bytes[..<start].count { $0 == UInt8(ascii: "\n") })
    }
  }
  preconditionFailure("\(needle) does not occur \(occurrence) times")
}

/// Decodes `record`, expects it to fail, and checks the code, the path and — through the
/// record, as the pipeline reports it — the byte offset and line of the element `at` names.
@discardableResult
private func expectFailure<T: Decodable>(
  _ type: T.Type, _ record: String, options: SluiceDecoder.Options = .init(),
  code: IssueCode, path: String, at needle: String, occurrence: Int = 1,
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> RecordDecodingError? {
  let bytes = document(record)
  let raw = try firstRecord(bytes)
  var diagnostics = DecodeDiagnostics()
  do {
    _ = try SluiceDecoder(options: options).decode(type, from: raw, diagnostics: &diagnostics)
    Issue.record("decoded \(record) into \(T.self); expected \(code) at \(path)", sourceLocation: sourceLocation)
    return nil
  } catch {
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.path == path, "\(error)", sourceLocation: sourceLocation)
    let expected = location(of: needle, in: bytes, occurrence: occurrence)
    let found = raw.location(at: error.byteOffset)
    #expect(found.byteOffset == expected.byteOffset, "\(error)", sourceLocation: sourceLocation)
    #expect(found.line == expected.line, "\(error)", sourceLocation: sourceLocation)
    #expect(found.ordinal == 1, sourceLocation: sourceLocation)
    return error
  }
}

// MARK: - Tests

@Suite("XML decoding: the conventions, paths and locations")
struct XMLDecodingTests {
  // MARK: Attributes and children

  @Test func attributesAndChildElementsAreBothFieldsByName() throws {
    let (order, diagnostics) = try decode(
      Order.self, #"<rec id="7" status="paid"><customer>Ann</customer><total>12.50</total></rec>"#)
    #expect(order == Order(id: 7, status: "paid", customer: "Ann", total: Decimal(string: "12.50")!))
    #expect(diagnostics.unknownFields.isEmpty)
    #expect(diagnostics.coercions == 0)
  }

  @Test func theOrdersExportDecodesIntoTheSameDTOAsItsJSON() throws {
    let xml = """
      <orders>
      <order orderId="0000000000"><amount>311169</amount><currency>EUR</currency><status>pending</status><createdAt>2023-01-01T00:00:40Z</createdAt><customer id="194394"><name>Priya Schmidt</name></customer><items><item><sku>SKU-96530</sku><qty>2</qty><priceMinor>88795</priceMinor></item></items></order>
      <order orderId="0000000001"><amount>5</amount><currency>EUR</currency><status>paid</status><createdAt>2023-01-01T00:00:41.5Z</createdAt><customer id="7"><name>Ann &amp; Bo</name></customer><items><item><sku>A</sku><qty>1</qty><priceMinor>2</priceMinor></item><item><sku>B</sku><qty>3</qty><priceMinor>1</priceMinor></item></items></order>
      </orders>
      """
    let json = """
      [{"orderId":"0000000000","amount":311169,"currency":"EUR","status":"pending","createdAt":"2023-01-01T00:00:40Z","customer":{"id":194394,"name":"Priya Schmidt"},"items":[{"sku":"SKU-96530","qty":2,"priceMinor":88795}]},
      {"orderId":"0000000001","amount":5,"currency":"EUR","status":"paid","createdAt":"2023-01-01T00:00:41.5Z","customer":{"id":7,"name":"Ann & Bo"},"items":[{"sku":"A","qty":1,"priceMinor":2},{"sku":"B","qty":3,"priceMinor":1}]}]
      """
    let decoder = SluiceDecoder()
    var diagnostics = DecodeDiagnostics()
    func all(_ reader: any RecordReader) throws -> [OrderDTO] {
      var orders: [OrderDTO] = []
      while let raw = try reader.next() {
        orders.append(try decoder.decode(OrderDTO.self, from: raw, diagnostics: &diagnostics))
      }
      return orders
    }
    let fromXML = try all(XMLRecordReader(source: MemoryByteSource(xml), path: ["orders", "order"]))
    let fromJSON = try all(JSONRecordReader(source: MemoryByteSource(json), layout: .array(path: [])))
    #expect(fromXML.count == 2)
    #expect(fromXML == fromJSON)
    #expect(fromXML[1].items.map(\.sku) == ["A", "B"])
    #expect(diagnostics.unknownFields.isEmpty)
    #expect(diagnostics.coercions == 0)
  }

  // MARK: Arrays

  @Test func aWrappersChildrenAreTheArray() throws {
    let lines = try value(
      Lines.self,
      "<rec><lines>\n  <line><sku>A</sku><qty>1</qty></line>\n  <line><sku>B</sku><qty>2</qty></line>\n</lines></rec>")
    #expect(lines.lines == [Line(sku: "A", qty: 1), Line(sku: "B", qty: 2)])
  }

  @Test func repeatedSiblingsAreTheArrayEvenWithOthersBetweenThem() throws {
    let (lines, diagnostics) = try decode(
      RepeatedLines.self,
      "<rec><line><sku>A</sku><qty>1</qty></line><note>x</note><line><sku>B</sku><qty>2</qty></line></rec>")
    #expect(lines.line == [Line(sku: "A", qty: 1), Line(sku: "B", qty: 2)])
    #expect(diagnostics.unknownFields.map(\.path) == ["note"])
    let tags = try value(Required<[String]>.self, "<rec><value>a</value><value>b</value><value/></rec>")
    #expect(tags.value == ["a", "b", ""])
  }

  @Test func aSingleItemIsAnArrayOfOne() throws {
    let one = [Line(sku: "A", qty: 1)]
    #expect(try value(Lines.self, "<rec><lines><line><sku>A</sku><qty>1</qty></line></lines></rec>").lines == one)
    #expect(try value(RepeatedLines.self, "<rec><line><sku>A</sku><qty>1</qty></line></rec>").line == one)
    #expect(try value(Required<[String]>.self, "<rec><value>a</value></rec>").value == ["a"])
    #expect(try value(Required<[Int]>.self, "<rec><value>5</value></rec>").value == [5])
  }

  /// One element whose children share a name is a wrapper or a single item; the wrapper reading
  /// is tried first, the single item when the record does not decode that way.
  @Test func theWrapperOrSingleItemAmbiguityResolvesBothWays() throws {
    // Wrapper: the children are the items.
    #expect(try value(Tags.self, "<rec><tags><tag>a</tag></tags></rec>").tags == ["a"])
    #expect(try value(Tags.self, "<rec><tags><tag>a</tag><tag>b</tag></tags></rec>").tags == ["a", "b"])
    // Single: <part> has one child, <sku>, but a Part is not a string.
    #expect(try value(Parts.self, "<rec><part><sku>A</sku></part></rec>").part == [Part(sku: "A")])
    // Both readings fit the shape; only the single item decodes: a Name is not a string.
    #expect(try value(Names.self, "<rec><names><name>x</name></names></rec>").names == [Name(name: "x")])
  }

  @Test func whenNeitherReadingDecodesTheDeeperFailureIsReported() throws {
    // The wrapper reading reaches lines[0].qty; the single one misses lines[0].sku, no deeper.
    try expectFailure(
      Lines.self, "<rec><lines><line><sku>A</sku><qty>x</qty></line></lines></rec>", code: .typeMismatch,
      path: "lines[0].qty", at: "<qty>")
    // The wrapper reading fails at value[0] (a string is not an object); the single one reaches
    // value[0].value.
    try expectFailure(
      Required<[Required<Int>]>.self, "<rec><value><value>x</value></value></rec>", code: .typeMismatch,
      path: "value[0].value", at: "<value>x", occurrence: 1)
  }

  // MARK: Empty elements

  @Test func anEmptyElementIsAbsent() throws {
    let empty = try value(Optionals.self, "<rec><note/><count></count><address/><lines/></rec>")
    #expect(empty == Optionals(note: nil, count: nil, address: nil, lines: []))
    let missing = try value(Optionals.self, "<rec><unrelated/></rec>")
    #expect(missing == Optionals(note: nil, count: nil, address: nil, lines: nil))
    #expect(try value(Lines.self, "<rec><lines/></rec>").lines == [])
    #expect(try value(Lines.self, "<rec><lines>\n  </lines></rec>").lines == [])
    // A required string reads an empty element as its (empty) text.
    #expect(try value(Text.self, "<rec><text/></rec>").text == "")
  }

  @Test func anEmptyElementIsNoValueForARequiredNumberOrStruct() throws {
    try expectFailure(Required<Int>.self, "<rec>\n<value/></rec>", code: .typeMismatch, path: "value", at: "<value/>")
    try expectFailure(
      Required<Address>.self, "<rec>\n<value/></rec>", code: .typeMismatch, path: "value", at: "<value/>")
    try expectFailure(Lines.self, "<rec>\n<items/></rec>", code: .missingField, path: "lines", at: "<rec>")
  }

  @Test func anEmptyElementWithAttributesIsAnObject() throws {
    let price = try value(Priced.self, #"<rec><price currency="EUR"/></rec>"#)
    #expect(price.price == Price(currency: "EUR", amount: nil))
    try expectFailure(
      Required<String>.self, "<rec>\n<value lang=\"en\"/></rec>", code: .typeMismatch, path: "value", at: "<value")
  }

  // MARK: Text

  @Test func textWithAttributesIsUnderTheTextKey() throws {
    let (price, diagnostics) = try decode(Priced.self, #"<rec><price currency="EUR">12.50</price></rec>"#)
    #expect(price.price == Price(currency: "EUR", amount: Decimal(string: "12.50")!))
    #expect(diagnostics.unknownFields.isEmpty)
    // Whitespace around child elements is not text.
    let nested = try value(Labelled.self, "<rec label=\"l\">\n  <text>inner</text>\n</rec>")
    #expect(nested == Labelled(label: "l", text: "inner"))
    // Text beside attributes that the DTO does not ask for is an unknown field.
    let unread = try decode(Required<String>.self, #"<rec kind="k"><value>v</value>loose</rec>"#).diagnostics
    #expect(unread.unknownFields.map(\.path) == ["kind", "#text"])
  }

  @Test func cdataIsTextAndJoinsTheTextAroundIt() throws {
    #expect(
      try value(Text.self, #"<rec><text><![CDATA[<p>Hi & "bye"</p>]]></text></rec>"#).text == #"<p>Hi & "bye"</p>"#)
    #expect(try value(Text.self, "<rec><text>a<![CDATA[<b>]]>c<![CDATA[]]>d</text></rec>").text == "a<b>cd")
    #expect(try value(Text.self, "<rec><text><![CDATA[]]]]><![CDATA[>]]></text></rec>").text == "]]>")
    #expect(try value(Required<Int>.self, "<rec><value><![CDATA[42]]></value></rec>").value == 42)
  }

  @Test func thePredefinedEntitiesAndCharacterReferencesAreDecoded() throws {
    let record = """
      <rec label="&lt;&gt;&amp;&apos;&quot; &#233;&#xe9;&#x20AC;&#128512; a&#10;b&#9;c"><text>&lt;tag&gt; &amp;amp; &apos;s &quot;q&quot; &#233;&#xE9; &#x20AC; &#x1F600;</text></rec>
      """
    let labelled = try value(Labelled.self, record)
    #expect(labelled.label == "<>&'\" éé€😀 a\nb\tc")
    #expect(labelled.text == "<tag> &amp; 's \"q\" éé € 😀")
  }

  /// libxml2 hands an attribute's `&` back as `&#38;` when it does not substitute entities; the
  /// reader restores it, and only it (Stack Exchange titles are full of `&amp;`).
  @Test func anAmpersandInAnAttributeIsAnAmpersand() throws {
    let record =
      #"<rec label="Q&amp;A &#38; R&#x26;D, &amp;#38; &amp;amp; &#38;#38;&amp;"><text>Q&amp;A &#38;#38;</text></rec>"#
    let labelled = try value(Labelled.self, record)
    #expect(labelled.label == "Q&A & R&D, &#38; &amp; &#38;&")
    #expect(labelled.text == "Q&A &#38;")
    #expect(try value(Labelled.self, #"<rec label="&#38;"><text/></rec>"#).label == "&")
    #expect(try value(Labelled.self, #"<rec label="&amp;#3"><text/></rec>"#).label == "&#3")
  }

  /// XML normalizes an attribute's literal line breaks and tabs to spaces; character
  /// references keep them.
  @Test func attributeValuesAreNormalizedAsXMLSays() throws {
    let labelled = try value(Labelled.self, "<rec label=\"a\nb\tc\r\nd&#10;e\"><text>a\r\nb\rc</text></rec>")
    #expect(labelled.label == "a b c d\ne")
    // Line ends in text become \n.
    #expect(labelled.text == "a\nb\nc")
  }

  @Test func commentsAndProcessingInstructionsAreIgnored() throws {
    let (text, diagnostics) = try decode(
      Text.self, "<rec><!-- a --><?pi x?><text>x<!-- c -->y<?pi z?></text><!-- b --></rec>")
    #expect(text.text == "xy")
    #expect(diagnostics.unknownFields.isEmpty)
  }

  // MARK: Namespaces

  @Test func namespacedFieldsMatchByLocalName() throws {
    let xml = """
      <o:orders xmlns:o="urn:o" xmlns="urn:default" xmlns:c="urn:c">
      <o:order o:id="7" status="paid"><c:customer>Ann</c:customer><total>1.5</total></o:order>
      </o:orders>
      """
    let (order, diagnostics) = try decode(Order.self, bytes: Array(xml.utf8), path: ["orders", "order"])
    #expect(order == Order(id: 7, status: "paid", customer: "Ann", total: Decimal(string: "1.5")!))
    #expect(diagnostics.unknownFields.isEmpty, "namespace declarations are not attributes")
  }

  @Test func twoNamespacesSameLocalNameAreTheSameField() throws {
    try expectFailure(
      Required<Int>.self, #"<rec xmlns:a="urn:a" xmlns:b="urn:b"><a:value>1</a:value><b:value>2</b:value></rec>"#,
      code: .duplicateKey, path: "value", at: "<b:value>")
  }

  // MARK: Encodings

  /// `<r><rec name="…">…</rec></r>` in a declared encoding, byte by byte; each decodes to the same
  /// strings, with every chunk size (the encoding is detected from the first four bytes).
  static let encoded: [(String, [UInt8], name: String, text: String)] = {
    let utf8Body = Array("<r><rec name=\"Café naïve\"><text>€ “quoted” Œuvre — ß</text></rec></r>".utf8)
    let head: (String) -> [UInt8] = { Array("<?xml version=\"1.0\" encoding=\"\($0)\"?>\n".utf8) }
    let ascii: (String) -> [UInt8] = { Array($0.utf8) }
    // ISO-8859-1: é = E9, ï = EF, ß = DF; no €, no curly quotes.
    let latin1 =
      head("ISO-8859-1") + ascii("<r><rec name=\"Caf") + [0xE9] + ascii(" na") + [0xEF] + ascii("ve\"><text>")
      + ascii("cr") + [0xE8, 0x6D, 0x65] + ascii(" ") + [0xDF] + ascii("</text></rec></r>")
    // windows-1252: € = 80, “ = 93, ” = 94, Œ = 8C, — = 97, ß = DF, é = E9, ï = EF.
    let cp1252 =
      head("windows-1252") + ascii("<r><rec name=\"Caf") + [0xE9] + ascii(" na") + [0xEF] + ascii("ve\"><text>")
      + [0x80] + ascii(" ") + [0x93] + ascii("quoted") + [0x94] + ascii(" ") + [0x8C] + ascii("uvre ") + [0x97]
      + ascii(" ") + [0xDF] + ascii("</text></rec></r>")
    let utf16Text =
      "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<r><rec name=\"Café naïve\"><text>€ “quoted” Œuvre — ß 😀</text></rec></r>"
    let utf16LE: [UInt8] = [0xFF, 0xFE] + utf16Text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    let utf16BE: [UInt8] = [0xFE, 0xFF] + utf16Text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    return [
      ("ISO-8859-1", latin1, "Café naïve", "crème ß"),
      ("windows-1252", cp1252, "Café naïve", "€ “quoted” Œuvre — ß"),
      ("UTF-16LE with BOM", utf16LE, "Café naïve", "€ “quoted” Œuvre — ß 😀"),
      ("UTF-16BE with BOM", utf16BE, "Café naïve", "€ “quoted” Œuvre — ß 😀"),
      (
        "UTF-8 declared, with BOM", [0xEF, 0xBB, 0xBF] + head("UTF-8") + utf8Body, "Café naïve", "€ “quoted” Œuvre — ß"
      ),
      ("UTF-8 declared, no BOM", head("UTF-8") + utf8Body, "Café naïve", "€ “quoted” Œuvre — ß"),
      ("UTF-8 undeclared, with BOM", [0xEF, 0xBB, 0xBF] + utf8Body, "Café naïve", "€ “quoted” Œuvre — ß"),
      ("UTF-8 undeclared, no BOM", utf8Body, "Café naïve", "€ “quoted” Œuvre — ß"),
    ]
  }()

  private struct Named: Decodable, Equatable {
    var name: String
    var text: String
  }

  @Test(arguments: encoded)
  func declaredEncodingsDecode(_ encoding: String, bytes: [UInt8], name: String, text: String) throws {
    for chunkSize in [1, 3, 7, 4096] {
      let named = try decode(Named.self, bytes: bytes, chunkSize: chunkSize).value
      #expect(named == Named(name: name, text: text), "\(encoding), chunk \(chunkSize)")
    }
  }

  @Test func theWindows1252EuroByteIsTheEuroSign() throws {
    let bytes =
      Array("<?xml version=\"1.0\" encoding=\"windows-1252\"?><r><rec><text>".utf8) + [0x80]
      + Array("</text></rec></r>".utf8)
    #expect(try decode(Text.self, bytes: bytes).value.text == "\u{20AC}")
  }

  /// `<r><rec>€</rec></r>` in UTF-16, byte by byte: € is U+20AC.
  @Test func utf16WrittenByHandDecodes() throws {
    let littleEndian: [UInt8] = [
      0xFF, 0xFE, 0x3C, 0x00, 0x72, 0x00, 0x3E, 0x00, 0x3C, 0x00, 0x72, 0x00, 0x65, 0x00, 0x63, 0x00, 0x3E, 0x00,
      0xAC, 0x20, 0x3C, 0x00, 0x2F, 0x00, 0x72, 0x00, 0x65, 0x00, 0x63, 0x00, 0x3E, 0x00, 0x3C, 0x00, 0x2F, 0x00,
      0x72, 0x00, 0x3E, 0x00,
    ]
    let bigEndian = stride(from: 0, to: littleEndian.count, by: 2).flatMap { [littleEndian[$0 + 1], littleEndian[$0]] }
    #expect(bigEndian.prefix(2) == [0xFE, 0xFF])
    for bytes in [littleEndian, bigEndian] {
      for chunkSize in [1, 2, 4096] {
        #expect(try decode(String.self, bytes: bytes, chunkSize: chunkSize).value == "\u{20AC}")
      }
    }
  }

  @Test func anUnknownEncodingIsASyntaxError() throws {
    let bytes = Array("<?xml version=\"1.0\" encoding=\"x-no-such-encoding\"?>\n<r><rec/></r>".utf8)
    let reader = XMLRecordReader(source: MemoryByteSource(bytes), path: ["r", "rec"])
    let error = try #require(throws: RecordReadError.self) { try reader.next() }
    #expect(error.code == .syntax)
    // Sluice's own words for libxml2's error code, with the place; nothing of the document's
    // text, the declaration's name included (`XMLParserFailure`).
    #expect(error.message.contains("an unknown or unsupported encoding declared"), "\(error.message)")
    #expect(!error.message.contains("x-no-such-encoding"), "\(error.message)")
  }

  // MARK: Scalars

  @Test func scalarsAreTextAndTheDTOsTypeDecidesWithoutCountingCoercions() throws {
    let record = """
      <rec><int>12</int><negative>-9000000000</negative><small>255</small><double>-2.5e3</double>\
      <decimal>0.10</decimal><flag>true</flag><date>2023-01-01T00:00:40Z</date><status>paid</status><level>2</level></rec>
      """
    for options in [SluiceDecoder.Options(), SluiceDecoder.Options(legacyScalars: true)] {
      let (scalars, diagnostics) = try decode(Scalars.self, record, options: options)
      #expect(
        scalars
          == Scalars(
            int: 12, negative: -9_000_000_000, small: 255, double: -2500, decimal: Decimal(string: "0.10")!, flag: true,
            date: Date(timeIntervalSince1970: 1_672_531_240), status: .paid, level: .high))
      #expect(diagnostics.coercions == 0)
    }
  }

  @Test(arguments: [("true", true), ("false", false), ("True", true), ("False", false), ("1", true), ("0", false)])
  func booleansAreReadInTheirXMLSpellings(text: String, expected: Bool) throws {
    let (flag, diagnostics) = try decode(Required<Bool>.self, "<rec><value>\(text)</value></rec>")
    #expect(flag.value == expected)
    #expect(diagnostics.coercions == 0)
  }

  @Test(arguments: ["yes", "TRUE", "2", "", " true"])
  func otherBooleanSpellingsAreTypeMismatches(text: String) throws {
    try expectFailure(
      Required<Bool>.self, "<rec>\n<value>\(text)</value></rec>", code: .typeMismatch, path: "value", at: "<value>")
  }

  @Test func numbersThatDoNotFitAreTheSameErrorsAsInJSON() throws {
    try expectFailure(
      Required<Int>.self, "<rec>\n<value>1e3</value></rec>", code: .typeMismatch, path: "value", at: "<value>")
    try expectFailure(
      Required<Int>.self, "<rec>\n<value>1.5</value></rec>", code: .typeMismatch, path: "value", at: "<value>")
    try expectFailure(
      Required<Int>.self, "<rec>\n<value>twelve</value></rec>", code: .typeMismatch, path: "value", at: "<value>")
    try expectFailure(
      Required<Int>.self, "<rec>\n<value>99999999999999999999</value></rec>", code: .outOfRange, path: "value",
      at: "<value>")
    try expectFailure(
      Required<UInt8>.self, "<rec>\n<value>256</value></rec>", code: .outOfRange, path: "value", at: "<value>")
    try expectFailure(
      Required<UInt8>.self, "<rec>\n<value>-1</value></rec>", code: .outOfRange, path: "value", at: "<value>")
    try expectFailure(
      Required<Double>.self, "<rec>\n<value>abc</value></rec>", code: .typeMismatch, path: "value", at: "<value>")
    try expectFailure(
      Required<Date>.self, "<rec>\n<value>yesterday</value></rec>", code: .invalidDate, path: "value", at: "<value>")
    try expectFailure(
      Required<Status>.self, "<rec>\n<value>lost</value></rec>", code: .invalidValue, path: "value", at: "<value>")
  }

  // MARK: Paths and locations

  @Test func failuresNameTheirPathAndTheElementsLine() throws {
    let wrapper = """
      <rec>
        <lines>
          <line><sku>A</sku><qty>1</qty></line>
          <line><sku>B</sku><qty>two</qty></line>
        </lines>
      </rec>
      """
    try expectFailure(Lines.self, wrapper, code: .typeMismatch, path: "lines[1].qty", at: "<qty>two")
    let siblings = """
      <rec>
        <line><sku>A</sku><qty>1</qty></line>
        <line><sku>B</sku><qty>2</qty></line>
        <line>
          <qty>3</qty>
        </line>
      </rec>
      """
    try expectFailure(RepeatedLines.self, siblings, code: .missingField, path: "line[2].sku", at: "<line>\n")
    let single = "<rec>\n<lines>\n<line>\n<sku>A</sku>\n<qty>-</qty></line></lines></rec>"
    try expectFailure(Lines.self, single, code: .typeMismatch, path: "lines[0].qty", at: "<qty>")
  }

  @Test func anAttributesFailurePointsAtItsElement() throws {
    try expectFailure(
      Order.self, "<rec\n  id=\"x\" status=\"paid\"><customer>A</customer><total>1</total></rec>", code: .typeMismatch,
      path: "id", at: "<rec")
    let nested = """
      <rec>
        <value value="1"/>
        <value
           value="big"/>
      </rec>
      """
    try expectFailure(
      Required<[Required<Int>]>.self, nested, code: .typeMismatch, path: "value[1].value", at: "<value\n")
  }

  @Test func unknownElementsAndAttributesAreReportedOncePerNamePerObject() throws {
    let record = """
      <rec extra="1">
        <lines>
          <line note="n"><sku>A</sku><qty>1</qty><color>red</color><color>blue</color></line>
          <line><sku>B</sku><qty>2</qty><color>green</color></line>
        </lines>
        <comment>x</comment><comment>y</comment>
      </rec>
      """
    let bytes = document(record)
    let raw = try firstRecord(bytes)
    var diagnostics = DecodeDiagnostics()
    _ = try SluiceDecoder().decode(Lines.self, from: raw, diagnostics: &diagnostics)
    #expect(
      diagnostics.unknownFields.map(\.path) == [
        "extra", "comment", "lines[0].note", "lines[0].color", "lines[1].color",
      ])
    #expect(diagnostics.unknownFields.allSatisfy { $0.code == .unknownField })
    let lines = diagnostics.unknownFields.map { raw.location(at: $0.byteOffset).line }
    #expect(lines == [2, 7, 4, 4, 5])
    var quiet = DecodeDiagnostics()
    _ = try SluiceDecoder(options: .init(reportsUnknownFields: false)).decode(
      Lines.self, from: raw, diagnostics: &quiet)
    #expect(quiet.unknownFields.isEmpty)
  }

  @Test func aRepeatedElementReadAsOneValueIsADuplicate() throws {
    try expectFailure(
      Part.self, "<rec>\n<sku>A</sku>\n<sku>B</sku></rec>", code: .duplicateKey, path: "sku", at: "<sku>B")
    // An attribute and a child element of one name are one field twice.
    try expectFailure(Part.self, "<rec sku=\"A\">\n<sku>B</sku></rec>", code: .duplicateKey, path: "sku", at: "<sku>B")
  }

  /// The sweep hashes the names of an object past 64 nodes instead of comparing its keys
  /// pairwise (an element with 50,000 unknown attributes took over a minute): what it reports —
  /// each unknown name once per object, in order, with its path and place, and a repeated name
  /// read as one value — is the same either way.
  @Test(arguments: [2, 40])
  func aLargeObjectsUnknownFieldsAreReportedAsASmallOnesAre(filler: Int) throws {
    let lines = (0..<filler).map { "<line><sku>S\($0)</sku><qty>\($0)</qty></line>" }.joined()
    let unknown = (0..<filler).map { "<u\($0 % 3)/>" }.joined()
    let record = """
      <rec kind="k"><lines note="n" color="c">
      \(lines)</lines>
      \(unknown)<extra>x</extra><extra>y</extra></rec>
      """
    let bytes = document(record)
    let raw = try firstRecord(bytes)
    var diagnostics = DecodeDiagnostics()
    let decoded = try SluiceDecoder().decode(Lines.self, from: raw, diagnostics: &diagnostics)
    #expect(decoded.lines.count == filler)
    // The record's keys, then the wrapper's: its attributes are its item 0's, as the path walk
    // of a small object says.
    let names = filler == 2 ? ["u0", "u1"] : ["u0", "u1", "u2"]
    #expect(diagnostics.unknownFields.map(\.path) == ["kind"] + names + ["extra", "lines[0]", "lines[0]"])
    let places = diagnostics.unknownFields.map { raw.location(at: $0.byteOffset) }
    #expect(places.map(\.line) == [2] + names.map { _ in 4 } + [4, 2, 2])
    #expect(places[names.count + 1].byteOffset == location(of: "<extra>", in: bytes).byteOffset)
  }

  @Test(arguments: [2, 40])
  func aNameReadAsOneValueAndRepeatedInALargeObjectIsADuplicate(filler: Int) throws {
    let unknown = (0..<filler).map { "<u\($0)/>" }.joined()
    try expectFailure(
      Part.self, "<rec>\n<sku>A</sku>\(unknown)\n<sku>B</sku></rec>", code: .duplicateKey, path: "sku", at: "<sku>B")
  }

  /// 20,000 unknown child elements of one record: each counted once, the first ones listed with
  /// their names as paths (correctness at a size the old pairwise sweep needed seconds for; no
  /// timing here).
  @Test func twentyThousandUnknownElementsAreEachReportedOnce() throws {
    let unknown = (0..<20_000).map { "<c\($0)>v</c\($0)>" }.joined()
    let (part, diagnostics) = try decode(Part.self, "<rec><sku>A</sku>\(unknown)<c0>again</c0></rec>")
    #expect(part.sku == "A")
    let listed = DecodeDiagnostics.listedUnknownFields
    #expect(diagnostics.unknownFields.count + diagnostics.unlistedUnknownFields == 20_000)
    #expect(diagnostics.unknownFields.map(\.path) == (0..<listed).map { "c\($0)" })
  }

  /// An unknown field in each of many items: each path is found from its item's, not by walking
  /// the record from the top (20,000 items took 7 s); repeated siblings, a wrapper's items and an
  /// array of one are indexed as the path walk indexes them.
  @Test func anUnknownFieldInEachOfManyItemsHasItsItemsPath() throws {
    let count = 20_000
    let items = (0..<count).map { "<line><sku>S\($0)</sku><qty>\($0)</qty><extra/></line>" }.joined()
    let (wrapped, inWrapper) = try decode(Lines.self, "<rec><lines>\(items)</lines></rec>")
    // The first ones are listed (`DecodeDiagnostics.listedUnknownFields`), the rest counted.
    let listed = DecodeDiagnostics.listedUnknownFields
    #expect(wrapped.lines.count == count)
    #expect(inWrapper.unknownFields.map(\.path) == (0..<listed).map { "lines[\($0)].extra" })
    #expect(inWrapper.unlistedUnknownFields == count - listed)
    let (repeated, siblings) = try decode(RepeatedLines.self, "<rec>\(items)<note/></rec>")
    #expect(repeated.line.count == count)
    #expect(siblings.unknownFields.map(\.path) == ["note"] + (0..<(listed - 1)).map { "line[\($0)].extra" })
    #expect(siblings.unlistedUnknownFields == count + 1 - listed)
    let (_, single) = try decode(RepeatedLines.self, "<rec><line><sku>A</sku><qty>1</qty><extra/></line></rec>")
    #expect(single.unknownFields.map(\.path) == ["line[0].extra"])
  }

  @Test func aMissingFieldPointsAtItsObject() throws {
    try expectFailure(
      Required<Address>.self, "<rec>\n<value>\n<town>Paris</town></value></rec>", code: .missingField,
      path: "value.city",
      at: "<value>")
  }
}
