import Foundation
import SluiceCatalog
import SluiceCore
import SluiceTestSupport
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
        expected.append("\(channel)/\(reply["create_at"] ?? ""):\(reply["user"] ?? "")|\(reply["message"] ?? "")|\(key)")
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
        "mattermost:harry|Harry Potter", "mattermost:malfoy|malfoy", "mattermost:pansy|pansy", "mattermost:ron|Ron Weasley",
        "mattermost:snape|Severus Snape",
      ])
    #expect(
      try workspace.rows("SELECT sent_at FROM messages WHERE message_id = 'mattermost:gryffindor:dumbledores-army/1553166657086:harry'")
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
    #expect(try workspace.rows("SELECT event, text FROM system_messages") == ["system_join_channel|bo joined the channel."])
    #expect(try workspace.count("SELECT count(*) FROM messages WHERE reply_to = 'mattermost:sluice:nightly/1793610000000:ana'") == 2)
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
      {"type":"direct_post","direct_post":{"channel_members":["ron","harry"],"user":"ron","message":"hi","create_at":1553166657086}}
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
        "post.replies[].type custom_poll", "post.type custom_poll", "type direct_post",
      ])
    #expect(try workspace.rows("SELECT text FROM text_messages") == ["kept"])
  }
}
