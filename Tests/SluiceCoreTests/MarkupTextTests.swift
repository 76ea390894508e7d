import Testing

@_spi(Internals) @testable import SluiceCore

/// The HTML page and the JUnit XML escape text through one loop (`MarkupText`), and differ only
/// where their formats do.
@Suite("markup escaping of the reports")
struct MarkupTextTests {
  private static let text = "<a href=\"x\">Tom & Jerry's</a>\u{0}\u{1B}\u{85}\u{FFFE}\t\n\r🍎"

  @Test func htmlEscapesTheApostropheAndShowsForbiddenCharactersAsReplacements() {
    #expect(
      HTMLReport.escape(Self.text)
        == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFE}\t\n\r🍎")
  }

  @Test func xmlLeavesTheApostropheAndDropsTheCharactersXMLForbids() {
    #expect(
      JUnitReport.escape(Self.text) == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry's&lt;/a&gt;\u{85}\t\n\r🍎")
  }
}
