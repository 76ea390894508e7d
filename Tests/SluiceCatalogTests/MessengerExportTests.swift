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
    // The file's title comes after its messages: the conversation is the file, unnamed.
    #expect(try workspace.rows("SELECT * FROM conversations") == ["\(conversation)|∅"])
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
  /// stored as written; a message with nothing but reactions is reported, not guessed.
  @Test func instagramsEscapedUTF8IsStoredAsTheRealText() throws {
    let messages = try ChatCorpus.array(Self.instagramFile, at: ["messages"])
    #expect(messages.count == 13)
    let workspace = try ChatExportWorkspace()
    let report = try load(ChatCorpus.path(Self.instagramFile), into: workspace, policy: .lenient)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    // 13 read = 12 loaded + 1 rejected (reactions only) + 0 skipped.
    #expect(report.recordsRead == 13 && report.recordsLoaded == 12 && report.recordsRejected == 1)
    let issue = try #require(report.issues.first { $0.severity == .error })
    #expect(
      issue.stage == .validate && issue.code == .missingField && issue.path == "content" && issue.location?.ordinal == 1
    )
    #expect(report.issueCounts == ["missingField": 1])
    #expect(try workspace.kinds() == ["text": 9, "file": 2, "image": 1])
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
}
