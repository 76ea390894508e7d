import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The real dumps of `Tests/Corpus/xml-legacy/`: the complete conlang meta dump, loaded by
/// `Pipelines/stackexchange.json` (its inputs read from the corpus folder), and the older coffee
/// Posts.xml. Every expected number is computed here from the XML with Foundation's `XMLParser`.
@Suite("Stack Exchange dump: the real conlang and coffee dumps")
struct StackExchangeDumpTests {
  /// Each file's rows by file name, read by the independent parser.
  static func conlangRows() throws -> [String: [[String: String]]] {
    var rows: [String: [[String: String]]] = [:]
    for file in StackExchangeDump.files {
      rows[file.name] = try DumpRows.read(
        (StackExchangeDump.conlangDirectory as NSString).appendingPathComponent(file.name))
    }
    return rows
  }

  /// A fresh database holding the conlang dump, with the report of the pipeline's run.
  static func loadConlang() throws -> (StackExchangeWorkspace, RunReport) {
    let workspace = try StackExchangeWorkspace()
    let report = try workspace.runSpec(inputsFrom: StackExchangeDump.conlangDirectory)
    return (workspace, report)
  }

  static func tagNames(_ attribute: String?) -> [String] {
    guard let attribute, attribute.hasPrefix("<"), attribute.hasSuffix(">") else { return [] }
    return attribute.dropFirst().dropLast().components(separatedBy: "><")
  }

  /// `key|count` lines, sorted, for comparing a grouping with a query's.
  static func counts(_ keys: [String]) -> [String] {
    Dictionary(keys.map { ($0, 1) }, uniquingKeysWith: +).map { "\($0.key)|\($0.value)" }.sorted()
  }

  @Test func everyRowOfEveryFileIsImportedOrReported() throws {
    let rows = try Self.conlangRows()
    let (workspace, report) = try Self.loadConlang()
    #expect(report.status == .succeeded && report.committed, "\(report.failure?.message ?? "")")
    #expect(report.inputs.map { ($0.path as NSString).lastPathComponent } == StackExchangeDump.files.map(\.name))
    let postIDs = Set(try #require(rows["Posts.xml"]).compactMap { $0["Id"] })
    for file in StackExchangeDump.files {
      let fileRows = try #require(rows[file.name])
      let section = try #require(report.input(named: file.name))
      #expect(section.dataset == file.dataset)
      #expect(section.recordsRead == fileRows.count, "\(file.name)")
      #expect(section.recordsLoaded + section.recordsRejected == fileRows.count, "\(file.name)")
      #expect(try workspace.count("SELECT count(*) FROM \(file.table)") == section.recordsLoaded, "\(file.name)")
      #expect(section.issueCounts["unknownField"] == nil, "\(file.name)")
      // Nothing names a user or a tag the dump lacks.
      #expect(section.statistics(for: .load).warnings == 0, "\(file.name)")
      if file.name != "Votes.xml" { #expect(section.recordsRejected == 0, "\(file.name)") }
    }
    // Exactly the votes on posts that are not in Posts.xml are rejected, each at its PostId.
    let votes = try #require(rows["Votes.xml"])
    let orphans = votes.indices.filter { !postIDs.contains(votes[$0]["PostId"] ?? "") }.map { $0 + 1 }
    #expect(orphans.count == 27)
    let voteSection = try #require(report.input(named: "Votes.xml"))
    #expect(voteSection.recordsRejected == orphans.count)
    let issues = report.issues.filter { $0.severity == .error }
    #expect(issues.allSatisfy { $0.input == voteSection.path })
    #expect(issues.map { $0.location?.ordinal ?? 0 } == orphans)
    for issue in issues {
      #expect(issue.stage == .load && issue.code == .orphanReference && issue.path == "PostId")
      // Record n is on line n + 2, after the declaration and the root's start tag.
      #expect(issue.location?.line == (issue.location?.ordinal ?? 0) + 2)
    }
  }

  @Test func foreignKeysHoldAndTheLookupsAreTheEnums() throws {
    let (workspace, _) = try Self.loadConlang()
    #expect(try workspace.rows("PRAGMA foreign_key_check", columns: 4) == [])
    #expect(
      try workspace.rows("SELECT id || ' ' || name FROM post_types ORDER BY id")
        == PostType.allCases.map { "\($0.lookupID) \($0.rawValue)" })
    #expect(
      try workspace.rows("SELECT id || ' ' || name FROM vote_types ORDER BY id")
        == VoteType.allCases.map { "\($0.lookupID) \($0.rawValue)" })
  }

  @Test func questionsPerTagMatchTheXML() throws {
    let posts = try #require(try Self.conlangRows()["Posts.xml"])
    let truth = Self.counts(posts.filter { $0["PostTypeId"] == "1" }.flatMap { Self.tagNames($0["Tags"]) })
    #expect(truth.count == 20)
    let (workspace, _) = try Self.loadConlang()
    let answer = try workspace.rows(
      """
      SELECT t.tag_name || '|' || count(*) FROM post_tags t JOIN posts p USING (post_id)
      JOIN post_types k ON k.id = p.post_type_id WHERE k.name = 'Question' GROUP BY t.tag_name
      """)
    #expect(answer.sorted() == truth)
    // Every tag a post names is one of Tags.xml's, and the tag's Count says how many posts name it.
    #expect(try workspace.count("SELECT count(*) FROM post_tags WHERE tag_name IS NULL") == 0)
    let mismatched = try workspace.count(
      "SELECT count(*) FROM tags WHERE count <> (SELECT count(*) FROM post_tags p WHERE p.tag_name = tags.tag_name)")
    #expect(mismatched == 0)
  }

  @Test func answersPerQuestionAndAcceptedAnswersMatchTheXML() throws {
    let posts = try #require(try Self.conlangRows()["Posts.xml"])
    let answers = Self.counts(posts.filter { $0["PostTypeId"] == "2" }.compactMap { $0["ParentId"] })
    let accepted = posts.compactMap { post in post["AcceptedAnswerId"].map { "\(post["Id"] ?? "")|\($0)" } }.sorted()
    #expect(answers.count > 40 && accepted.count == 11)
    let (workspace, _) = try Self.loadConlang()
    let answerCounts = try workspace.rows(
      """
      SELECT a.parent_id || '|' || count(*) FROM posts a JOIN post_types k ON k.id = a.post_type_id
      WHERE k.name = 'Answer' GROUP BY a.parent_id
      """)
    #expect(answerCounts.sorted() == answers)
    let acceptedPairs = try workspace.rows(
      """
      SELECT q.post_id || '|' || a.post_id FROM posts q JOIN posts a ON a.post_id = q.accepted_answer_id
      WHERE a.parent_id = q.post_id
      """)
    #expect(acceptedPairs.sorted() == accepted)
  }

  @Test func commentsPerUserMatchTheXML() throws {
    let rows = try Self.conlangRows()
    let postIDs = Set(try #require(rows["Posts.xml"]).compactMap { $0["Id"] })
    let comments = try #require(rows["Comments.xml"]).filter { postIDs.contains($0["PostId"] ?? "") }
    let truth = Self.counts(comments.compactMap { $0["UserId"] })
    let deleted = Self.counts(comments.filter { $0["UserId"] == nil }.compactMap { $0["UserDisplayName"] })
    #expect(truth.count > 30 && !deleted.isEmpty)
    let (workspace, _) = try Self.loadConlang()
    let answer = try workspace.rows(
      "SELECT user_id || '|' || count(*) FROM comments WHERE user_id IS NOT NULL GROUP BY user_id")
    #expect(answer.sorted() == truth)
    let byDisplayName = try workspace.rows(
      "SELECT user_display_name || '|' || count(*) FROM comments WHERE user_id IS NULL GROUP BY user_display_name")
    #expect(byDisplayName.sorted() == deleted)
    // Their text as the XML decodes it, escapes and newlines included.
    let texts = comments.map { "\($0["Id"] ?? "")|\($0["Text"] ?? "")" }.sorted()
    #expect(try workspace.rows("SELECT comment_id || '|' || text FROM comments").sorted() == texts)
  }

  @Test func postsKeepTheirTextDeletedOwnersAndUTCTimestamps() throws {
    let posts = try #require(try Self.conlangRows()["Posts.xml"])
    let (workspace, _) = try Self.loadConlang()
    // Body and title as the XML decodes them (entities and &#xA; resolved), HTML kept as text.
    let stored = try workspace.rows(
      "SELECT post_id, body, coalesce(title, '(none)'), creation_date, coalesce(owner_user_id, 'NULL'), coalesce(owner_display_name, 'NULL') FROM posts ORDER BY post_id",
      columns: 6)
    let expected = posts.sorted { Int($0["Id"] ?? "") ?? 0 < Int($1["Id"] ?? "") ?? 0 }.map { post in
      [
        post["Id"] ?? "", post["Body"] ?? "", post["Title"] ?? "(none)", (post["CreationDate"] ?? "") + "Z",
        post["OwnerUserId"] ?? "NULL", post["OwnerDisplayName"] ?? "NULL",
      ].joined(separator: "|")
    }
    #expect(stored == expected)
    #expect(posts.contains { $0["Body"]?.contains("\n") == true && $0["Body"]?.contains("<p>") == true })
    // The dump's six posts by deleted users: no owner id, their display name kept.
    #expect(
      try workspace.count("SELECT count(*) FROM posts WHERE owner_user_id IS NULL AND owner_display_name IS NOT NULL")
        == 6)
  }

  @Test func reimportingTheDumpChangesNothing() throws {
    let (workspace, _) = try Self.loadConlang()
    let tables = StackExchange.Tables.schema.tableNames
    let before = try DatabaseSnapshot(of: workspace.database, tables: tables)
    let report = try workspace.runSpec(inputsFrom: StackExchangeDump.conlangDirectory)
    #expect(report.status == .succeeded)
    #expect(try DatabaseSnapshot(of: workspace.database, tables: tables) == before)
    #expect(before.count("post_tags") > 0)
  }

  /// The 2015 coffee dump lacks ContentLicense, OwnerDisplayName, LastEditorDisplayName and
  /// CommunityOwnedDate: optional attributes, so every post loads. Loaded alone, its owners,
  /// editors and tags name rows the database does not hold: each is kept as NULL with a warning.
  @Test func olderCoffeePostsImportDespiteTheSchemaDrift() throws {
    let posts = try DumpRows.read(StackExchangeDump.coffeePosts)
    #expect(posts.count == 592)
    let workspace = try StackExchangeWorkspace()
    let report = try workspace.run(
      StackExchangeDump.file("Posts.xml"), input: StackExchangeDump.coffeePosts,
      policy: try StackExchangeDump.pipelinePolicy)
    #expect(report.status == .succeeded)
    #expect(report.recordsLoaded == posts.count && report.recordsRejected == 0)
    #expect(report.issueCounts["unknownField"] == nil)
    let tagCount = posts.reduce(0) { $0 + Self.tagNames($1["Tags"]).count }
    let references =
      posts.filter { $0["OwnerUserId"] != nil }.count + posts.filter { $0["LastEditorUserId"] != nil }.count
    #expect(report.statistics(for: .load).warnings == references + tagCount)
    #expect(report.issueCounts["orphanReference"] == references + tagCount)
    #expect(report.issues(.orphanReference).allSatisfy { $0.severity == .warning })

    let types = Self.counts(posts.compactMap { $0["PostTypeId"] })
    #expect(types == ["1|225", "2|327", "4|20", "5|20"])
    #expect(try workspace.rows("SELECT post_type_id || '|' || count(*) FROM posts GROUP BY post_type_id") == types)
    #expect(try workspace.count("SELECT count(*) FROM post_tags") == tagCount)
    #expect(try workspace.count("SELECT count(*) FROM posts WHERE content_license IS NULL") == posts.count)
    let answers = Self.counts(posts.filter { $0["PostTypeId"] == "2" }.compactMap { $0["ParentId"] })
    #expect(
      try workspace.rows(
        "SELECT parent_id || '|' || count(*) FROM posts WHERE parent_id IS NOT NULL GROUP BY parent_id"
      ).sorted() == answers)
    let accepted = posts.compactMap { post in post["AcceptedAnswerId"].map { "\(post["Id"] ?? "")|\($0)" } }.sorted()
    #expect(accepted.count == 105)
    #expect(
      try workspace.rows("SELECT post_id || '|' || accepted_answer_id FROM posts WHERE accepted_answer_id IS NOT NULL")
        .sorted() == accepted)
  }

  /// Since 2024 the dumps write a post's tags as `Tags="|feature-request|status-completed|"`
  /// (issue 23; the Meta Stack Exchange schema documentation, "Database schema documentation for
  /// the public data dump and SEDE", lists `Tags` as the post's tags without fixing a form).
  /// The conlang dump rewritten in that form — only its `Tags` attributes change, byte for byte
  /// otherwise — loads into exactly the tables its angle-bracket original does.
  @Test func a2024FormatDumpAndItsAngleBracketTwinGiveTheSameTables() throws {
    let twin = try TemporaryDirectory()
    var rewritten = 0
    for file in StackExchangeDump.files {
      var text = try String(
        contentsOfFile: (StackExchangeDump.conlangDirectory as NSString).appendingPathComponent(file.name),
        encoding: .utf8)
      if file.name == "Posts.xml" {
        let pattern = try NSRegularExpression(pattern: #" Tags="((?:&lt;[^&"]+&gt;)+)""#)
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed()
        for match in matches {
          guard let whole = Range(match.range, in: text), let list = Range(match.range(at: 1), in: text) else {
            continue
          }
          let names = text[list].replacingOccurrences(of: "&gt;&lt;", with: "|").replacingOccurrences(
            of: "&lt;", with: "|"
          )
          .replacingOccurrences(of: "&gt;", with: "|")
          text.replaceSubrange(whole, with: " Tags=\"\(names)\"")
          rewritten += 1
        }
        #expect(!text.contains("&lt;discussion&gt;") && text.contains(#"Tags="|discussion|"#))
      }
      _ = try twin.write(file.name, text)
    }
    let posts = try DumpRows.read((StackExchangeDump.conlangDirectory as NSString).appendingPathComponent("Posts.xml"))
    #expect(rewritten == posts.filter { $0["Tags"] != nil }.count && rewritten == 54)

    let (original, originalReport) = try Self.loadConlang()
    let modern = try StackExchangeWorkspace()
    let modernReport = try modern.runSpec(inputsFrom: twin.path)
    #expect(modernReport.status == .succeeded && modernReport.committed, "\(modernReport.failure?.message ?? "")")
    #expect(modernReport.recordsLoaded == originalReport.recordsLoaded)
    #expect(modernReport.recordsRejected == originalReport.recordsRejected)
    #expect(modernReport.issueCounts == originalReport.issueCounts)
    let tables = StackExchange.Tables.schema.tableNames + ["post_types", "vote_types"]
    #expect(
      try DatabaseSnapshot(of: modern.database, tables: tables)
        == DatabaseSnapshot(of: original.database, tables: tables))
    // Not vacuously: every tag of every question, in its order.
    let tagCount = posts.reduce(0) { $0 + Self.tagNames($1["Tags"]).count }
    #expect(try modern.count("SELECT count(*) FROM post_tags WHERE tag_name IS NOT NULL") == tagCount)
    #expect(
      try modern.rows(
        "SELECT group_concat(tag_name, ' ') FROM (SELECT tag_name FROM post_tags WHERE post_id = 1 ORDER BY position)")
        == [Self.tagNames(posts.first { $0["Id"] == "1" }?["Tags"]).joined(separator: " ")])
  }
}
