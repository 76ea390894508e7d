import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// Issue 21: what a run compares its files by, how paths are made absolute, what the drift
/// summary folds, and how text from the data is printed.
@Suite("Run files, paths and terminal text")
struct RunFilesAndTerminalTextTests {
  private func configuration(database: String, input: String, report: String? = nil, html: String? = nil)
    -> PipelineConfiguration
  {
    var configuration = PipelineConfiguration(name: "t", input: input, database: .sqlite(database), reportPath: report)
    configuration.htmlPath = html
    return configuration
  }

  @Test func filesAreComparedByIdentityNotBySpelling() throws {
    let scratch = try TemporaryDirectory()
    let database = try scratch.write("d.sqlite", "")
    let input = try scratch.write("in.json", "[]")
    try FileManager.default.createSymbolicLink(atPath: scratch.file("alias"), withDestinationPath: "d.sqlite")
    try FileManager.default.createSymbolicLink(atPath: scratch.file("dangling"), withDestinationPath: "new.json")
    try FileManager.default.createDirectory(atPath: scratch.file("sub"), withIntermediateDirectories: true)

    let viaLink = RunFiles(configuration(database: database, input: input, report: scratch.file("alias"))).conflict()
    #expect(viaLink?.first.role == "database")
    #expect(viaLink?.second.role == "report")
    #expect(viaLink?.description.contains("(\(database))") == true)
    // Two new files, one spelled through a dangling link and one through `sub/..`.
    let twoNew = RunFiles(
      configuration(
        database: database, input: input, report: scratch.file("dangling"), html: scratch.file("sub/../new.json"))
    ).conflict()
    #expect(twoNew?.second.role == "HTML report")
    #expect(RunFiles(configuration(database: database, input: input, report: scratch.file("r.json"))).conflict() == nil)
    // Two inputs may be one file; a validate run writes no database, so an output may be named
    // like it (nothing is replaced).
    var twice = configuration(database: database, input: input)
    twice.inputs.append(PipelineInput(path: input))
    #expect(RunFiles(twice).conflict() == nil)
    var validate = configuration(database: database, input: input, report: database)
    validate.mode = .validate
    #expect(RunFiles(validate).conflict() == nil)
    // A PostgreSQL database has no file.
    #expect(
      RunFiles(configuration(database: "postgresql://u@h/d", input: input, report: scratch.file("x"))).conflict() == nil
    )
  }

  @Test func pathsAreMadeAbsoluteAsTheKernelReadsThem() throws {
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("data"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: scratch.file("data/here"), withDestinationPath: ".")
    #expect(FilePaths.absolute("data/here/../x", in: scratch.path) == scratch.file("x"))
    #expect(FilePaths.absolute("data/here/x", in: scratch.path) == scratch.file("data/here/x"))
    #expect(FilePaths.absolute("./a//b/./c", in: "/r") == "/r/a/b/c")
    #expect(FilePaths.absolute("missing/../c", in: "/r") == "/r/c")
    #expect(FilePaths.absolute("/../..") == "/")
    #expect(FilePaths.absolute("-") == "-")
  }

  /// Foundation's `lastPathComponent` and `deletingLastPathComponent` trap on Linux on a
  /// one-character path without a slash; `--report -` crashed the run in `RunFiles` before it
  /// opened anything. These are the answers `NSString` gives where it does not trap.
  @Test(arguments: [
    ("/a/b", "b", "/a"), ("/a/b/", "b", "/a"), ("/a", "a", "/"), ("/", "/", "/"), ("", "", ""),
    ("a", "a", ""), ("-", "-", ""), ("a/", "a", ""), ("é", "é", ""), ("x/y", "y", "x"), ("./a", "a", "."),
    ("a//b", "b", "a"), ("//a", "a", "/"), ("/a/bé/c.json", "c.json", "/a/bé"),
  ])
  func pathComponentsAreTakenWithoutFoundation(path: String, last: String, folder: String) {
    #expect(FilePaths.lastComponent(of: path) == last)
    #expect(FilePaths.folder(of: path) == folder)
  }

  @Test func extensionsAndJoinedPaths() throws {
    #expect(FilePaths.deletingExtension("orders.json") == "orders")
    #expect(FilePaths.deletingExtension("a.b.c") == "a.b")
    #expect(FilePaths.deletingExtension(".hidden") == ".hidden")
    #expect(FilePaths.deletingExtension("x") == "x")
    #expect(FilePaths.deletingExtension("x.") == "x.")
    #expect(FilePaths.joined("", "a") == "a")
    #expect(FilePaths.joined("/", "a") == "/a")
    #expect(FilePaths.joined("/r", "a") == "/r/a")
    // A spec's name is its file's stem, whatever its length (a one-letter name trapped).
    let spec = #"{"dataset": "shipments", "input": "-", "database": "d.sqlite"}"#
    #expect(try PipelineSpec(data: Data(spec.utf8), path: "x").name == "x")
    #expect(try PipelineSpec(data: Data(spec.utf8), path: "nightly.json").name == "nightly")
  }

  /// `-` is standard input: a run refuses it as a file it writes, before anything is opened,
  /// and says what to give instead; as an input it is no file and takes part in no comparison.
  @Test func standardInputIsNoFileARunWrites() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("d.sqlite")
    let input = try scratch.write("in.json", "[]")
    let report = try #require(RunFiles(configuration(database: database, input: input, report: "-")).problem())
    #expect(report.hasPrefix("the report cannot be '-'"))
    #expect(report.contains("/dev/stdout"))
    let html = try #require(RunFiles(configuration(database: database, input: input, html: "-")).problem())
    #expect(html.hasPrefix("the HTML report cannot be '-'"))
    let intoDash = try #require(RunFiles(configuration(database: "-", input: input)).problem())
    #expect(intoDash.hasPrefix("the database cannot be '-'") && intoDash.contains("name a database file"))
    #expect(RunFiles(configuration(database: database, input: "-", report: scratch.file("r.json"))).problem() == nil)
    // The engine refuses it too, as a configuration failure, and writes nothing.
    let refused = try Pipeline(
      dataset: ShipmentsDataset(), configuration: configuration(database: database, input: input, report: "-")
    ).run()
    #expect(refused.status == .failed)
    #expect(refused.exitCode == 64)
    #expect(refused.failure?.message.hasPrefix("the report cannot be '-'") == true)
    #expect(!FileManager.default.fileExists(atPath: database))
    #expect(SQLiteDriver().problem(in: "-")?.contains("standard input") == true)
    #expect(SQLiteDriver().problem(in: "a") == nil)
  }

  @Test func theDriftSummaryFoldsIndexesAndKeepsOtherBrackets() {
    #expect(DriftCounter.folded("items[3].sku") == "items[].sku")
    #expect(DriftCounter.folded("a[12][0].b") == "a[][].b")
    #expect(DriftCounter.folded("]]><x>") == "]]><x>")
    #expect(DriftCounter.folded("tags[x].y[") == "tags[x].y[")
    #expect(DriftCounter.folded("[]") == "[]")
  }

  @Test func terminalTextEscapesControlsAndBidiAndNothingElse() {
    #expect(TerminalText.escape("items[2].sku") == "items[2].sku")
    #expect(TerminalText.escape("naïve 日本 \\n") == "naïve 日本 \\n")
    #expect(TerminalText.escape("a\u{0}b\u{7F}c\u{85}d\te") == #"a\u{0}b\u{7F}c\u{85}d\u{9}e"#)
    #expect(TerminalText.escape("\u{202A}\u{2066}\u{200F}\u{2028}") == #"\u{202A}\u{2066}\u{200F}\u{2028}"#)
    let once = TerminalText.escape("\u{1B}[0m")
    #expect(once == #"\u{1B}[0m"#)
    #expect(TerminalText.escape(once) == once)
    #expect(TerminalText.lines(["a\nb", "c"]) == "a\\u{A}b\nc")
  }

  @Test func specPatternsAreGlobsAndBackslashesMakeTheirCharactersLiteral() {
    #expect(PipelineSpec.isPattern("a/*.json"))
    #expect(!PipelineSpec.isPattern(#"general \[1100\].json"#))
    #expect(PipelineSpec.isPattern(#"x\\[1].json"#))  // an escaped backslash, then a pattern
    #expect(PipelineSpec.unescaped(#"general \[1100\].json"#) == "general [1100].json")
    #expect(PipelineSpec.unescaped(#"a\b\*\\"#) == #"a\b*\"#)
  }
}
