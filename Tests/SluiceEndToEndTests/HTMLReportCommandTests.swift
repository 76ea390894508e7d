import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `--html` on run, validate and replay, and `sluice report`, on the real binary.
@Suite("HTML run report, end to end")
struct HTMLReportCommandTests {
  private func read(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }

  @Test func runWritesTheHTMLPageAndSluiceReportRendersTheSamePageFromTheJSONReport() throws {
    let scratch = try TemporaryDirectory()
    let html = scratch.file("out/fruits-lenient.html")
    let json = scratch.file("out/fruits-lenient.json")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits-lenient.json", "--db", scratch.file("f.sqlite"), "--report", json, "--html", html,
      "--count-rows",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let page = try read(html)
    #expect(page.contains("<h1>fruits-lenient <span class=\"badge ok\">succeeded</span></h1>"))
    for stage in Stage.allCases {
      #expect(page.contains("<g class=\"stage\" data-stage=\"\(stage.rawValue)\">"))
    }
    #expect(page.contains("<code>recipes[1].videoTutorial</code>"))
    #expect(page.contains("in 30 · out 29"))
    #expect(page.contains("<tr><td><code>recipes</code></td><td class=\"n\">93</td><td class=\"n\">93</td></tr>"))

    let rendered = scratch.file("again.html")
    let report = try SluiceCommand.run(["report", json, "--html", rendered])
    #expect(report.status == 0, "\(report.stderr)")
    #expect(report.stdout.isEmpty)
    let again = try read(rendered)
    let first = zip(again, page).prefix { $0 == $1 }.count
    #expect(
      again == page,
      "first difference at character \(first): \(again.dropFirst(max(first - 80, 0)).prefix(200)) <> \(page.dropFirst(max(first - 80, 0)).prefix(200))"
    )

    let summary = try SluiceCommand.run(["report", json])
    #expect(summary.status == 0)
    #expect(summary.stdout.hasPrefix("sluice: fruits-lenient (fruits, lenient) succeeded in "))
    #expect(summary.stdout.contains("issues: 5 — invalidValue 2, missingField 1, syntax 1, typeMismatch 1"))
  }

  @Test func aStrictRunThatFailsWritesAPageThatSaysWhy() throws {
    let scratch = try TemporaryDirectory()
    let html = scratch.file("strict.html")
    let json = scratch.file("strict.json")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", "SampleData/fruits-broken.ndjson.gz", "--format", "ndjson",
      "--db", scratch.file("f.sqlite"), "--report", json, "--html", html,
    ])
    #expect(result.status == 65)
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: json)))
    let failure = try #require(report.failure)
    #expect(failure.message.contains("color: typeMismatch"))
    let page = try read(html)
    #expect(page.contains("<span class=\"badge failed\">failed</span>"))
    #expect(page.contains("<h2>Failed: data error</h2>"))
    #expect(page.contains("<p class=\"reason\">\(HTMLReport.escape(failure.message))</p>"))
    #expect(page.contains("Rolled back: no data was written"))
    #expect(page.contains(">rejected 1</tspan>"))
  }

  @Test func validateWritesThePageWithTheDriftItFound() throws {
    let scratch = try TemporaryDirectory()
    let html = scratch.file("messages.html")
    let result = try SluiceCommand.run(["validate", "Pipelines/messages.json", "--html", html])
    #expect(result.status == 65)
    let page = try read(html)
    #expect(page.contains("<p class=\"eyebrow\">Sluice validate report</p>"))
    #expect(page.contains("<tr><td><code>type</code></td><td><code>sticker</code></td><td class=\"n\">3</td>"))
    #expect(page.contains("<tr><td><code>stickerId</code></td><td class=\"n\">3</td>"))
    #expect(page.contains("validate writes nothing"))
  }

  @Test func replayWritesThePageOfTheReplay() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("f.sqlite")
    let rejects = scratch.file("rejects.ndjson")
    let first = try SluiceCommand.run([
      "run", "Pipelines/fruits-lenient.json", "--db", database, "--rejects", rejects, "--report",
      scratch.file("1.json"),
    ])
    #expect(first.status == 0, "\(first.stderr)")
    let html = scratch.file("replay.html")
    let json = scratch.file("replay.json")
    let replay = try SluiceCommand.run([
      "replay", "Pipelines/fruits-lenient.json", "--rejects", rejects, "--db", database, "--report", json, "--html",
      html,
    ])
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: json)))
    #expect(replay.status == report.exitCode)
    #expect(report.mode == "replay")
    let page = try read(html)
    #expect(page.contains("<p class=\"eyebrow\">Sluice replay report</p>"))
    #expect(page.contains("in 5 · out"))
    #expect(try SluiceCommand.run(["report", json, "--html", scratch.file("again.html")]).status == 0)
    #expect(try read(scratch.file("again.html")) == page)
  }

  @Test func theSpecsHTMLKeyWritesThePageBesideTheSpec() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write(
      "spec.json",
      #"{"dataset": "fruits", "input": "\#(Repository.path("SampleData/fruits.json.gz"))", "recordPath": "fruits", "database": "f.sqlite", "html": "reports/fruits.html"}"#
    )
    let result = try SluiceCommand.run(["run", scratch.file("spec.json")])
    #expect(result.status == 0, "\(result.stderr)")
    let page = try read(scratch.file("reports/fruits.html"))
    #expect(page.contains("<h1>spec <span class=\"badge ok\">succeeded</span></h1>"))
    #expect(page.contains("in 48 · out 48"))
  }

  @Test func anHTMLPathThatCannotBeCreatedFailsTheRunBeforeAnyWork() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("plain-file", "not a directory")
    let database = scratch.file("f.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits-lenient.json", "--db", database, "--report", scratch.file("r.json"),
      "--html", "\(file)/report.html",
    ])
    #expect(result.status == 73)
    #expect(
      result.stderr.contains("cannot create the HTML report \(file)/report.html: \(file) is a file, not a directory"))
    #expect(!FileManager.default.fileExists(atPath: database))

    let report = try SluiceCommand.run([
      "report", Repository.path("Tests/SluiceCoreTests/Fixtures/reports/16c76ec-fruits-lenient.json"), "--html",
      "\(file)/x.html",
    ])
    #expect(report.status == 73)
    #expect(
      report.stderr == "sluice: cannot create the HTML report \(file)/x.html: \(file) is a file, not a directory\n")
  }

  /// The page shows where and why, never what: private values of rejected and loaded records
  /// alike stay out of it (and out of the JSON report it is made from).
  @Test func thePageHoldsNoRecordValues() throws {
    let scratch = try TemporaryDirectory()
    let secret = "Zq7xPRIVATE"
    func order(
      _ id: Int, amount: String = "500", currency: String = "USD", status: String = "completed", extra: String = ""
    ) -> String {
      #"{"orderId":"\#(id)","amount":\#(amount),"currency":"\#(currency)","status":"\#(status)","createdAt":"2023-01-01T00:00:05Z","customer":{"id":\#(id),"name":"Ada \#(secret)-name-\#(id)"},"items":[{"sku":"SKU-\#(secret)","qty":1,"priceMinor":500}]\#(extra)}"#
    }
    let lines = [
      order(1), order(2), order(3),
      order(4, status: "refunded-\(secret)"),
      order(5, amount: "\"lots-\(secret)\""),
      order(6, currency: "\(secret)"),
      order(7, extra: #","note":"<script>\#(secret) private note</script>""#),
      #"{"orderId":"8","customer":{"name":"\#(secret) cut off"#,
      order(9),
    ]
    let input = try scratch.write("orders.ndjson", lines.joined(separator: "\n") + "\n")
    _ = try scratch.write(
      "spec.json",
      #"{"dataset": "orders", "input": "orders.ndjson", "format": "ndjson", "policy": "lenient", "database": "o.sqlite"}"#
    )
    let html = scratch.file("orders.html")
    let json = scratch.file("orders.json")
    let result = try SluiceCommand.run([
      "run", scratch.file("spec.json"), "--report", json, "--html", html, "--rejects", scratch.file("rejects.ndjson"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    // The values are really there to leak: in the input and in the quarantine the user asked for.
    #expect(try read(input).components(separatedBy: secret).count - 1 == 21)
    #expect(try read(scratch.file("rejects.ndjson")).contains(secret))
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: json)))
    #expect(report.statistics(for: .read).rejected == 1)
    #expect(report.stages.map(\.rejected).reduce(0, +) == 4)
    #expect(report.issueCounts["unknownField"] == 1)
    let page = try read(html)
    #expect(page.contains("<code>note</code>"))
    #expect(page.contains("<code>status</code>"))
    #expect(page.contains("<code>amount</code>"))
    #expect(page.contains("<code>currency</code>"))
    #expect(!page.contains(secret))
    #expect(!page.contains("refunded"))
    #expect(!page.contains("lots-"))
    #expect(!page.contains("Ada "))
    #expect(!page.contains("SKU-"))
    #expect(!page.contains("<script"))
    #expect(!(try read(json)).contains(secret))
  }

  // MARK: - sluice report's errors

  @Test func aReportFromBeforeSeveralInputsRendersAsOneInput() throws {
    let scratch = try TemporaryDirectory()
    let html = scratch.file("old.html")
    let result = try SluiceCommand.run([
      "report", Repository.path("Tests/SluiceCoreTests/Fixtures/reports/e8cdfdc-fruits-lenient.json"), "--html", html,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let page = try read(html)
    #expect(page.contains("<dt>input</dt><dd>/tmp/old-sluice/e8cdfdc/SampleData/fruits-broken.ndjson.gz</dd>"))
    #expect(page.contains("in 30 · out 29"))
    #expect(!page.contains("id=\"inputs\""))
  }

  @Test func aFileThatIsNotARunReportIsADataErrorNamingWhatIsWrong() throws {
    let scratch = try TemporaryDirectory()
    let html = scratch.file("never.html")
    let cases: [(name: String, content: String, message: String)] = [
      ("truncated.json", #"{"reportVersion": 1, "pipeline": "#, "not valid JSON"),
      ("spec.json", #"{"dataset": "fruits", "input": "x", "database": "d"}"#, "'reportVersion': missing required key"),
      ("future.json", #"{"reportVersion": 7}"#, "'reportVersion': version 7 is newer than this sluice reads (up to 1)"),
    ]
    for (name, content, message) in cases {
      let path = try scratch.write(name, content)
      let result = try SluiceCommand.run(["report", path, "--html", html])
      #expect(result.status == 65, "\(name)")
      #expect(result.stderr == "sluice: \(path) is not a Sluice run report: \(message)\n")
      #expect(result.stdout.isEmpty)
    }
    #expect(!FileManager.default.fileExists(atPath: html))
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".") }.isEmpty)
  }

  @Test func aMissingReportIsExit66AndABadCommandLineExit64() throws {
    let scratch = try TemporaryDirectory()
    let missing = try SluiceCommand.run(["report", scratch.file("nope.json"), "--html", scratch.file("x.html")])
    #expect(missing.status == 66)
    #expect(missing.stderr == "sluice: cannot read the report \(scratch.file("nope.json")): no such file\n")

    let directory = try SluiceCommand.run(["report", scratch.path, "--html", scratch.file("x.html")])
    #expect(directory.status == 66)
    #expect(directory.stderr.contains("it is not a readable file"))

    let none = try SluiceCommand.run(["report"])
    #expect(none.status == 64)
    #expect(none.stderr.contains("missing the report"))
    let unknown = try SluiceCommand.run(["report", "r.json", "--htm", "x.html"])
    #expect(unknown.status == 64)
    #expect(unknown.stderr.contains("unknown option --htm"))
    #expect(unknown.stderr.contains("sluice report --help"))

    let help = try SluiceCommand.run(["report", "--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("USAGE: sluice report REPORT.json [--html PATH]"))
    #expect(try SluiceCommand.run(["--help"]).stdout.contains("sluice report REPORT.json [--html PATH]"))
    #expect(try SluiceCommand.run(["run", "--help"]).stdout.contains("--html PATH"))
    #expect(try SluiceCommand.run(["validate", "--help"]).stdout.contains("--html PATH"))
    #expect(try SluiceCommand.run(["replay", "--help"]).stdout.contains("--html PATH"))
  }
}
