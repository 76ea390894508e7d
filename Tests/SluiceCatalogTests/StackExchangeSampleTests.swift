import Foundation
import SluiceCatalog
import SluiceCore
import SluiceTestSupport
import Testing

/// The committed sample dump (`SampleData/stackexchange/`, a made-up beekeeping site) and the
/// pipeline spec that points at it. The sample holds one of each case the migration decides:
/// a deleted owner, an owner missing from Users.xml, a comment and a vote on a deleted post, tag
/// wikis, an accepted answer, escaped HTML with `&#xA;`, `True`/`False`, short fractions.
@Suite("Stack Exchange sample dump and pipeline")
struct StackExchangeSampleTests {
  static func load() throws -> (StackExchangeWorkspace, [String: RunReport]) {
    let workspace = try StackExchangeWorkspace()
    let reports = try workspace.runAll(from: StackExchangeDump.sampleDirectory, policy: StackExchangeDump.pipelinePolicy)
    return (workspace, reports)
  }

  @Test func everySampleRowIsImportedOrReported() throws {
    let (workspace, reports) = try Self.load()
    var rejected: [String] = []
    for file in StackExchangeDump.files {
      let rows = try DumpRows.read((StackExchangeDump.sampleDirectory as NSString).appendingPathComponent(file.name))
      let report = try #require(reports[file.name])
      #expect(report.status == .succeeded, "\(file.name)")
      #expect(report.recordsRead == rows.count && report.recordsLoaded + report.recordsRejected == rows.count, "\(file.name)")
      #expect(try workspace.count("SELECT count(*) FROM \(file.table)") == report.recordsLoaded, "\(file.name)")
      rejected += report.issues.filter { $0.severity == .error }.map {
        "\(file.name) \($0.location?.ordinal ?? 0) \($0.stage) \($0.code) \($0.path)"
      }
    }
    #expect(rejected == ["Comments.xml 4 load orphanReference PostId", "Votes.xml 6 load orphanReference PostId"])
    // The one post whose owner is not in Users.xml keeps its row, owner NULL.
    let warnings = reports["Posts.xml"]?.issues.filter { $0.severity == .warning }.map { "\($0.location?.ordinal ?? 0) \($0.path)" }
    #expect(warnings == ["5 OwnerUserId"])
    #expect(try workspace.rows("PRAGMA foreign_key_check", columns: 4) == [])
  }

  @Test func theSampleLoadsAsTheDumpMeansIt() throws {
    let (workspace, _) = try Self.load()
    let posts = try workspace.rows(
      """
      SELECT p.post_id, t.name, coalesce(p.parent_id, '-'), coalesce(p.accepted_answer_id, '-'),
        coalesce(p.owner_user_id, 'NULL'), coalesce(p.owner_display_name, 'NULL')
      FROM posts p JOIN post_types t ON t.id = p.post_type_id ORDER BY p.post_id
      """, columns: 6)
    #expect(
      posts == [
        "1|Question|-|3|1|NULL", "2|Answer|1|-|NULL|user4", "3|Answer|1|-|2|NULL", "4|Question|-|-|3|NULL",
        "5|Question|-|-|NULL|NULL", "6|TagWikiExcerpt|-|-|-1|NULL", "7|TagWiki|-|-|-1|NULL",
      ])
    // The tag wiki: the tag names its excerpt and its wiki, which are posts of those types.
    #expect(
      try workspace.rows(
        """
        SELECT t.tag_name, e.name, w.name FROM tags t
        JOIN posts pe ON pe.post_id = t.excerpt_post_id JOIN post_types e ON e.id = pe.post_type_id
        JOIN posts pw ON pw.post_id = t.wiki_post_id JOIN post_types w ON w.id = pw.post_type_id
        """, columns: 3) == ["swarms|TagWikiExcerpt|TagWiki"])
    #expect(
      try workspace.rows("SELECT post_id || ':' || position || ':' || tag_name FROM post_tags ORDER BY post_id, position")
        == ["1:1:hives", "1:2:swarms", "4:1:honey", "5:1:swarms", "5:2:honey"])
    // Escaped HTML stays HTML; &#xA; is a newline; an HTML entity inside the HTML stays one.
    #expect(
      try workspace.rows("SELECT body FROM posts WHERE post_id IN (1, 4) ORDER BY post_id") == [
        "<p>My colony is <em>very</em> loud since Tuesday.</p>\n\n<p>Are they about to swarm, or is the queen gone?</p>\n",
        "<p>Why did my honey set hard in the jar &lt; a week?</p>\n",
      ])
    #expect(try workspace.rows("SELECT text FROM comments WHERE comment_id = 2") == [#"Eight, all "capped" & healthy."#])
    #expect(try workspace.rows("SELECT coalesce(user_id, user_display_name) FROM comments WHERE comment_id = 3") == ["user4"])
    #expect(try workspace.rows("SELECT tag_based FROM badges ORDER BY badge_id") == ["0", "0", "1", "0"])
    #expect(
      try workspace.rows("SELECT creation_date FROM users ORDER BY user_id") == [
        "2021-03-01T09:00:00.000Z", "2021-03-01T09:12:41.500Z", "2021-03-01T10:00:00.000Z", "2021-03-02T11:30:00.250Z",
      ])
    #expect(
      try workspace.rows("SELECT t.name || ':' || count(*) FROM votes v JOIN vote_types t ON t.id = v.vote_type_id GROUP BY t.name ORDER BY t.name")
        == ["AcceptedByOriginator:1", "DownMod:2", "Favorite:1", "UpMod:7"])
  }

  @Test func rerunningTheSampleChangesNothing() throws {
    let (workspace, _) = try Self.load()
    let tables = StackExchange.Tables.schema.tableNames
    let before = try DatabaseSnapshot(of: workspace.database, tables: tables)
    _ = try workspace.runAll(from: StackExchangeDump.sampleDirectory, policy: StackExchangeDump.pipelinePolicy)
    #expect(try DatabaseSnapshot(of: workspace.database, tables: tables) == before)
  }

  /// The spec lists every file, in the order the tests load them, at the sample's paths, with
  /// the policy the tests use.
  @Test func theSpecListsTheDumpInLoadOrder() throws {
    let path = Repository.path("Pipelines/stackexchange.json")
    let spec = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    let inputs = try #require(spec["inputs"] as? [[String: String]])
    #expect(inputs.map { $0["dataset"] ?? "" } == StackExchangeDump.files.map(\.dataset))
    #expect(inputs.map { $0["recordPath"] ?? "" } == StackExchangeDump.files.map { $0.recordPath.joined(separator: ".") })
    #expect(inputs.allSatisfy { $0["format"] == "xml" })
    let pipelines = (path as NSString).deletingLastPathComponent
    let resolved = inputs.map { (($0["input"] ?? "") as NSString).lastPathComponent }
    #expect(resolved == StackExchangeDump.files.map(\.name))
    for input in inputs {
      let file = ((pipelines as NSString).appendingPathComponent(input["input"] ?? "") as NSString).standardizingPath
      #expect(file == (StackExchangeDump.sampleDirectory as NSString).appendingPathComponent((file as NSString).lastPathComponent))
      #expect(FileManager.default.fileExists(atPath: file))
    }
    let policy = try #require(spec["policy"] as? [String: Any])
    #expect(policy["preset"] as? String == "lenient")
    #expect(policy["maxRejectRate"] as? Double == StackExchangeDump.pipelinePolicy.maxRejectRate)
    #expect(Set(policy.keys) == ["preset", "maxRejectRate"])
  }
}
