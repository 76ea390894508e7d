import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The corpus's Mattermost bulk export (Zulip's fixture: 1 version, 2 team, 5 channel, 5 user,
/// 20 post and 2 emoji lines; one post has a reply) and the committed sample.
@Suite("Mattermost export: bulk export NDJSON")
struct MattermostExportTests {
  static let corpusFile = "mattermost/zulip_mattermost_export.jsonl"

  func load(_ path: String, into workspace: ChatExportWorkspace, policy: Policy = .strict) throws -> RunReport {
    try workspace.run("mattermost", path, format: .ndjson, policy: policy)
  }

  @Test func everyLineIsImportedOrSkippedByDesign() throws {
    let lines = try ChatCorpus.lines(Self.corpusFile)
    let types = Dictionary(lines.map { ($0["type"] as? String ?? "", 1) }, uniquingKeysWith: +)
    #expect(types == ["version": 1, "team": 2, "channel": 5, "user": 5, "post": 20, "emoji": 2])
    let workspace = try ChatExportWorkspace()
    let report = try load(ChatCorpus.path(Self.corpusFile), into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    // 35 lines: 5 skipped by design, counted by reason and not as errors; 30 loaded.
    #expect(report.recordsRead == 35 && report.recordsRejected == 0)
    #expect(report.skippedByDesign == ["version line": 1, "team line": 2, "emoji line": 2])
    #expect(report.statistics(for: .map).skipped == 5 && report.recordsLoaded == 30)
    // 20 posts and the one reply, all text (this export's posts carry no type).
    #expect(try workspace.kinds() == ["text": 21])
    var expected: [String] = []
    for line in lines where line["type"] as? String == "post" {
      let post = try #require(line["post"] as? [String: Any])
      let channel = "mattermost:\(post["team"] ?? ""):\(post["channel"] ?? "")"
      let key = "\(channel)/\(post["create_at"] ?? ""):\(post["user"] ?? "")"
      expected.append("\(key)|\(post["message"] ?? "")|∅")
      for reply in post["replies"] as? [[String: Any]] ?? [] {
        expected.append(
          "\(channel)/\(reply["create_at"] ?? ""):\(reply["user"] ?? "")|\(reply["message"] ?? "")|\(key)")
      }
    }
    #expect(expected.count == 21)
    #expect(
      try workspace.rows(
        "SELECT m.message_id, t.text, coalesce(m.reply_to, '∅') FROM messages m JOIN text_messages t USING (message_id)"
      ).sorted() == expected.sorted())
    // Five channel lines, and one conversation only a post names: its team (gryffindor) has no
    // channel of that name — slytherin has — so it has no name.
    #expect(
      try workspace.rows("SELECT conversation_id, coalesce(name, '∅') FROM conversations ORDER BY 1") == [
        "mattermost:gryffindor:dumbledores-army|Dumbledores army",
        "mattermost:gryffindor:gryffindor-common-room|Gryffindor common room",
        "mattermost:gryffindor:gryffindor-quidditch-team|Gryffindor quidditch team",
        "mattermost:gryffindor:slytherin-quidditch-team|∅",
        "mattermost:slytherin:slytherin-common-room|Slytherin common room",
        "mattermost:slytherin:slytherin-quidditch-team|Slytherin quidditch team",
      ])
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "mattermost:harry|Harry Potter", "mattermost:malfoy|malfoy", "mattermost:pansy|pansy",
        "mattermost:ron|Ron Weasley",
        "mattermost:snape|Severus Snape",
      ])
    #expect(
      try workspace.rows(
        "SELECT sent_at FROM messages WHERE message_id = 'mattermost:gryffindor:dumbledores-army/1553166657086:harry'")
        == ["2019-03-21T11:10:57.086Z"])

    let before = try workspace.snapshot()
    #expect(try load(ChatCorpus.path(Self.corpusFile), into: workspace).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  @Test func theCommittedSampleHasSystemPostsRepliesAndAttachments() throws {
    let workspace = try ChatExportWorkspace()
    let (report, _) = try workspace.runSpec("mattermost.json")
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.skippedByDesign == ["version line": 1, "team line": 1, "emoji line": 1])
    #expect(try workspace.kinds() == ["text": 5, "system": 1])
    #expect(
      try workspace.rows("SELECT event, text FROM system_messages") == ["system_join_channel|bo joined the channel."])
    #expect(
      try workspace.count(
        "SELECT count(*) FROM messages WHERE reply_to = 'mattermost:sluice:nightly/1793610000000:ana'") == 2)
    #expect(
      try workspace.rows("SELECT kind_id, coalesce(name, '∅'), url FROM message_attachments ORDER BY url") == [
        "2|∅|data/2026/11/02/funnel.png", "3|report.json|data/2026/11/02/report.json",
      ])
  }

  @Test func unknownLineAndPostTypesAreNamedAtTheirPaths() throws {
    let workspace = try ChatExportWorkspace()
    let input = try workspace.directory.write(
      "export.jsonl",
      """
      {"type":"version","version":1}
      {"type":"bookmark","bookmark":{"channel":"c","user":"ron"}}
      {"type":"post","post":{"team":"t","channel":"c","user":"ron","type":"custom_poll","message":"?","create_at":1553166657087}}
      {"type":"post","post":{"team":"t","channel":"c","user":"ron","message":"fine","create_at":1553166657088,"replies":[{"user":"harry","type":"custom_poll","message":"?","create_at":1553166657089}]}}
      {"type":"post","post":{"team":"t","channel":"c","user":"ron","message":"kept","create_at":1553166657090}}

      """)
    let report = try load(input, into: workspace, policy: .lenient)
    #expect(report.status == .succeeded)
    let issues = report.issues.filter { $0.severity == .error }
    #expect(issues.map(\.path) == ["type", "post.type", "post.replies[0].type"])
    #expect(issues.allSatisfy { $0.stage == .map && $0.code == .unsupportedEnumValue })
    #expect(
      report.drift.unsupportedEnumValues.map { "\($0.path) \($0.value ?? "-")" }.sorted() == [
        "post.replies[].type custom_poll", "post.type custom_poll", "type bookmark",
      ])
    #expect(try workspace.rows("SELECT text FROM text_messages") == ["kept"])
  }

  // MARK: - Direct and group messages (issue 23)

  static let directFile = "mattermost/zulip_mattermost_direct_channel_export.jsonl"

  /// Zulip's fixture of a real workspace with direct messages: 2 `direct_channel` lines (a
  /// direct and a group channel) and 7 `direct_post` lines, 2 of them in a direct channel the
  /// export has no line for (harry and voldemort).
  @Test func directAndGroupMessagesAreConversationsOfTheirSortedMembers() throws {
    let lines = try ChatCorpus.lines(Self.directFile)
    let types = Dictionary(lines.map { ($0["type"] as? String ?? "", 1) }, uniquingKeysWith: +)
    #expect(
      types == ["version": 1, "team": 1, "channel": 3, "user": 4, "post": 4, "direct_channel": 2, "direct_post": 7])
    let workspace = try ChatExportWorkspace()
    let report = try load(ChatCorpus.path(Self.directFile), into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    // 22 lines = 20 loaded + 2 skipped by design (version, team) + 0 rejected.
    #expect(report.recordsRead == 22 && report.recordsLoaded == 20 && report.recordsRejected == 0)
    #expect(report.skippedByDesign == ["version line": 1, "team line": 1])
    #expect(try workspace.kinds() == ["text": 11])
    #expect(
      try workspace.rows("SELECT * FROM conversations WHERE conversation_id LIKE 'mattermost:@%' ORDER BY 1") == [
        "mattermost:@ginny,harry,ron|ginny, harry, ron", "mattermost:@harry,ron|harry, ron",
        "mattermost:@harry,voldemort|harry, voldemort",
      ])
    #expect(try workspace.count("SELECT count(*) FROM conversations") == 6)
    // Every direct post in the conversation its members make, whatever order it lists them in.
    var expected: [String] = []
    for line in lines where line["type"] as? String == "direct_post" {
      let post = try #require(line["direct_post"] as? [String: Any])
      let members = Set(try #require(post["channel_members"] as? [String])).sorted().joined(separator: ",")
      expected.append(
        "mattermost:@\(members)/\(post["create_at"] ?? ""):\(post["user"] ?? "")|mattermost:@\(members)|\(post["message"] ?? "")"
      )
    }
    #expect(expected.count == 7)
    #expect(
      try workspace.rows(
        "SELECT m.message_id, m.conversation_id, t.text FROM messages m JOIN text_messages t USING (message_id) WHERE m.conversation_id LIKE 'mattermost:@%' ORDER BY 1"
      ) == expected.sorted())
    #expect(
      try workspace.rows(
        "SELECT message_id, kind_id, url FROM message_attachments WHERE message_id LIKE 'mattermost:@%'") == [
          "mattermost:@harry,ron/1566376137676:ron|2|20210622/teams/noteam/channels/mcrm7xee5bnpzn7u9ktsd91dwy/users/knq189b88fdxbdkeeasdynia4o/o3to4ezua3bajj31mzpkn96n5e/harry-ron.jpg"
        ])
    #expect(try workspace.rows("SELECT name FROM senders WHERE sender_id = 'mattermost:voldemort'") == ["Tom Riddle"])

    let before = try workspace.snapshot()
    #expect(try load(ChatCorpus.path(Self.directFile), into: workspace).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  static let guestFile = "mattermost/zulip_mattermost_guest_export.jsonl"

  /// Zulip's guest-user fixture for the same workspace: its lines plus a sixth user, sirius, with
  /// the `system_guest`, `team_guest` and `channel_guest` roles; snape's post is in a channel of
  /// his team this time, and one message reads `:rofl:4`. 36 lines: 1 version, 2 team,
  /// 5 channel, 6 user, 20 post, 2 emoji.
  @Test func aWorkspaceWithAGuestUserImportsEveryLineOrSkipsItByDesign() throws {
    let lines = try ChatCorpus.lines(Self.guestFile)
    let types = Dictionary(lines.map { ($0["type"] as? String ?? "", 1) }, uniquingKeysWith: +)
    #expect(types == ["version": 1, "team": 2, "channel": 5, "user": 6, "post": 20, "emoji": 2])
    let workspace = try ChatExportWorkspace()
    let report = try load(ChatCorpus.path(Self.guestFile), into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    // 36 lines = 31 loaded (5 channel, 6 user, 20 post) + 5 skipped by design + 0 rejected.
    #expect(report.recordsRead == 36 && report.recordsLoaded == 31 && report.recordsRejected == 0)
    #expect(report.skippedByDesign == ["version line": 1, "team line": 2, "emoji line": 2])
    #expect(report.statistics(for: .map).skipped == 5)
    #expect(try workspace.kinds() == ["text": 21])
    #expect(try workspace.count("SELECT count(*) FROM text_messages") == 21)
    #expect(try workspace.count("SELECT count(*) FROM conversations WHERE name IS NOT NULL") == 5)
    #expect(try workspace.count("SELECT count(*) FROM conversations") == 5)
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "mattermost:harry|Harry Potter", "mattermost:malfoy|malfoy", "mattermost:pansy|pansy",
        "mattermost:ron|Ron Weasley", "mattermost:sirius|Sirius Black", "mattermost:snape|Severus Snape",
      ])
    #expect(
      try workspace.rows(
        """
        SELECT m.conversation_id, t.text FROM messages m JOIN text_messages t USING (message_id)
        WHERE m.sender_id = 'mattermost:snape' OR t.text LIKE ':rofl:%'
        ORDER BY 1
        """) == [
          "mattermost:gryffindor:gryffindor-quidditch-team|Hey folks! I was always in your team. Time to go now.",
          "mattermost:slytherin:slytherin-quidditch-team|:rofl:4",
        ])
    // The one reply (ron's, older than the post it answers) replies to harry's post.
    #expect(
      try workspace.rows("SELECT message_id, sent_at, reply_to FROM messages WHERE reply_to IS NOT NULL") == [
        "mattermost:gryffindor:dumbledores-army/1553166584976:ron|2019-03-21T11:09:44.976Z|mattermost:gryffindor:dumbledores-army/1553166657086:harry"
      ])

    // Loaded after the first export of the workspace: the 20 posts it shares are the same rows,
    // snape's post there (in a channel of another team) is the one more.
    let other = try ChatExportWorkspace()
    #expect(try load(ChatCorpus.path(Self.corpusFile), into: other).status == .succeeded)
    #expect(try load(ChatCorpus.path(Self.guestFile), into: other).status == .succeeded)
    #expect(try other.count("SELECT count(*) FROM messages") == 22)

    let before = try workspace.snapshot()
    #expect(try load(ChatCorpus.path(Self.guestFile), into: workspace).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  /// Shaped as Mattermost's importer reads them (`DirectChannelImportData`,
  /// `DirectPostImportData` with `ReplyImportData` replies); the self-message lists its user
  /// twice, as in mmctl's own import tests.
  @Test func directPostRepliesAndSelfMessagesLandInTheirConversation() throws {
    let workspace = try ChatExportWorkspace()
    let input = try workspace.directory.write(
      "export.jsonl",
      """
      {"type":"version","version":1}
      {"type":"direct_channel","direct_channel":{"members":["ron","harry"],"favorited_by":null,"header":""}}
      {"type":"direct_post","direct_post":{"channel_members":["harry","ron"],"user":"harry","message":"lunch?","create_at":1566376000000,"replies":[{"user":"ron","message":"yes","create_at":1566376001000},{"user":"harry","type":"system_add_to_channel","message":"","create_at":1566376002000}]}}
      {"type":"direct_post","direct_post":{"channel_members":["ashley.berry","ashley.berry"],"user":"ashley.berry","message":"note to self","props":{},"create_at":1603398112372,"flagged_by":null,"reactions":null,"replies":null,"attachments":null}}

      """)
    let report = try load(input, into: workspace)
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 4 && report.recordsLoaded == 3)
    #expect(
      try workspace.rows("SELECT * FROM conversations ORDER BY 1") == [
        "mattermost:@ashley.berry|ashley.berry", "mattermost:@harry,ron|harry, ron",
      ])
    let root = "mattermost:@harry,ron/1566376000000:harry"
    #expect(
      try workspace.rows("SELECT message_id, coalesce(reply_to, '∅'), kind_id FROM messages ORDER BY sent_at") == [
        "\(root)|∅|1", "mattermost:@harry,ron/1566376001000:ron|\(root)|1",
        "mattermost:@harry,ron/1566376002000:harry|\(root)|4",
        "mattermost:@ashley.berry/1603398112372:ashley.berry|∅|1",
      ])
  }

  @Test(
    arguments: [
      (["ron", "harry"], "mattermost:@harry,ron", "harry, ron"),
      (["harry", "ron", "harry"], "mattermost:@harry,ron", "harry, ron"),
      (["a,b"], "mattermost:@a%2Cb", "a,b"),
      (["a", "b"], "mattermost:@a,b", "a, b"),
      (["x:y", "50%"], "mattermost:@50%25,x%3Ay", "50%, x:y"),
    ] as [([String], String, String)])
  func directConversationKeysAreTheSortedEscapedMembers(members: [String], key: String, name: String) {
    let conversation = MattermostDataset.directConversation(members: members)
    #expect(conversation.id == key && conversation.name == name)
  }

  @Test func aDirectPostWithoutMembersIsAMissingFieldAtItsPath() throws {
    let workspace = try ChatExportWorkspace()
    let input = try workspace.directory.write(
      "export.jsonl",
      """
      {"type":"direct_post","direct_post":{"channel_members":[],"user":"ron","message":"hi","create_at":1566376000000}}
      {"type":"direct_channel","direct_channel":{"members":["ron", " "]}}
      {"type":"direct_post"}

      """)
    let report = try load(input, into: workspace, policy: .lenient)
    let issues = report.issues.filter { $0.severity == .error }
    #expect(
      issues.map { "\($0.location?.line ?? 0) \($0.path)" } == [
        "1 direct_post.channel_members", "2 direct_channel.members", "3 direct_post",
      ])
    #expect(issues.allSatisfy { $0.stage == .validate && $0.code == .missingField })
    #expect(report.recordsLoaded == 0)
  }

  /// A bulk export written by a newer Mattermost server, shaped exactly as its exporter writes
  /// each line (mattermost/mattermost @ `e23ba0df77cb541f1ffdf299ef30095d259758db`,
  /// `server/channels/app/export_converters.go`, and @ `3f5b97b933277adca560c0c0338c26f5ae0d823a`,
  /// `server/channels/app/imports/import_types.go`; no real export of it is public): the
  /// version line's `info`, a channel's `deleted_at`, a user's `delete_at` and preferences, a
  /// `bot` line, posts with `thread_followers` and pinned replies, a `role` and a `scheme` line,
  /// and a direct channel whose members are `participants` objects (with Mattermost's own
  /// `urgend_mention_count`) instead of `members`. Values are made up. Strict loads every line
  /// without a warning; the bot is a sender, the participants make the same conversation
  /// `members` would, and the lines no message comes from are skipped by design.
  @Test func aNewerServersExportWithParticipantsBotsAndSchemesLoadsStrict() throws {
    let workspace = try ChatExportWorkspace()
    let input = try workspace.directory.write(
      "import.jsonl",
      """
      {"type":"version","version":1,"info":{"generator":"mattermost-server","version":"10.5.0 (a1b2c3d)","created":"2025-04-01T09:00:00.000000000Z"}}
      {"type":"role","role":{"name":"custom_role","display_name":"Custom","description":"","permissions":["create_post"],"scheme_managed":false}}
      {"type":"scheme","scheme":{"name":"sch","display_name":"Scheme","description":"","scope":"channel","default_team_admin_role":null,"default_team_user_role":null,"default_channel_admin_role":{"name":"a","display_name":"a","description":"","permissions":[],"scheme_managed":true},"default_channel_user_role":{"name":"u","display_name":"u","description":"","permissions":[],"scheme_managed":true},"default_team_guest_role":null,"default_channel_guest_role":{"name":"g","display_name":"g","description":"","permissions":[],"scheme_managed":true}}}
      {"type":"team","team":{"name":"ops","display_name":"Ops","type":"O","description":"","allow_open_invite":false}}
      {"type":"channel","channel":{"team":"ops","name":"alerts","display_name":"Alerts","type":"O","header":"","purpose":"","deleted_at":0}}
      {"type":"user","user":{"username":"ana","email":"ana@example.com","auth_service":null,"nickname":"","first_name":"Ana","last_name":"Lima","position":"","roles":"system_user","locale":"en","delete_at":0,"teams":[{"name":"ops","roles":"team_user","channels":[{"name":"alerts","roles":"channel_user","notify_props":{"desktop":"default","mobile":"default","mark_unread":"all"},"favorite":false,"mention_count":0,"mention_count_root":0,"urgend_mention_count":0,"msg_count":2,"msg_count_root":1,"last_viewed_at":1743498000000}]}],"theme":"{}","military_time":"false","link_previews":"true","message_display":"clean","colorize_usernames":"true","channel_display_mode":"full","tutorial_step":"999","email_interval":"30","send_on_ctrl_enter":"false","show_join_leave":"true","sync_drafts":"true","name_format":"username","notify_props":{"desktop":"mention","desktop_sound":"true","email":"true","mobile":"mention","mobile_push_status":"away","channel":"true","comments":"never","mention_keys":""}}}
      {"type":"bot","bot":{"username":"deploybot","owner":"ana","display_name":"Deploy Bot","description":"","delete_at":0}}
      {"type":"post","post":{"team":"ops","channel":"alerts","user":"deploybot","type":"","message":"deployed 1.2","props":{"from_bot":"true"},"create_at":1743498000000,"edit_at":0,"flagged_by":[],"is_pinned":false,"replies":[{"user":"ana","type":"","message":"thanks","props":{},"create_at":1743498060000,"edit_at":0,"flagged_by":[],"is_pinned":true}],"thread_followers":[{"user":"ana","last_viewed":1743498060000,"unread_mentions":0}]}}
      {"type":"direct_channel","direct_channel":{"header":"","participants":[{"username":"ana","notify_props":{"desktop":"default","mobile":"default","mark_unread":"all"},"scheme_user":true,"msg_count":1,"last_viewed_at":1743498100000},{"username":"bo","notify_props":{"desktop":"default","mobile":"default","mark_unread":"all"},"scheme_user":true,"urgend_mention_count":1}],"shown_by":["ana"]}}
      {"type":"direct_post","direct_post":{"channel_members":["bo","ana"],"user":"ana","type":"","message":"lunch?","props":{},"create_at":1743498100000,"edit_at":0,"flagged_by":[],"is_pinned":false,"reactions":null,"replies":null,"attachments":null}}
      {"type":"emoji","emoji":{"name":"shipit","image":"data/emoji/abc/image"}}

      """)
    let report = try load(input, into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 11 && report.recordsLoaded == 6)
    #expect(report.stages.first { $0.stage == .map }?.skipped == 5)
    #expect(
      try workspace.rows("SELECT * FROM conversations ORDER BY 1") == [
        "mattermost:@ana,bo|ana, bo", "mattermost:ops:alerts|Alerts",
      ])
    #expect(
      try workspace.rows("SELECT * FROM senders ORDER BY 1") == [
        "mattermost:ana|Ana Lima", "mattermost:deploybot|Deploy Bot",
      ])
    let root = "mattermost:ops:alerts/1743498000000:deploybot"
    #expect(
      try workspace.rows(
        "SELECT message_id, coalesce(reply_to, '∅'), t.text FROM messages JOIN text_messages t USING (message_id) ORDER BY sent_at"
      )
        == [
          "\(root)|∅|deployed 1.2", "mattermost:ops:alerts/1743498060000:ana|\(root)|thanks",
          "mattermost:@ana,bo/1743498100000:ana|∅|lunch?",
        ])
  }
}
