import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The corpus's Telegram exports — langchain's (4 messages), its fork with mixed text (6), the
/// legacy one (3, bare-number `from_id`, no `date_unixtime`, mojibake), chat-miner's minimal one
/// (2, no ids) and chat-miner's full-account one (`chats.list[].messages`: one chat, 2 messages,
/// no ids) — and the committed samples, one chat and a whole account.
///
/// The conversation is the chat: `telegram:<chat id>` from the fields the reader reports around
/// the records, so langchain's file and its fork are one chat. A chat without an id is its file's
/// (`telegram:chat-miner_single_export`, or `…#<name>`), and a message without an id is keyed by
/// its position in its chat (`/@0`).
@Suite("Telegram export: Telegram Desktop result.json")
struct TelegramExportTests {
  static let account = ["chats", "list[]", "messages"]

  func load(
    _ file: String, into workspace: ChatExportWorkspace, recordPath: [String] = ["messages"], policy: Policy = .strict
  ) throws -> RunReport {
    try workspace.run("telegram", ChatCorpus.path("telegram/\(file)"), recordPath: recordPath, policy: policy)
  }

  /// The text a Telegram `text` flattens to, computed with Foundation: a string, or the
  /// strings and entities' texts of an array, joined.
  static func plainText(_ value: Any?) -> String {
    if let text = value as? String { return text }
    return (value as? [Any] ?? []).map { ($0 as? String) ?? (($0 as? [String: Any])?["text"] as? String ?? "") }
      .joined()
  }

  @Test(arguments: [
    ("langchain_result.json", 4, "5965280513"), ("langchain_fork_result_mixed_text.json", 6, "5965280513"),
    ("langchain_legacy_telegram.json", 3, "2730825451"),
  ])
  func everyMessageOfASingleChatFileIsImportedWithItsFlattenedText(file: String, count: Int, chat: String) throws {
    let messages = try ChatCorpus.array("telegram/\(file)", at: ["messages"])
    #expect(messages.count == count)
    let workspace = try ChatExportWorkspace()
    let report = try load(file, into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == count && report.recordsLoaded == count)
    #expect(try workspace.kinds() == ["text": count])
    let conversation = "telegram:" + chat
    let expected = messages.map { message in
      let sender = message["from_id"].map { "telegram:\($0)" } ?? "∅"
      return "\(conversation)/\(message["id"] ?? "")|\(conversation)|\(sender)|\(Self.plainText(message["text"]))"
    }
    #expect(
      try workspace.rows(
        """
        SELECT m.message_id, m.conversation_id, m.sender_id, t.text
        FROM messages m JOIN text_messages t USING (message_id) ORDER BY m.rowid
        """) == expected)

    let before = try workspace.snapshot()
    #expect(try load(file, into: workspace).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  /// langchain's export and its fork (two messages more) are the same chat, 5965280513: together
  /// they are one conversation of 6 messages, the 4 they share loaded once.
  @Test func aChatAndItsLaterExportAreOneConversation() throws {
    let workspace = try ChatExportWorkspace()
    #expect(try load("langchain_result.json", into: workspace).status == .succeeded)
    let report = try load("langchain_fork_result_mixed_text.json", into: workspace)
    #expect(report.status == .succeeded && report.recordsLoaded == 6)
    #expect(try workspace.rows("SELECT conversation_id, name FROM conversations") == ["telegram:5965280513|Jimmeny"])
    #expect(
      try workspace.rows("SELECT conversation_id, count(*) FROM messages GROUP BY 1") == ["telegram:5965280513|6"])
  }

  @Test func mixedTextIsFlattenedAndTimesComeFromDateUnixtime() throws {
    let workspace = try ChatExportWorkspace()
    #expect(try load("langchain_fork_result_mixed_text.json", into: workspace).status == .succeeded)
    #expect(
      try workspace.rows(
        "SELECT text FROM text_messages WHERE message_id LIKE '%/5' OR message_id LIKE '%/6' ORDER BY 1") == [
          "this is an email: admin@example.com", "this is bold text: BOLD TEXT",
        ])
    // date_unixtime 1692821483; `date` (13:11:23) is the exporting computer's local time.
    #expect(
      try workspace.rows("SELECT sent_at FROM messages WHERE message_id = 'telegram:5965280513/1'")
        == ["2023-08-23T20:11:23.000Z"])
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "telegram:user123450513|Jimmeny Marvelton", "telegram:user6565661032|Batman & Robin",
      ])
  }

  @Test func theLegacyExportsBareNumberIDsAndZonelessDatesAreReadAsTheyAre() throws {
    let grace = try #require(
      try ChatCorpus.array("telegram/langchain_legacy_telegram.json", at: ["messages"])[2]["from"] as? String)
    #expect(grace.hasPrefix("Grace ðŸ§¤"))
    let workspace = try ChatExportWorkspace()
    #expect(try load("langchain_legacy_telegram.json", into: workspace).status == .succeeded)
    // `from_id` 4325636679 is the key "4325636679"; `date` is read as UTC; the mojibake of the
    // names is stored as written (repairing it would be a guess).
    #expect(
      try workspace.rows(
        "SELECT m.message_id, m.sent_at, s.name FROM messages m JOIN senders s USING (sender_id) ORDER BY 1") == [
          "telegram:2730825451/1980499|2020-01-01T00:00:02.000Z|Henry",
          "telegram:2730825451/1980500|2020-01-01T00:00:04.000Z|Henry",
          "telegram:2730825451/1980501|2020-01-01T00:00:05.000Z|\(grace)",
        ])
    #expect(
      try workspace.rows("SELECT sender_id FROM senders ORDER BY 1") == ["telegram:4325636679", "telegram:4720225552"])
  }

  /// chat-miner's messages have no `id`, and its single-chat file no chat `id` or `name`: the
  /// file is the conversation and each message is keyed by its position in the chat, the same
  /// on every import of the file.
  @Test func messagesWithoutIDsAreKeyedByTheirPositionInTheirChat() throws {
    let workspace = try ChatExportWorkspace()
    let report = try load("chat-miner_single_export.json", into: workspace)
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 2 && report.recordsLoaded == 2)
    #expect(try workspace.kinds() == ["text": 2])
    #expect(
      try workspace.rows("SELECT conversation_id, coalesce(name, '∅') FROM conversations") == [
        "telegram:chat-miner_single_export|∅"
      ])
    #expect(
      try workspace.rows(
        "SELECT m.message_id, m.sender_id, m.sent_at, t.text FROM messages m JOIN text_messages t USING (message_id) ORDER BY 1"
      )
        == [
          "telegram:chat-miner_single_export/@0|telegram:Author 1|2018-12-05T10:39:10.000Z|Minimal Message",
          "telegram:chat-miner_single_export/@1|telegram:Author 2|2018-12-05T10:49:24.000Z|Link:https://telegram.org/",
        ])

    let before = try workspace.snapshot()
    #expect(try load("chat-miner_single_export.json", into: workspace).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  /// chat-miner's full-account export: the records are every chat's messages, at
  /// `chats.list[].messages`. Its one chat, "Chatname", has no id, so it is the file's chat of
  /// that name; its messages, without ids, are keyed by position. Loaded next to the single-chat
  /// file — the same two messages — nothing collides.
  @Test func theFullAccountExportImportsEveryChatsMessages() throws {
    let chats = try ChatCorpus.array("telegram/chat-miner_batch_export.json", at: ["chats", "list"])
    #expect(chats.count == 1 && (chats[0]["messages"] as? [Any])?.count == 2)
    let workspace = try ChatExportWorkspace()
    let report = try load("chat-miner_batch_export.json", into: workspace, recordPath: Self.account)
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 2 && report.recordsLoaded == 2)
    #expect(try workspace.kinds() == ["text": 2])
    #expect(
      try workspace.rows("SELECT conversation_id, name FROM conversations") == [
        "telegram:chat-miner_batch_export#Chatname|Chatname"
      ])
    #expect(
      try workspace.rows("SELECT conversation_id, count(*) FROM messages GROUP BY 1") == [
        "telegram:chat-miner_batch_export#Chatname|2"
      ])
    #expect(
      try workspace.rows("SELECT message_id, text FROM messages JOIN text_messages USING (message_id) ORDER BY 1") == [
        "telegram:chat-miner_batch_export#Chatname/@0|Minimal Message",
        "telegram:chat-miner_batch_export#Chatname/@1|Link:https://telegram.org/",
      ])

    let before = try workspace.snapshot()
    #expect(try load("chat-miner_batch_export.json", into: workspace, recordPath: Self.account).status == .succeeded)
    #expect(try workspace.snapshot() == before)

    #expect(try load("chat-miner_single_export.json", into: workspace).status == .succeeded)
    #expect(try workspace.count("SELECT count(*) FROM conversations") == 2)
    #expect(try workspace.count("SELECT count(*) FROM messages") == 4)
  }

  @Test func theCommittedSampleHasEveryKind() throws {
    let workspace = try ChatExportWorkspace()
    let (report, _) = try workspace.runSpec("telegram.json")
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(try workspace.kinds() == ["text": 2, "image": 1, "file": 1, "system": 1])
    #expect(try workspace.rows("SELECT event, coalesce(text, '∅') FROM system_messages") == ["join_group_by_link|∅"])
    #expect(
      try workspace.rows("SELECT url, caption, width, height FROM image_messages") == [
        "photos/photo_1@02-11-2026_10-00-00.jpg|The funnel|1280|720"
      ])
    #expect(
      try workspace.rows("SELECT name, url, mime_type, size_bytes FROM file_messages") == [
        "report-run-7.json|files/report-run-7.json|application/json|9120"
      ])
    #expect(
      try workspace.rows(
        "SELECT text, reply_to FROM messages JOIN text_messages USING (message_id) WHERE reply_to IS NOT NULL") == [
          "Report: 48 fruits, see https://example.org/runs/7|telegram:4400123/102"
        ])
  }

  /// The committed whole-account sample: two chats, each its own conversation by its id; the
  /// group is the one `result.json` exports alone, so importing both shares its messages.
  @Test func theCommittedAccountSampleHasEveryKindInItsChats() throws {
    let workspace = try ChatExportWorkspace()
    let (report, configuration) = try workspace.runSpec("telegram-account.json")
    #expect(configuration.inputs.map(\.recordPath) == [Self.account])
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 5 && report.recordsLoaded == 5)
    #expect(try workspace.kinds() == ["text": 2, "image": 1, "file": 1, "system": 1])
    #expect(
      try workspace.rows(
        """
        SELECT c.conversation_id, c.name, count(*) FROM messages m JOIN conversations c USING (conversation_id)
        GROUP BY 1 ORDER BY 1
        """) == ["telegram:4400123|Sluice imports|3", "telegram:7002|Bo|2"])
    #expect(try workspace.kinds(of: ["telegram:7002/201", "telegram:7002/202"]) == ["text": 1, "image": 1])
    #expect(
      try workspace.kinds(of: ["telegram:4400123/101", "telegram:4400123/102", "telegram:4400123/106"]) == [
        "system": 1, "text": 1, "file": 1,
      ])
    #expect(
      try workspace.rows("SELECT message_id, reply_to FROM messages WHERE reply_to IS NOT NULL") == [
        "telegram:7002/202|telegram:7002/201"
      ])
    #expect(
      try workspace.rows("SELECT name, mime_type FROM file_messages") == ["audio_1@02-11-2026_12-00-00.ogg|audio/ogg"])

    let before = try workspace.snapshot()
    #expect(try workspace.runSpec("telegram-account.json").0.status == .succeeded)
    #expect(try workspace.snapshot() == before)

    // The group's chat export: 101 and 102 are already there, 103–105 are new.
    #expect(try workspace.runSpec("telegram.json").0.status == .succeeded)
    #expect(
      try workspace.rows("SELECT conversation_id, count(*) FROM messages GROUP BY 1 ORDER BY 1") == [
        "telegram:4400123|6", "telegram:7002|2",
      ])
  }
}
