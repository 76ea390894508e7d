import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
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
        "discord:msg004|GuildMemberJoin|Welcome to the server!",
        "discord:msg007|ChannelPinnedMessage|Pinned a message.",
      ])
    // The reply keeps the id it answers; the attachment is an image by its extension.
    #expect(
      try workspace.rows("SELECT message_id, reply_to FROM messages WHERE reply_to IS NOT NULL") == [
        "discord:msg003|discord:msg001"
      ])
    #expect(
      try workspace.rows("SELECT message_id, position, kind_id, url FROM message_attachments") == [
        "discord:msg002|0|2|_media/test-upload.png"
      ])
    // The file was renamed without DCE's bracketed channel id; its own channel object names it.
    #expect(try workspace.rows("SELECT * FROM conversations") == ["discord:100|Test Server - Text - general"])
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "discord:bot001|Test Bot", "discord:user001|Alice Smith", "discord:user002|Bob Jones",
        "discord:user003|Charlie Brown",
      ])
    #expect(
      try workspace.rows("SELECT sent_at FROM messages WHERE message_id = 'discord:msg001'") == [
        "2026-01-01T10:00:00.000Z"
      ])

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
      try workspace.rows(
        "SELECT message_id, sent_at, coalesce(reply_to, '∅') FROM messages WHERE message_id IN ('discord:1402', 'discord:1403') ORDER BY 1"
      )
        == ["discord:1402|2026-11-02T09:02:10.000Z|discord:1401", "discord:1403|2026-11-02T09:03:00.000Z|∅"])
    #expect(
      try workspace.rows(
        "SELECT message_id, position, kind_id, coalesce(name, '∅'), coalesce(size_bytes, '∅') FROM message_attachments ORDER BY 1, 2"
      )
        == ["discord:1404|0|2|∅|∅", "discord:1404|1|3|report.json|9120", "discord:1405|0|2|∅|∅"])
  }

  // MARK: - Partitions, threads, renamed files (issue 23)

  /// A real partitioned export (Zulip's DCE fixtures, `--partition 12`): DCE names the parts
  /// `… [<channel id>].json`, `… [part 2].json`, `… [part 3].json`
  /// (`MessageExporter.GetPartitionFilePath`), each with the same `guild` and `channel` objects.
  static let partitioned = (1...3).map { part in
    "discord/zulip-discord server - Text Channels - general [1519311538035490958]"
      + (part == 1 ? "" : " [part \(part)]") + ".json"
  }
  static let generalID = "discord:1519311538035490958"
  static let generalName = "zulip-discord server - Text Channels - general"

  func input(_ path: String) -> PipelineInput {
    PipelineInput(dataset: "discord", path: path, format: .json, recordPath: ["messages"])
  }

  @Test func everyPartOfAPartitionedExportLandsInItsChannelAndAReimportMovesNothing() throws {
    let parts = try Self.partitioned.map { try ChatCorpus.array($0, at: ["messages"]) }
    #expect(parts.map(\.count) == [12, 12, 1])
    let workspace = try ChatExportWorkspace()
    let report = try workspace.run(Self.partitioned.map { input(ChatCorpus.path($0)) })
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 25 && report.recordsLoaded == 25 && report.recordsRejected == 0)
    // One conversation, named as DCE names the channel's file; every message in it.
    #expect(try workspace.rows("SELECT * FROM conversations") == ["\(Self.generalID)|\(Self.generalName)"])
    let ids = parts.joined().compactMap { $0["id"] as? String }.map { "discord:" + $0 }
    #expect(Set(ids).count == 25)
    let placed = try workspace.rows("SELECT message_id, conversation_id FROM messages ORDER BY 1")
    #expect(placed == ids.sorted().map { "\($0)|\(Self.generalID)" })
    // By DCE's kinds: 3 system (two joins, a pin), the rest text; attachments by extension.
    let systemTypes = parts.joined().compactMap { $0["type"] as? String }.filter { !["Default", "Reply"].contains($0) }
    #expect(systemTypes.sorted() == ["ChannelPinnedMessage", "GuildMemberJoin", "GuildMemberJoin"])
    #expect(try workspace.kinds() == ["text": 22, "system": 3])
    #expect(
      try workspace.rows("SELECT message_id, kind_id, name FROM message_attachments ORDER BY 1") == [
        "discord:1519313051889963128|2|∅", "discord:1519313109049806910|3|textfile.txt",
        "discord:1519316075357933610|3|20260624-1219-22.1575795.mp4",
      ])
    // A reply in part 2 answers a message of part 1.
    #expect(
      try workspace.rows(
        "SELECT m.message_id, r.conversation_id FROM messages m JOIN messages r ON r.message_id = m.reply_to")
        == ["discord:1519315200522846228|\(Self.generalID)"])
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "discord:1000000000000000001|pieter", "discord:1000000000000000002|hamlet",
        "discord:1000000000000000003|test-zulip-import",
      ])
    #expect(
      try workspace.rows("SELECT text FROM text_messages WHERE message_id = 'discord:1519312865599684608'") == ["💯"])

    // Re-importing part 1, then part 2 alone, changes nothing: no message moves.
    let before = try workspace.snapshot()
    for part in Self.partitioned.prefix(2) {
      #expect(try workspace.run([input(ChatCorpus.path(part))]).status == .succeeded)
      #expect(try workspace.snapshot() == before)
    }
  }

  /// DCE's `--output` takes a path template (`%G/%C.json`, `ExportRequest.FormatPath`), so a
  /// file may carry no channel id in its name: its own `channel` object still places it.
  @Test func aFileRenamedByOutputLandsInItsChannel() throws {
    let workspace = try ChatExportWorkspace()
    let text = try String(contentsOfFile: ChatCorpus.path(Self.partitioned[2]), encoding: .utf8)
    let renamed = try workspace.directory.write("general.json", text)
    #expect(try workspace.run([input(ChatCorpus.path(Self.partitioned[0])), input(renamed)]).status == .succeeded)
    #expect(try workspace.rows("SELECT * FROM conversations") == ["\(Self.generalID)|\(Self.generalName)"])
    #expect(try workspace.rows("SELECT DISTINCT conversation_id FROM messages") == [Self.generalID])
  }

  /// A thread's file (shaped as DCE writes one: `channel.type` `GuildPublicThread`, its parent
  /// channel as `category`, per `JsonMessageWriter`'s "'category' actually refers to the parent
  /// channel") is a conversation of its own, named under its parent.
  @Test func aThreadIsAConversationOfItsOwnNamedUnderItsParentChannel() throws {
    let workspace = try ChatExportWorkspace()
    let report = try load(ChatCorpus.path("discord/Test Server - general - Test Thread [200].json"), into: workspace)
    #expect(report.status == .succeeded && report.recordsRead == 2 && report.recordsLoaded == 2)
    #expect(try workspace.rows("SELECT * FROM conversations") == ["discord:200|Test Server - general - Test Thread"])
    #expect(
      try workspace.rows("SELECT message_id FROM messages WHERE conversation_id = 'discord:200' ORDER BY 1") == [
        "discord:msg201", "discord:msg202",
      ])
  }

  @Test(
    arguments: [
      (
        ["channel.id": "100", "channel.name": "general", "channel.category": "Text", "guild.name": "G"], "x.json",
        "100", "G - Text - general"
      ),
      (
        ["channel.id": "7", "channel.name": "Alice", "guild.name": "Direct Messages"], "x.json", "7",
        "Direct Messages - Alice"
      ),
      (["channel.id": "7"], "G - c [1].json", "7", nil),
      (["channel.id": " ", "channel.name": "general"], "G - c [1].json", "1", "G - c"),
      ([:], "G - c [1] [part 2].json", "1", "G - c"),
    ] as [([String: String], String, String, String?)])
  func theChannelComesFromTheFilesOwnObjectsBeforeItsName(
    fields: [String: String], path: String, id: String, name: String?
  ) {
    let channel = DiscordDataset.channel(fields: fields, path: path)
    #expect(channel.id == id && channel.name == name)
  }

  @Test(
    arguments: [
      ("Test Server - Text - general [100].json", "100", "Test Server - Text - general"),
      ("Guild - Cat - chan [123] [part 2].json", "123", "Guild - Cat - chan"),
      ("Guild - Cat - chan [123] [part 14].json", "123", "Guild - Cat - chan"),
      ("Guild - Cat - chan [123] (after 2024-01-01).json", "123", "Guild - Cat - chan"),
      ("Guild - Cat - chan [123] (before 2024-01-01) [part 3].json", "123", "Guild - Cat - chan"),
      ("Guild - Cat - chan [123] (2023-12-01 to 2024-01-01).json", "123", "Guild - Cat - chan"),
      ("renamed [part 2].json", "renamed", nil),
      ("chan [123] [part x].json", "chan [123] [part x]", nil),
      ("chan [123] (someday).json", "chan [123] (someday)", nil),
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
    #expect(
      issue.stage == .map && issue.code == .unsupportedEnumValue && issue.path == "type" && issue.location?.ordinal == 4
    )
    let lenient = try load(input, into: workspace, policy: .lenient)
    #expect(lenient.status == .succeeded && lenient.recordsLoaded == 6)
    #expect(
      lenient.drift.unsupportedEnumValues.map { "\($0.path) \($0.value ?? "-") \($0.count)" } == ["type GuildBoost 1"])
  }
}
