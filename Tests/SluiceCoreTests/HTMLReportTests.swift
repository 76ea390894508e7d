import Foundation
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

@Suite("HTML run report")
struct HTMLReportTests {
  // MARK: - Reports to render

  /// A lenient run of 1,000 records: 10 rejected at decode, 5 at validate, 3 warnings.
  static func report(
    pipeline: String = "fruits-lenient", read: Int = 1_000, decodeRejected: Int = 10, validateRejected: Int = 5,
    issues: [SluiceCore.Issue]? = nil, failure: RunReport.Failure? = nil
  ) -> RunReport {
    var stages = Stage.allCases.map(StageStatistics.init)
    var flowing = read
    for (index, rejected) in [0, decodeRejected, validateRejected, 0, 0].enumerated() {
      stages[index].recordsIn = flowing
      stages[index].rejected = rejected
      stages[index].recordsOut = flowing - rejected
      stages[index].seconds = 0.001 * Double(index + 1)
      flowing -= rejected
    }
    stages[1].warnings = 3
    let sampled =
      issues ?? [
        SluiceCore.Issue(
          stage: .decode, code: .typeMismatch, location: .init(ordinal: 5, byteOffset: 3064, line: 5), path: "color",
          message: "expected a string, found a number"),
        SluiceCore.Issue(
          stage: .validate, code: .invalidValue, location: .init(ordinal: 20, byteOffset: 14940, line: 20),
          path: "recipes[1].title", message: "duplicates the title of an earlier recipe of the same fruit",
          rule: "recipe titles are unique within a fruit"),
        SluiceCore.Issue(
          stage: .validate, code: .invalidValue, location: .init(ordinal: 25, byteOffset: 19057, line: 25),
          path: "recipes[3].title", message: "duplicates the title of an earlier recipe of the same fruit",
          rule: "recipe titles are unique within a fruit"),
      ]
    var counts: [String: Int] = [:]
    for issue in sampled { counts[issue.code.rawValue, default: 0] += 1 }
    let input = RunReport.InputSummary(
      path: "/data/fruits.ndjson.gz", format: "ndjson", gzip: true, compressedBytes: 3_374,
      decompressedBytes: 24_239)
    var drift = DriftSummary()
    drift.unknownFields = [.init(path: "recipes[].calories", count: 3, firstRecord: 7)]
    return RunReport(
      mode: "run", pipeline: pipeline, dataset: "fruits", policy: "lenient", conflict: "upsert",
      database: "/data/fruits.sqlite", status: failure == nil ? .succeeded : .failed, failure: failure,
      startedAt: Date(timeIntervalSince1970: 1_796_000_000), finishedAt: Date(timeIntervalSince1970: 1_796_000_002),
      durationSeconds: 1.5, peakMemoryBytes: 27_930_624, input: input,
      inputs: [
        .init(
          path: input.path, format: "ndjson", dataset: "fruits", opened: true, gzip: true, compressedBytes: 3_374,
          decompressedBytes: 24_239, stages: stages, issueCounts: counts, coercions: 0, rowsWritten: ["fruits": 985])
      ],
      stages: stages, issueCounts: counts, issueSampleLimit: 100, issues: sampled,
      checks: [.init(name: "records decode into the contract's types", stage: .decode, failures: 10, warnings: 3)],
      drift: drift, coercions: 0, quarantined: 0, rowsWritten: ["fruits": 985, "recipes": 3_210],
      tableRows: ["fruits": 985, "recipes": 3_210], committed: failure == nil, outputErrors: [])
  }

  /// The values of an SVG element's numeric attributes, for every element of that name.
  static func attributes(_ name: String, of element: String, in html: String) -> [String] {
    let pattern = "<\(element)(?=[\\s/>])[^>]*?\\s\(name)=\"([^\"]*)\""
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
    let range = NSRange(html.startIndex..., in: html)
    return regex.matches(in: html, range: range).compactMap { match in
      Range(match.range(at: 1), in: html).map { String(html[$0]) }
    }
  }

  /// The funnel's `<svg>` element and everything in it.
  static func funnel(in html: String) -> String {
    guard let start = html.range(of: "<svg class=\"funnel\""),
      let end = html.range(of: "</svg>", range: start.upperBound..<html.endIndex)
    else { return "" }
    return String(html[start.lowerBound..<end.upperBound])
  }

  /// The `<rect class="kind">` of one stage's row in the funnel.
  static func segment(_ kind: String, stage: Stage, in html: String) -> String? {
    let svg = funnel(in: html)
    guard let row = svg.range(of: "data-stage=\"\(stage.rawValue)\"") else { return nil }
    let rest = svg[row.upperBound...]
    let rowText = rest.range(of: "</g>").map { String(rest[..<$0.lowerBound]) } ?? String(rest)
    return attributes("width", of: "rect class=\"\(kind)\"", in: rowText).first
  }

  // MARK: - Escaping

  /// `ISO8601DateFormatter` rounds to the millisecond first: a run that started at
  /// 04:47:53.9996 printed 04:47:54 on its page while its JSON report said 04:47:53, so the page
  /// `sluice report --html` rendered from that report differed from the run's own.
  @Test(arguments: [0.0, 0.4, 0.5, 0.9996, 0.99999])
  func thePageAndTheJUnitFileSayTheSecondsTheJSONReportKeeps(fraction: Double) throws {
    var report = Self.report()
    report.startedAt = Date(timeIntervalSince1970: 1_796_273_273 + fraction)
    report.finishedAt = Date(timeIntervalSince1970: 1_796_273_275 + fraction)
    let decoded = try RunReport.decode(from: report.jsonData())
    #expect(HTMLReport.render(decoded) == HTMLReport.render(report))
    #expect(JUnitReport.render(decoded) == JUnitReport.render(report))
    #expect(HTMLReport.render(report).contains("started 2026-12-03 04:47:53 UTC"))
  }

  @Test func escapeTurnsMarkupCharactersIntoReferencesAndControlCharactersIntoReplacements() {
    #expect(
      HTMLReport.escape(#"<a href="x">Tom & Jerry's</a>"#)
        == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;")
    #expect(HTMLReport.escape("a\u{0}b\u{1B}c\u{7F}d\te\nf") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\te\nf")
    #expect(HTMLReport.escape("Zoë 🍎 &amp;") == "Zoë 🍎 &amp;amp;")
  }

  @Test func namesPathsAndMessagesFromTheReportAreEscapedEverywhere() {
    let hostile = #"<script>alert('x')</script>&"#
    var report = Self.report(
      pipeline: hostile,
      issues: [
        SluiceCore.Issue(
          stage: .decode, code: "weird<code>", location: .init(ordinal: 1, byteOffset: 0, line: 1),
          path: #"items[0].<img src=x onerror="alert(1)">"#, message: #"expected "a" & 'b' <here>"#)
      ],
      failure: .init(kind: .data, message: #"record 1: <b>"bold"</b> & 'quoted'"#))
    report.database = #"/tmp/<db>&"quoted" 'name'.sqlite"#
    report.input.path = #"/in/<a>&'b'.json"#
    report.inputs.append(report.inputs[0])
    report.inputs[1].path = #"/in/second"<i>.json"#
    report.inputs[1].dataset = "<orders>"
    report.issues[0].input = #"/in/"third"&<x>.json"#
    report.drift.unsupportedEnumValues = [.init(path: "status</td>", value: "</svg><script>", count: 1, firstRecord: 1)]
    report.rowsWritten["<table>"] = 1
    report.outputErrors = ["cannot write the report /dev/<fifo>: broken pipe"]
    report.skippedByDesign = ["<version> line": 2]
    let html = HTMLReport.render(report)

    #expect(!html.contains("<script"))
    #expect(!html.contains("<img"))
    #expect(!html.contains("<b>"))
    #expect(!html.contains("<i>"))
    #expect(!html.contains("<db>"))
    #expect(html.contains("<code>&lt;table&gt;</code>"))
    #expect(html.components(separatedBy: "</svg>").count == html.components(separatedBy: "<svg ").count)
    #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"))
    #expect(html.contains("<title>sluice: &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp; FAILED</title>"))
    #expect(html.contains("items[0].&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"))
    #expect(html.contains("expected &quot;a&quot; &amp; &#39;b&#39; &lt;here&gt;"))
    #expect(html.contains("record 1: &lt;b&gt;&quot;bold&quot;&lt;/b&gt; &amp; &#39;quoted&#39;"))
    #expect(html.contains("/tmp/&lt;db&gt;&amp;&quot;quoted&quot; &#39;name&#39;.sqlite"))
    #expect(html.contains("/in/second&quot;&lt;i&gt;.json"))
    #expect(html.contains("title=\"/in/&quot;third&quot;&amp;&lt;x&gt;.json\""))
    #expect(html.contains("&lt;/svg&gt;&lt;script&gt;"))
    #expect(html.contains("weird&lt;code&gt;"))
    #expect(html.contains("/dev/&lt;fifo&gt;"))
    #expect(html.contains("&lt;version&gt; line 2"))
  }

  // MARK: - The page loads nothing

  @Test func thePageReferencesNoExternalResourceAndForbidsFetchingAny() {
    let html = HTMLReport.render(Self.report())
    for reference in ["http://", "https://", "src=", "href=", "url(", "@import", "<script", "<link", "<img", "<iframe"]
    {
      #expect(!html.contains(reference), "the page contains \(reference)")
    }
    #expect(
      html.contains(
        #"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">"#))
    #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
    #expect(html.hasSuffix("</html>\n"))
  }

  // MARK: - The funnel

  @Test func funnelBarsAreProportionalToTheLargestStageAndWrittenAsPlainDecimals() {
    var report = Self.report(read: 1_000_000, decodeRejected: 10, validateRejected: 250_000)
    report.stages[4].recordsIn = 123_456
    report.stages[4].recordsOut = 123_456
    let html = HTMLReport.render(report)
    let svg = Self.funnel(in: html)
    let numbers =
      ["x", "y", "width", "height"].flatMap { Self.attributes($0, of: "rect", in: svg) }
      + ["x", "y"].flatMap { Self.attributes($0, of: "text", in: svg) }
    #expect(numbers.count > 30)
    for number in numbers {
      #expect(number.wholeMatch(of: /[0-9]+(\.[0-9])?/) != nil, "'\(number)' is not a plain SVG number")
    }
    // 400 units is the read stage's 1,000,000; one decimal at most.
    #expect(Self.segment("out", stage: .read, in: html) == "400")
    #expect(Self.segment("out", stage: .decode, in: html) == "400")  // 999,990 → 399.996
    #expect(Self.segment("rejected", stage: .decode, in: html) == "2")  // 10 → 0.004, drawn at the minimum
    #expect(Self.segment("rejected", stage: .validate, in: html) == "100")  // 250,000
    #expect(Self.segment("out", stage: .validate, in: html) == "300")  // 749,990 → 299.996
    #expect(Self.segment("out", stage: .load, in: html) == "49.4")  // 123,456 → 49.3824
    #expect(Self.segment("rejected", stage: .map, in: html) == nil)
    #expect(svg.contains("in 1,000,000 · out 999,990"))
    #expect(svg.contains(">rejected 250,000</tspan>"))
    #expect(svg.contains(">no rejects</tspan>"))
    #expect(svg.contains(">warnings 3</tspan>"))
  }

  @Test func svgNumbersHaveOneDecimalADotAndNeverNaNOrInfinity() {
    #expect(HTMLReport.svgNumber(0) == "0")
    #expect(HTMLReport.svgNumber(400) == "400")
    #expect(HTMLReport.svgNumber(12.25) == "12.3")
    #expect(HTMLReport.svgNumber(49.3824) == "49.4")
    #expect(HTMLReport.svgNumber(0.04) == "0")
    #expect(HTMLReport.svgNumber(-3) == "0")
    #expect(HTMLReport.svgNumber(.nan) == "0")
    #expect(HTMLReport.svgNumber(.infinity) == "0")
    #expect(HTMLReport.grouped(1_234_567) == "1,234,567")
    #expect(HTMLReport.grouped(-1_000) == "-1,000")
    #expect(HTMLReport.grouped(999) == "999")
    #expect(HTMLReport.size(512) == "512 bytes")
    #expect(HTMLReport.size(75_414) == "73.6 KiB")
    #expect(HTMLReport.size(27_930_624) == "26.6 MiB")
  }

  @Test func aReportWithNoRecordsDrawsEmptyTracksAndSaysThereAreNoIssues() {
    var report = Self.report(read: 0, decodeRejected: 0, validateRejected: 0, issues: [])
    report.stages[1].warnings = 0
    report.drift = DriftSummary()
    report.rowsWritten = [:]
    report.tableRows = [:]
    let html = HTMLReport.render(report)
    let svg = Self.funnel(in: html)
    #expect(!svg.isEmpty)
    #expect(!html.contains("NaN"))
    #expect(!html.lowercased().contains("inf\""))
    for stage in Stage.allCases {
      #expect(svg.contains("data-stage=\"\(stage.rawValue)\""))
      #expect(Self.segment("out", stage: stage, in: html) == nil)
    }
    let widths = Self.attributes("width", of: "rect", in: svg)
    #expect(widths.filter { $0 == "400" }.count == Stage.allCases.count)  // the tracks
    #expect(Set(widths).isSubset(of: ["0", "400", "12"]))  // 12: the legend's squares
    #expect(svg.components(separatedBy: "in 0 · out 0").count - 1 == Stage.allCases.count)
    #expect(html.contains("No issues: every record that was read passed every stage it reached."))
    #expect(html.contains("No drift"))
    #expect(!html.contains("id=\"first-issues\""))
  }

  // MARK: - Content

  @Test func aFailedRunShowsItsReasonExitCodeAndRollback() {
    let report = Self.report(
      failure: .init(kind: .io, message: "database /data/fruits.sqlite is locked by another process (waited 5 s)"))
    let html = HTMLReport.render(report)
    #expect(html.contains("<span class=\"badge failed\">failed</span>"))
    #expect(html.contains("<h2>Failed: I/O error</h2>"))
    #expect(
      html.contains("<p class=\"reason\">database /data/fruits.sqlite is locked by another process (waited 5 s)</p>"))
    #expect(html.contains("Rolled back: no data was written"))
    #expect(html.contains("Nothing was committed: the tables are as they were before the run."))
    #expect(!HTMLReport.render(Self.report()).contains("id=\"failure\""))
  }

  @Test func issuesAreCountedByCodeAndByFieldPathWithIndicesFolded() {
    let html = HTMLReport.render(Self.report())
    #expect(
      html.contains("<tr><td><code>recipes[].title</code></td><td class=\"n\">2</td><td>invalidValue 2</td></tr>"))
    #expect(html.contains("<tr><td><code>color</code></td><td class=\"n\">1</td><td>typeMismatch 1</td></tr>"))
    #expect(html.contains("<td><code>invalidValue</code></td><td>validate</td><td class=\"n\">2</td>"))
    // The first issues keep their own paths and locations.
    #expect(
      html.contains(
        "<td class=\"n\">20</td><td class=\"n\">20</td><td class=\"n\">14,940</td><td><code>recipes[1].title</code></td>"
      ))
    #expect(
      html.contains("<tr><td><code>recipes[].calories</code></td><td class=\"n\">3</td><td class=\"n\">7</td></tr>"))
  }

  @Test func eachCodeListsItsFirstIssuesAndCountsTheRest() {
    let issues = (1...25).map { ordinal in
      SluiceCore.Issue(
        stage: .decode, code: .missingField,
        location: .init(ordinal: ordinal, byteOffset: Int64(ordinal * 100), line: ordinal),
        path: "name", message: "required field is missing")
    }
    var report = Self.report(issues: issues)
    report.issueCounts["missingField"] = 40
    let html = HTMLReport.render(report)
    #expect(html.contains("<td class=\"n\">10</td><td class=\"n\">10</td><td class=\"n\">1,000</td>"))
    #expect(!html.contains("<td class=\"n\">11</td><td class=\"n\">11</td><td class=\"n\">1,100</td>"))
    #expect(html.contains("… and 30 more (the JSON report lists 25 of them)"))
    #expect(
      html.contains(
        "Field paths are counted over the 25 issues the report keeps (the first 100 of each code); all 40 are counted by code."
      ))
  }

  @Test func aRunOfSeveralInputsListsEachAndNamesTheInputOfEachIssue() {
    var report = Self.report()
    var second = report.inputs[0]
    second.path = "/data/orders.json.gz"
    second.dataset = "orders"
    second.opened = false
    report.inputs.append(second)
    report.issues[0].input = "/data/fruits.ndjson.gz"
    let html = HTMLReport.render(report)
    #expect(html.contains("<h2>Inputs <span class=\"count\">2</span></h2>"))
    #expect(
      html.contains(
        "<td class=\"path\">/data/orders.json.gz</td><td>orders</td><td>ndjson, gzip</td><td colspan=\"6\" class=\"none\">not read: the run failed before it</td>"
      ))
    #expect(html.contains("<td class=\"path\" title=\"/data/fruits.ndjson.gz\">fruits.ndjson.gz</td>"))
    #expect(!HTMLReport.render(Self.report()).contains("id=\"inputs\""))
  }

  @Test func theRunSectionNamesTheReferencesLookedUp() {
    var report = Self.report()
    report.referenceLookups = ["devices": .init(keys: 1_200, queries: 12), "users": .init(keys: 1, queries: 1)]
    let html = HTMLReport.render(report)
    #expect(
      html.contains(
        "<dt>references looked up</dt><dd>devices 1,200 key(s) in 12 queries, users 1 key(s) in 1 query</dd>"))
    #expect(!HTMLReport.render(Self.report()).contains("references looked up"))
  }

  @Test func theRunSectionSaysHowAPostgreSQLRunWroteItsBatches() {
    var report = Self.report()
    report.bulkWrites = .init(
      tables: ["orders": .init(copied: 1_246, staged: 0), "customers": .init(copied: 1, staged: 245)], rowByRow: 2)
    report.parallel = .init(connections: 2, lanes: 3, commit: "two-phase")
    let html = HTMLReport.render(report)
    #expect(
      html.contains(
        "<dt>bulk batches</dt><dd>customers 1 inserted, 245 merged; orders 1,246 inserted, 0 merged; 2 row by row</dd>")
    )
    #expect(html.contains("<dt>parallel</dt><dd>3 lanes over 2 connections, two-phase commit</dd>"))
    let plain = HTMLReport.render(Self.report())
    #expect(!plain.contains("bulk batches"))
    #expect(!plain.contains("<dt>parallel</dt>"))
  }

  /// SQLite's bulk writer sends batches record by record when that costs less
  /// (`WritePathChooser`): the page and the text summary say how many, and the JSON keeps them.
  @Test func theRunSectionSaysHowManyBatchesWentRecordByRecordAsCheaper() throws {
    var report = Self.report()
    report.bulkWrites = .init(
      tables: ["orders": .init(copied: 714, staged: 0)], rowByRow: 9_520, chosenRowByRow: 9_516)
    #expect(
      HTMLReport.render(report).contains(
        "<dt>bulk batches</dt><dd>orders 714 inserted, 0 merged; 9,520 row by row (9,516 of them as cheaper)</dd>"))
    #expect(
      report.summary().contains(
        "  bulk batches: orders 714 inserted, 0 merged; 9520 row by row (9516 of them as cheaper)"))
    let decoded = try RunReport.decode(from: try report.jsonData())
    #expect(decoded.bulkWrites == report.bulkWrites)
    // A report written before the key existed reads as none chosen.
    report.bulkWrites?.chosenRowByRow = nil
    #expect(!report.summary().contains("as cheaper"))
    #expect(try RunReport.decode(from: try report.jsonData()).bulkWrites?.chosenRowByRow == nil)
  }

  @Test func theSamePageComesFromTheReportReadBackFromJSON() throws {
    var report = Self.report()
    report.referenceLookups = ["devices": .init(keys: 12, queries: 1)]
    report.bulkWrites = .init(tables: ["orders": .init(copied: 3, staged: 1)], rowByRow: 0)
    report.parallel = .init(connections: 2, lanes: 2, commit: "ordered")
    let decoded = try RunReport.decode(from: report.jsonData())
    #expect(HTMLReport.render(decoded) == HTMLReport.render(report))
  }
}
