import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The dump's text conventions — tag lists, zone-less timestamps, `True`/`False` — and what each
/// kind of bad row becomes: the stage, code, path and location of its issue.
@Suite("Stack Exchange contract")
struct StackExchangeContractTests {
  // MARK: - Tags

  @Test(arguments: [
    ("<discussion><on-topic>", ["discussion", "on-topic"]),
    ("<c#><.net><c++><node.js>", ["c#", ".net", "c++", "node.js"]),
    ("<single>", ["single"]),
    ("", []),
    // The dumps since 2024 (issue 23: `Tags="|feature-request|status-completed|"`).
    ("|feature-request|status-completed|", ["feature-request", "status-completed"]),
    ("|c#|.net|c++|node.js|", ["c#", ".net", "c++", "node.js"]),
    ("|single|", ["single"]),
  ])
  func tagListsParseInTheirOrder(text: String, names: [String]) {
    #expect(StackExchange.tagNames(from: text) == names)
  }

  @Test(arguments: [
    "discussion", "<a", "<a>b", "b<a>", "<>", "<a><>", "<a> <b>", " <a>", "<a<b>>", "<a>>", "|a|b", "a|b|", "|", "||",
    "|a||b|", "|a|<b>|",
    "|<a>|", "<a>|b|",
  ])
  func malformedTagListsAreRefused(text: String) {
    #expect(StackExchange.tagNames(from: text) == nil)
  }

  // MARK: - Timestamps

  @Test(arguments: [
    ("2018-02-06T20:19:50.957", "2018-02-06T20:19:50.957Z"),
    ("2018-02-06T20:19:50", "2018-02-06T20:19:50.000Z"),
    ("2018-02-06T20:19:50.9", "2018-02-06T20:19:50.900Z"),
    ("2018-02-06T20:19:50.95", "2018-02-06T20:19:50.950Z"),
    ("2018-02-06T20:19:50.1234567", "2018-02-06T20:19:50.123Z"),
    ("2018-02-06T23:59:59.9999", "2018-02-07T00:00:00.000Z"),
    ("2020-02-29T12:00:00.000", "2020-02-29T12:00:00.000Z"),
    ("0001-01-01T00:00:00.000", "0001-01-01T00:00:00.000Z"),
    ("9999-12-31T23:59:59.999", "9999-12-31T23:59:59.999Z"),
  ])
  func timestampsAreReadAsUTCAndStoredInTheOrdersForm(text: String, stored: String) throws {
    let timestamp = try #require(StackExchange.timestamp(from: text))
    #expect(timestamp.text == stored)
  }

  @Test func aTimestampIsTheInstantItNamesInUTC() throws {
    let timestamp = try #require(StackExchange.timestamp(from: "2018-02-06T20:19:50.957"))
    // 2018-02-06 is day 17568 since 1970-01-01.
    #expect(abs(timestamp.date.timeIntervalSince1970 - (17568 * 86_400 + 20 * 3600 + 19 * 60 + 50.957)) < 1e-6)
  }

  @Test(arguments: [
    "2018-02-06T20:19:50.957Z", "2018-02-06T20:19:50+01:00", "2018-02-06 20:19:50.957", "2019-02-29T00:00:00.000",
    "2018-13-01T00:00:00", "2018-04-31T00:00:00", "2018-02-06T24:00:00", "2018-02-06T20:60:00", "2018-02-06T20:19:60",
    "2018-02-06T20:19:50.", "2018-02-06T20:19:50.95a", "0000-01-01T00:00:00", "2018-02-06", "", " 2018-02-06T20:19:50",
    "2018-02-06T20:19:50 ", "2018-2-06T20:19:50", "+2018-02-06T20:19:50", "２018-02-06T20:19:50",
  ])
  func malformedTimestampsAreRefused(text: String) {
    #expect(StackExchange.timestamp(from: text) == nil)
  }

  // MARK: - Rows through the pipeline

  static let user =
    #"Id="1" Reputation="1" CreationDate="2021-03-01T09:00:00.000" DisplayName="Ada" LastAccessDate="2021-03-01T09:00:00.000" Views="0" UpVotes="0" DownVotes="0""#

  static func post(id: Int, _ attributes: String) -> String {
    #"Id="\#(id)" CreationDate="2021-03-03T08:15:00.120" Score="1" Body="&lt;p&gt;x&lt;/p&gt;" LastActivityDate="2021-03-03T08:15:00.120" "#
      + attributes
  }

  @Test func trueAndFalseAreBooleansInEveryCaseTheDumpWrites() throws {
    let workspace = try StackExchangeWorkspace()
    #expect(try workspace.run(StackExchangeDump.file("Users.xml"), rows: [Self.user]).status == .succeeded)
    let flags = ["True", "False", "true", "false", "1", "0"]
    let badges = flags.enumerated().map { index, flag in
      #"Id="\#(index + 1)" UserId="1" Name="Teacher" Date="2021-03-04T00:05:00.000" Class="3" TagBased="\#(flag)""#
    }
    let report = try workspace.run(StackExchangeDump.file("Badges.xml"), rows: badges)
    #expect(report.status == .succeeded)
    #expect(report.coercions == 0)
    #expect(try workspace.rows("SELECT tag_based FROM badges ORDER BY badge_id") == ["1", "0", "1", "0", "1", "0"])
  }

  @Test func aBooleanThatIsNeitherFailsAStrictRunAtItsAttribute() throws {
    let workspace = try StackExchangeWorkspace()
    _ = try workspace.run(StackExchangeDump.file("Users.xml"), rows: [Self.user])
    let badges = [
      #"Id="1" UserId="1" Name="Teacher" Date="2021-03-04T00:05:00.000" Class="3" TagBased="False""#,
      #"Id="2" UserId="1" Name="Teacher" Date="2021-03-04T00:05:00.000" Class="3" TagBased="Yes""#,
    ]
    let report = try workspace.run(StackExchangeDump.file("Badges.xml"), rows: badges)
    #expect(report.status == .failed && report.exitCode == 65 && !report.committed)
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .decode && issue.code == .typeMismatch && issue.path == "TagBased")
    #expect(issue.location?.ordinal == 2 && issue.location?.line == 4)
    #expect(!issue.description.contains("Yes"))
    #expect(try workspace.count("SELECT count(*) FROM badges") == 0)
  }

  @Test func aTimestampWithAZoneIsAnInvalidDateAtItsAttribute() throws {
    let workspace = try StackExchangeWorkspace()
    _ = try workspace.run(StackExchangeDump.file("Users.xml"), rows: [Self.user])
    _ = try workspace.run(StackExchangeDump.file("Posts.xml"), rows: [Self.post(id: 1, #"PostTypeId="1" Title="t""#)])
    let votes = [
      #"Id="1" PostId="1" VoteTypeId="2" CreationDate="2021-03-04T00:00:00.000""#,
      #"Id="2" PostId="1" VoteTypeId="2" CreationDate="2021-03-04T00:00:00.000Z""#,
    ]
    let report = try workspace.run(StackExchangeDump.file("Votes.xml"), rows: votes, policy: .lenient)
    #expect(report.status == .succeeded && report.recordsLoaded == 1 && report.recordsRejected == 1)
    let issue = try #require(report.issues(.invalidDate).first)
    #expect(issue.stage == .map && issue.path == "CreationDate" && issue.location?.ordinal == 2)
    #expect(try workspace.rows("SELECT creation_date FROM votes") == ["2021-03-04T00:00:00.000Z"])
  }

  @Test func unknownTypeIDsAreReportedNeverGuessed() throws {
    let workspace = try StackExchangeWorkspace()
    _ = try workspace.run(StackExchangeDump.file("Users.xml"), rows: [Self.user])
    let posts = try workspace.run(
      StackExchangeDump.file("Posts.xml"),
      rows: [Self.post(id: 1, #"PostTypeId="1" Title="t""#), Self.post(id: 2, #"PostTypeId="16""#)], policy: .lenient)
    let unknownPost = try #require(posts.issues(.unsupportedEnumValue).first)
    #expect(unknownPost.stage == .map && unknownPost.path == "PostTypeId" && unknownPost.location?.ordinal == 2)
    let votes = try workspace.run(
      StackExchangeDump.file("Votes.xml"),
      rows: [#"Id="1" PostId="1" VoteTypeId="13" CreationDate="2021-03-04T00:00:00.000""#], policy: .lenient)
    #expect(votes.issues(.unsupportedEnumValue).map(\.path) == ["VoteTypeId"])
    #expect(try workspace.count("SELECT count(*) FROM posts") == 1)
    #expect(try workspace.count("SELECT count(*) FROM votes") == 0)
  }

  @Test func attributesTheDTOLacksAreWarningsAndTheRowLoads() throws {
    let workspace = try StackExchangeWorkspace()
    let report = try workspace.run(
      StackExchangeDump.file("Users.xml"), rows: [Self.user + #" ShoeSize="33" Karma="x""#])
    #expect(report.status == .succeeded && report.recordsLoaded == 1)
    let unknown = report.issues(.unknownField)
    #expect(unknown.map(\.path).sorted() == ["Karma", "ShoeSize"])
    #expect(unknown.allSatisfy { $0.severity == .warning && $0.stage == .decode })
  }

  /// Older dumps carried `Age` and `EmailHash` on users (the Meta Stack Exchange schema
  /// documentation's earlier revisions list both): a dump of that vintage loads without drift.
  @Test func usersOfOlderDumpsWithAgeAndEmailHashLoadWithoutWarnings() throws {
    let workspace = try StackExchangeWorkspace()
    let report = try workspace.run(
      StackExchangeDump.file("Users.xml"), rows: [Self.user + #" Age="33" EmailHash="0f1e""#])
    #expect(report.status == .succeeded && report.recordsLoaded == 1)
    #expect(report.issues.isEmpty, "\(report.issues.map(\.description))")
  }

  /// Newer dumps hold post types 9–15 (Meta Stack Exchange's schema documentation: articles,
  /// help articles, collections, moderator questionnaire responses, announcements, collective
  /// discussions): each loads under its own name.
  @Test(arguments: [
    (9, "Article"), (10, "HelpArticle"), (12, "Collection"), (13, "ModeratorQuestionnaireResponse"),
    (14, "Announcement"), (15, "CollectiveDiscussion"),
  ])
  func postTypesOfNewerDumpsLoadUnderTheirNames(id: Int, name: String) throws {
    let workspace = try StackExchangeWorkspace()
    let report = try workspace.run(
      StackExchangeDump.file("Posts.xml"), rows: [Self.post(id: 1, #"PostTypeId="\#(id)""#)])
    #expect(report.status == .succeeded && report.recordsLoaded == 1, "\(report.issues.map(\.description))")
    #expect(try workspace.rows("SELECT t.name FROM posts p JOIN post_types t ON t.id = p.post_type_id") == [name])
  }

  @Test func aMissingRequiredAttributeIsReportedAtItsName() throws {
    let workspace = try StackExchangeWorkspace()
    let noBody =
      #"Id="1" PostTypeId="1" CreationDate="2021-03-03T08:15:00.120" Score="1" LastActivityDate="2021-03-03T08:15:00.120""#
    let report = try workspace.run(StackExchangeDump.file("Posts.xml"), rows: [noBody], policy: .lenient)
    let issue = try #require(report.issues(.missingField).first)
    #expect(issue.stage == .decode && issue.path == "Body" && issue.location?.line == 3)
  }

  @Test func answersAndOnlyAnswersNameAParent() throws {
    let workspace = try StackExchangeWorkspace()
    let report = try workspace.run(
      StackExchangeDump.file("Posts.xml"),
      rows: [
        Self.post(id: 1, #"PostTypeId="1" Title="t""#), Self.post(id: 2, #"PostTypeId="2""#),
        Self.post(id: 3, #"PostTypeId="1" ParentId="1""#), Self.post(id: 4, #"PostTypeId="2" ParentId="1""#),
      ],
      policy: .lenient)
    let issues = report.issues.filter { $0.stage == .validate }
    #expect(issues.map { $0.location?.ordinal ?? 0 } == [2, 3])
    #expect(issues.allSatisfy { $0.path == "ParentId" && $0.code == .invalidValue })
    #expect(try workspace.rows("SELECT post_id FROM posts ORDER BY post_id") == ["1", "4"])
  }

  @Test func aTagThatTagsLacksKeepsThePostWithANullLinkAndAWarning() throws {
    let workspace = try StackExchangeWorkspace()
    _ = try workspace.run(StackExchangeDump.file("Tags.xml"), rows: [#"Id="1" TagName="known" Count="1""#])
    let report = try workspace.run(
      StackExchangeDump.file("Posts.xml"),
      rows: [Self.post(id: 1, #"PostTypeId="1" Title="t" Tags="&lt;known&gt;&lt;unknown&gt;""#)])
    #expect(report.status == .succeeded && report.recordsLoaded == 1)
    let warning = try #require(report.issues(.orphanReference).first)
    #expect(warning.severity == .warning && warning.stage == .load && warning.path == "Tags[1]")
    #expect(
      try workspace.rows(
        "SELECT post_id || '|' || position || '|' || coalesce(tag_name, 'NULL') FROM post_tags ORDER BY position") == [
          "1|1|known", "1|2|NULL",
        ])
  }

  @Test func aMalformedTagListIsAnInvalidValueAtTags() throws {
    let workspace = try StackExchangeWorkspace()
    let report = try workspace.run(
      StackExchangeDump.file("Posts.xml"), rows: [Self.post(id: 1, #"PostTypeId="1" Title="t" Tags="known, other""#)],
      policy: .lenient)
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .map && issue.code == .invalidValue && issue.path == "Tags")
  }

  @Test func anOwnerUsersLacksIsStoredAsNullWithAWarningAndADeletedOwnerKeepsTheName() throws {
    let workspace = try StackExchangeWorkspace()
    _ = try workspace.run(StackExchangeDump.file("Users.xml"), rows: [Self.user])
    let report = try workspace.run(
      StackExchangeDump.file("Posts.xml"),
      rows: [
        Self.post(id: 1, #"PostTypeId="1" Title="t" OwnerUserId="1""#),
        Self.post(id: 2, #"PostTypeId="1" Title="t" OwnerUserId="77" LastEditorUserId="1""#),
        Self.post(id: 3, #"PostTypeId="1" Title="t" OwnerDisplayName="user4""#),
      ])
    #expect(report.status == .succeeded && report.recordsLoaded == 3)
    let warnings = report.issues(.orphanReference)
    #expect(warnings.map { "\($0.location?.ordinal ?? 0) \($0.path) \($0.severity)" } == ["2 OwnerUserId warning"])
    #expect(
      try workspace.rows(
        "SELECT post_id || '|' || coalesce(owner_user_id, 'NULL') || '|' || coalesce(owner_display_name, 'NULL') FROM posts ORDER BY post_id"
      )
        == ["1|1|NULL", "2|NULL|NULL", "3|NULL|user4"])
  }

  @Test func aCommentOnAPostTheDumpLacksFailsAStrictRunAndIsSkippedByALenientOne() throws {
    let workspace = try StackExchangeWorkspace()
    _ = try workspace.run(StackExchangeDump.file("Users.xml"), rows: [Self.user])
    _ = try workspace.run(StackExchangeDump.file("Posts.xml"), rows: [Self.post(id: 1, #"PostTypeId="1" Title="t""#)])
    let comments = [
      #"Id="1" PostId="1" Score="0" Text="fine" CreationDate="2021-03-04T00:00:00.000" UserId="1""#,
      #"Id="2" PostId="12" Score="0" Text="on a deleted post" CreationDate="2021-03-04T00:00:00.000" UserId="1""#,
    ]
    let strict = try workspace.run(StackExchangeDump.file("Comments.xml"), rows: comments)
    #expect(strict.status == .failed && strict.exitCode == 65)
    let issue = try #require(strict.issues(.orphanReference).first)
    #expect(issue.stage == .load && issue.severity == .error && issue.path == "PostId" && issue.location?.ordinal == 2)
    #expect(try workspace.count("SELECT count(*) FROM comments") == 0)
    let lenient = try workspace.run(StackExchangeDump.file("Comments.xml"), rows: comments, policy: .lenient)
    #expect(lenient.status == .succeeded && lenient.recordsLoaded == 1 && lenient.recordsRejected == 1)
    #expect(try workspace.rows("SELECT comment_id FROM comments") == ["1"])
  }
}
