import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Two more real dumps, of vintages the conlang (2018–2020) and coffee (2015) dumps are not: a
/// May 2014 Posts.xml (Mathematics Educators, an excerpt: CRLF lines, `FavoriteCount`, no
/// `ContentLicense`, a `WikiPlaceholder` post) and an April 2024 one (Data Science Meta, whole:
/// `Tags="|a|b|"`, LF lines, rows not in `Id` order, `FavoriteCount` on four posts only). Each is
/// alone in its folder, loaded by `Pipelines/stackexchange.json --input-dir` as a user would load
/// it. Expected numbers are pinned, and each is also computed from the XML with `XMLParser`.
@Suite("Stack Exchange dump vintages: the 2014 and 2024 Posts.xml")
struct StackExchangeVintageTests {
  struct Vintage: Sendable, CustomTestStringConvertible {
    var name: String
    var directory: String
    var rows: Int
    /// `PostTypeId|count`, sorted.
    var types: [String]
    /// Posts naming an owner, posts naming an editor, and tag names over all posts.
    var owners: Int
    var editors: Int
    var tags: Int
    var testDescription: String { name }

    var posts: String { (directory as NSString).appendingPathComponent("Posts.xml") }
  }

  static let matheducators2014 = Vintage(
    name: "matheducators 2014", directory: StackExchangeDump.matheducators2014Directory, rows: 301,
    types: ["1|78", "2|210", "4|6", "5|6", "7|1"], owners: 298, editors: 103, tags: 198)
  static let datascienceMeta2024 = Vintage(
    name: "datascience meta 2024", directory: StackExchangeDump.datascienceMeta2024Directory, rows: 624,
    types: ["1|257", "2|341", "4|13", "5|13"], owners: 621, editors: 233, tags: 524)
  static let vintages = [matheducators2014, datascienceMeta2024]

  /// A post's tag names in either form, read here without the code under test.
  static func tagNames(_ attribute: String?) -> [String] {
    guard let attribute, attribute.count >= 2 else { return [] }
    if attribute.hasPrefix("|") { return attribute.dropFirst().dropLast().components(separatedBy: "|") }
    return attribute.dropFirst().dropLast().components(separatedBy: "><")
  }

  static func counts(_ keys: [String]) -> [String] {
    Dictionary(keys.map { ($0, 1) }, uniquingKeysWith: +).map { "\($0.key)|\($0.value)" }.sorted()
  }

  static func load(_ vintage: Vintage) throws -> (StackExchangeWorkspace, RunReport) {
    let workspace = try StackExchangeWorkspace()
    return (workspace, try workspace.runSpec(inputsFrom: vintage.directory))
  }

  /// Posts.xml alone: the seven other files are `missingInput` warnings, every post loads, and
  /// every owner, editor and tag it names is an orphan kept as NULL with a warning.
  @Test(arguments: vintages)
  func aPostsOnlyFolderLoadsEveryPost(vintage: Vintage) throws {
    let posts = try DumpRows.read(vintage.posts)
    #expect(posts.count == vintage.rows)
    #expect(Self.counts(posts.compactMap { $0["PostTypeId"] }) == vintage.types)
    #expect(posts.filter { $0["OwnerUserId"] != nil }.count == vintage.owners)
    #expect(posts.filter { $0["LastEditorUserId"] != nil }.count == vintage.editors)
    #expect(posts.reduce(0) { $0 + Self.tagNames($1["Tags"]).count } == vintage.tags)

    let (workspace, report) = try Self.load(vintage)
    #expect(report.status == .succeeded && report.committed, "\(report.failure?.message ?? "")")
    let missing = StackExchangeDump.files.map(\.name).filter { $0 != "Posts.xml" }
    #expect(
      report.issues(.missingInput).map { ($0.input.map { $0 as NSString })?.lastPathComponent ?? "?" } == missing)
    for file in StackExchangeDump.files {
      let section = try #require(report.input(named: file.name))
      let skipped = section.statistics(for: .map).skipped
      #expect(section.recordsRead == section.recordsLoaded + section.recordsRejected + skipped, "\(file.name)")
      #expect(section.recordsRead == (file.name == "Posts.xml" ? vintage.rows : 0), "\(file.name)")
      #expect(try workspace.count("SELECT count(*) FROM \(file.table)") == section.recordsLoaded, "\(file.name)")
    }
    let section = try #require(report.input(named: "Posts.xml"))
    #expect(section.recordsLoaded == vintage.rows && section.recordsRejected == 0)
    #expect(section.statistics(for: .map).skipped == 0)
    #expect(section.rowsWritten["posts"] == vintage.rows && section.rowsWritten["post_tags"] == vintage.tags)
    #expect(section.issueCounts["unknownField"] == nil)
    let orphans = vintage.owners + vintage.editors + vintage.tags
    #expect(section.statistics(for: .load).warnings == orphans)
    #expect(section.issueCounts["orphanReference"] == orphans)
    #expect(report.issues(.orphanReference).allSatisfy { $0.severity == .warning && $0.stage == .load })
    // Record n is on line n + 2 whether the dump ends its lines with CRLF (2014) or LF (2024).
    #expect(report.issues(.orphanReference).allSatisfy { $0.location?.line == ($0.location?.ordinal ?? 0) + 2 })

    #expect(
      try workspace.rows("SELECT post_type_id || '|' || count(*) FROM posts GROUP BY post_type_id ORDER BY 1")
        == vintage.types)
    #expect(try workspace.count("SELECT count(*) FROM post_tags WHERE tag_name IS NULL") == vintage.tags)
    #expect(try workspace.count("SELECT count(*) FROM posts WHERE owner_user_id IS NULL") == vintage.rows)
    #expect(try workspace.rows("PRAGMA foreign_key_check", columns: 4) == [])
  }

  /// Each post as the XML decodes it: body, title, score, UTC creation date, display name, licence.
  @Test(arguments: vintages)
  func everyPostKeepsItsValues(vintage: Vintage) throws {
    let posts = try DumpRows.read(vintage.posts)
    let (workspace, _) = try Self.load(vintage)
    let stored = try workspace.rows(
      """
      SELECT post_id, body, coalesce(title, '(none)'), score, creation_date, coalesce(owner_display_name, 'NULL'),
        coalesce(content_license, 'NULL') FROM posts ORDER BY post_id
      """, columns: 7)
    let expected = posts.sorted { Int($0["Id"] ?? "") ?? 0 < Int($1["Id"] ?? "") ?? 0 }.map { post in
      [
        post["Id"] ?? "", post["Body"] ?? "", post["Title"] ?? "(none)", post["Score"] ?? "",
        (post["CreationDate"] ?? "") + "Z", post["OwnerDisplayName"] ?? "NULL", post["ContentLicense"] ?? "NULL",
      ].joined(separator: "|")
    }
    #expect(stored == expected)
    let answers = Self.counts(posts.filter { $0["PostTypeId"] == "2" }.compactMap { $0["ParentId"] })
    #expect(
      try workspace.rows(
        "SELECT parent_id || '|' || count(*) FROM posts WHERE parent_id IS NOT NULL GROUP BY parent_id"
      ).sorted() == answers)
    let accepted = posts.compactMap { post in post["AcceptedAnswerId"].map { "\(post["Id"] ?? "")|\($0)" } }.sorted()
    #expect(
      try workspace.rows("SELECT post_id || '|' || accepted_answer_id FROM posts WHERE accepted_answer_id IS NOT NULL")
        .sorted() == accepted)
  }

  /// With a Tags.xml beside it — written by the test from the names the posts use, since the
  /// carriers have none — every post's tags are stored by name, in the dump's order.
  @Test(arguments: vintages)
  func everyPostKeepsItsTagsInOrder(vintage: Vintage) throws {
    let posts = try DumpRows.read(vintage.posts)
    let folder = try TemporaryDirectory()
    try FileManager.default.copyItem(atPath: vintage.posts, toPath: folder.file("Posts.xml"))
    let names = posts.flatMap { Self.tagNames($0["Tags"]) }
    let uses = Dictionary(names.map { ($0, 1) }, uniquingKeysWith: +)
    let tagRows = uses.keys.sorted().enumerated().map { index, name in
      "  <row Id=\"\(index + 1)\" TagName=\"\(name)\" Count=\"\(uses[name] ?? 0)\" />\r\n"
    }
    _ = try folder.write(
      "Tags.xml", "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<tags>\r\n" + tagRows.joined() + "</tags>")

    let workspace = try StackExchangeWorkspace()
    let report = try workspace.runSpec(inputsFrom: folder.path)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(try workspace.count("SELECT count(*) FROM post_tags WHERE tag_name IS NULL") == 0)
    #expect(try workspace.count("SELECT count(*) FROM post_tags") == vintage.tags)
    let stored = try workspace.rows(
      """
      SELECT post_id || '|' || group_concat(tag_name, ' ') FROM
        (SELECT post_id, tag_name FROM post_tags ORDER BY post_id, position) GROUP BY post_id
      """)
    let expected = posts.filter { $0["Tags"] != nil }.sorted { Int($0["Id"] ?? "") ?? 0 < Int($1["Id"] ?? "") ?? 0 }
      .map { "\($0["Id"] ?? "")|\(Self.tagNames($0["Tags"]).joined(separator: " "))" }
    #expect(stored == expected)
    let mismatched = try workspace.count(
      "SELECT count(*) FROM tags WHERE count <> (SELECT count(*) FROM post_tags p WHERE p.tag_name = tags.tag_name)")
    #expect(mismatched == 0)
    // Only the users are missing now: owners and editors, no tags.
    let section = try #require(report.input(named: "Posts.xml"))
    #expect(section.statistics(for: .load).warnings == vintage.owners + vintage.editors)
  }

  /// The May 2014 dump: no `ContentLicense` (it came in 2018), `FavoriteCount` on 51 of the
  /// excerpt's posts, three posts of deleted users, and the site's one `WikiPlaceholder` (7).
  @Test func the2014DumpKeepsItsOlderShape() throws {
    let (workspace, _) = try Self.load(Self.matheducators2014)
    #expect(
      try workspace.rows(
        "SELECT post_id, title, score, creation_date, favorite_count, answer_count FROM posts WHERE post_id = 1",
        columns: 6) == ["1|Encouraging class participation|37|2014-03-13T20:32:04.033Z|4|9"])
    #expect(
      try workspace.rows(
        "SELECT t.name, p.score, coalesce(p.owner_user_id, 'NULL') FROM posts p JOIN post_types t ON t.id = p.post_type_id WHERE p.post_id = 813",
        columns: 3) == ["WikiPlaceholder|0|NULL"])
    #expect(try workspace.count("SELECT count(*) FROM posts WHERE content_license IS NOT NULL") == 0)
    #expect(try workspace.count("SELECT count(*) FROM posts WHERE favorite_count IS NOT NULL") == 51)
    #expect(
      try workspace.rows("SELECT post_id || '|' || owner_display_name FROM posts WHERE owner_display_name IS NOT NULL")
        == ["55|user89", "78|user106", "79|user106"])
    #expect(try workspace.rows("SELECT max(score) FROM posts") == ["50"])
    #expect(try workspace.count("SELECT count(*) FROM posts WHERE body LIKE '%' || char(13) || '%'") == 0)
  }

  /// The April 2024 dump: tags as `|a|b|`, every row licensed, and the rows grouped by type rather
  /// than in `Id` order — answers may come before the questions they answer in no way that matters
  /// here, since `parent_id` and `accepted_answer_id` are plain integers.
  @Test func the2024DumpKeepsItsNewerShape() throws {
    let posts = try DumpRows.read(Self.datascienceMeta2024.posts)
    let ids = posts.compactMap { Int($0["Id"] ?? "") }
    #expect(ids.count == 624 && Set(ids).count == 624 && ids != ids.sorted())
    #expect(Array(ids.prefix(3)) == [6, 13, 17])
    #expect(posts.first?["Tags"] == "|feature-request|status-completed|")

    let (workspace, _) = try Self.load(Self.datascienceMeta2024)
    #expect(
      try workspace.rows(
        "SELECT post_id, title, score, view_count, content_license FROM posts WHERE post_id = 6", columns: 5)
        == ["6|Can we get TeX support?|37|301|CC BY-SA 3.0"])
    #expect(
      try workspace.rows("SELECT content_license || '|' || count(*) FROM posts GROUP BY content_license ORDER BY 1")
        == ["CC BY-SA 3.0|350", "CC BY-SA 4.0|274"])
    #expect(try workspace.rows("SELECT min(score) || '|' || max(score) FROM posts") == ["-4|41"])
    #expect(try workspace.count("SELECT count(*) FROM posts WHERE favorite_count IS NOT NULL") == 4)
    // A tag wiki excerpt with a title, as the dump writes it.
    #expect(
      try workspace.rows("SELECT post_type_id || '|' || title FROM posts WHERE post_id = 2515")
        == ["4|product-discovery"])
    // A display name where the dump writes one: the three deleted owners (no OwnerUserId) and
    // eight posts that carry both.
    #expect(
      posts.filter { $0["OwnerUserId"] == nil }.compactMap { $0["Id"] }.sorted() == ["2243", "2559", "51"])
    #expect(
      try workspace.rows(
        "SELECT post_id || '|' || owner_display_name FROM posts WHERE owner_display_name IS NOT NULL ORDER BY post_id")
        == [
          "51|user693", "86|gerrit", "87|Alex I", "88|statsRus", "89|Vass", "90|Clayton", "2221|Darrin Thomas",
          "2222|armatita", "2243|user380", "2328|JDOE", "2559|user105282",
        ])
  }
}
