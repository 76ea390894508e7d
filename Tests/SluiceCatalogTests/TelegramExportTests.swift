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
/// no ids), two real supergroup excerpts of TGIF's (2024 with a poll: 14; 2022 without
/// `date_unixtime`: 29) — and the committed samples, one chat and a whole account.
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

  // MARK: - More real exports (issue 23)

  /// The messages of a file, each with the kind and text it should load as: a `photo` is an
  /// image (its text the caption), a `file` or `media_type` a file, a poll its question and
  /// answers, anything else its flattened text — computed with Foundation.
  static func expectedMessages(_ file: String) throws -> [(id: Int, kind: String, text: String)] {
    try ChatCorpus.array("telegram/\(file)", at: ["messages"]).map { message in
      let id = message["id"] as? Int ?? -1
      if message["photo"] != nil { return (id, "image", plainText(message["text"])) }
      if message["file"] != nil || message["media_type"] != nil { return (id, "file", "") }
      if let poll = message["poll"] as? [String: Any] {
        let answers = (poll["answers"] as? [[String: Any]] ?? []).map { $0["text"] as? String ?? "" }
        return (id, "text", ([poll["question"] as? String ?? ""] + answers).joined(separator: "\n"))
      }
      return (id, "text", plainText(message["text"]))
    }
  }

  /// A real 2024 export of a public supergroup (Teknologi Umum's TGIF site, tab-indented
  /// excerpt): 14 messages, one of them a poll — a `message` with an empty `text` and a `poll`
  /// object, a key the DTO did not know (an `unknownField` warning before). The poll is a text
  /// message: its question, then its answers.
  @Test func aSupergroupExportWithAPollImportsEveryMessage() throws {
    let file = "tgif_ssl-tidak-hanya-untuk-website.json"
    let expected = try Self.expectedMessages(file)
    #expect(expected.count == 14)
    let workspace = try ChatExportWorkspace()
    let report = try load(file, into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 14 && report.recordsLoaded == 14)
    #expect(report.recordsRejected == 0 && report.statistics(for: .map).skipped == 0)
    #expect(try workspace.kinds() == ["text": 13, "image": 1])
    #expect(try workspace.count("SELECT count(*) FROM text_messages") == 13)
    #expect(try workspace.count("SELECT count(*) FROM image_messages") == 1)
    #expect(try workspace.count("SELECT count(*) FROM file_messages") == 0)
    #expect(
      try workspace.rows("SELECT conversation_id, name FROM conversations") == [
        "telegram:1712691810|Teknologi Umum v2.0"
      ])
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "telegram:user1462097294|Reinaldy", "telegram:user311785123|Zasda Yusuf Mikail",
      ])
    #expect(
      try workspace.rows(
        "SELECT m.message_id, t.text FROM messages m JOIN text_messages t USING (message_id) ORDER BY m.rowid")
        == expected.filter { $0.kind == "text" }.map { "telegram:1712691810/\($0.id)|\($0.text)" })
    #expect(
      try workspace.rows("SELECT text FROM text_messages WHERE message_id = 'telegram:1712691810/632576'") == [
        """
        Apakah Anda tahu kalau SSL certificate bisa digunakan selain untuk keperluan website (https)?
        Tahu
        Tidak
        """
      ])
    #expect(
      try workspace.rows("SELECT message_id, url, width, height, substr(caption, 1, 24) FROM image_messages") == [
        "telegram:1712691810/632851|photos/photo_27194@25-02-2024_18-09-29.jpg|1280|731|Ilustrasi TLS handshake."
      ])
    // date_unixtime 1708836756; `date` (11:52:36) is the exporting computer's time, UTC+7.
    #expect(
      try workspace.rows("SELECT sent_at FROM messages WHERE message_id = 'telegram:1712691810/632575'")
        == ["2024-02-25T04:52:36.000Z"])
    #expect(
      try workspace.rows("SELECT message_id, reply_to FROM messages WHERE reply_to IS NOT NULL") == [
        "telegram:1712691810/632866|telegram:1712691810/632854"
      ])

    let before = try workspace.snapshot()
    #expect(try load(file, into: workspace).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  /// A real 2022 export of another supergroup (C# Indonesia, the same carrier): the vintage
  /// between the legacy and the modern one — `from_id` already `"user…"`, but no
  /// `date_unixtime` and no `text_entities` — with two photos, a sticker (`media_type`), mixed
  /// text arrays, and a message of a deleted account (`"from": null`, its `from_id` kept).
  @Test func aSupergroupExportOf2022ReadsItsZonelessDatesAndADeletedSender() throws {
    let file = "tgif_dependency-injection-in-a-nutshell.json"
    let expected = try Self.expectedMessages(file)
    #expect(expected.count == 29)
    let workspace = try ChatExportWorkspace()
    let report = try load(file, into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 29 && report.recordsLoaded == 29)
    #expect(report.recordsRejected == 0 && report.statistics(for: .map).skipped == 0)
    #expect(try workspace.kinds() == ["text": 26, "image": 2, "file": 1])
    #expect(try workspace.count("SELECT count(*) FROM text_messages") == 26)
    #expect(
      try workspace.rows(
        "SELECT m.message_id, t.text FROM messages m JOIN text_messages t USING (message_id) ORDER BY m.rowid")
        == expected.filter { $0.kind == "text" }.map { "telegram:1730156619/\($0.id)|\($0.text)" })
    #expect(
      try workspace.rows("SELECT conversation_id, name FROM conversations") == ["telegram:1730156619|C# Indonesia"])
    // "Ronny Gunawan ️" ends with U+FE0F (a variation selector), stored as written; the deleted
    // account has no name.
    let ronny = try #require(
      try ChatCorpus.array("telegram/\(file)", at: ["messages"])[1]["from"] as? String)
    #expect(ronny.unicodeScalars.last == "\u{FE0F}")
    #expect(
      try workspace.rows("SELECT sender_id, coalesce(name, '∅') FROM senders ORDER BY 1") == [
        "telegram:user1168523623|∅", "telegram:user149994951|\(ronny)", "telegram:user719119535|Kiro Honjou",
      ])
    #expect(
      try workspace.rows("SELECT name, url, coalesce(mime_type, '∅'), coalesce(size_bytes, '∅') FROM file_messages")
        == ["sticker (2).webp|stickers/sticker (2).webp|∅|∅"])
    #expect(
      try workspace.rows("SELECT message_id, url, width, height FROM image_messages ORDER BY 1") == [
        "telegram:1730156619/2510|photos/photo_68@05-04-2022_17-11-27.jpg|612|311",
        "telegram:1730156619/2559|photos/photo_69@05-04-2022_17-26-54.jpg|1180|808",
      ])
    // No date_unixtime: `date` is read as UTC.
    #expect(
      try workspace.rows("SELECT sent_at, reply_to FROM messages WHERE message_id = 'telegram:1730156619/2568'")
        == ["2022-04-05T17:33:23.000Z|telegram:1730156619/2567"])
    #expect(try workspace.count("SELECT count(*) FROM messages WHERE reply_to IS NOT NULL") == 10)

    let before = try workspace.snapshot()
    #expect(try load(file, into: workspace).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  /// A real whole-account export of 2019–2020 (frozenspider/chat-history-manager's test data,
  /// anonymised and trimmed by its carrier, a few messages written into it): `chats.list[]` of
  /// four chats — a private group and three personal chats, one of them a contact whose `name`
  /// is `null` — 50 messages in all. Bare-number `from_id`s, no `date_unixtime`, `edited`
  /// `1970-01-01T05:00:00` on every message; 8 `service` messages (`create_group`,
  /// `phone_call` with `discard_reason`, `clear_history`, …), a poll, shared contacts
  /// (`contact_information`, `contact_vcard`) and a live location (`location_information`) —
  /// keys the DTO did not know — and media the export left out (`"(File not included. …)"`).
  @Test func aRealWholeAccountExportImportsEveryChatAsAConversation() throws {
    let file = "chat-history-manager_account_2020-01.json"
    let chats = try ChatCorpus.array("telegram/\(file)", at: ["chats", "list"])
    let messages = chats.flatMap { chat in
      (chat["messages"] as? [[String: Any]] ?? []).map { (chat: chat["id"] as? Int ?? -1, message: $0) }
    }
    #expect(chats.count == 4 && messages.count == 50)
    let workspace = try ChatExportWorkspace()
    let report = try load(file, into: workspace, recordPath: Self.account)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 50 && report.recordsLoaded == 50)
    #expect(report.recordsRejected == 0 && report.statistics(for: .map).skipped == 0)
    #expect(try workspace.kinds() == ["text": 26, "file": 9, "system": 8, "image": 7])
    #expect(try workspace.count("SELECT count(*) FROM text_messages") == 26)
    #expect(try workspace.count("SELECT count(*) FROM file_messages") == 9)
    #expect(try workspace.count("SELECT count(*) FROM system_messages") == 8)
    #expect(try workspace.count("SELECT count(*) FROM image_messages") == 7)
    #expect(try workspace.count("SELECT count(*) FROM senders") == 9)
    #expect(
      try workspace.rows(
        """
        SELECT c.conversation_id, coalesce(c.name, '∅'), count(*) FROM messages m
        JOIN conversations c USING (conversation_id) GROUP BY 1 ORDER BY 1
        """) == [
          "telegram:4321012345|∅|5", "telegram:8123123123|ppppppp gggggg|31", "telegram:9333333333|Ddddddd|2",
          "telegram:9777777777|Vvvvv|12",
        ])
    // Every plain message's text, flattened with Foundation (polls, contacts and the location
    // have an empty `text` and are checked below).
    let plain = messages.filter { entry in
      let message = entry.message
      return message["type"] as? String == "message" && message["photo"] == nil && message["file"] == nil
        && message["media_type"] == nil && message["poll"] == nil && message["contact_information"] == nil
        && message["location_information"] == nil
    }
    #expect(plain.count == 21)
    let texts = Set(
      try workspace.rows(
        "SELECT m.message_id, t.text FROM messages m JOIN text_messages t USING (message_id)"))
    #expect(
      Set(plain.map { "telegram:\($0.chat)/\($0.message["id"] ?? "")|\(Self.plainText($0.message["text"]))" })
        .isSubset(of: texts))
    #expect(
      try workspace.rows(
        """
        SELECT m.message_id, m.sender_id, m.sent_at, t.text FROM messages m JOIN text_messages t USING (message_id)
        WHERE m.message_id IN ('telegram:8123123123/4730', 'telegram:8123123123/74752',
          'telegram:8123123123/129125', 'telegram:8123123123/129455', 'telegram:8123123123/132894')
        ORDER BY m.sent_at
        """) == [
          "telegram:8123123123/4730|telegram:44444444|2016-11-09T00:36:45.000Z|Видел)",
          "telegram:8123123123/74752|telegram:11111111|2018-12-25T15:18:42.000Z|Vvvvv Vvvvvvvvv\n+7 910 041 13 85",
          "telegram:8123123123/129125|telegram:555555555|2019-09-23T18:30:21.000Z|+998 90 9222229",
          "telegram:8123123123/129455|telegram:666666666|2019-09-24T20:47:19.000Z|geo:41.311194,69.279725",
          """
          telegram:8123123123/132894|telegram:310242343|2019-09-30T18:23:26.000Z|Вечерний Мудозвон – это...
          Соловьёв
          Киселёв
          Ургант
          Собирательный образ тележурналиста
          Просто лирический герой
          """,
        ])
    #expect(
      try workspace.rows("SELECT text FROM text_messages WHERE message_id = 'telegram:8123123123/103927'") == [
        "Марат Такси Сам"
      ])
    #expect(
      try workspace.rows("SELECT event, count(*) FROM system_messages GROUP BY 1 ORDER BY 1") == [
        "clear_history|1", "create_group|1", "edit_group_photo|1", "invite_members|1", "phone_call|2",
        "pin_message|1", "remove_members|1",
      ])
    // Media the export left out: a file has no url and is named by its media_type (or `file`).
    #expect(
      try workspace.rows(
        """
        SELECT message_id, name, coalesce(url, '∅'), coalesce(mime_type, '∅') FROM file_messages
        ORDER BY message_id
        """) == [
          "telegram:8123123123/10355|test.mp3|chats/chat_01/voice_messages/test.mp3|audio/mpeg",
          "telegram:8123123123/10699|animation|∅|video/mp4",
          "telegram:8123123123/38952|video_message|∅|video/mp4",
          "telegram:8123123123/39115|video_file|∅|video/mp4",
          "telegram:8123123123/4744|sticker.webp|chats/chat_01/stickers/sticker.webp|∅",
          "telegram:9777777777/124030|file|∅|application/pdf",
          "telegram:9777777777/124133|sticker (8).webp|chats/chat_02/stickers/sticker (8).webp|∅",
          "telegram:9777777777/32616|sticker (100).webp|chats/chat_01/stickers/sticker (100).webp|∅",
          "telegram:9777777777/36066|animation|∅|video/mp4",
        ])
    #expect(
      try workspace.rows("SELECT url, width, height FROM image_messages WHERE message_id = 'telegram:8123123123/4725'")
        == ["chats/chat_01/group_photo_2.jpg|1280|723"])
    // The contact whose chat has no name: the sender is keyed by its number, with no name.
    #expect(
      try workspace.rows("SELECT sender_id, coalesce(name, '∅') FROM senders WHERE sender_id = 'telegram:32507588'")
        == ["telegram:32507588|∅"])
    #expect(
      try workspace.rows("SELECT message_id, reply_to FROM messages WHERE reply_to IS NOT NULL") == [
        "telegram:8123123123/39740|telegram:8123123123/39739"
      ])

    let before = try workspace.snapshot()
    #expect(try load(file, into: workspace, recordPath: Self.account).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  // MARK: - Captions, to-do lists, media the export could not fetch (issue 39)

  /// A real export's audio and video files sent with text (frozenspider/chat-history-manager's
  /// `telegram_2023-10_audio-video`): the text is the message, the file its attachment —
  /// neither is lost, whatever the `media_type`.
  @Test func aCaptionedAudioOrVideoKeepsItsTextAndItsFile() throws {
    let file = "chat-history-manager_2023-10_audio-video.json"
    let messages = try ChatCorpus.array("telegram/\(file)", at: ["chats", "list"]).flatMap {
      $0["messages"] as? [[String: Any]] ?? []
    }
    #expect(messages.count == 4 && messages.allSatisfy { $0["file"] != nil && !Self.plainText($0["text"]).isEmpty })
    let workspace = try ChatExportWorkspace()
    let report = try load(file, into: workspace, recordPath: Self.account)
    #expect(report.status == .succeeded && report.recordsLoaded == 4, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(try workspace.kinds() == ["text": 4])
    #expect(
      try workspace.rows("SELECT message_id, text FROM text_messages ORDER BY 1") == [
        "telegram:123123123/11111|Audio file (incomplete) message",
        "telegram:123123123/11112|Audio file (full) message",
        "telegram:123123123/21111|Video file (incomplete) message",
        "telegram:123123123/21112|Video file (full) message",
      ])
    #expect(
      try workspace.rows(
        "SELECT message_id, position, kind_id, name, url, mime_type FROM message_attachments ORDER BY 1, 2") == [
          "telegram:123123123/11111|0|3|audio_file.mp3|audio_file.mp3|audio/mpeg",
          "telegram:123123123/11112|0|3|audio_file.mp3|audio_file.mp3|audio/mpeg",
          "telegram:123123123/21111|0|3|video_file.mp4|video_file.mp4|video/mp4",
          "telegram:123123123/21112|0|3|video_file.mp4|video_file.mp4|video/mp4",
        ])
    let before = try workspace.snapshot()
    #expect(try load(file, into: workspace, recordPath: Self.account).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  /// A real export of 2025 (chat-history-manager's `telegram_2025-12`): a to-do list (`todo_list`,
  /// its tasks under `answers`) is text — its title, then its tasks — never empty; a one-time
  /// video Telegram could not serve (`"(File unavailable, please try again later)"`) is a file
  /// with no url, named `file`, not after the sentence.
  @Test func aToDoListIsItsTitleAndTasksAndAnUnavailableFileHasNoURL() throws {
    let file = "chat-history-manager_2025-12_todo-list.json"
    let workspace = try ChatExportWorkspace()
    let report = try load(file, into: workspace, recordPath: Self.account)
    #expect(report.status == .succeeded && report.recordsLoaded == 6, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(try workspace.kinds() == ["text": 3, "system": 2, "file": 1])
    #expect(
      try workspace.rows("SELECT text FROM text_messages WHERE message_id = 'telegram:123123123/11113'") == [
        "testing\npoint 1\npoint 2\npoint 3"
      ])
    #expect(
      try workspace.rows("SELECT message_id, event, coalesce(text, '∅') FROM system_messages ORDER BY 1") == [
        "telegram:123123123/11111|paid_messages_price_change|∅", "telegram:123123123/11114|todo_completions|∅",
      ])
    #expect(
      try workspace.rows("SELECT message_id, name, coalesce(url, '∅'), size_bytes FROM file_messages") == [
        "telegram:123123123/11115|file|∅|0"
      ])
    #expect(try workspace.count("SELECT count(*) FROM message_attachments") == 0)
  }

  /// The shapes no real sample has yet, as Telegram Desktop writes them
  /// (telegramdesktop/tdesktop @ `929032d598f7c521adc1869152463cf9e1160533`,
  /// `Telegram/SourceFiles/export/output/export_output_json.cpp`): a to-do list whose title
  /// and tasks are texts with entities (`SerializeText`), tasks added later (`todo_append_tasks`
  /// with `items`), a file over the size limit with its `file_name` (`SkipReason::FileSize`), an
  /// unavailable document sent with text, and an unavailable photo (which keeps the sentence as
  /// its url, as a left-out photo does).
  @Test func toDoTasksAddedLaterAndFilesLeftOutKeepEveryText() throws {
    let workspace = try ChatExportWorkspace()
    let input = try workspace.directory.write(
      "result.json",
      """
      {"name": "Plans", "type": "private_group", "id": 4242, "messages": [
        {"id": 1, "type": "message", "date": "2025-07-01T10:00:00", "date_unixtime": "1751364000",
         "from": "Ana", "from_id": "user7", "todo_list": {"title": ["Trip ", {"type": "bold", "text": "prep"}],
         "others_can_append": false, "others_can_complete": true,
         "answers": [{"text": "tickets", "id": 1}, {"text": [{"type": "italic", "text": "visa"}], "id": 2}]},
         "text": "", "text_entities": []},
        {"id": 2, "type": "service", "date": "2025-07-01T10:05:00", "date_unixtime": "1751364300",
         "actor": "Ben", "actor_id": "user8", "action": "todo_append_tasks",
         "items": [{"text": "hotel", "id": 3}, {"text": "insurance", "id": 4}], "text": "", "text_entities": []},
        {"id": 3, "type": "service", "date": "2025-07-01T10:06:00", "date_unixtime": "1751364360",
         "actor": "Ben", "actor_id": "user8", "action": "todo_completions", "completed": [1, 3], "incompleted": [],
         "text": "", "text_entities": []},
        {"id": 4, "type": "message", "date": "2025-07-01T10:07:00", "date_unixtime": "1751364420",
         "from": "Ana", "from_id": "user7",
         "file": "(File exceeds maximum size. Change data exporting settings to download.)",
         "file_name": "itinerary.pdf", "file_size": 73400320, "mime_type": "application/pdf",
         "text": "", "text_entities": []},
        {"id": 5, "type": "message", "date": "2025-07-01T10:08:00", "date_unixtime": "1751364480",
         "from": "Ben", "from_id": "user8", "file": "(File unavailable, please try again later)",
         "file_size": 0, "media_type": "voice_message", "mime_type": "audio/ogg", "duration_seconds": 4,
         "text": ["Listen to ", {"type": "bold", "text": "this"}],
         "text_entities": [{"type": "plain", "text": "Listen to "}, {"type": "bold", "text": "this"}]},
        {"id": 6, "type": "message", "date": "2025-07-01T10:09:00", "date_unixtime": "1751364540",
         "from": "Ana", "from_id": "user7", "photo": "(File unavailable, please try again later)",
         "photo_file_size": 0, "text": "", "text_entities": []}
      ]}
      """)
    let report = try workspace.run("telegram", input, recordPath: ["messages"], policy: .strict)
    #expect(report.status == .succeeded && report.recordsLoaded == 6, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(
      try workspace.rows("SELECT message_id, text FROM text_messages ORDER BY 1") == [
        "telegram:4242/1|Trip prep\ntickets\nvisa", "telegram:4242/5|Listen to this",
      ])
    #expect(
      try workspace.rows("SELECT message_id, event, coalesce(text, '∅') FROM system_messages ORDER BY 1") == [
        "telegram:4242/2|todo_append_tasks|hotel\ninsurance", "telegram:4242/3|todo_completions|∅",
      ])
    #expect(
      try workspace.rows("SELECT message_id, name, coalesce(url, '∅'), mime_type, size_bytes FROM file_messages") == [
        "telegram:4242/4|itinerary.pdf|∅|application/pdf|73400320"
      ])
    #expect(
      try workspace.rows(
        "SELECT message_id, position, kind_id, name, coalesce(url, '∅'), mime_type FROM message_attachments")
        == ["telegram:4242/5|0|3|voice_message|∅|audio/ogg"])
    #expect(
      try workspace.rows("SELECT message_id, url FROM image_messages") == [
        "telegram:4242/6|(File unavailable, please try again later)"
      ])
  }

  /// A poll whose question and answers are formatted text, as Telegram Desktop writes them since
  /// polls took entities (telegramdesktop/tdesktop @ `929032d598f7c521adc1869152463cf9e1160533`,
  /// `export_output_json.cpp`: `{ "question", SerializeText(context, data.question) }` and each
  /// answer's `{ "text", SerializeText(context, answer.text) }` — a string when the text has no
  /// entity, else strings and entity objects), beside a poll of the older plain shape and a star
  /// gift's words (`gift_text`, `SerializeText` too). Strict loads all three, every word kept.
  @Test func pollsWithFormattedQuestionsAndAnswersAndAGiftsWordsKeepEveryText() throws {
    let workspace = try ChatExportWorkspace()
    let input = try workspace.directory.write(
      "result.json",
      """
      {"name": "Votes", "type": "public_supergroup", "id": 5151, "messages": [
        {"id": 1, "type": "message", "date": "2025-03-02T09:00:00", "date_unixtime": "1740906000",
         "from": "Ana", "from_id": "user7",
         "poll": {"question": ["Which ", {"type": "bold", "text": "day"}, "?"], "closed": false, "total_voters": 3,
          "answers": [{"text": "Monday", "voters": 1, "chosen": false},
           {"text": [{"type": "italic", "text": "Friday"}, " night"], "voters": 2, "chosen": true}]},
         "text": "", "text_entities": []},
        {"id": 2, "type": "message", "date": "2025-03-02T09:01:00", "date_unixtime": "1740906060",
         "from": "Ben", "from_id": "user8",
         "poll": {"question": "Tea or coffee?", "closed": true, "total_voters": 0,
          "answers": [{"text": "Tea", "voters": 0, "chosen": false}, {"text": "Coffee", "voters": 0, "chosen": false}]},
         "text": "", "text_entities": []},
        {"id": 3, "type": "service", "date": "2025-03-02T09:02:00", "date_unixtime": "1740906120",
         "actor": "Ben", "actor_id": "user8", "action": "send_star_gift", "gift_id": 5170233102089322756,
         "stars": 15, "is_limited": false, "is_anonymous": false,
         "gift_text": ["Happy ", {"type": "bold", "text": "birthday"}], "text": "", "text_entities": []}
      ]}
      """)
    let report = try workspace.run("telegram", input, recordPath: ["messages"], policy: .strict)
    #expect(report.status == .succeeded && report.recordsLoaded == 3, "\(report.failure?.message ?? "")")
    #expect(
      try workspace.rows("SELECT message_id, text FROM text_messages ORDER BY 1") == [
        "telegram:5151/1|Which day?\nMonday\nFriday night", "telegram:5151/2|Tea or coffee?\nTea\nCoffee",
      ])
    #expect(
      try workspace.rows("SELECT message_id, event, text FROM system_messages") == [
        "telegram:5151/3|send_star_gift|Happy birthday"
      ])
    // The gift's other fields are not mapped: warnings, never failures.
    #expect(Set(report.issues.map(\.path)) == ["gift_id", "stars", "is_limited", "is_anonymous"])
  }

  // MARK: - More of chat-history-manager's Telegram files (issue 39, item 6)

  /// Five more of the carrier's parser test files (see `Tests/Corpus/messages/SOURCE.md`), one
  /// per export feature, pinned per message: every key Telegram Desktop wrote into them is
  /// declared (no warning under strict), a reply to a channel's post (`reply_to_peer_id`) is
  /// keyed in that channel's conversation, not in the replying chat's, and a channel's own
  /// posts (`from_id` `channel…`, with its `author` signature) come from the channel.
  @Test(arguments: [
    (
      "chat-history-manager_2024-01.json",
      [
        "telegram:123123123/11111|text|telegram:9876543210/1234567|My reply to a channel post!",
        "telegram:123123123/11112|system|-|set_messages_ttl",
      ]
    ),
    (
      "chat-history-manager_2024-02_create-channel_saved-from.json",
      [
        "telegram:123123123/11111|system|-|create_channel",
        "telegram:123123123/11112|text|-|Forward of a forward of a message",
      ]
    ),
    (
      "chat-history-manager_2024-05_boosts_file-name_etc.json",
      [
        "telegram:123123123/11111|file|-|my-file.jpg", "telegram:123123123/11112|file|-|sticker.webm",
        "telegram:123123123/11113|system|-|boost_apply",
      ]
    ),
    (
      "chat-history-manager_2024-08.json",
      [
        "telegram:123123123/11111|text|-|Admin msg!", "telegram:123123123/11112|text|-|Bot msg!",
        "telegram:123123123/11113|system|-|join_group_by_request",
        "telegram:123123123/11114|image|-|(File unavailable, please try again later)",
      ]
    ),
    (
      "chat-history-manager_2025-02_joined_file-size.json",
      [
        "telegram:123123123/11111|system|-|joined_telegram", "telegram:123123123/11112|file|-|my-gif.gif.mp4",
      ]
    ),
  ])
  func moreAccountFilesOfTheCarrierLoadStrictWithoutWarnings(file: String, messages: [String]) throws {
    let workspace = try ChatExportWorkspace()
    let report = try workspace.run(
      "telegram", ChatCorpus.path("telegram/\(file)"), recordPath: ["chats", "list[]", "messages"], policy: .strict)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == messages.count && report.recordsLoaded == messages.count)
    #expect(
      try workspace.rows(
        """
        SELECT m.message_id, k.name, coalesce(m.reply_to, '-'), coalesce(t.text, s.event, f.name, i.url)
        FROM messages m JOIN message_kinds k ON k.id = m.kind_id LEFT JOIN text_messages t USING (message_id)
        LEFT JOIN system_messages s USING (message_id) LEFT JOIN file_messages f USING (message_id)
        LEFT JOIN image_messages i USING (message_id) ORDER BY 1
        """) == messages)
    #expect(try workspace.count("SELECT count(*) FROM conversations WHERE conversation_id = 'telegram:123123123'") == 1)
  }

  /// Reactions as Telegram Desktop writes them (telegramdesktop/tdesktop @
  /// `929032d598f7c521adc1869152463cf9e1160533`, `export_output_json.cpp`, `serializeReaction`:
  /// `{type, count, emoji | document_id, recent: [{from, from_id, date}]}`, `type` one of
  /// `emoji`, `custom_emoji`, `paid`). No licensed real export with reactions was found. They
  /// are accepted and not stored, under strict, without a warning.
  @Test func reactionsAreAcceptedAndNotStored() throws {
    let workspace = try ChatExportWorkspace()
    let input = try workspace.directory.write(
      "result.json",
      """
      {
       "name": "Reactions",
       "type": "private_supergroup",
       "id": 6161,
       "messages": [
        {
         "id": 1,
         "type": "message",
         "date": "2025-05-01T10:00:00",
         "date_unixtime": "1746093600",
         "from": "Ana",
         "from_id": "user7",
         "text": "Ship it?",
         "text_entities": [
          {
           "type": "plain",
           "text": "Ship it?"
          }
         ],
         "reactions": [
          {
           "type": "emoji",
           "count": 2,
           "emoji": "👍",
           "recent": [
            {
             "from": "Ben",
             "from_id": "user8",
             "date": "2025-05-01T10:01:00"
            },
            {
             "from": "Cy",
             "from_id": "user9",
             "date": "2025-05-01T10:02:00"
            }
           ]
          },
          {
           "type": "custom_emoji",
           "count": 1,
           "document_id": "5368324170671202286"
          },
          {
           "type": "paid",
           "count": 5
          }
         ]
        }
       ]
      }
      """)
    let report = try workspace.run("telegram", input, recordPath: ["messages"], policy: .strict)
    #expect(report.status == .succeeded && report.recordsLoaded == 1, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(try workspace.rows("SELECT message_id, text FROM text_messages") == ["telegram:6161/1|Ship it?"])
  }
}
