import Foundation
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// libxml2's messages quote the document ("Specification mandates value for attribute
/// HIVpositive", after a stray quote in an attribute value); Sluice says what is wrong in words of
/// its own (issue 38, finding 6). Each broken document carries a word of its own where libxml2
/// would quote it, and that word must reach nothing a run writes: stderr, the JSON, HTML and
/// JUnit reports, the rejects file, the audit tables — under either policy, while the error still
/// names its line.
@Suite("XML parser errors quote no word of the document", .tags(.slow))
struct XMLErrorMessageTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    /// The word libxml2's message would quote.
    var secret: String
    /// The third order's XML, broken (line 5 of the document).
    var brokenOrder: String
    var code: IssueCode
    var message: String
    var testDescription: String { name }
  }

  static func order(_ id: Int, customer: String = #"<customer id="7"><name>Ana</name></customer>"#) -> String {
    #"<order orderId="\#(id)"><amount>100</amount><currency>EUR</currency><status>pending</status><createdAt>2023-01-01T00:00:00Z</createdAt>\#(customer)<items><item><sku>S\#(id)</sku><qty>1</qty><priceMinor>100</priceMinor></item></items></order>"#
  }

  static let cases: [Case] = [
    Case(
      name: "an unescaped quote inside an attribute value", secret: "Quokkapositive",
      brokenOrder: order(
        3, customer: #"<customer id="7" note="result: " Quokkapositive" confirmed"><name>Ana</name></customer>"#),
      code: .syntax, message: "malformed XML: an attribute without a value"),
    Case(
      name: "a mismatched end tag", secret: "Xylophoneward",
      brokenOrder: order(3, customer: #"<customer id="7"><Xylophoneward>Ana</name></customer>"#),
      code: .syntax, message: "malformed XML: an end tag that does not match its start tag"),
    Case(
      name: "an undefined entity", secret: "Marzipanhold",
      brokenOrder: order(3, customer: #"<customer id="7"><name>&Marzipanhold;</name></customer>"#),
      code: .syntax, message: "malformed XML: a reference to an undefined entity"),
    Case(
      name: "an undeclared namespace prefix", secret: "Wombatprefix",
      brokenOrder: order(3, customer: #"<customer id="7"><Wombatprefix:name>Ana</Wombatprefix:name></customer>"#),
      code: .syntax, message: "malformed XML: a namespace prefix that is not declared"),
  ]

  static func document(_ brokenOrder: String) -> String {
    "<?xml version=\"1.0\"?>\n<orders>\n" + order(1) + "\n" + order(2) + "\n" + brokenOrder + "\n" + order(4)
      + "\n</orders>\n"
  }

  @Test(arguments: cases, ["strict", "lenient"])
  func theErrorNamesItsLineAndQuotesNothing(_ broken: Case, policy: String) throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write("orders.xml", Self.document(broken.brokenOrder))
    let database = scratch.file("orders.sqlite")
    let outputs = ["report.json", "report.html", "junit.xml", "rejects.ndjson"].map { scratch.file($0) }
    let result = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--input", input, "--format", "xml", "--record-path", "orders.order",
      "--policy", policy, "--db", database, "--report", outputs[0], "--html", outputs[1], "--junit", outputs[2],
      "--rejects", outputs[3], "--no-progress",
    ])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains(broken.message), "\(result.stderr)")
    #expect(result.stderr.contains("line 5"), "\(result.stderr)")

    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: outputs[0])))
    let issue = try #require(report.issues.first { $0.stage == .read })
    #expect(issue.code == broken.code)
    #expect(issue.message.hasPrefix(broken.message), "\(issue.message)")
    #expect(issue.location?.line == 5)

    var written = ["stderr": result.stderr, "stdout": result.stdout]
    for path in outputs where FileManager.default.fileExists(atPath: path) {
      written[path] = try String(contentsOfFile: path, encoding: .utf8)
    }
    let audit = try DatabaseSnapshot(of: database, tables: ["sluice_runs", "sluice_rejects"])
    #expect(audit.count("sluice_runs") == 1)
    #expect(audit.count("sluice_rejects") >= 1)
    written["audit tables"] = audit.description
    for (place, text) in written {
      #expect(!text.contains(broken.secret), "\(place) quotes the document: \(text)")
    }
  }
}
