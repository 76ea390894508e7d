import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

// The XML record reader on documents written byte by byte in the tests: which elements are
// records, where each starts (ordinal, byte offset and line, computed from the test's own bytes),
// the tape each becomes, and how it stops — limits that skip one record, a malformed document,
// a truncated gzip stream — whatever the size of the chunks the parser is fed.

/// One thing a reader handed out: a record (as its tape's JSON text) or an error.
private enum Step: Equatable, CustomStringConvertible {
  case record(String, RecordLocation)
  case error(IssueCode, String, RecordLocation, recoverable: Bool)

  var description: String {
    switch self {
    case .record(let text, let at): "record \(at.ordinal) (line \(at.line), byte \(at.byteOffset)) \(text)"
    case .error(let code, let message, let at, let recoverable):
      "\(recoverable ? "recoverable" : "fatal") \(code) (record \(at.ordinal), line \(at.line), byte \(at.byteOffset)): \(message)"
    }
  }

  var text: String? {
    if case .record(let text, _) = self { return text }
    return nil
  }

  var location: RecordLocation {
    switch self {
    case .record(_, let location), .error(_, _, let location, _): location
    }
  }
}

/// Chunk sizes that put every token — a BOM, a start tag, a CDATA section, a character
/// reference — across a boundary, plus the reader's default.
private let chunkSizes = [1, 7, 4096, 1 << 15]

private func reader(
  _ bytes: [UInt8], path: [String], chunkSize: Int = 1 << 15, limits: XMLRecordReader.Limits = .init()
) -> XMLRecordReader {
  XMLRecordReader(source: MemoryByteSource(bytes, chunk: chunkSize), path: path, limits: limits, chunkSize: chunkSize)
}

/// Everything the reader hands out, up to the end or the first error it cannot go past.
private func steps(
  _ bytes: [UInt8], path: [String], chunkSize: Int = 1 << 15, limits: XMLRecordReader.Limits = .init()
) throws -> [Step] {
  let reader = reader(bytes, path: path, chunkSize: chunkSize, limits: limits)
  var steps: [Step] = []
  while steps.count < 10_000 {
    do {
      guard let record = try reader.next() else { return steps }
      steps.append(.record(record.text, record.location))
    } catch let error as RecordReadError {
      steps.append(.error(error.code, error.message, error.location, recoverable: error.isRecoverable))
      if !error.isRecoverable { return steps }
    }
  }
  Issue.record("the reader never ended")
  return steps
}

private func steps(
  _ text: String, path: [String], chunkSize: Int = 1 << 15, limits: XMLRecordReader.Limits = .init()
) throws -> [Step] {
  try steps(Array(text.utf8), path: path, chunkSize: chunkSize, limits: limits)
}

/// The field paths of the recoverable errors the reader hands out, in order.
private func errorPaths(
  _ bytes: [UInt8], path: [String], chunkSize: Int, limits: XMLRecordReader.Limits
) throws -> [String] {
  let reader = reader(bytes, path: path, chunkSize: chunkSize, limits: limits)
  var paths: [String] = []
  while true {
    do {
      guard try reader.next() != nil else { return paths }
    } catch let error as RecordReadError {
      guard error.isRecoverable else { return paths }
      paths.append(error.path)
    }
  }
}

/// The offset of the first `needle` in `bytes` at or after `from`, and its 1-based line.
private func position(of needle: String, in bytes: [UInt8], from: Int = 0) -> RecordLocation {
  let pattern = Array(needle.utf8)
  for start in from...(bytes.count - pattern.count) where bytes[start..<start + pattern.count].elementsEqual(pattern) {
    let line = 1 + bytes[..<start].count { $0 == UInt8(ascii: "\n") }
    return RecordLocation(ordinal: 0, byteOffset: Int64(start), line: line)
  }
  preconditionFailure("\(needle) is not in the document")
}

/// The location of the record whose start tag begins with `needle`.
private func location(_ ordinal: Int, _ needle: String, in bytes: [UInt8]) -> RecordLocation {
  var location = position(of: needle, in: bytes)
  location.ordinal = ordinal
  return location
}

@Suite("XML record reader")
struct XMLRecordReaderTests {
  /// Records among a declaration, a comment, a processing instruction, a start tag over three
  /// lines, an element with the record's name one level too deep, and a stranger at the record
  /// level.
  static let orders = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!-- nightly export -->
    <orders generated="2024-05-01">
      <order id="1"><qty>2</qty></order>
      <?audit checked?>
      <order
          id="2"
          note="over three lines"><qty>3</qty></order><order id="3"/>
      <other><order id="nested"/></other>
      <order id="4">
        <qty>5</qty>
      </order>
    </orders>

    """

  static let ordersTexts = [
    #"{"id":"1","qty":"2"}"#, #"{"id":"2","note":"over three lines","qty":"3"}"#, #"{"id":"3"}"#,
    #"{"id":"4","qty":"5"}"#,
  ]

  static func ordersLocations(_ bytes: [UInt8]) -> [RecordLocation] {
    [
      location(1, #"<order id="1""#, in: bytes), location(2, "<order\n", in: bytes),
      location(3, #"<order id="3""#, in: bytes), location(4, #"<order id="4""#, in: bytes),
    ]
  }

  // MARK: Record paths

  @Test(arguments: chunkSizes)
  func recordsAreTheElementsAtThePathWithTheirExactLocations(chunkSize: Int) throws {
    let bytes = Array(Self.orders.utf8)
    let read = try steps(bytes, path: ["orders", "order"], chunkSize: chunkSize)
    #expect(read.map(\.text) == Self.ordersTexts)
    #expect(read.map(\.location) == Self.ordersLocations(bytes))
    // Spelled out once, so the helper itself is checked: line 6 is the three-line start tag's first.
    #expect(read.map(\.location.line) == [4, 6, 8, 10])
  }

  /// A UTF-8 byte order mark is skipped by the parser but is part of the stream: every offset
  /// counts its three bytes.
  @Test(arguments: chunkSizes)
  func aByteOrderMarkShiftsEveryOffsetByItsThreeBytes(chunkSize: Int) throws {
    let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(Self.orders.utf8)
    let read = try steps(bytes, path: ["orders", "order"], chunkSize: chunkSize)
    #expect(read.map(\.text) == Self.ordersTexts, "\(read)")
    #expect(read.map(\.location) == Self.ordersLocations(bytes))
    let plain = Self.ordersLocations(Array(Self.orders.utf8))
    #expect(read.map(\.location.byteOffset) == plain.map { $0.byteOffset + 3 })
  }

  @Test(arguments: chunkSizes)
  func anEmptyPathMakesTheRootsChildrenTheRecordsWhateverTheirNames(chunkSize: Int) throws {
    let text = "<dump>\n<user id=\"7\"/>\n<post>hello</post>\n<vote/>\n</dump>"
    let bytes = Array(text.utf8)
    let read = try steps(bytes, path: [], chunkSize: chunkSize)
    #expect(read.map(\.text) == [#"{"id":"7"}"#, #""hello""#, #""""#])
    #expect(
      read.map(\.location) == [
        location(1, "<user", in: bytes), location(2, "<post", in: bytes), location(3, "<vote", in: bytes),
      ])
  }

  @Test(arguments: chunkSizes)
  func aDeeperPathIsFollowedAndSiblingsOffThePathAreIgnored(chunkSize: Int) throws {
    let text = """
      <export><meta><order id="decoy"/></meta><data><order id="decoy-2"/></data>\
      <data><orders><order id="1"/><order id="2"/></orders></data></export>
      """
    // Only `export.data.orders.order`; the first <data> has no <orders>.
    let read = try steps(text, path: ["export", "data", "orders", "order"], chunkSize: chunkSize)
    #expect(read.map(\.text) == [#"{"id":"1"}"#, #"{"id":"2"}"#])
    #expect(read.map(\.location.ordinal) == [1, 2])
  }

  /// Namespaces are matched by local name, in the path and in the record's keys; namespace
  /// declarations are not attributes.
  @Test(arguments: chunkSizes)
  func prefixedNamespacesMatchByLocalName(chunkSize: Int) throws {
    let text = """
      <o:orders xmlns:o="urn:example:orders" xmlns:c="urn:example:customers">
      <o:order o:id="1"><o:qty>2</o:qty><c:customer c:id="9">Ann</c:customer></o:order>
      </o:orders>
      """
    let bytes = Array(text.utf8)
    let read = try steps(bytes, path: ["orders", "order"], chunkSize: chunkSize)
    #expect(
      read == [
        .record(##"{"id":"1","qty":"2","customer":{"id":"9","#text":"Ann"}}"##, location(1, "<o:order ", in: bytes))
      ])
  }

  @Test(arguments: chunkSizes)
  func aDefaultNamespaceChangesNothing(chunkSize: Int) throws {
    let text =
      #"<orders xmlns="urn:example:orders"><order id="1" xmlns:x="urn:x" x:flag="y"><qty>2</qty></order></orders>"#
    let read = try steps(text, path: ["orders", "order"], chunkSize: chunkSize)
    #expect(read.map(\.text) == [#"{"id":"1","flag":"y","qty":"2"}"#])
  }

  /// With qualified naming (a spec's `"xmlNames": "qualified"`), prefixed elements and
  /// attributes are keyed by their prefixed name — a WordPress export's `content:encoded` and
  /// `excerpt:encoded` are two fields — while unprefixed ones, and the record path, stay local.
  @Test(arguments: chunkSizes)
  func qualifiedNamingKeysPrefixedNamesWhole(chunkSize: Int) throws {
    let text = """
      <rss xmlns:content="urn:c" xmlns:excerpt="urn:e"><channel>
      <item id="1" content:lang="en"><title>T</title><content:encoded>Body</content:encoded><excerpt:encoded>Ex</excerpt:encoded></item>
      </channel></rss>
      """
    let reader = XMLRecordReader(
      source: MemoryByteSource(Array(text.utf8), chunk: chunkSize), path: ["rss", "channel", "item"],
      chunkSize: chunkSize, naming: .qualified)
    let record = try #require(try reader.next())
    #expect(
      record.text
        == #"{"id":"1","content:lang":"en","title":"T","content:encoded":"Body","excerpt:encoded":"Ex"}"#)
    #expect(try reader.next() == nil)
  }

  @Test(arguments: chunkSizes)
  func aRootOtherThanThePathsFirstNameIsAnError(chunkSize: Int) throws {
    let read = try steps("<shop>\n<order id=\"1\"/>\n</shop>", path: ["orders", "order"], chunkSize: chunkSize)
    #expect(read.count == 1)
    guard case .error(let code, let message, let at, let recoverable) = read.first else {
      Issue.record("expected an error, read \(read)")
      return
    }
    #expect(code == .invalidValue)
    #expect(message == "the root element is <shop>, not <orders> as the record path says")
    #expect(at.line == 1)
    #expect(at.ordinal == 0)
    #expect(!recoverable)
  }

  @Test(arguments: chunkSizes)
  func aPathWhoseLastNameIsWrongSaysWhatItFound(chunkSize: Int) throws {
    let text = "<orders>\n  <purchase id=\"1\"/>\n  <purchase id=\"2\"/>\n</orders>\n"
    let read = try steps(text, path: ["orders", "order"], chunkSize: chunkSize)
    #expect(read.count == 1)
    guard case .error(let code, let message, _, let recoverable) = read.first else {
      Issue.record("expected an error, read \(read)")
      return
    }
    #expect(code == .invalidValue)
    #expect(message == "no <order> elements under <orders>; found <purchase>")
    #expect(!recoverable)
  }

  @Test func aDocumentWithoutRecordsButWithTheRightShapeHasNone() throws {
    #expect(try steps("<orders></orders>", path: ["orders", "order"]).isEmpty)
    #expect(try steps("<orders/>", path: ["orders", "order"]).isEmpty)
    #expect(
      try steps("<?xml version=\"1.0\"?>\n<orders>\n  <!-- none tonight -->\n</orders>\n", path: ["orders", "order"])
        .isEmpty)
  }

  @Test func emptyInputIsASyntaxErrorNotAnEmptyDocument() throws {
    let read = try steps("", path: ["orders", "order"])
    #expect(
      read == [
        .error(.syntax, "empty input: no XML document", .init(ordinal: 0, byteOffset: 0, line: 1), recoverable: false)
      ])
    for blank in [" \n\t\n", "<?xml version=\"1.0\"?>\n", "<!-- only a comment -->"] {
      let read = try steps(blank, path: ["orders", "order"])
      #expect(read.count == 1)
      guard case .error(.syntax, _, _, recoverable: false) = read.first else {
        Issue.record("\(blank.debugDescription): expected a syntax error, read \(read)")
        continue
      }
    }
  }

  // MARK: What a record becomes

  @Test(arguments: chunkSizes)
  func elementsBecomeObjectsOrTextAndMixedTextGoesUnderTheTextKey(chunkSize: Int) throws {
    let text = """
      <r><rec kind="a">
        lead <b>bold</b> tail
        <e/><e></e><w>  </w><c><![CDATA[<x> & ]]>y</c>
        <n>&lt;&gt;&amp;&apos;&quot; &#233;&#x20AC;&#x1F600;</n><!-- gone --><?gone too?>
        <esc>a"b\\c\td</esc>
      </rec></r>
      """
    let read = try steps(text, path: ["r", "rec"], chunkSize: chunkSize)
    let tape = try #require(read.first?.text)
    let expected =
      ##"{"kind":"a","b":"bold","e":"","e":"","w":"  ","c":"<x> & y","n":"<>&'\" é€😀","esc":"a\"b\\c\td","#text":"\n  lead  tail\n  \n  \n  \n"}"##
    #expect(tape == expected)
    #expect(read.count == 1)
  }

  // MARK: Malformed documents

  @Test(arguments: chunkSizes)
  func malformedXMLMidStreamDeliversTheRecordsBeforeItThenFailsWithItsLine(chunkSize: Int) throws {
    let text = """
      <orders>
        <order id="1"><qty>1</qty></order>
        <order id="2"><qty>2</qty></order>
        <order id="3"><qty>3</qty></ordr>
        <order id="4"><qty>4</qty></order>
      </orders>
      """
    let read = try steps(text, path: ["orders", "order"], chunkSize: chunkSize)
    #expect(read.compactMap(\.text) == [#"{"id":"1","qty":"1"}"#, #"{"id":"2","qty":"2"}"#])
    #expect(read.count == 3)
    guard case .error(let code, let message, let at, let recoverable) = read.last else {
      Issue.record("expected a syntax error, read \(read)")
      return
    }
    #expect(code == .syntax)
    // libxml2's own message names both tags; Sluice's names neither (names can be data).
    #expect(message == "malformed XML: an end tag that does not match its start tag (column 36)", "\(message)")
    #expect(at.line == 4)
    #expect(at.ordinal == 3)
    #expect(!recoverable)
  }

  /// Some errors libxml2 reads past (an undefined namespace prefix): the document still ends
  /// there, after the records before the error and before any after it, whatever the chunks.
  /// (Found by the xml-reader fuzz target: records after the error were delivered, then it.)
  @Test(arguments: chunkSizes)
  func anErrorLibxml2ReadsPastEndsTheRecordsWhereItStands(chunkSize: Int) throws {
    let text = "<orders>\n<order id=\"1\"/>\n<p:order id=\"2\"/>\n<order id=\"3\"/>\n</orders>\n"
    let read = try steps(text, path: [], chunkSize: chunkSize)
    #expect(read.first?.text == #"{"id":"1"}"#)
    guard case .error(.syntax, let message, let at, recoverable: false) = read.last, read.count == 2 else {
      Issue.record("chunk \(chunkSize): expected a record and a syntax error, read \(read)")
      return
    }
    #expect(message == "malformed XML: a namespace prefix that is not declared (column 16)", "\(message)")
    #expect(at.line == 3)
    #expect(at.ordinal == 1)
  }

  /// Bytes invalid in the declared encoding halt libxml2 without an error callback; the reader
  /// reads `xmlParseChunk`'s status, so the document fails instead of ending as if complete.
  /// (Found by the xml-reader fuzz target.)
  @Test(arguments: chunkSizes)
  func anInputInvalidInItsEncodingIsASyntaxErrorNotAnEnd(chunkSize: Int) throws {
    let bytes =
      Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<r>\n<rec>a</rec>\n<rec>".utf8) + [0xFF, 0xFF]
      + Array("</rec>\n<rec>c</rec>\n</r>\n".utf8)
    let read = try steps(bytes, path: ["r", "rec"], chunkSize: chunkSize)
    #expect(read.count <= 2, "\(read)")
    #expect(
      read.last
        == .error(
          .syntax, "malformed XML: the input is not valid in its encoding (the declared one, or UTF-8)",
          read.last?.location ?? .init(ordinal: 0, byteOffset: 0, line: 0), recoverable: false), "\(read)")
  }

  /// libxml2 calls a document cut short "Extra content at the end of the document"; the reader
  /// says what happened.
  @Test(arguments: chunkSizes)
  func aDocumentCutShortSaysTheInputEndedInsideIt(chunkSize: Int) throws {
    let text = "<orders>\n<order id=\"1\"/>\n<order id=\"2\"><qty>"
    let read = try steps(text, path: ["orders", "order"], chunkSize: chunkSize)
    #expect(read.first?.text == #"{"id":"1"}"#)
    guard case .error(.syntax, let message, let at, recoverable: false) = read.last, read.count == 2 else {
      Issue.record("expected a record and a syntax error, read \(read)")
      return
    }
    #expect(message == "malformed XML: the input ends before the document does (3 element(s) still open)")
    #expect(at.line == 3)
    #expect(at.ordinal == 2)
  }

  @Test func theFailureStaysTheAnswerAfterwards() throws {
    let reader = reader(Array("<orders><order/><order>".utf8), path: ["orders", "order"], chunkSize: 7)
    #expect(try reader.next()?.text == #""""#)
    let first = try #require(throws: RecordReadError.self) { try reader.next() }
    let second = try #require(throws: RecordReadError.self) { try reader.next() }
    #expect(first.code == .syntax)
    #expect(second.message == first.message)
  }

  /// The syntax errors a truncated or damaged document ends in, each with its line.
  @Test(arguments: [
    ("<orders><order id=\"1\"/>\n<order id=\"2\">", 2),
    ("<orders>\n<order id=\"1\" id=\"1\"/></orders>", 2),
    ("<orders>\n\n<order id=1/></orders>", 3),
    ("<orders><order/></orders>\n<orders/>", 2),
    ("<orders><order>&nbsp;</order></orders>", 1),
    ("<orders>\n<order>\u{01}</order></orders>", 2),
  ])
  func aMalformedDocumentIsASyntaxErrorWithItsLine(text: String, line: Int) throws {
    for chunkSize in chunkSizes {
      let read = try steps(text, path: ["orders", "order"], chunkSize: chunkSize)
      guard case .error(.syntax, _, let at, recoverable: false) = read.last else {
        Issue.record("chunk \(chunkSize): expected a syntax error, read \(read)")
        continue
      }
      #expect(at.line == line, "chunk \(chunkSize): \(read)")
    }
  }

  @Test(arguments: chunkSizes)
  func invalidUTF8IsASyntaxError(chunkSize: Int) throws {
    var bytes = Array("<orders>\n<order>ab</order>\n</orders>".utf8)
    bytes.insert(0xC3, at: 17)  // a lead byte before an ASCII letter
    let read = try steps(bytes, path: ["orders", "order"], chunkSize: chunkSize)
    guard case .error(.syntax, _, let at, recoverable: false) = read.last else {
      Issue.record("expected a syntax error, read \(read)")
      return
    }
    #expect(at.line == 2)
  }

  // MARK: Entities

  /// Any entity declaration refuses the document at the declaration, before a record is read:
  /// internal, external, parameter and unparsed alike, used or not.
  @Test(arguments: [
    ("<!DOCTYPE orders [\n<!ENTITY e \"abc\">\n]>\n<orders><order>&e;</order></orders>", "e", 2),
    (
      "<!DOCTYPE orders [\n<!ENTITY ee SYSTEM \"file:///etc/hostname\">\n]>\n<orders><order>x</order></orders>", "ee", 2
    ),
    ("<!DOCTYPE orders [\n<!ELEMENT orders ANY>\n<!ENTITY % pe \"<!ENTITY x 'y'>\">\n]>\n<orders/>", "pe", 3),
    (
      "<!DOCTYPE orders [\n<!NOTATION gif SYSTEM \"gif\">\n<!ENTITY logo SYSTEM \"logo.gif\" NDATA gif>\n]>\n<orders/>",
      "logo", 3
    ),
  ])
  func anEntityDeclarationIsRefusedWhereItStands(text: String, entity: String, line: Int) throws {
    for chunkSize in chunkSizes {
      let read = try steps(text, path: ["orders", "order"], chunkSize: chunkSize)
      guard case .error(let code, let message, let at, let recoverable) = read.first, read.count == 1 else {
        Issue.record("chunk \(chunkSize): expected one error, read \(read)")
        continue
      }
      #expect(code == .unsafeXML)
      #expect(message.hasPrefix("the document declares the entity '\(entity)'"))
      #expect(at.line == line)
      #expect(at.ordinal == 0)
      #expect(!recoverable)
    }
  }

  /// The external subset is never loaded; the internal one is read, and declarations that
  /// change no value — elements, notations, CDATA attributes without a default — are ignored.
  @Test func aDoctypeThatChangesNoValueIsReadAndItsExternalSubsetIgnored() throws {
    let text = """
      <?xml version="1.0"?>
      <!DOCTYPE orders SYSTEM "file:///nonexistent/orders.dtd" [
        <!ELEMENT orders (order*)>
        <!ATTLIST order id CDATA #REQUIRED note CDATA #IMPLIED>
        <!NOTATION gif SYSTEM "gif">
      ]>
      <orders><order id="1"/></orders>
      """
    let read = try steps(text, path: ["orders", "order"])
    #expect(read.map(\.text) == [#"{"id":"1"}"#], "\(read)")
  }

  /// Nothing from a DTD is applied: an attribute declaration that would change the records
  /// refuses the document where it stands, before a record is read. A default or fixed value
  /// would add the attribute to every element that lacks it (a defaulted `xsi:nil` would null
  /// them all, a 10 MB default copied to every record would exhaust memory); a type other than
  /// CDATA would normalize values' whitespace.
  @Test(arguments: [
    (#"<!ATTLIST order status CDATA "shipped">"#, "status", "declares a default value for"),
    (#"<!ATTLIST order status CDATA #FIXED "shipped">"#, "status", "declares a default value for"),
    (#"<!ATTLIST order xsi:nil CDATA "true">"#, "xsi:nil", "declares a default value for"),
    (#"<!ATTLIST order note CDATA #IMPLIED code NMTOKEN #IMPLIED>"#, "code", "declares"),
    (#"<!ATTLIST order id ID #REQUIRED>"#, "id", "declares"),
    (#"<!ATTLIST order kind (a|b) #IMPLIED>"#, "kind", "declares"),
  ])
  func anAttributeDeclarationThatChangesValuesIsRefusedWhereItStands(
    declaration: String, attribute: String, says: String
  ) throws {
    let text = """
      <?xml version="1.0"?>
      <!DOCTYPE orders [
      <!ELEMENT orders ANY>
      \(declaration)
      ]>
      <orders xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><order id="1"/><order id="2" status="x"/></orders>
      """
    for chunkSize in chunkSizes {
      let read = try steps(text, path: ["orders", "order"], chunkSize: chunkSize)
      guard case .error(let code, let message, let at, let recoverable) = read.first, read.count == 1 else {
        Issue.record("chunk \(chunkSize): expected one error, read \(read)")
        continue
      }
      #expect(code == .unsafeXML)
      #expect(message.hasPrefix("the document's DTD \(says) the attribute '\(attribute)' of <order>"), "\(message)")
      #expect(message.contains("Sluice never applies DTD attribute"), "\(message)")
      #expect(at.line == 4)
      #expect(at.ordinal == 0)
      #expect(!recoverable)
    }
  }

  @Test func anUndeclaredEntityIsASyntaxError() throws {
    let read = try steps("<orders>\n<order>&e;</order></orders>", path: ["orders", "order"])
    guard case .error(.syntax, let message, let at, recoverable: false) = read.last else {
      Issue.record("expected a syntax error, read \(read)")
      return
    }
    // libxml2 names the entity ("Entity 'e' not defined"); a name from the document stays out.
    #expect(message.hasPrefix("malformed XML: a reference to an undefined entity"), "\(message)")
    #expect(!message.contains("'e'"), "\(message)")
    #expect(at.line == 2)
  }

  // MARK: Limits

  @Test(arguments: chunkSizes)
  func aRecordNestedTooDeepIsSkippedAndReportedAndTheNextOneRead(chunkSize: Int) throws {
    let deep = String(repeating: "<a>", count: 5) + "x" + String(repeating: "</a>", count: 5)
    let fine = String(repeating: "<a>", count: 3) + "x" + String(repeating: "</a>", count: 3)
    let text =
      "<orders>\n<order id=\"1\">\(fine)</order>\n<order id=\"2\">\(deep)</order>\n<order id=\"3\">\(fine)</order>\n</orders>"
    let bytes = Array(text.utf8)
    let read = try steps(bytes, path: ["orders", "order"], chunkSize: chunkSize, limits: .init(maxDepth: 3))
    let nested = #"{"id":"1","a":{"a":{"a":"x"}}}"#
    #expect(
      read == [
        .record(nested, location(1, "<order id=\"1\"", in: bytes)),
        .error(
          .nestingTooDeep, "elements nested deeper than 3 levels in a record",
          location(2, "<order id=\"2\"", in: bytes),
          recoverable: true),
        .record(nested.replacingOccurrences(of: "\"1\"", with: "\"3\""), location(3, "<order id=\"3\"", in: bytes)),
      ])
  }

  /// The whole record is measured: its text, its attributes and its many small children.
  @Test(arguments: [
    "<order id=\"2\">\(String(repeating: "x", count: 5_000))</order>",
    "<order id=\"2\" note=\"\(String(repeating: "y", count: 5_000))\"/>",
    "<order id=\"2\">\(String(repeating: "<i>1</i>", count: 1_000))</order>",
    "<order id=\"2\"><a>\(String(repeating: "z", count: 600))</a><b>\(String(repeating: "z", count: 600))</b></order>",
  ])
  func aRecordOverTheSizeLimitIsSkippedAndReportedAndTheNextOneRead(big: String) throws {
    let text = "<orders>\n<order id=\"1\">small</order>\n\(big)\n<order id=\"3\">small</order>\n</orders>"
    let bytes = Array(text.utf8)
    for chunkSize in chunkSizes {
      let read = try steps(
        bytes, path: ["orders", "order"], chunkSize: chunkSize, limits: .init(maxRecordBytes: 1_000))
      #expect(
        read == [
          .record(##"{"id":"1","#text":"small"}"##, location(1, "<order id=\"1\"", in: bytes)),
          .error(
            .recordTooLarge, "record larger than 1000 bytes", location(2, "<order id=\"2\"", in: bytes),
            recoverable: true),
          .record(##"{"id":"3","#text":"small"}"##, location(3, "<order id=\"3\"", in: bytes)),
        ], "chunk \(chunkSize)")
    }
  }

  /// An element of a record with more attributes than the limit skips the record, and the
  /// issue names the element's path from the record's; the next record is read.
  @Test(arguments: chunkSizes)
  func anElementWithTooManyAttributesSkipsItsRecordAndNamesTheElement(chunkSize: Int) throws {
    let six = (0..<6).map { " a\($0)=\"\($0)\"" }.joined()
    let text = """
      <orders>
      <order id="1"/>
      <order id="2"\(six)/>
      <order id="3"><customer\(six)><name>x</name></customer></order>
      <order id="4"><customer><name\(six)>x</name></customer></order>
      <order id="5" a0="0" a1="1" a2="2" a3="3"/>
      </orders>
      """
    let bytes = Array(text.utf8)
    let limits = XMLRecordReader.Limits(maxAttributes: 5)
    let read = try steps(bytes, path: ["orders", "order"], chunkSize: chunkSize, limits: limits)
    #expect(
      read == [
        .record(#"{"id":"1"}"#, location(1, #"<order id="1""#, in: bytes)),
        .error(
          .tooManyAttributes, "<order> has 7 attributes, more than 5", location(2, #"<order id="2""#, in: bytes),
          recoverable: true),
        .error(
          .tooManyAttributes, "<customer> has 6 attributes, more than 5", location(3, #"<order id="3""#, in: bytes),
          recoverable: true),
        .error(
          .tooManyAttributes, "<name> has 6 attributes, more than 5", location(4, #"<order id="4""#, in: bytes),
          recoverable: true),
        .record(#"{"id":"5","a0":"0","a1":"1","a2":"2","a3":"3"}"#, location(5, #"<order id="5""#, in: bytes)),
      ], "chunk \(chunkSize)")
    #expect(
      try errorPaths(bytes, path: ["orders", "order"], chunkSize: chunkSize, limits: limits) == [
        "", "customer", "customer.name",
      ])
  }

  /// libxml2 compares each attribute's name with every earlier one before the element reaches
  /// the reader (200,000 attributes: 23 s). A start tag libxml2 is still waiting to complete
  /// that already holds more than twice the limit is refused before it is parsed, and the
  /// document ends there, at the tag.
  @Test(arguments: chunkSizes)
  func aStartTagWithFarMoreAttributesEndsTheDocumentBeforeLibxml2ParsesIt(chunkSize: Int) throws {
    let attributes = (0..<5_000).map { " attribute\($0)=\"\($0)\"" }.joined()
    let text = "<orders>\n<order id=\"1\"/>\n<order id=\"2\"\(attributes)/>\n<order id=\"3\"/>\n</orders>\n"
    let bytes = Array(text.utf8)
    let read = try steps(bytes, path: ["orders", "order"], chunkSize: chunkSize, limits: .init(maxAttributes: 100))
    #expect(read.count == 2, "\(read)")
    #expect(read.first == .record(#"{"id":"1"}"#, location(1, #"<order id="1""#, in: bytes)))
    guard case .error(.tooManyAttributes, let message, let at, recoverable: false) = read.last else {
      Issue.record("chunk \(chunkSize): expected a fatal tooManyAttributes, read \(read)")
      return
    }
    #expect(message == "a start tag with more than 200 attributes; the document is not read further")
    #expect(at.byteOffset == position(of: #"<order id="2""#, in: bytes).byteOffset)
    #expect(at.line == 3)
  }

  /// An element's text (CDATA included, around its children too) is bounded: over the limit,
  /// the record is skipped with the element's path, and the next one read.
  @Test(arguments: chunkSizes)
  func anElementsTextOverTheLimitSkipsItsRecordAndNamesTheElement(chunkSize: Int) throws {
    func x(_ count: Int) -> String { String(repeating: "x", count: count) }
    let text = """
      <orders>
      <order id="1"><customer><name>\(x(100))</name></customer></order>
      <order id="2"><customer><name>\(x(101))</name></customer></order>
      <order id="3"><note><![CDATA[\(x(60))]]>\(x(41))</note></order>
      <order id="4">\(x(50))<b/>\(x(51))</order>
      <order id="5"><a>\(x(60))</a><b>\(x(60))</b></order>
      </orders>
      """
    let bytes = Array(text.utf8)
    let limits = XMLRecordReader.Limits(maxTextBytes: 100)
    let read = try steps(bytes, path: ["orders", "order"], chunkSize: chunkSize, limits: limits)
    let tooLong = { (ordinal: Int) in
      Step.error(
        .valueTooLarge, "an element's text longer than 100 bytes",
        location(ordinal, "<order id=\"\(ordinal)\"", in: bytes), recoverable: true)
    }
    #expect(
      read == [
        .record(#"{"id":"1","customer":{"name":"\#(x(100))"}}"#, location(1, #"<order id="1""#, in: bytes)),
        tooLong(2), tooLong(3), tooLong(4),
        .record(#"{"id":"5","a":"\#(x(60))","b":"\#(x(60))"}"#, location(5, #"<order id="5""#, in: bytes)),
      ], "chunk \(chunkSize)")
    #expect(
      try errorPaths(bytes, path: ["orders", "order"], chunkSize: chunkSize, limits: limits) == [
        "customer.name", "note", "",
      ])
  }

  /// Records the parser finishes wait for `next()`; the reader feeds the parser only when none
  /// waits, 4 KiB at a time, so a megabyte read at once does not become 250,000 queued records.
  @Test func theQueueHoldsOnlyWhatOneSliceOfInputFinished() throws {
    let text = "<r>" + String(repeating: "<a/>", count: 250_000) + "</r>"
    let reader = reader(Array(text.utf8), path: ["r", "a"], chunkSize: 1 << 20)
    var count = 0
    var most = 0
    while try reader.next() != nil {
      count += 1
      most = max(most, reader.queuedRecordCount)
    }
    #expect(count == 250_000)
    #expect(most < 4_096 / 4)
  }

  @Test func aRecordJustUnderTheSizeLimitIsRead() throws {
    let record = "<order>\(String(repeating: "x", count: 98))</order>"
    // The tape's text is the string and its two quotes: exactly 100 bytes.
    let read = try steps("<orders>\(record)</orders>", path: ["orders", "order"], limits: .init(maxRecordBytes: 100))
    #expect(read.compactMap(\.text).map(\.utf8.count) == [100])
    let over = try steps("<orders>\(record)</orders>", path: ["orders", "order"], limits: .init(maxRecordBytes: 99))
    #expect(over.first.map { if case .error(.recordTooLarge, _, _, _) = $0 { true } else { false } } == true)
  }

  /// libxml2's push parser keeps state for each open element and bounds nothing itself, so a
  /// record nested past twice the limit — or an element that deep outside any record — ends the
  /// document instead of being skipped: a 100 KB gzip file of open tags held 200 MB before.
  @Test(arguments: [("order", 2), ("other", 1)])
  func nestingPastTwiceTheLimitEndsTheDocument(parent: String, ordinal: Int) throws {
    func document(levels: Int) -> String {
      "<orders><order id=\"1\"/><\(parent)>" + String(repeating: "<a>", count: levels)
        + String(repeating: "</a>", count: levels) + "</\(parent)><order/></orders>"
    }
    let first = Step.record(#"{"id":"1"}"#, .init(ordinal: 1, byteOffset: 8, line: 1))
    // With a limit of 3, an element 7 levels below the record level is past twice the limit.
    for chunkSize in chunkSizes {
      let read = try steps(
        document(levels: 7), path: ["orders", "order"], chunkSize: chunkSize, limits: .init(maxDepth: 3))
      guard read.count == 2, case .error(.nestingTooDeep, let message, let at, recoverable: false) = read.last else {
        Issue.record("chunk \(chunkSize): expected a record and a fatal nestingTooDeep, read \(read)")
        continue
      }
      #expect(read.first == first)
      #expect(message == "elements nested deeper than 3 levels; the document is not read further")
      #expect(at.ordinal == ordinal)
    }
    // 6 levels: a record is skipped and the next one read; outside the records, nothing happens.
    let read = try steps(document(levels: 6), path: ["orders", "order"], limits: .init(maxDepth: 3))
    let last = Step.record(#""""#, location(ordinal + 1, "<order/>", in: Array(document(levels: 6).utf8)))
    if parent == "order" {
      let skipped = Step.error(
        .nestingTooDeep, "elements nested deeper than 3 levels in a record",
        location(2, "<order>", in: Array(document(levels: 6).utf8)),
        recoverable: true)
      #expect(read == [first, skipped, last])
    } else {
      #expect(read == [first, last])
    }
  }

  @Test func aMillionOpenElementsEndAtTheDepthLimit() throws {
    let text = "<orders>" + String(repeating: "<order>", count: 1_000_000)
    let read = try steps(text, path: [], chunkSize: 1 << 15)
    guard case .error(.nestingTooDeep, _, let at, recoverable: false) = read.last, read.count == 1 else {
      Issue.record("expected one fatal nestingTooDeep, read \(read.suffix(2))")
      return
    }
    // Found at the 2 + 2 × 256 + 1st element, long before the end of the input.
    #expect(at.byteOffset < 8 + 7 * 520)
  }

  /// A document in another encoding reaches the parser as libxml2's UTF-8 copy; its lines and
  /// byte offsets are still the stream's own (fuzz finding 9: a Latin-1 document's offsets
  /// counted the copy's bytes, past the input's end).
  @Test(arguments: [1, 4096])
  func recordsInATranscodedDocumentHaveTheirLines(chunkSize: Int) throws {
    let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<r>\n<rec a=\"é\">x</rec>\n<rec>y</rec>\n</r>\n"
    let utf16: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    let latin1 =
      Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<r>\n<rec a=\"".utf8) + [0xE9, 0xE9, 0xE9]
      + Array("\">x</rec>\n<rec>y</rec>\n</r>\n".utf8)
    for (bytes, width) in [(utf16, 2), (latin1, 1)] {
      let read = try steps(bytes, path: ["r", "rec"], chunkSize: chunkSize)
      #expect(read.map(\.location.line) == [3, 4])
      // Where `<rec` starts, in the stream's own bytes.
      var expected: [Int64] = []
      for index in bytes.indices.dropLast(2 * width)
      where bytes[index] == UInt8(ascii: "<") && bytes[index + width] == UInt8(ascii: "r")
        && bytes[index + 2 * width] == UInt8(ascii: "e")
      {
        expected.append(Int64(index))
      }
      #expect(expected.count == 2)
      #expect(read.map(\.location.byteOffset) == expected)
    }
  }

  /// Fuzz finding 9: a Latin-1 document whose text before its record holds 120 accented bytes
  /// (240 in libxml2's UTF-8 copy) — the record's offset is where its `<` is in the input.
  @Test(arguments: [1, 7, 4096])
  func aLatin1RecordAfterManyAccentedBytesIsWhereItsTagIs(chunkSize: Int) throws {
    let head = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<r>\n".utf8) + Array(repeating: 0xEB, count: 120)
    let bytes = head + Array("<rec a=\"".utf8) + [0xE9] + Array("\">x</rec>\n</r>\n".utf8)
    let read = try steps(bytes, path: ["r", "rec"], chunkSize: chunkSize)
    #expect(read.map(\.location.byteOffset) == [Int64(head.count)], "\(read)")
    #expect(read.allSatisfy { $0.location.byteOffset < bytes.count })
  }

  /// A legacy document in a stateless encoding other than UTF-8 — a code page, UTF-16 of a
  /// stated order, a CJK multi-byte set — has its records where their `<` is in the input,
  /// fed a byte at a time or in the parser's slices, as the fuzz target checks for UTF-8 (fuzz
  /// finding 9 was a Latin-1 record reported past the input's end, counted in libxml2's UTF-8
  /// copy). The text between the records is in the encoding's own script, so its bytes and its
  /// UTF-8 differ in length.
  @Test(arguments: [
    ("ISO-8859-1", "café Übermaß"), ("ISO-8859-15", "coût 5 €"), ("windows-1252", "naïve “quotes” €"),
    ("ISO-8859-7", "καλημέρα"), ("KOI8-R", "привет"), ("CP1251", "привет"), ("CP866", "привет"),
    ("Shift_JIS", "日本語のテキスト"), ("EUC-JP", "日本語"), ("GB18030", "中文文本"), ("GBK", "中文"),
    ("BIG5", "中文"), ("EUC-KR", "한국어"), ("UTF-16LE", "ü 日本 😀"), ("UTF-16BE", "ü 日本 😀"),
    ("IBM437", "café"),
  ])
  func recordsOfALegacyEncodingAreWhereTheirTagsAre(encoding: String, sample: String) throws {
    let parts = [
      "<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n<r>\n<!-- \(sample) \(sample) -->\n",
      "<rec a=\"\(sample)\">\(sample)</rec>\n",
      "<rec>\(sample)</rec>\n", "</r>\n",
    ]
    let encoded = try parts.map { try #require(iconvEncode($0, to: encoding), "\(encoding)") }
    let bytes = encoded.flatMap { $0 }
    let expected = [Int64(encoded[0].count), Int64(encoded[0].count + encoded[1].count)]
    for chunkSize in chunkSizes {
      let read = try steps(bytes, path: ["r", "rec"], chunkSize: chunkSize)
      #expect(read.compactMap(\.text).count == 2, "\(encoding), chunks of \(chunkSize): \(read)")
      #expect(read.map(\.location.byteOffset) == expected, "\(encoding), chunks of \(chunkSize)")
      #expect(read.map(\.location.line) == [4, 5], "\(encoding), chunks of \(chunkSize)")
    }
    let first = try steps(bytes, path: ["r", "rec"]).first?.text
    #expect(first == "{\"a\":\"\(sample)\",\"#text\":\"\(sample)\"}", "\(encoding)")
  }

  /// A document in an encoding where a character may be spelled two ways or depends on the
  /// bytes before it (UTF-7, ISO-2022-JP) is refused at its start, saying how to read it: the
  /// fuzz target found a UTF-7 document whose records moved with the chunk size.
  @Test(arguments: ["UTF-7", "ISO-2022-JP"])
  func aDocumentInAnEncodingWithStateIsRefusedWithTheWayToReadIt(encoding: String) throws {
    // The markup in ASCII, as such documents are written (iconv's UTF-7 would spell `<` `+ADw-`).
    let bytes =
      Array("<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n<r>\n<rec>".utf8)
      + (try #require(iconvEncode("日本", to: encoding))) + Array("</rec>\n</r>\n".utf8)
    for chunkSize in [1, 4096] {
      let read = try steps(bytes, path: ["r", "rec"], chunkSize: chunkSize)
      guard case .error(let code, let message, let location, recoverable: false)? = read.first, read.count == 1 else {
        Issue.record("\(encoding), chunks of \(chunkSize): \(read)")
        continue
      }
      #expect(code == .syntax)
      #expect(message.contains(encoding) && message.contains("iconv -f \(encoding) -t UTF-8"), "\(message)")
      #expect(location == RecordLocation(ordinal: 0, byteOffset: 0, line: 1))
    }
  }

  /// The encodings whose offsets are exact, by the names documents give them.
  @Test func encodingNamesAreComparedAsIconvDoes() {
    for name in ["utf-8", "ISO-8859-1", "iso_8859-15", "Latin1", "windows-1252", "CP1252", "IBM037", "Shift_JIS"] {
      #expect(XMLEncodings.isLocatable(name), "\(name)")
    }
    for name in ["UTF-7", "ISO-2022-JP", "HZ-GB-2312", "windows-1258", "CP1255", "IBM930", "UTF-32", "CP"] {
      #expect(!XMLEncodings.isLocatable(name), "\(name)")
    }
  }

  // MARK: Input

  /// Reading gzip through `Input` works as for JSON — and a truncated stream ends in the input
  /// error after the records it held, not in a document that merely looks short.
  @Test func truncatedGzipXMLEndsInTheInputErrorNotASilentEnd() throws {
    let scratch = try TemporaryDirectory()
    let records = (0..<3_000).map { #"<order id="\#($0)"><qty>\#($0 * 7919 % 1000)</qty></order>"# }
    let document = "<orders>\n" + records.joined(separator: "\n") + "\n</orders>\n"
    let compressed = Gzip.compress(document)

    let whole = XMLRecordReader(
      source: try Input(path: try scratch.write("whole.xml.gz", compressed)), path: ["orders", "order"])
    var count = 0
    while try whole.next() != nil { count += 1 }
    #expect(count == 3_000)

    let cut = compressed.count / 2
    let reader = XMLRecordReader(
      source: try Input(path: try scratch.write("cut.xml.gz", Array(compressed[..<cut]))), path: ["orders", "order"])
    var delivered = 0
    let error = try #require(throws: InputError.self) {
      while try reader.next() != nil { delivered += 1 }
    }
    #expect(error.code == .truncatedStream)
    #expect(error.compressedOffset == Int64(cut))
    #expect(delivered > 0 && delivered < 3_000)
  }

  @Test func plainAndGzipInputGiveTheSameRecordsAndLocations() throws {
    let scratch = try TemporaryDirectory()
    let bytes = Array(Self.orders.utf8)
    var results: [[Step]] = []
    for file in [try scratch.write("plain.xml", bytes), try scratch.write("packed.xml", Gzip.compress(bytes))] {
      let reader = XMLRecordReader(source: try Input(path: file), path: ["orders", "order"])
      var read: [Step] = []
      while let record = try reader.next() { read.append(.record(record.text, record.location)) }
      results.append(read)
    }
    #expect(results[0] == results[1])
    #expect(results[0].map(\.location) == Self.ordersLocations(bytes))
  }

  @Test func theFactoryMakesAnXMLReaderForTheXMLFormat() throws {
    let reader = RecordReaders.make(
      format: .xml, recordPath: ["orders", "order"], source: MemoryByteSource(Self.orders))
    #expect(reader is XMLRecordReader)
    var count = 0
    while try reader.next() != nil { count += 1 }
    #expect(count == 4)
    #expect((reader as? XMLRecordReader)?.recordCount == 4)
  }
}

/// `text` in `encoding`, by glibc's iconv (what libxml2 converts with), or nil if it cannot.
private func iconvEncode(_ text: String, to encoding: String) -> [UInt8]? {
  let converter = iconv_open(encoding, "UTF-8")
  guard converter != iconv_t(bitPattern: -1) else { return nil }
  defer { iconv_close(converter) }
  var input = Array(text.utf8).map { CChar(bitPattern: $0) }
  var output = [CChar](repeating: 0, count: input.count * 8 + 16)
  let produced: Int? = input.withUnsafeMutableBufferPointer { inputBuffer in
    output.withUnsafeMutableBufferPointer { outputBuffer in
      var inPointer = inputBuffer.baseAddress
      var inLeft = inputBuffer.count
      var outPointer = outputBuffer.baseAddress
      var outLeft = outputBuffer.count
      guard iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1, inLeft == 0,
        iconv(converter, nil, nil, &outPointer, &outLeft) != -1
      else { return nil }
      return outputBuffer.count - outLeft
    }
  }
  guard let produced else { return nil }
  return output.prefix(produced).map { UInt8(bitPattern: $0) }
}
