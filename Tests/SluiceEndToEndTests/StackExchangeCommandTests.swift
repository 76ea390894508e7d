import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice run Pipelines/stackexchange.json` as a user runs it: the committed sample dump, eight
/// XML files into one database in one run.
@Suite("sluice on the Stack Exchange sample dump, end to end")
struct StackExchangeCommandTests {
  private func count(_ database: String, _ sql: String) throws -> Int64? {
    try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt(sql)
  }

  @Test func theSampleDumpLoadsWithItsOrphansReportedAndRejected() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("stackexchange.sqlite")
    let rejects = scratch.file("rejects.ndjson")
    let arguments = [
      "run", "Pipelines/stackexchange.json", "--db", database, "--report", scratch.file("report.json"), "--rejects",
      rejects,
    ]
    let result = try SluiceCommand.run(arguments)
    #expect(result.status == 0, "\(result.stderr)")
    for line in [
      "  users: 4 rows", "  posts: 7 rows", "  post_tags: 5 rows", "  comments: 10 rows", "  votes: 11 rows",
      "  post_history: 6 rows",
    ] {
      #expect(result.stdout.contains(line), "missing \(line) in \(result.stdout)")
    }
    let comments = Repository.path("SampleData/stackexchange/Comments.xml")
    #expect(
      result.stderr.contains("\(comments) (stackexchange-comments, xml): 11 read, 1 rejected, 10 loaded"),
      "\(result.stderr)")
    // The rejected comment and vote, with their issues, for a later replay; no values in the report.
    let quarantined = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
    #expect(quarantined.count == 2)
    #expect(quarantined.allSatisfy { $0.contains("orphanReference") })
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("report.json"))))
    #expect(report.inputs.count == 8 && report.issueCounts["orphanReference"] == 3)
    #expect(try count(database, "SELECT count(*) FROM sluice_runs") == 1)

    // A second run of the same dump changes no row.
    let again = try SluiceCommand.run(arguments)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try count(database, "SELECT count(*) FROM posts") == 7)
    #expect(try count(database, "SELECT count(*) FROM sluice_runs") == 2)
  }

  /// The same spec on the real conlang dump, by `--input-dir`: the folder the spec's inputs live
  /// in is replaced, so each file is read from the dump folder under its own name.
  @Test func inputDirImportsAnotherDumpFolderWithTheSameSpec() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("conlang.sqlite")
    let dump = (Corpus.root as NSString).appendingPathComponent("xml-legacy/stackexchange-conlang-meta")
    let result = try SluiceCommand.run([
      "run", "Pipelines/stackexchange.json", "--input-dir", dump, "--db", database, "--report", scratch.file("r.json"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("\(dump)/Posts.xml (stackexchange-posts, xml): 177 read"), "\(result.stderr)")
    // SOURCE.md's row counts; 27 votes are on posts the dump does not hold.
    #expect(try count(database, "SELECT count(*) FROM posts") == 177)
    #expect(try count(database, "SELECT count(*) FROM users") == 272)
    #expect(try count(database, "SELECT count(*) FROM votes") == 1119 - 27)
    #expect(try count(database, "SELECT count(*) FROM post_history") == 450)
  }

  /// Issue 23, item 2: real dump folders often lack `PostHistory.xml` (the biggest file) or
  /// hold `Posts.xml` alone. Every input but the posts is optional in the shipped pipeline, so
  /// `--input-dir` takes such a folder: each missing file is a `missingInput` warning naming it
  /// — on stderr, in the JSON report, the HTML report and JUnit — and rows that name a missing
  /// file's rows follow their reference's orphan policy.
  @Test func aDumpFolderWithPostsAloneLoadsAndNamesEveryMissingFile() throws {
    let scratch = try TemporaryDirectory()
    let folder = scratch.file("dump")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let conlang = (Corpus.root as NSString).appendingPathComponent("xml-legacy/stackexchange-conlang-meta")
    try FileManager.default.copyItem(atPath: conlang + "/Posts.xml", toPath: folder + "/Posts.xml")
    let database = scratch.file("posts.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/stackexchange.json", "--input-dir", folder, "--db", database, "--report",
      scratch.file("r.json"),
      "--junit", scratch.file("j.xml"), "--html", scratch.file("r.html"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try count(database, "SELECT count(*) FROM posts") == 177)
    #expect(try count(database, "SELECT count(*) FROM users") == 0)
    let missing = ["Users", "Tags", "Comments", "Votes", "Badges", "PostLinks", "PostHistory"]
    for name in missing {
      #expect(
        result.stderr.contains(
          "read \(folder)/\(name).xml: missingInput: the optional input is not there (no such file)"),
        "\(name): \(result.stderr)")
    }
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("r.json"))))
    #expect(report.issueCounts["missingInput"] == 7)
    #expect(report.statistics(for: .read).warnings == 7)
    #expect(
      Set(report.issues.filter { $0.code == .missingInput }.compactMap(\.input))
        == Set(missing.map { "\(folder)/\($0).xml" }))
    #expect(report.inputs.filter { !$0.opened }.count == 7)
    let junit = try String(contentsOfFile: scratch.file("j.xml"), encoding: .utf8)
    #expect(junit.components(separatedBy: "missingInput").count - 1 == 7)
    let html = try String(contentsOfFile: scratch.file("r.html"), encoding: .utf8)
    #expect(html.contains("missingInput") && html.contains("\(folder)/PostHistory.xml"))
    #expect(try count(database, "SELECT count(*) FROM sluice_rejects WHERE code = 'missingInput'") == 7)
  }

  /// Posts.xml is required: a folder without it fails before the database is opened (exit 66).
  @Test func aDumpFolderWithoutPostsFailsBeforeTheDatabaseIsOpened() throws {
    let scratch = try TemporaryDirectory()
    let folder = scratch.file("dump")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    _ = try scratch.write("dump/Users.xml", "<users></users>")
    let database = scratch.file("posts.sqlite")
    let result = try SluiceCommand.run(["run", "Pipelines/stackexchange.json", "--input-dir", folder, "--db", database])
    #expect(result.status == 66, "\(result.stderr)")
    #expect(result.stderr.contains("\(folder)/Posts.xml: no such file"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: database))
  }
}
