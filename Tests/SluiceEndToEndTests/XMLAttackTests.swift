import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc  // mkfifo
#endif

/// Hostile XML through the real binary (issue 10, “Safe by construction”): the attack files of
/// `Tests/Corpus/attacks/` and larger ones of our own end in a clear error with exit 65 and
/// nothing written, the benign controls run cleanly, and the runs that prove a memory bound stay
/// under 64 MiB of peak RSS as the kernel measured it (`SluiceBinary.measure`, a process of its
/// own; the others run in process). External entities and DTDs point at canaries — a FIFO that
/// would block any reader forever, a file that would change the data if read — which must never
/// be opened. Broken documents mid-stream and truncated gzip roll the whole run back.
@Suite("XML attacks and broken documents through the binary", .tags(.slow))
struct XMLAttackTests {
  static let memoryBound = 64 << 20
  static let tables = ["orders", "customers", "order_items", "order_statuses"]

  // MARK: Helpers

  /// One order in the export's shape, `orderId` `identifier` (ten digits).
  static func order(_ identifier: Int) -> String {
    let id = String(identifier).leftPadded(to: 10)
    return
      #"<order orderId="\#(id)"><amount>\#(1_000 + identifier)</amount><currency>EUR</currency><status>pending</status><createdAt>2023-01-01T00:00:40Z</createdAt><customer id="\#(identifier % 7 + 1)"><name>Customer \#(identifier % 7 + 1)</name></customer><items><item><sku>SKU-\#(identifier)</sku><qty>2</qty><priceMinor>500</priceMinor></item></items></order>"#
  }

  static func orders(_ identifiers: Range<Int>, prologue: String = "") -> String {
    prologue + "<orders>\n" + identifiers.map { order($0) + "\n" }.joined() + "</orders>\n"
  }

  /// A temporary directory for one test's database, report, inputs and specs.
  struct Scratch {
    let directory: TemporaryDirectory
    var database: String { directory.file("orders.sqlite") }
    var report: String { directory.file("report.json") }

    init() throws {
      directory = try TemporaryDirectory()
    }

    /// A spec for `input` at `recordPath` (none: the root's children) under `policy`.
    func spec(input: String, recordPath: String? = "orders.order", policy: String = #""strict""#) throws -> String {
      let path = recordPath.map { #", "recordPath": "\#($0)""# } ?? ""
      return try directory.write(
        "spec-\(UUID().uuidString).json",
        #"{"dataset": "orders", "input": "\#(input)", "format": "xml"\#(path), "policy": \#(policy), "database": "\#(database)", "report": "\#(report)"}"#
      )
    }

    /// Imports two good orders, and returns the dataset's rows.
    func seed() throws -> DatabaseSnapshot {
      let input = try directory.write("seed.xml", XMLAttackTests.orders(0..<2))
      let result = try SluiceCommand.run(["run", try spec(input: input)])
      #expect(result.status == 0, "\(result.stderr)")
      let snapshot = try DatabaseSnapshot(of: database, tables: XMLAttackTests.tables)
      #expect(snapshot.count("orders") == 2)
      return snapshot
    }

    func snapshot() throws -> DatabaseSnapshot { try DatabaseSnapshot(of: database, tables: XMLAttackTests.tables) }

    func writtenReport() throws -> RunReport {
      try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    }
  }

  /// Runs `input` against a seeded database and checks the outcome every refused document
  /// shares: exit 65, the issue `code` at `line`, the database as it was, memory bounded.
  @discardableResult
  func expectRefused(
    _ input: String, scratch: Scratch, code: IssueCode, message: String, line: Int? = nil,
    recordPath: String? = "orders.order",
    policy: String = #""strict""#, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> MeasuredRun {
    let before = try scratch.seed()
    let result = try SluiceBinary.measure([
      "run", try scratch.spec(input: input, recordPath: recordPath, policy: policy),
    ])
    #expect(!result.timedOut, "the run hung", sourceLocation: sourceLocation)
    #expect(result.status == 65, "\(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.contains(message), "\(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.contains("the run was rolled back"), sourceLocation: sourceLocation)
    #expect(
      result.peakResidentBytes <= Self.memoryBound, "peak RSS \(result.peakResidentBytes >> 20) MiB",
      sourceLocation: sourceLocation)
    #expect(try scratch.snapshot() == before, sourceLocation: sourceLocation)
    let report = try scratch.writtenReport()
    #expect(report.status == .failed, sourceLocation: sourceLocation)
    #expect(report.failure?.kind == .data, sourceLocation: sourceLocation)
    #expect(!report.committed, sourceLocation: sourceLocation)
    let issue = report.issues.first
    #expect(issue?.code == code, "\(report.issues)", sourceLocation: sourceLocation)
    #expect(issue?.stage == .read, sourceLocation: sourceLocation)
    if let line { #expect(issue?.location?.line == line, "\(report.issues)", sourceLocation: sourceLocation) }
    return result
  }

  // MARK: The corpus

  static let corpus = Corpus.files(in: "attacks/xml-defusedxml") + Corpus.files(in: "attacks/xml-xmlschema")

  /// Each file that declares an entity, the entity it declares first, and that declaration's line.
  static let entityFiles: [(String, String, Int)] = [
    ("xml-defusedxml/cyclic.xml", "a", 2), ("xml-defusedxml/xmlbomb.xml", "a", 2),
    ("xml-defusedxml/xmlbomb2.xml", "a", 2),
    ("xml-defusedxml/quadratic.xml", "a", 2), ("xml-defusedxml/external.xml", "ee", 2),
    ("xml-defusedxml/external_file.xml", "ee", 2), ("xml-xmlschema/external_entity.xml", "ee", 4),
    ("xml-xmlschema/unused_external_entity.xml", "ee", 4), ("xml-xmlschema/with_entity.xml", "e", 4),
  ]

  /// The files whose DTD first declares an attribute with a type other than CDATA (here an
  /// ENTITY attribute for an unparsed entity, declared two lines below): refused at that line.
  static let attributeTypeFiles = ["xml-xmlschema/unparsed_entity.xml", "xml-xmlschema/unused_unparsed_entity.xml"]

  /// The benign controls and the records (the root's children) each holds.
  static let benignFiles: [(String, Int)] = [
    ("xml-defusedxml/simple.xml", 3), ("xml-defusedxml/simple-ns.xml", 3), ("xml-defusedxml/dtd.xml", 2),
    ("xml-defusedxml/dtd_element.xml", 1), ("xml-defusedxml/schema-include.xsd", 3),
  ]

  @Test func everyAttackFileIsCovered() {
    let covered = Set(
      Self.entityFiles.map(\.0) + Self.attributeTypeFiles + Self.benignFiles.map(\.0) + ["xml-xmlschema/malformed.xml"])
    let present = Set(Self.corpus.map { $0.components(separatedBy: "/attacks/").last ?? $0 })
    #expect(present.count == 17)
    #expect(present == covered)
  }

  @Test(arguments: entityFiles)
  func anEntityDeclaringFileIsRefusedAtTheDeclaration(file: String, entity: String, line: Int) throws {
    let scratch = try Scratch()
    try expectRefused(
      Corpus.root + "/attacks/" + file, scratch: scratch, code: .unsafeXML,
      message: "unsafeXML: the document declares the entity '\(entity)'", line: line)
  }

  @Test(arguments: attributeTypeFiles)
  func aFileDeclaringATypedAttributeIsRefusedAtThatDeclaration(file: String) throws {
    let scratch = try Scratch()
    try expectRefused(
      Corpus.root + "/attacks/" + file, scratch: scratch, code: .unsafeXML,
      message: "unsafeXML: the document's DTD declares the attribute 'source' of <image> with a type other than CDATA",
      line: 5)
  }

  /// A lenient run allowed to load nothing: the controls' elements are not orders, so each
  /// record is rejected at decode — but every one is read, and the reader reports nothing.
  @Test(arguments: benignFiles)
  func aBenignControlIsReadToItsEnd(file: String, records: Int) throws {
    let scratch = try Scratch()
    let result = try SluiceBinary.measure([
      "run",
      try scratch.spec(
        input: Corpus.root + "/attacks/" + file, recordPath: nil,
        policy: #"{"preset": "lenient", "allowNothingLoaded": true}"#),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.peakResidentBytes <= Self.memoryBound)
    let report = try scratch.writtenReport()
    #expect(report.statistics(for: .read).recordsOut == records)
    #expect(report.issues.allSatisfy { $0.stage != .read }, "\(report.issues)")
  }

  @Test func theMalformedControlSaysTheInputEndsTooSoon() throws {
    let scratch = try Scratch()
    try expectRefused(
      Corpus.root + "/attacks/xml-xmlschema/malformed.xml", scratch: scratch, code: .syntax,
      message: "syntax: malformed XML: the input ends before the document does (1 element(s) still open)", line: 1,
      recordPath: nil)
  }

  // MARK: Canaries

  /// Everything that could make a parser open a file, pointed at a FIFO without a writer: an
  /// `open` of it blocks forever, so a run that finishes never opened it.
  @Test(arguments: [
    ("general entity", #"<!DOCTYPE orders [<!ENTITY ee SYSTEM "CANARY">]>"#, "<name>&ee;</name>"),
    ("parameter entity", #"<!DOCTYPE orders [<!ENTITY % ee SYSTEM "CANARY"> %ee;]>"#, nil),
    ("external DTD", #"<!DOCTYPE orders SYSTEM "CANARY">"#, nil),
    ("public DTD", #"<!DOCTYPE orders PUBLIC "-//Sluice//Canary//EN" "CANARY">"#, nil),
    (
      "XInclude", "",
      #"<name>x</name><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="CANARY" parse="text"/>"#
    ),
  ])
  func aCanaryFIFOIsNeverOpened(kind: String, doctype: String, reference: String?) throws {
    let scratch = try Scratch()
    let canary = scratch.directory.file("canary")
    #expect(mkfifo(canary, 0o600) == 0)
    var document = Self.orders(
      0..<3,
      prologue: "<?xml version=\"1.0\"?>\n" + doctype.replacingOccurrences(of: "CANARY", with: "file://" + canary)
        + "\n")
    if let reference {
      let reference = reference.replacingOccurrences(of: "CANARY", with: "file://" + canary)
      document = document.replacingOccurrences(of: "<name>Customer 2</name>", with: reference)
    }
    let input = try scratch.directory.write("canary.xml", document)
    // A run blocked on the canary fails here.
    let result = try SluiceCommand.start(["run", try scratch.spec(input: input)]).finished(within: 60)
    if doctype.contains("ENTITY") {
      #expect(result.status == 65, "\(result.stderr)")
      #expect(result.stderr.contains("unsafeXML: the document declares the entity 'ee'"), "\(result.stderr)")
    } else {
      // The DTDs are ignored and an XInclude is an element like any other.
      #expect(result.status == 0, "\(kind): \(result.stderr)")
      #expect(try scratch.snapshot().count("orders") == 3)
    }
  }

  /// An external DTD that would add an attribute to every order: loaded, the orders would fail
  /// with a duplicate `status`; ignored, they load as written.
  @Test func aCanaryDTDThatWouldChangeTheDataIsNeverRead() throws {
    let scratch = try Scratch()
    let dtd = try scratch.directory.write("canary.dtd", #"<!ATTLIST order status CDATA "CANARY">"# + "\n")
    let input = try scratch.directory.write(
      "orders.xml", Self.orders(0..<3, prologue: #"<!DOCTYPE orders SYSTEM "file://\#(dtd)">"# + "\n"))
    let result = try SluiceCommand.run(["run", try scratch.spec(input: input)])
    #expect(result.status == 0, "\(result.stderr)")
    let rows = try scratch.snapshot()
    #expect(rows.count("orders") == 3)
    #expect(!rows.description.contains("CANARY"))
  }

  // MARK: Bombs of our own, larger

  /// The classic billion laughs (10 levels of 10 references: 10⁹ expansions), its parameter
  /// entity variant, and a quadratic blow-up of 1 MB × 100,000 references, gzip-compressed.
  @Test(arguments: ["billion laughs", "parameter laughs", "quadratic"])
  func aLargeEntityBombIsRefusedInBoundedMemory(kind: String) throws {
    let scratch = try Scratch()
    var doctype: String
    var body: String
    switch kind {
    case "billion laughs":
      doctype = #"<!ENTITY lol0 "lol">"# + "\n"
      for level in 1...9 {
        doctype += "<!ENTITY lol\(level) \"\(String(repeating: "&lol\(level - 1);", count: 10))\">\n"
      }
      body = "&lol9;"
    case "parameter laughs":
      doctype = #"<!ENTITY % pe0 "<!ENTITY lol 'lol'>">"# + "\n"
      for level in 1...9 {
        doctype += "<!ENTITY % pe\(level) \"\(String(repeating: "&#37;pe\(level - 1);", count: 10))\">\n"
      }
      doctype += "%pe9;\n"
      body = "&lol;"
    default:
      doctype = "<!ENTITY big \"\(String(repeating: "B", count: 1 << 20))\">\n"
      body = String(repeating: "&big;", count: 100_000)
    }
    let document =
      "<!DOCTYPE orders [\n\(doctype)]>\n<orders>\n" + Self.order(1).replacingOccurrences(of: "Customer 2", with: body)
      + "\n</orders>\n"
    let input = try scratch.directory.write("bomb.xml.gz", Gzip.compress(Array(document.utf8)))
    let entity = kind == "billion laughs" ? "lol0" : kind == "quadratic" ? "big" : "pe0"
    let result = try expectRefused(
      input, scratch: scratch, code: .unsafeXML, message: "unsafeXML: the document declares the entity '\(entity)'",
      line: 2)
    #expect(!result.stderr.contains("lol lol"))
  }

  /// Found by this suite: libxml2's push parser keeps state for every open element, so 5 million
  /// nested elements (a 100 KB gzip file) held 200 MB before the reader gave such documents up.
  @Test(arguments: [("in a record", "<order>"), ("outside the records", "<other>")])
  func millionsOfNestedElementsEndInBoundedMemory(kind: String, opening: String) throws {
    let scratch = try Scratch()
    let count = 5_000_000
    let closing = opening.replacingOccurrences(of: "<", with: "</")
    let document = Array(
      ("<orders>\n" + String(repeating: opening, count: count) + String(repeating: closing, count: count)
        + "\n</orders>\n").utf8)
    let input = try scratch.directory.write("deep.xml.gz", Gzip.compress(document, level: 9))
    try expectRefused(
      input, scratch: scratch, code: .nestingTooDeep,
      message: "nestingTooDeep: elements nested deeper than 256 levels; the document is not read further", line: 2)
  }

  /// libxml2 looks for a start tag's end before parsing it; it gives up after 10 MB, and so the
  /// run ends rather than hold the whole tag — in Sluice's `valueTooLarge` naming the bound, not
  /// in libxml2's "internal error: Huge input lookup" (issue 38, finding 11a): a tag that never
  /// ends, and one whose attribute value is 30 MB.
  @Test(arguments: [false, true])
  func aStartTagPastLibxml2sBoundIsValueTooLargeInBoundedMemory(tagEnds: Bool) throws {
    let scratch = try Scratch()
    var document = Array("<orders>\n<order orderId=\"".utf8)
    document += [UInt8](repeating: UInt8(ascii: "7"), count: 30 << 20)
    if tagEnds { document += Array("\"><amount>1</amount></order>\n</orders>\n".utf8) }
    let input = try scratch.directory.write("tag.xml.gz", Gzip.compress(document, level: 9))
    let result = try expectRefused(
      input, scratch: scratch, code: .valueTooLarge,
      message:
        "valueTooLarge: a start tag (with its attribute values), CDATA section, comment or processing instruction longer than 10,000,000 bytes",
      line: 2)
    #expect(!result.stderr.contains("Huge input lookup"), "\(result.stderr)")
  }

  // MARK: Nothing from a DTD is applied (issue 21)

  /// A spec for the Stack Exchange tags at `input`.
  func tagsSpec(_ scratch: Scratch, input: String, policy: String = #""lenient""#) throws -> String {
    try scratch.directory.write(
      "tags-\(UUID().uuidString).json",
      #"{"dataset": "stackexchange-tags", "input": "\#(input)", "format": "xml", "recordPath": "tags.row", "policy": \#(policy), "database": "\#(scratch.database)", "report": "\#(scratch.report)"}"#
    )
  }

  /// The issue's tags: an internal subset that defaults `Count` and `TagName` of every row made
  /// `<row Id="1"/>` load as `1|injected|777`. Every command that reads XML now refuses the
  /// document at the declaration, under either policy, and nothing is written.
  @Test func aDTDAttributeDefaultIsRefusedByEveryCommandAndNothingIsInjected() throws {
    let scratch = try Scratch()
    let input = try scratch.directory.write(
      "Tags.xml",
      """
      <?xml version="1.0" encoding="utf-8"?>
      <!DOCTYPE tags [
      <!ATTLIST row Count CDATA "777" TagName CDATA "injected">
      ]>
      <tags>
        <row Id="1"/>
        <row Id="2" TagName="honey" Count="2"/>
      </tags>

      """)
    let message = "the document's DTD declares a default value for the attribute 'Count' of <row>"
    for policy in [#""strict""#, #""lenient""#] {
      let spec = try tagsSpec(scratch, input: input, policy: policy)
      for command in ["run", "validate"] {
        let result = try SluiceCommand.run([command, spec])
        #expect(result.status == 65, "\(command) \(policy): \(result.stderr)")
        #expect(result.stderr.contains("unsafeXML: " + message), "\(result.stderr)")
        #expect(!result.stderr.contains("injected"))
        let report = try scratch.writtenReport()
        #expect(!report.committed)
        #expect(report.statistics(for: .read).recordsOut == 0)
        let issue = report.issues.first
        #expect(issue?.stage == .read)
        #expect(issue?.code == .unsafeXML)
        #expect(issue?.location?.line == 3)
        #expect(issue?.location?.ordinal == 0)
        #expect(issue?.path == "")
      }
    }
    let inspected = try SluiceCommand.run(["inspect", input])
    #expect(inspected.status == 65, "\(inspected.stderr)")
    #expect(inspected.stderr.contains("line 3"), "\(inspected.stderr)")
    #expect(inspected.stderr.contains(message), "\(inspected.stderr)")
  }

  /// A defaulted `xsi:nil="true"` would null every record: the document is refused instead.
  @Test func aDefaultedXsiNilIsRefusedAndNullsNoRecord() throws {
    let scratch = try Scratch()
    let document = Self.orders(0..<3, prologue: "<!DOCTYPE orders [\n<!ATTLIST order xsi:nil CDATA \"true\">\n]>\n")
      .replacingOccurrences(of: "<orders>", with: #"<orders xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">"#)
    let input = try scratch.directory.write("nil.xml", document)
    try expectRefused(
      input, scratch: scratch, code: .unsafeXML,
      message: "unsafeXML: the document's DTD declares a default value for the attribute 'xsi:nil' of <order>", line: 2,
      policy: #""lenient""#)
  }

  /// Address space for the runs that prove a memory bound (`ulimit -v`, KiB): a debug build
  /// needs about 150 MB to run at all.
  static let addressSpaceKiB = 400_000

  /// The issue's amplification: one 9.9 MB default for an attribute of 500 `<row/>` took 2.4 GiB
  /// before a 3 GB limit killed the run (`inspect` 2.7 GiB). Refused at the declaration, every
  /// command ends with exit 65 inside 400 MB of address space.
  @Test(arguments: ["run", "validate", "inspect"])
  func aHugeAttributeDefaultCannotAmplifyIntoMemory(command: String) throws {
    let scratch = try Scratch()
    let rows = (1...500).map { "<row Id=\"\($0)\"/>\n" }.joined()
    let document =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE tags [\n<!ATTLIST row TagName CDATA \""
      + String(repeating: "x", count: 9_900_000) + "\">\n]>\n<tags>\n" + rows + "</tags>\n"
    let input = try scratch.directory.write("Tags.xml.gz", Gzip.compress(Array(document.utf8)))
    let target = command == "inspect" ? input : try tagsSpec(scratch, input: input)
    let result = try SluiceBinary.shell(#"ulimit -v \#(Self.addressSpaceKiB); "$SLUICE" \#(command) "\#(target)""#)
    #expect(result.status == 65, "\(command): \(result.stderr)")
    #expect(
      result.stderr.contains("the document's DTD declares a default value for the attribute 'TagName' of <row>"),
      "\(result.stderr)")
  }

  /// Bytes invalid in the document's declared encoding made libxml2 halt without reporting an
  /// error — `run` succeeded on the records before them, `inspect` exited 0 — and print the
  /// bytes it failed on (record content) to stderr. Found by the xml-reader fuzz target: both
  /// now end in a syntax error, and nothing of the input is printed.
  @Test func anInputInvalidInItsEncodingFailsAndPrintsNoInputBytes() throws {
    let scratch = try Scratch()
    var document = Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<orders>\n".utf8)
    document += Array(Self.order(1).replacingOccurrences(of: "Customer 2", with: "\u{1}").utf8)
    document = document.map { $0 == 1 ? 0xFF : $0 } + Array("\n</orders>\n".utf8)
    let input = try scratch.directory.write("orders.xml", document)
    let run = try SluiceCommand.run(["run", try scratch.spec(input: input)])
    let inspected = try SluiceCommand.run(["inspect", input])
    for result in [run, inspected] {
      #expect(result.status == 65, "\(result.stderr)")
      #expect(
        result.stderr.contains("malformed XML: the input is not valid in its encoding (the declared one, or UTF-8)"),
        "\(result.stderr)")
      #expect(!result.stderr.contains("bytes 0x"), "\(result.stderr)")
      #expect(!result.stderr.contains("encoding error"), "\(result.stderr)")
    }
    #expect(run.stderr.contains("the run was rolled back"), "\(run.stderr)")
    let issue = try #require(try scratch.writtenReport().issues.first)
    #expect(issue.stage == .read)
    #expect(issue.code == .syntax)
    #expect(issue.location?.line == 3)
  }

  // MARK: Limits of one element (issue 21)

  /// An element's text had no bound (a 60 MB value took 364 MiB). Over 10 MB, the record is
  /// skipped with the element's path — the run goes on under lenient, fails under strict —
  /// inside 400 MB of address space.
  @Test(arguments: [#""strict""#, #""lenient""#])
  func aSixtyMegabyteTextSkipsItsRecordInBoundedMemory(policy: String) throws {
    let scratch = try Scratch()
    let document = Self.orders(1..<4).replacingOccurrences(
      of: "<name>Customer 3</name>", with: "<name>" + String(repeating: "n", count: 60_000_000) + "</name>")
    let input = try scratch.directory.write("orders.xml.gz", Gzip.compress(Array(document.utf8)))
    let spec = try scratch.spec(input: input, policy: policy)
    let result = try SluiceBinary.shell(#"ulimit -v \#(Self.addressSpaceKiB); "$SLUICE" run "\#(spec)""#)
    let lenient = policy.contains("lenient")
    #expect(result.status == (lenient ? 0 : 65), "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "read record 2 (line 3, byte \(10 + Self.order(1).utf8.count)) customer.name: valueTooLarge: an element's text longer than 10000000 bytes"
      ), "\(result.stderr)")
    let report = try scratch.writtenReport()
    let issue = try #require(report.issues.first { $0.code == .valueTooLarge })
    #expect(issue.stage == .read)
    #expect(issue.location?.ordinal == 2)
    #expect(issue.location?.line == 3)
    #expect(issue.path == "customer.name")
    #expect(report.committed == lenient)
    if lenient { #expect(try scratch.snapshot().count("orders") == 2) }
  }

  /// Over 10,000 attributes on one element, the record is skipped with the element's path: the
  /// run goes on under lenient and fails under strict.
  @Test(arguments: [#""strict""#, #""lenient""#])
  func anElementWithTooManyAttributesIsARecordIssue(policy: String) throws {
    let scratch = try Scratch()
    let attributes = (0..<15_000).map { " a\($0)=\"\($0)\"" }.joined()
    let document = Self.orders(1..<4).replacingOccurrences(
      of: #"<customer id="3">"#, with: #"<customer id="3""# + attributes + ">")
    let input = try scratch.directory.write("orders.xml", document)
    let result = try SluiceBinary.measure(["run", try scratch.spec(input: input, policy: policy)])
    let lenient = policy.contains("lenient")
    #expect(result.status == (lenient ? 0 : 65), "\(result.stderr)")
    #expect(result.peakResidentBytes <= Self.memoryBound)
    let report = try scratch.writtenReport()
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .read)
    #expect(issue.code == .tooManyAttributes)
    #expect(issue.message == "<customer> has 15001 attributes, more than 10000")
    #expect(issue.location?.ordinal == 2)
    #expect(issue.location?.line == 3)
    #expect(issue.path == "customer")
    #expect(report.committed == lenient)
    if lenient { #expect(try scratch.snapshot().count("orders") == 2) }
  }

  /// libxml2 compares each attribute name with every earlier one before Sluice sees the element:
  /// 100,000 attributes on one element ran over 300 s. A start tag past twice the limit ends the
  /// document before libxml2 parses it, at the tag, under either policy.
  @Test func aStartTagWithAHundredThousandAttributesEndsTheDocumentAtTheTag() throws {
    let scratch = try Scratch()
    let attributes = (0..<100_000).map { " a\($0)=\"\($0)\"" }.joined()
    let document = Self.orders(1..<4).replacingOccurrences(
      of: #"<order orderId="0000000002""#, with: #"<order orderId="0000000002""# + attributes)
    let input = try scratch.directory.write("orders.xml", document)
    try expectRefused(
      input, scratch: scratch, code: .tooManyAttributes,
      message: "tooManyAttributes: a start tag with more than 20000 attributes; the document is not read further",
      line: 3, policy: #""lenient""#)
    // `inspect`'s structure pass feeds libxml2 the same way.
    let inspected = try SluiceCommand.run(["inspect", input])
    #expect(inspected.status == 65, "\(inspected.stderr)")
    #expect(
      inspected.stderr.contains(
        "line 3, byte \(10 + Self.order(1).utf8.count): a start tag with more than 20000 attributes"),
      "\(inspected.stderr)")
  }

  // MARK: Broken documents

  /// 2,000 good orders — several batches already written inside the run's transaction — then
  /// a mismatched end tag, then more orders: strict or lenient, the run fails at that line and
  /// the database keeps exactly what it held.
  @Test(arguments: [#""strict""#, #""lenient""#])
  func malformedXMLMidStreamFailsTheRunAtItsLineAndWritesNothing(policy: String) throws {
    let scratch = try Scratch()
    let broken = Self.order(2_100).replacingOccurrences(of: "</order>", with: "</ordr>")
    let document =
      "<orders>\n" + (100..<2_100).map { Self.order($0) + "\n" }.joined() + broken + "\n"
      + (2_101..<2_200).map { Self.order($0) + "\n" }.joined() + "</orders>\n"
    let input = try scratch.directory.write("orders.xml", document)
    let result = try expectRefused(
      input, scratch: scratch, code: .syntax, message: "read record 2001 (line 2002", line: 2002, policy: policy)
    #expect(result.stderr.contains("syntax: malformed XML"), "\(result.stderr)")
    #expect(result.stderr.contains("an end tag that does not match its start tag"), "\(result.stderr)")
    #expect(!result.stderr.contains("ordr"), "libxml2's message named the tags: \(result.stderr)")
    let report = try scratch.writtenReport()
    #expect(report.statistics(for: .read).recordsOut == 2_000)
  }

  /// A lenient run reports a bad field with its record, the line and byte of its element in
  /// the decompressed stream, and its path, and loads the other orders.
  @Test func aDecodeIssueNamesItsRecordLineByteAndPath() throws {
    let scratch = try Scratch()
    let twoItems = Self.order(1).replacingOccurrences(
      of: "</items>", with: "\n  <item><sku>SKU-X</sku><qty>two</qty><priceMinor>1</priceMinor></item></items>")
    let document = Self.orders(0..<1).replacingOccurrences(
      of: "</orders>\n", with: twoItems + "\n" + Self.order(2) + "\n</orders>\n")
    let offset = try #require(document.utf8.firstRange(of: "<qty>two".utf8)).lowerBound
    let byte = document.utf8.distance(from: document.utf8.startIndex, to: offset)
    let input = try scratch.directory.write("orders.xml.gz", Gzip.compress(Array(document.utf8)))
    let result = try SluiceCommand.run(["run", try scratch.spec(input: input, policy: #""lenient""#)])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.contains("decode record 2 (line 4, byte \(byte)) items[1].qty: typeMismatch"), "\(result.stderr)")
    let report = try scratch.writtenReport()
    let issue = try #require(report.issues.first)
    #expect(issue.location == RecordLocation(ordinal: 2, byteOffset: Int64(byte), line: 4))
    #expect(issue.path == "items[1].qty")
    #expect(try scratch.snapshot().count("orders") == 2)
  }

  @Test func truncatedGzipXMLFailsWithAnIOErrorAndWritesNothing() throws {
    let scratch = try Scratch()
    let before = try scratch.seed()
    let compressed = Gzip.compress(Array(Self.orders(100..<3_100).utf8))
    let input = try scratch.directory.write("orders.xml.gz", Array(compressed[..<(compressed.count / 2)]))
    let result = try SluiceCommand.run(["run", try scratch.spec(input: input)])
    #expect(result.status == 74, "\(result.stderr)")
    #expect(result.stderr.contains("gzip stream is truncated"), "\(result.stderr)")
    #expect(result.stderr.contains("the run was rolled back"))
    #expect(try scratch.snapshot() == before)
    let report = try scratch.writtenReport()
    #expect(report.failure?.kind == .io)
    #expect(!report.committed)
  }

  /// In process: 500 ordinary orders say nothing of the memory bound (the attacks above measure
  /// it, each in a process of its own); what is checked is that both encodings load the same rows.
  @Test func theSameOrdersLoadFromPlainAndGzipXML() throws {
    let scratch = try Scratch()
    let document = Self.orders(0..<500)
    var snapshots: [DatabaseSnapshot] = []
    for (name, bytes) in [("plain.xml", Array(document.utf8)), ("packed.xml.gz", Gzip.compress(Array(document.utf8)))] {
      try? FileManager.default.removeItem(atPath: scratch.database)
      let result = try SluiceCommand.run(["run", try scratch.spec(input: try scratch.directory.write(name, bytes))])
      #expect(result.status == 0, "\(result.stderr)")
      snapshots.append(try scratch.snapshot())
    }
    #expect(snapshots[0].count("orders") == 500)
    #expect(snapshots[0].count("order_items") == 500)
    #expect(snapshots[0] == snapshots[1])
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}

/// A run of the binary as the kernel measured it.
struct MeasuredRun {
  /// The exit code, or 128 + the signal that ended the process.
  var status: Int32
  var stdout: String
  var stderr: String
  /// The peak resident set size (`wait4`'s `ru_maxrss`).
  var peakResidentBytes: Int
  /// The run outlived its timeout and was killed.
  var timedOut: Bool
}

extension SluiceBinary {
  /// Runs `sluice arguments…` under a small Python parent that forks it, reaps it with `wait4`
  /// and writes its exit status and peak RSS (`ru_maxrss`). The kernel counts a process's
  /// pre-`exec` image in its peak, and any child this test process spawns starts as a copy of
  /// (or shares) the test process's hundreds of MiB: a child of a small parent counts only its
  /// own. A run that outlives `timeout` is killed — a guard against hangs, not a measurement.
  static func measure(_ arguments: [String], timeout: Double = 120) throws -> MeasuredRun {
    let scratch = try TemporaryDirectory()
    let resultPath = scratch.file("result.json")
    let script = """
      import json, os, signal, sys, time
      result_path, timeout, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
      pid = os.fork()
      if pid == 0:
          try:
              os.execv(argv[0], argv)
          finally:
              os._exit(127)
      deadline = time.monotonic() + timeout
      timed_out = False
      while True:
          reaped, status, usage = os.wait4(pid, os.WNOHANG)
          if reaped == pid:
              break
          if not timed_out and time.monotonic() > deadline:
              timed_out = True
              os.kill(pid, signal.SIGKILL)
          time.sleep(0.002)
      code = os.waitstatus_to_exitcode(status)
      with open(result_path, "w") as result:
          json.dump({"status": code if code >= 0 else 128 - code, "peakKiB": usage.ru_maxrss, "timedOut": timed_out}, result)
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, resultPath, "\(timeout)", path] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: Repository.root)
    process.standardInput = FileHandle.nullDevice
    let output = try capture(process)
    guard output.status == 0 else {
      throw CocoaError(
        .executableLoad, userInfo: [NSLocalizedDescriptionKey: "the measuring parent failed: \(output.stderr)"])
    }
    struct Result: Decodable {
      var status: Int32
      var peakKiB: Int
      var timedOut: Bool
    }
    let result = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: resultPath)))
    return MeasuredRun(
      status: result.status, stdout: output.stdout, stderr: output.stderr, peakResidentBytes: result.peakKiB * 1024,
      timedOut: result.timedOut)
  }
}
