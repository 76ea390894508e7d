import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

/// The HTML run report in a real browser: `Tests/browser/check-html-report` renders the lenient
/// sample's page in headless Chromium with the network unreachable and checks its text, its
/// screenshot and that it requested nothing.
@Suite("HTML run report in a browser")
struct BrowserCheckTests {
  /// Chromium from Debian's `chromium` package, or whatever `CHROMIUM` names.
  static let chromium: String? = {
    let candidates = [
      ProcessInfo.processInfo.environment["CHROMIUM"], "/usr/bin/chromium", "/usr/bin/chromium-browser",
    ]
    return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  // Skipped, and the skip says why, on a machine without Chromium; `.ci/run` installs it, so
  // in CI this always runs (and `.ci/run` runs the script once more after `swift test`).
  @Test(.enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium, as .ci/run does)"))
  func theHTMLReportRendersInChromiumWithTheNetworkUnreachable() throws {
    let chromium = try #require(Self.chromium)
    let result = try SluiceBinary.shell("CHROMIUM='\(chromium)' Tests/browser/check-html-report")
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("check-html-report: all checks passed"))
    #expect(result.stdout.contains("no request from the page"))
  }
}
