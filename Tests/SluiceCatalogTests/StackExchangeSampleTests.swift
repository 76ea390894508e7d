import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The committed sample dump (`SampleData/stackexchange/`, a made-up beekeeping site) and the
/// pipeline spec that points at it. The sample holds one of each case the migration decides:
/// a deleted owner, an owner missing from Users.xml, a comment and a vote on a deleted post, tag
/// wikis, an accepted answer, escaped HTML with `&#xA;`, `True`/`False`, short fractions.
@Suite("Stack Exchange sample dump and pipeline")
struct StackExchangeSampleTests {
  /// The spec as it is: its inputs are the sample's files.
  static func load() throws -> (StackExchangeWorkspace, RunReport) {
    let workspace = try StackExchangeWorkspace()
    return (workspace, try workspace.runSpec())
  }

  @Test func everySampleRowIsImportedOrReported() throws {
    let (workspace, report) = try Self.load()
    #expect(report.status == .succeeded && report.committed)
    for file in StackExchangeDump.files {
      let rows = try DumpRows.read((StackExchangeDump.sampleDirectory as NSString).appendingPathComponent(file.name))
      let section = try #require(report.input(named: file.name))
      #expect(
        section.recordsRead == rows.count && section.recordsLoaded + section.recordsRejected == rows.count,
        "\(file.name)")
      #expect(try workspace.count("SELECT count(*) FROM \(file.table)") == section.recordsLoaded, "\(file.name)")
    }
    let describe = { (issue: SluiceCore.Issue) in
      "\((issue.input.map { $0 as NSString })?.lastPathComponent ?? "?") \(issue.location?.ordinal ?? 0) \(issue.stage) \(issue.code) \(issue.path)"
    }
    #expect(
      report.issues.filter { $0.severity == .error }.map(describe)
        == ["Comments.xml 4 load orphanReference PostId", "Votes.xml 6 load orphanReference PostId"])
    // The one post whose owner is not in Users.xml keeps its row, owner NULL.
    #expect(
      report.issues.filter { $0.severity == .warning }.map(describe) == ["Posts.xml 5 load orphanReference OwnerUserId"]
    )
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
      try workspace.rows(
        "SELECT post_id || ':' || position || ':' || tag_name FROM post_tags ORDER BY post_id, position")
        == ["1:1:hives", "1:2:swarms", "4:1:honey", "5:1:swarms", "5:2:honey"])
    // Escaped HTML stays HTML; &#xA; is a newline; an HTML entity inside the HTML stays one.
    #expect(
      try workspace.rows("SELECT body FROM posts WHERE post_id IN (1, 4) ORDER BY post_id") == [
        "<p>My colony is <em>very</em> loud since Tuesday.</p>\n\n<p>Are they about to swarm, or is the queen gone?</p>\n",
        "<p>Why did my honey set hard in the jar &lt; a week?</p>\n",
      ])
    #expect(
      try workspace.rows("SELECT text FROM comments WHERE comment_id = 2") == [#"Eight, all "capped" & healthy."#])
    #expect(
      try workspace.rows("SELECT coalesce(user_id, user_display_name) FROM comments WHERE comment_id = 3") == ["user4"])
    #expect(try workspace.rows("SELECT tag_based FROM badges ORDER BY badge_id") == ["0", "0", "1", "0"])
    #expect(
      try workspace.rows("SELECT creation_date FROM users ORDER BY user_id") == [
        "2021-03-01T09:00:00.000Z", "2021-03-01T09:12:41.500Z", "2021-03-01T10:00:00.000Z", "2021-03-02T11:30:00.250Z",
      ])
    #expect(
      try workspace.rows(
        "SELECT t.name || ':' || count(*) FROM votes v JOIN vote_types t ON t.id = v.vote_type_id GROUP BY t.name ORDER BY t.name"
      )
        == ["AcceptedByOriginator:1", "DownMod:2", "Favorite:1", "UpMod:7"])
  }

  @Test func rerunningTheSampleChangesNothing() throws {
    let (workspace, _) = try Self.load()
    let tables = StackExchange.Tables.schema.tableNames
    let before = try DatabaseSnapshot(of: workspace.database, tables: tables)
    #expect(try workspace.runSpec().status == .succeeded)
    #expect(try DatabaseSnapshot(of: workspace.database, tables: tables) == before)
  }

  /// The spec lists every file in load order, at the sample's paths, lenient within 10 %.
  @Test func theSpecListsTheDumpInLoadOrder() throws {
    let spec = try PipelineSpec(contentsOf: Repository.path("Pipelines/stackexchange.json"))
    #expect(spec.inputs.map(\.dataset) == StackExchangeDump.files.map(\.dataset))
    #expect(spec.inputs.map(\.recordPath) == StackExchangeDump.files.map(\.recordPath))
    #expect(spec.inputs.allSatisfy { $0.format == .xml })
    #expect(
      try spec.configuration(drivers: .all).inputs.map(\.path)
        == StackExchangeDump.files.map {
          (StackExchangeDump.sampleDirectory as NSString).appendingPathComponent($0.name)
        })
    #expect(spec.policy.preset == .lenient && spec.policy.maxRejectRate == 0.1 && spec.policy.maxRejects == nil)
    #expect(try spec.datasets(in: Catalog.datasets).map(\.name) == StackExchangeDump.files.map(\.dataset))
  }
}
