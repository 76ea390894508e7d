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
    // 1405 is an image sent without text: an image message, as the other exports make one.
    #expect(try workspace.kinds() == ["text": 3, "image": 1, "system": 2])
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
        == ["discord:1404|0|2|∅|∅", "discord:1404|1|3|report.json|9120"])
    #expect(
      try workspace.rows("SELECT message_id, url FROM image_messages") == [
        "discord:1405|https://cdn.example.org/attachments/1100/1502/diagram.webp"
      ])
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
    // Two uploads without text (a text file, a video) are file messages; the screenshot sent
    // with text stays its message's attachment.
    #expect(try workspace.kinds() == ["text": 20, "file": 2, "system": 3])
    #expect(
      try workspace.rows("SELECT message_id, kind_id, coalesce(name, '∅') FROM message_attachments ORDER BY 1") == [
        "discord:1519313051889963128|2|∅"
      ])
    #expect(
      try workspace.rows("SELECT message_id, name, size_bytes FROM file_messages ORDER BY 1") == [
        "discord:1519313109049806910|textfile.txt|7", "discord:1519316075357933610|20260624-1219-22.1575795.mp4|589471",
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

  // MARK: - Thread starters, uploads without text (issue 39)

  /// Files shaped as DCE 2.48 writes them (see `Fixtures/discord/dce-2.48/SOURCE.md`: the
  /// shape of a real capture, nordscope-fi/Discord-stoat-ferry @ `772c8c8b…`, and DCE's
  /// `JsonMessageWriter`).
  static func shaped(_ name: String) -> String {
    ContractFixtures.directory("discord").appendingPathComponent("dce-2.48/\(name).json").path
  }
  static let channelFile = shaped("Sluice Test - general [1700000000000000100]")
  static let threadFile = shaped("Sluice Test - general - Release thread [1700000000000000102]")

  /// DCE writes the message a thread was started from in its channel's file and first in the
  /// thread's file, with one id (the thread's). It belongs to the channel, where Discord shows
  /// it: both load orders give the same tables, and the thread's file is noted for repeating it.
  @Test func aThreadsStarterStaysInItsChannelWhicheverFileIsLoadedFirst() throws {
    let channelFirst = try ChatExportWorkspace()
    let report = try channelFirst.run([input(Self.channelFile), input(Self.threadFile)])
    #expect(report.status == .succeeded && report.recordsLoaded == 6, "\(report.issues.map(\.description))")
    // One note, on the thread's first record, at `id`; and, the two files being one run, the
    // engine's warning that the run wrote that message's row twice.
    let expected = [DiscordDataset.threadStarterRepeated.rawValue: 1, "duplicateKey": 1]
    #expect(report.issueCounts == expected, "\(report.issues.map(\.description))")
    let starter = "discord:1700000000000000102"
    let general = "discord:1700000000000000100"
    #expect(
      try channelFirst.rows("SELECT message_id, conversation_id FROM messages ORDER BY 1") == [
        "discord:1700000000000000101|\(general)", "\(starter)|\(general)",
        "discord:1700000000000000103|\(general)", "discord:1700000000000000105|\(starter)",
        "discord:1700000000000000106|\(general)",
      ])
    // The thread is a conversation of its own, keyed by its id (the starter's), named under its
    // parent; the channel keeps the name its own file gives.
    #expect(
      try channelFirst.rows("SELECT * FROM conversations ORDER BY 1") == [
        "\(general)|Sluice Test - general", "\(starter)|Sluice Test - general - Release thread",
      ])
    #expect(
      try channelFirst.rows("SELECT text FROM text_messages WHERE message_id = '\(starter)'") == [
        "Shall we plan the release in a thread?"
      ])

    let threadFirst = try ChatExportWorkspace()
    let reverse = try threadFirst.run([input(Self.threadFile), input(Self.channelFile)])
    #expect(reverse.status == .succeeded && reverse.issueCounts == expected)
    #expect(try threadFirst.snapshot() == channelFirst.snapshot())

    let note = try #require(report.issues.first { $0.code == DiscordDataset.threadStarterRepeated })
    #expect(note.stage == .map && note.severity == .warning && note.path == "id" && note.location?.ordinal == 1)
    #expect(note.input?.hasSuffix("Release thread [1700000000000000102].json") == true)

    // Loaded alone, in separate runs, in either order: the same.
    let separate = try ChatExportWorkspace()
    let alone = try separate.run([input(Self.threadFile)])
    #expect(alone.status == .succeeded && alone.issueCounts == [DiscordDataset.threadStarterRepeated.rawValue: 1])
    #expect(
      try separate.rows("SELECT conversation_id, coalesce(name, '∅') FROM conversations ORDER BY 1") == [
        "\(general)|∅", "\(starter)|Sluice Test - general - Release thread",
      ])
    #expect(try separate.run([input(Self.channelFile)]).status == .succeeded)
    #expect(try separate.run([input(Self.threadFile)]).status == .succeeded)
    #expect(try separate.snapshot() == channelFirst.snapshot())
  }

  /// Before DCE 2.48 a thread's file opened with Discord's placeholder for the starter (type 21,
  /// printed `"21"`, no content), not the message: skipped by design, the rest loaded.
  @Test func aPre248ThreadFilesStarterPlaceholderIsSkippedByDesign() throws {
    let workspace = try ChatExportWorkspace()
    let file = Self.shaped("Sluice Test - general - Release thread [1700000000000000102] (DCE 2.47)")
    let report = try workspace.run([input(file)])
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 2 && report.recordsLoaded == 1 && report.statistics(for: .map).skipped == 1)
    #expect(
      try workspace.rows("SELECT message_id, conversation_id FROM messages") == [
        "discord:1700000000000000105|discord:1700000000000000102"
      ])
  }

  /// A sticker is an image at its `sourceUrl` (a Lottie one a JSON file), as Messenger's are;
  /// an upload without text is an image or file message, its first attachment the content, as
  /// Telegram, Messenger and Slack make theirs. Nothing a user sent is left out.
  @Test func stickersAndUploadsWithoutTextAreImageOrFileMessages() throws {
    let workspace = try ChatExportWorkspace()
    let report = try workspace.run([input(Self.shaped("Sluice Test - Text - uploads [1700000000000000200]"))])
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsLoaded == 5)
    #expect(
      try workspace.rows(
        "SELECT m.message_id, k.name FROM messages m JOIN message_kinds k ON k.id = m.kind_id ORDER BY 1")
        == [
          "discord:1700000000000000201|image", "discord:1700000000000000202|image", "discord:1700000000000000203|file",
          "discord:1700000000000000204|file", "discord:1700000000000000205|text",
        ])
    #expect(
      try workspace.rows("SELECT message_id, url, coalesce(caption, '∅') FROM image_messages ORDER BY 1") == [
        "discord:1700000000000000201|https://cdn.discordapp.com/stickers/904215665597120572.png|∅",
        "discord:1700000000000000202|https://cdn.discordapp.com/attachments/1700000000000000200/1700000000000000292/whiteboard.jpg|∅",
      ])
    #expect(
      try workspace.rows(
        "SELECT message_id, name, url, coalesce(mime_type, '∅'), coalesce(size_bytes, '∅') FROM file_messages ORDER BY 1"
      )
        == [
          "discord:1700000000000000203|notes.txt|https://cdn.discordapp.com/attachments/1700000000000000200/1700000000000000293/notes.txt|∅|312",
          "discord:1700000000000000204|Yikes|https://cdn.discordapp.com/stickers/816087132447178774.json|application/json|∅",
        ])
    // The rest of an upload, and a reply's attachment then its sticker, stay attachments.
    #expect(
      try workspace.rows("SELECT message_id, position, kind_id, url FROM message_attachments ORDER BY 1, 2") == [
        "discord:1700000000000000203|0|2|https://cdn.discordapp.com/attachments/1700000000000000200/1700000000000000294/photo.png",
        "discord:1700000000000000205|0|2|https://cdn.discordapp.com/attachments/1700000000000000200/1700000000000000295/reply.gif",
        "discord:1700000000000000205|1|2|https://cdn.discordapp.com/stickers/749054660769218631.png",
      ])
    #expect(try workspace.rows("SELECT text FROM text_messages") == ["Nice board!"])
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

  /// A forward, as DCE writes it since February 2026 (see the fixture's SOURCE.md): its own
  /// `content` is empty and what was forwarded is `forwardedMessage`. The forwarded words are
  /// the message's text and its files its attachments; a forwarded sticker alone makes an image
  /// message, as a sticker sent directly does. Nothing forwarded is left out, and no warning.
  @Test func aForwardIsTheForwardedMessagesTextAndFiles() throws {
    let workspace = try ChatExportWorkspace()
    let report = try workspace.run([input(Self.shaped("Sluice Test - Text - forwards [1700000000000000300]"))])
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 2 && report.recordsLoaded == 2)
    #expect(
      try workspace.rows("SELECT message_id, text FROM text_messages") == [
        "discord:1700000000000000301|Release notes are up: see the doc"
      ])
    #expect(
      try workspace.rows("SELECT message_id, position, kind_id, name, url FROM message_attachments") == [
        "discord:1700000000000000301|0|3|notes.pdf|https://cdn.discordapp.com/attachments/1700000000000000100/1700000000000000391/notes.pdf"
      ])
    #expect(
      try workspace.rows("SELECT message_id, url FROM image_messages") == [
        "discord:1700000000000000302|https://cdn.discordapp.com/stickers/904215665597120572.png"
      ])
    #expect(
      try workspace.rows("SELECT conversation_id, count(*) FROM messages GROUP BY 1") == [
        "discord:1700000000000000300|2"
      ])
  }
}

// MARK: - Forum posts (issue 58)

extension DiscordExportTests {
  static let forumPostFile = shaped("Sluice Test - ideas-forum - Dark mode for the report [1700000000000000401]")

  /// A forum post's file (shaped as DCE 2.48 exports one: `Fixtures/discord/dce-2.48/SOURCE.md`)
  /// holds only its opening message, with the post's id. The post is a conversation of its own,
  /// named under its forum, its title in `discord_threads` with the forum as its parent; the
  /// opening message, which DCE's JSON cannot tell from a text thread's repeated starter, stays
  /// in the parent's conversation, as a starter does, and has the post's key.
  @Test func aForumPostIsAConversationOfItsOwnWithItsTitleAndForum() throws {
    let workspace = try ChatExportWorkspace()
    let report = try workspace.run([input(Self.forumPostFile)])
    #expect(report.status == .succeeded && report.recordsLoaded == 1, "\(report.issues.map(\.description))")
    let post = "discord:1700000000000000401"
    let forum = "discord:1700000000000000400"
    #expect(
      try workspace.rows("SELECT conversation_id, coalesce(name, '∅') FROM conversations ORDER BY 1") == [
        "\(forum)|∅", "\(post)|Sluice Test - ideas-forum - Dark mode for the report",
      ])
    #expect(
      try workspace.rows("SELECT conversation_id, parent_id, title FROM discord_threads") == [
        "\(post)|\(forum)|Dark mode for the report"
      ])
    #expect(try workspace.rows("SELECT message_id, conversation_id FROM messages") == ["\(post)|\(forum)"])
    // A re-import changes nothing; a channel's file (no thread) writes no thread row.
    #expect(try workspace.run([input(Self.forumPostFile), input(Self.channelFile)]).status == .succeeded)
    #expect(try workspace.rows("SELECT count(*) FROM discord_threads") == ["1"])
  }
}
