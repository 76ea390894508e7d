import Foundation
import SluiceCatalog
import SluiceCore
import SluiceTestSupport
import Testing

/// The corpus's DiscordChatExporter file (Zulip's hand-written fixture: 7 messages — 4
/// `Default`, 1 `Reply`, 1 `GuildMemberJoin`, 1 `ChannelPinnedMessage`, one PNG attachment) and
/// the committed sample, named as DCE names its files.
@Suite("Discord export: DiscordChatExporter JSON")
struct DiscordExportTests {
  static let corpusFile = "discord/zulip_dce_general_100.json"

  func load(_ path: String, into workspace: ChatExportWorkspace, policy: Policy = .strict) throws -> RunReport {
    try workspace.run("discord", path, recordPath: ["messages"], policy: policy)
  }

  @Test func everyMessageOfTheCorpusFileIsImportedByKind() throws {
    let messages = try ChatCorpus.array(Self.corpusFile, at: ["messages"])
    #expect(messages.count == 7)
    let workspace = try ChatExportWorkspace()
    let report = try load(ChatCorpus.path(Self.corpusFile), into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 7 && report.recordsLoaded == 7)
    #expect(try workspace.kinds() == ["text": 5, "system": 2])
    // Each message by its own id, of the kind its DCE type makes it.
    for message in messages {
      let id = try #require(message["id"] as? String)
      let type = try #require(message["type"] as? String)
      let kind = ["Default", "Reply"].contains(type) ? "text" : "system"
      #expect(try workspace.kinds(of: ["discord:\(id)"]) == [kind: 1], "\(id)")
    }
    #expect(
      try workspace.rows("SELECT message_id, event, coalesce(text, '∅') FROM system_messages ORDER BY 1") == [
        "discord:msg004|GuildMemberJoin|Welcome to the server!", "discord:msg007|ChannelPinnedMessage|Pinned a message.",
      ])
    // The reply keeps the id it answers; the attachment is an image by its extension.
    #expect(try workspace.rows("SELECT message_id, reply_to FROM messages WHERE reply_to IS NOT NULL") == ["discord:msg003|discord:msg001"])
    #expect(
      try workspace.rows("SELECT message_id, position, kind_id, url FROM message_attachments") == [
        "discord:msg002|0|2|_media/test-upload.png"
      ])
    // The file was renamed without DCE's bracketed channel id: it is its own conversation.
    #expect(try workspace.rows("SELECT * FROM conversations") == ["discord:zulip_dce_general_100|∅"])
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "discord:bot001|Test Bot", "discord:user001|Alice Smith", "discord:user002|Bob Jones", "discord:user003|Charlie Brown",
      ])
    #expect(try workspace.rows("SELECT sent_at FROM messages WHERE message_id = 'discord:msg001'") == ["2026-01-01T10:00:00.000Z"])

    let before = try workspace.snapshot()
    #expect(try load(ChatCorpus.path(Self.corpusFile), into: workspace).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  @Test func theCommittedSampleTakesItsChannelFromDCEsFileName() throws {
    let workspace = try ChatExportWorkspace()
    let (report, _) = try workspace.runSpec("discord.json")
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(try workspace.rows("SELECT * FROM conversations") == ["discord:1100|Sluice - Imports - general"])
    #expect(try workspace.kinds() == ["text": 4, "system": 2])
    // Offsets are instants: +01:00 is an hour earlier in UTC. A pin's reference is not a reply.
    #expect(
      try workspace.rows("SELECT message_id, sent_at, coalesce(reply_to, '∅') FROM messages WHERE message_id IN ('discord:1402', 'discord:1403') ORDER BY 1")
        == ["discord:1402|2026-11-02T09:02:10.000Z|discord:1401", "discord:1403|2026-11-02T09:03:00.000Z|∅"])
    #expect(
      try workspace.rows("SELECT message_id, position, kind_id, coalesce(name, '∅'), coalesce(size_bytes, '∅') FROM message_attachments ORDER BY 1, 2")
        == ["discord:1404|0|2|∅|∅", "discord:1404|1|3|report.json|9120", "discord:1405|0|2|∅|∅"])
  }

  @Test(arguments: [
    ("Test Server - Text - general [100].json", "100", "Test Server - Text - general"),
    ("/exports/Guild - Cat - chan [123456789012345678].json", "123456789012345678", "Guild - Cat - chan"),
    ("[42].json", "42", nil),
    ("zulip_dce_general_100.json", "zulip_dce_general_100", nil),
    ("general [abc].json", "general [abc]", nil),
    ("general [].json", "general []", nil),
  ] as [(String, String, String?)])
  func theChannelIsTheBracketedIDOfTheFileName(path: String, id: String, name: String?) {
    let channel = DiscordDataset.channel(fromPath: path)
    #expect(channel.id == id && channel.name == name)
  }

  @Test func anUnknownMessageTypeIsNamedInTheDriftAndSkippedUnderLenient() throws {
    let workspace = try ChatExportWorkspace()
    let text = try String(contentsOfFile: ChatCorpus.path(Self.corpusFile), encoding: .utf8)
      .replacingOccurrences(of: "\"type\": \"GuildMemberJoin\"", with: "\"type\": \"GuildBoost\"")
    let input = try workspace.directory.write("general [100].json", text)
    let strict = try load(input, into: workspace)
    #expect(strict.status == .failed)
    let issue = try #require(strict.issues.first)
    #expect(issue.stage == .map && issue.code == .unsupportedEnumValue && issue.path == "type" && issue.location?.ordinal == 4)
    let lenient = try load(input, into: workspace, policy: .lenient)
    #expect(lenient.status == .succeeded && lenient.recordsLoaded == 6)
    #expect(lenient.drift.unsupportedEnumValues.map { "\($0.path) \($0.value ?? "-") \($0.count)" } == ["type GuildBoost 1"])
  }
}
