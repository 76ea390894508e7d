import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The corpus's Messenger conversation (langchain's: 11 messages, 10 with `content`, 1 with
/// `photos`) and the committed sample, laid out as Messenger lays out an export.
@Suite("Messenger export: Facebook Messenger JSON")
struct MessengerExportTests {
  static let corpusFile = "facebook/langchain_facebook_chat.json"

  func load(_ path: String, into workspace: ChatExportWorkspace, policy: Policy = .strict) throws -> RunReport {
    try workspace.run("messenger", path, recordPath: ["messages"], policy: policy)
  }

  @Test func everyMessageOfTheCorpusFileIsImportedByKind() throws {
    let messages = try ChatCorpus.array(Self.corpusFile, at: ["messages"])
    #expect(messages.count == 11)
    let workspace = try ChatExportWorkspace()
    let report = try load(ChatCorpus.path(Self.corpusFile), into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 11 && report.recordsLoaded == 11)
    #expect(try workspace.kinds() == ["text": 10, "image": 1])
    // Each message by its time and sender: text with its content, or the image of its photo.
    let conversation = "messenger:langchain_facebook_chat"
    var expected: [String] = []
    for message in messages {
      let key = "\(conversation)/\(message["timestamp_ms"] ?? ""):\(message["sender_name"] ?? "")"
      if let content = message["content"] as? String {
        expected.append("\(key)|text|\(content)")
      } else {
        let photo = try #require((message["photos"] as? [[String: Any]])?.first?["uri"] as? String)
        expected.append("\(key)|image|\(photo)")
      }
    }
    let stored = try workspace.rows(
      """
      SELECT m.message_id, k.name, coalesce(t.text, i.url) FROM messages m JOIN message_kinds k ON k.id = m.kind_id
      LEFT JOIN text_messages t USING (message_id) LEFT JOIN image_messages i USING (message_id)
      """)
    #expect(stored.sorted() == expected.sorted())
    // The file's title comes after its messages: the conversation is keyed by the file and
    // named by its title once the messages are read.
    #expect(try workspace.rows("SELECT * FROM conversations") == ["\(conversation)|User 1 and User 2 chat"])
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "messenger:User 1|User 1", "messenger:User 2|User 2",
      ])
    #expect(try workspace.rows("SELECT min(sent_at) FROM messages") == ["2023-02-04T22:17:02.673Z"])

    let before = try workspace.snapshot()
    #expect(try load(ChatCorpus.path(Self.corpusFile), into: workspace).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  @Test func theCommittedSampleIsAThreadFolderWithPhotosFilesAndACall() throws {
    let workspace = try ChatExportWorkspace()
    let (report, _) = try workspace.runSpec("messenger.json")
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(try workspace.rows("SELECT conversation_id FROM conversations") == ["messenger:anaandbo_7301"])
    #expect(try workspace.kinds() == ["text": 2, "image": 1, "file": 1, "system": 1])
    // Two photos: the first is the message (its text the caption), the second an attachment.
    #expect(
      try workspace.rows("SELECT url, caption FROM image_messages") == [
        "messages/inbox/anaandbo_7301/photos/draft-a.png|Both drafts:"
      ])
    #expect(
      try workspace.rows("SELECT position, kind_id, url FROM message_attachments") == [
        "0|2|messages/inbox/anaandbo_7301/photos/draft-b.jpg"
      ])
    #expect(try workspace.rows("SELECT event, text FROM system_messages") == ["Call|Ana Lima started a call."])
  }

  @Test(arguments: [
    ("/exports/messages/inbox/anaandbo_7301/message_1.json", "anaandbo_7301", "anaandbo_7301"),
    ("/exports/messages/inbox/anaandbo_7301/message_12.json", "anaandbo_7301", "anaandbo_7301"),
    ("/corpus/facebook/langchain_facebook_chat.json", "facebook", "langchain_facebook_chat"),
    ("/exports/inbox/x/message_.json", "x", "message_"),
    ("/exports/inbox/x/message_1a.json", "x", "message_1a"),
    ("message_1.json", "", "message_1"),
  ])
  func aMessageFileBelongsToItsFolderAnyOtherFileIsItsOwnConversation(
    path: String, folder: String, conversation: String
  ) {
    #expect(MessengerDataset.conversation(path: path, folder: folder) == conversation)
  }

  // MARK: - Facebook's Latin-1 escapes (issue 23)

  static let instagramFile = "instagram/chat-miner_instagram_testlog.json"

  /// chat-miner's Instagram conversation, in the JSON Meta writes for Messenger and Instagram
  /// alike: every non-ASCII character as its UTF-8 bytes, each a `\u00XX` escape
  /// (`"J\u00e2\u009d\u00a4\u00ef\u00b8\u008fhn Doe"` is `J❤️hn Doe`). Names, keys and text are
  /// stored as written. No message has a `type`; strict loads all 13: the one with nothing but
  /// reactions is kept with the text "", the shared post keeps its link.
  @Test func instagramsEscapedUTF8IsStoredAsTheRealText() throws {
    let messages = try ChatCorpus.array(Self.instagramFile, at: ["messages"])
    #expect(messages.count == 13)
    let workspace = try ChatExportWorkspace()
    let report = try load(ChatCorpus.path(Self.instagramFile), into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 13 && report.recordsLoaded == 13)
    #expect(try workspace.kinds() == ["text": 10, "file": 2, "image": 1])
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "messenger:Jane Doe|Jane Doe", "messenger:John Doe|John Doe", "messenger:J❤️hn Doe|J❤️hn Doe",
        "messenger:Lionel Messi|Lionel Messi", "messenger:❤️|❤️",
      ])
    let conversation = "messenger:chat-miner_instagram_testlog"
    #expect(
      try workspace.rows(
        "SELECT m.message_id, t.text FROM messages m JOIN text_messages t USING (message_id) WHERE t.text LIKE 'Testing %emoji%' ORDER BY 1"
      )
        == [
          "\(conversation)/1579294140000:John Doe|Testing message with emoji: ❤️",
          "\(conversation)/1579359180000:J❤️hn Doe|Testing username with emoji: J❤️hn Doe",
          "\(conversation)/1579359180000:❤️|Testing username only emoji: ❤️",
        ])
    #expect(try workspace.count("SELECT count(*) FROM text_messages WHERE text LIKE '%â%' OR text LIKE '%Ã%'") == 0)
    #expect(try workspace.rows("SELECT * FROM conversations") == ["messenger:chat-miner_instagram_testlog|Test Log"])
    // The message with only reactions, and the post shared with a text: its text and its link.
    #expect(
      try workspace.rows("SELECT text FROM text_messages WHERE message_id = '\(conversation)/1646025943621:John Doe'")
        == [""])
    let shared = "\(conversation)/1569367800000:Lionel Messi"
    #expect(
      try workspace.rows("SELECT text FROM text_messages WHERE message_id = '\(shared)'") == [
        "John Doe sent an attachment."
      ])
    #expect(
      try workspace.rows(
        "SELECT a.message_id, position, k.name, url, caption FROM message_attachments a JOIN message_kinds k ON k.id = a.kind_id"
      ) == ["\(shared)|0|link|https://www.instagram.com/p/CmUv48DLvxd/?feed_type=reshare_chaining|∅"])
  }

  // MARK: - Messages every vintage has (issue 39)

  static func conversation(_ folder: String) -> String {
    ContractFixtures.directory("messenger").appendingPathComponent("conversations/\(folder)/message_1.json").path
  }

  /// The newest Instagram vintage, shaped exactly like wishaldubey/stats-insta @ `00c8ee2d` :
  /// `message_1.json` (a real 2024 Instagram conversation, 10,000 messages, not copied: it is a
  /// private chat without a licence): no message has a `type`; shares come with text
  /// (`share.link`, `share_text`, `original_content_owner`) or alone, 496 of them reels; calls
  /// are `content` and `call_duration` only; messages with only `reactions`, or nothing at all.
  /// Values are made up. Strict loads every message, and every shared link reaches the
  /// database.
  @Test func theNewestInstagramVintageLoadsStrictWithEveryShareCallAndEmptyMessage() throws {
    let path = Self.conversation("instagram-2024/inbox/mirazoe_17845")
    let workspace = try ChatExportWorkspace()
    let report = try load(path, into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 9 && report.recordsLoaded == 9)
    #expect(try workspace.kinds() == ["text": 6, "system": 2, "image": 1])
    let thread = "messenger:mirazoe_17845"
    #expect(
      try workspace.rows(
        """
        SELECT m.message_id, k.name, coalesce(t.text, s.event || ':' || coalesce(s.text, '∅'), i.url)
        FROM messages m JOIN message_kinds k ON k.id = m.kind_id LEFT JOIN text_messages t USING (message_id)
        LEFT JOIN system_messages s USING (message_id) LEFT JOIN image_messages i USING (message_id) ORDER BY m.sent_at
        """) == [
          "\(thread)/1722414970000:Mira|text|café at 6?",
          "\(thread)/1722415030000:Zoé|image|your_instagram_activity/messages/inbox/mirazoe_17845/photos/453088921_1183_n.jpg",
          "\(thread)/1722415090000:Mira|text|look at this post",
          "\(thread)/1722415150000:Zoé|text|",
          "\(thread)/1722415210000:Mira|text|",
          "\(thread)/1722415270000:Zoé|system|Call:You missed a video chat",
          "\(thread)/1722415330000:Mira|system|Call:Audio call ended",
          "\(thread)/1722415390000:Zoé|text|https://www.instagram.com/reel/C9wXyZaBcDe/?igsh=em9l",
          "\(thread)/1722415450811:Mira|text|Mira sent an attachment.",
        ])
    // The title, after the messages and escaped as their text is, names the conversation.
    #expect(try workspace.rows("SELECT * FROM conversations") == ["\(thread)|Zoé"])
    // Every share's link is an attachment, with the text Instagram shows for it.
    #expect(
      try workspace.rows(
        """
        SELECT a.message_id, position, k.name, url, coalesce(caption, '∅') FROM message_attachments a
        JOIN message_kinds k ON k.id = a.kind_id ORDER BY a.message_id
        """) == [
          "\(thread)/1722415090000:Mira|0|link|https://www.instagram.com/p/C9vQrStUvWx/|∅",
          "\(thread)/1722415390000:Zoé|0|link|https://www.instagram.com/reel/C9wXyZaBcDe/?igsh=em9l|∅",
          "\(thread)/1722415450811:Mira|0|link|https://www.instagram.com/reel/C9xAbCdEfGh/?igsh=bWlyYQ==|Sunset timelapse 🌅",
        ])
  }

  /// A typed Messenger export, shaped exactly like badface734/messengerWordleTally @ `991ebc05`
  /// : `message_1.json` (a real 2022 group chat titled "Wordle Scores": every message has
  /// `type`, `is_unsent`, `is_taken_down` and `bumped_message_metadata`; 4 unsent messages,
  /// `Generic` with no `content`; `Share`s with `content` and `share.link`) and
  /// AmanShah05/Instagram_Analysis @ `1ee01093` : `message_1.json` (a real 2022 Instagram group:
  /// `Generic` messages with nothing but their type, a `Call`, shares with `share_text` and
  /// `original_content_owner`). Neither was copied (private chats, no licence); values are made
  /// up. The unsent message is the event `unsent` with no text; the empty one is text "".
  @Test func aTypedExportKeepsUnsentEmptyAndSharedMessages() throws {
    let path = Self.conversation("messenger-2022/inbox/wordlescores_5120")
    let workspace = try ChatExportWorkspace()
    let report = try load(path, into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 7 && report.recordsLoaded == 7)
    let thread = "messenger:wordlescores_5120"
    #expect(
      try workspace.rows(
        """
        SELECT m.message_id, k.name, coalesce(t.text, s.event || ':' || coalesce(s.text, '∅'))
        FROM messages m JOIN message_kinds k ON k.id = m.kind_id LEFT JOIN text_messages t USING (message_id)
        LEFT JOIN system_messages s USING (message_id) ORDER BY m.sent_at
        """) == [
          "\(thread)/1656501100000:Ana Lima|text|Ana Lima named the group Wordle Scores.",
          "\(thread)/1656501200000:Ana Lima|system|Call:Video chat ended",
          "\(thread)/1656501300000:Chidi|text|",
          "\(thread)/1656501400000:Bo|text|Bo sent a link.",
          "\(thread)/1656501500000:Ana Lima|text|https://www.nytimes.com/games/wordle/index.html",
          "\(thread)/1656501600000:Chidi|system|unsent:∅",
          "\(thread)/1656501726482:Bo|text|Wordle 376 3/6",
        ])
    #expect(
      try workspace.rows("SELECT message_id, url, coalesce(caption, '∅') FROM message_attachments ORDER BY 1") == [
        "\(thread)/1656501400000:Bo|https://www.powerlanguage.co.uk/wordle/|Wordle - A daily word game",
        "\(thread)/1656501500000:Ana Lima|https://www.nytimes.com/games/wordle/index.html|∅",
      ])
    // The title comes after the messages, and names the conversation all the same.
    #expect(try workspace.rows("SELECT * FROM conversations") == ["\(thread)|Wordle Scores"])
  }

  // MARK: - The title after the messages (issue 39)

  /// The Wordle thread again (its title, `"Wordle Scores"`, after 7 messages), under strict and
  /// lenient: the title is no record (7 read, 7 loaded, nothing rejected or skipped), names the
  /// conversation in the run's transaction, and a second run changes nothing.
  @Test(arguments: [Policy.strict, Policy.lenient])
  func theTitleAfterTheMessagesNamesTheConversationAndARerunChangesNothing(policy: Policy) throws {
    let path = Self.conversation("messenger-2022/inbox/wordlescores_5120")
    let workspace = try ChatExportWorkspace()
    let report = try load(path, into: workspace, policy: policy)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 7 && report.recordsLoaded == 7 && report.recordsRejected == 0)
    #expect(report.stages.allSatisfy { $0.recordsIn <= 7 && $0.rejected == 0 && $0.skipped == 0 })
    // The conversation's row is written twice: made by the first message, named by the title.
    #expect(report.rowsWritten["conversations"] == 2 && report.rowsWritten["messages"] == 7, "\(report.rowsWritten)")
    #expect(try workspace.rows("SELECT * FROM conversations") == ["messenger:wordlescores_5120|Wordle Scores"])
    let before = try workspace.snapshot()
    let again = try load(path, into: workspace, policy: policy)
    #expect(again.status == .succeeded && again.recordsLoaded == 7 && again.issueCounts.isEmpty)
    #expect(try workspace.snapshot() == before)
  }

  /// A file with no `title` (no real export seen lacks one; the format does not promise it)
  /// leaves the conversation unnamed, and leaves a name another file gave as it is: here the
  /// second file of the Wordle thread, `message_2.json`, without its title.
  @Test func aFileWithoutATitleLeavesTheNameAsItIs() throws {
    let untitled = Self.conversation("untitled/inbox/wordlescores_5120").replacingOccurrences(
      of: "message_1.json", with: "message_2.json")
    let alone = try ChatExportWorkspace()
    let report = try load(untitled, into: alone)
    #expect(report.status == .succeeded && report.recordsLoaded == 2, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(try alone.rows("SELECT * FROM conversations") == ["messenger:wordlescores_5120|∅"])

    let workspace = try ChatExportWorkspace()
    #expect(try load(Self.conversation("messenger-2022/inbox/wordlescores_5120"), into: workspace).status == .succeeded)
    #expect(try load(untitled, into: workspace).status == .succeeded)
    #expect(try workspace.rows("SELECT * FROM conversations") == ["messenger:wordlescores_5120|Wordle Scores"])
    #expect(try workspace.count("SELECT count(*) FROM messages") == 9)
  }

  /// `sluice plan` on a thread whose title changed since it was loaded (the group was renamed)
  /// says the run would update the conversation's name and nothing else, and writes nothing.
  @Test func aPlanShowsARenamedConversationAsOneUpdate() throws {
    let workspace = try ChatExportWorkspace()
    let original = Self.conversation("messenger-2022/inbox/wordlescores_5120")
    #expect(try load(original, into: workspace).status == .succeeded)
    let renamed = try String(contentsOfFile: original, encoding: .utf8).replacingOccurrences(
      of: #""title": "Wordle Scores""#, with: #""title": "Wordle Scores \u00f0\u009f\u009f\u00a9""#)
    try FileManager.default.createDirectory(
      atPath: workspace.directory.file("inbox/wordlescores_5120"), withIntermediateDirectories: true)
    let path = try workspace.directory.write("inbox/wordlescores_5120/message_1.json", renamed)
    let before = try workspace.snapshot()
    var configuration = PipelineConfiguration(
      name: "chat-exports-test",
      inputs: [PipelineInput(dataset: "messenger", path: path, format: .json, recordPath: ["messages"])],
      policy: .strict, database: .sqlite(workspace.database))
    configuration.mode = .plan
    let report = try Pipeline(
      datasets: [try #require(Catalog.dataset(named: "messenger"))], configuration: configuration
    )
    .run()
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    let plan = try #require(report.plan)
    let conversations = try #require(plan.tables.first { $0.table == "conversations" })
    #expect(conversations.updates == 1 && conversations.inserts == 0 && conversations.columnsUpdated == ["name": 1])
    #expect(plan.tables.filter { $0.table != "conversations" }.allSatisfy { $0.changes == 0 })
    #expect(try workspace.snapshot() == before)
    // The run itself then stores the new name, repaired as the messages' text is.
    #expect(try load(path, into: workspace).status == .succeeded)
    #expect(try workspace.rows("SELECT * FROM conversations") == ["messenger:wordlescores_5120|Wordle Scores 🟩"])
  }

  @Test(arguments: [
    ("Caf\u{C3}\u{A9}", "Café"),
    ("J\u{E2}\u{9D}\u{A4}\u{EF}\u{B8}\u{8F}hn", "J❤️hn"),
    ("\u{F0}\u{9F}\u{92}\u{96}", "💖"),
    ("plain ASCII", "plain ASCII"),
    // Not Meta's escapes: a real Latin-1 é is no UTF-8; a character above U+00FF means real UTF-8.
    ("Café", "Café"),
    ("\u{C3}", "\u{C3}"),
    ("Caf\u{C3}\u{A9} 💖", "Caf\u{C3}\u{A9} 💖"),
    ("日本", "日本"),
  ])
  func metasLatin1EscapesAreRepairedAndNothingElseIs(text: String, repaired: String) {
    #expect(MessengerDataset.repaired(text) == repaired)
  }

  // MARK: - The document's own fields, given twice or holding no text (issue 55)

  /// A conversation file whose document-level part is `tail` (after its two messages).
  static func conversationFile(messagesAgain: Bool = false, tail: String) -> String {
    let message = { (n: Int) in
      #"{"sender_name": "User 1", "timestamp_ms": \#(1_675_597_571_000 + n), "content": "m\#(n)", "type": "Generic"}"#
    }
    let again = messagesAgain ? ",\n \"messages\": [\(message(3))]" : ""
    return
      "{\"participants\": [{\"name\": \"User 1\"}],\n \"messages\": [\(message(1)), \(message(2))]\(again),\n \(tail)}"
  }

  /// A second `messages` array or a second `title` is a `duplicateKey` at the repeated key, a
  /// `title` that is an object, null or an unpaired surrogate an `invalidValue` at the title:
  /// strict fails at that place and writes nothing; lenient loads every message (the second
  /// array's too), counts the issue and leaves the conversation unnamed.
  @Test(arguments: [
    (true, #""title": "T""#, IssueCode.duplicateKey, Stage.read, "messages", #""messages""#, 2),
    (false, #""title": "T", "title": "U""#, .duplicateKey, .read, "title", #""title": "U""#, 1),
    (false, #""title": {"text": "T"}"#, .invalidValue, .decode, "title", #"{"text""#, 1),
    (false, #""title": null"#, .invalidValue, .decode, "title", "null", 1),
    (false, #""title": "T\ud83d""#, .invalidValue, .decode, "title", #""T\ud83d""#, 1),
  ])
  func aDocumentFieldGivenTwiceOrHoldingNoTextIsAnIssueAtItsPlace(
    messagesAgain: Bool, tail: String, code: IssueCode, stage: Stage, path: String, at needle: String,
    occurrence: Int
  ) throws {
    let text = Self.conversationFile(messagesAgain: messagesAgain, tail: tail)
    let workspace = try ChatExportWorkspace()
    let file = try workspace.directory.write("chat.json", text)
    var offset = text.startIndex
    for _ in 0..<occurrence {
      offset = try #require(text.range(of: needle, range: text.index(after: offset)..<text.endIndex)).lowerBound
    }
    let byteOffset = Int64(text.utf8.distance(from: text.startIndex, to: offset))
    let line = text[..<offset].filter { $0 == "\n" }.count + 1

    let strict = try load(file, into: workspace)
    #expect(strict.status == .failed)
    let issue = try #require(strict.issues.first, "\(strict.failure?.message ?? "")")
    #expect(issue.code == code && issue.stage == stage && issue.path == path, "\(issue)")
    #expect(issue.location?.byteOffset == byteOffset && issue.location?.line == line, "\(issue)")
    // Rolled back: not even the tables were made.
    #expect((try? workspace.count("SELECT count(*) FROM messages")) ?? 0 == 0)

    let lenient = try load(file, into: workspace, policy: .lenient)
    #expect(lenient.status == .succeeded, "\(lenient.failure?.message ?? "")")
    #expect(lenient.issues.map(\.code) == [code] && lenient.issueCounts == [code.rawValue: 1])
    let messages = messagesAgain ? 3 : 2
    #expect(lenient.recordsRead == messages && lenient.recordsLoaded == messages)
    #expect(try workspace.count("SELECT count(*) FROM messages") == messages)
    // The title given once names it; one given twice or holding no text names nothing.
    #expect(try workspace.rows("SELECT name FROM conversations") == [messagesAgain ? "T" : "∅"])
  }
}
