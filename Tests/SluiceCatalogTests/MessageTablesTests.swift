import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Loads domain messages as they are, through `MessageTables`: each record `{"n": 3}` names a
/// message of the list the run was made with — the tables tested apart from any wire format.
private struct DomainMessages: Dataset {
  struct DTO: Decodable { var n: Int }
  let messages: [Message]

  var name: String { "domain-messages" }
  var summary: String { "messages as domain values" }
  var schema: Schema { MessageTables.schema }
  func validate(_ dto: DTO, into validation: inout Validation) {}
  func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> Message { messages[dto.n] }
  func rows(for message: Message, into rows: inout RecordRows) { MessageTables.rows(for: message, into: &rows) }
}

@Suite("Message tables shared by every chat dataset")
struct MessageTablesTests {
  static let at = Timestamp(Date(timeIntervalSince1970: 1_700_000_000))
  static let general = Conversation(id: "general", name: "General")
  static let ana = Sender(id: "u1", name: "Ana")

  static func message(
    _ id: String, _ content: MessageContent, in conversation: Conversation = general, from sender: Sender? = ana,
    replyTo: String? = nil, attachments: [MessageAttachment] = []
  ) -> Message {
    Message(
      id: Message.scopedID(id, in: conversation.id), conversation: conversation, sender: sender, sentAt: at,
      replyTo: replyTo.map { Message.scopedID($0, in: conversation.id) }, content: content, attachments: attachments)
  }

  static let oneOfEach: [Message] = [
    message("1", .text("hello")),
    message(
      "2", .image(ImageContent(url: "https://example.org/a.png", caption: "a", width: 640, height: 480)), replyTo: "1"),
    message("3", .file(FileContent(name: "a.pdf", url: nil, mimeType: "application/pdf", sizeBytes: 1234))),
    message(
      "4", .system(SystemContent(event: "join", text: nil)), from: nil,
      attachments: []),
    message(
      "5", .text("see attached"),
      attachments: [
        .file(FileContent(name: "b.txt", sizeBytes: 3)), .image(ImageContent(url: "c.png", width: 1, height: 2)),
      ]),
  ]

  /// Loads `messages` (all of them, or those at `indices`) into `database`.
  private func load(
    _ messages: [Message], _ indices: [Int]? = nil, into database: String, in directory: TemporaryDirectory
  )
    throws -> RunReport
  {
    let lines = (indices ?? Array(messages.indices)).map { #"{"n": \#($0)}"# }
    let input = try directory.write("input-\(UUID().uuidString).ndjson", lines.joined(separator: "\n") + "\n")
    let configuration = PipelineConfiguration(
      name: "messages", input: input, format: .ndjson, database: .sqlite(database))
    return try Pipeline(dataset: DomainMessages(messages: messages), configuration: configuration).run()
  }

  private func rows(_ database: String, _ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var rows: [String] = []
    while try statement.step() {
      rows.append(
        (0..<statement.columnCount).map { statement.columnIsNull($0) ? "∅" : statement.columnText($0) ?? "" }
          .joined(separator: "|"))
    }
    return rows
  }

  static let kindCounts =
    "SELECT k.name, count(*) FROM messages m JOIN message_kinds k ON k.id = m.kind_id GROUP BY k.name ORDER BY k.name"

  @Test func everyKindHasItsTableKeyedByTheMessage() {
    let ddl = Dictionary(
      uniqueKeysWithValues: MessageTables.schema.migrations(dialect: SQLiteDialect()).map { ($0.identifier, $0.sql) })
    #expect(MessageTables.schema.lookups.map(\.table) == ["message_kinds"])
    #expect(MessageTables.table(for: .link) == nil)
    for kind in MessageKind.messageKinds {
      guard let table = MessageTables.table(for: kind) else {
        Issue.record("\(kind) has no table")
        continue
      }
      #expect(table.name == "\(kind.rawValue)_messages")
      #expect(table.key == ["message_id"])
      #expect(table.parent?.table === MessageTables.messages)
      let sql = ddl["create table \(table.name)"] ?? ""
      #expect(sql.contains("PRIMARY KEY (message_id)"), "\(sql)")
      #expect(sql.contains("FOREIGN KEY (message_id) REFERENCES messages (message_id) ON DELETE CASCADE"), "\(sql)")
    }
    let messages = ddl["create table messages"] ?? ""
    #expect(messages.contains("conversation_id TEXT NOT NULL REFERENCES conversations,"))
    #expect(messages.contains("sender_id TEXT REFERENCES senders,"))
    #expect(messages.contains("kind_id INTEGER NOT NULL REFERENCES message_kinds (id)"))
    #expect(messages.contains("sent_at TEXT NOT NULL"))
    #expect(messages.contains("reply_to TEXT,"))
    #expect(ddl["create table message_attachments"]?.contains("PRIMARY KEY (message_id, position)") == true)
    #expect(ddl["create table message_kinds"] != nil)
  }

  @Test func oneMessageOfEachKindFillsItsKindsTableAndCountsByKind() throws {
    let directory = try TemporaryDirectory()
    let database = directory.file("m.sqlite")
    let report = try load(Self.oneOfEach, into: database, in: directory)
    #expect(report.status == .succeeded, "\(report.issues) \(report.failure?.message ?? "")")
    #expect(try rows(database, Self.kindCounts) == ["file|1", "image|1", "system|1", "text|2"])
    #expect(
      try rows(database, "SELECT id, name, retired FROM message_kinds ORDER BY id") == [
        "1|text|0", "2|image|0", "3|file|0", "4|system|0", "5|link|0",
      ])
    #expect(
      try rows(
        database,
        "SELECT message_id, conversation_id, sender_id, kind_id, sent_at, reply_to FROM messages ORDER BY message_id")
        == [
          "general/1|general|u1|1|2023-11-14T22:13:20.000Z|∅",
          "general/2|general|u1|2|2023-11-14T22:13:20.000Z|general/1",
          "general/3|general|u1|3|2023-11-14T22:13:20.000Z|∅", "general/4|general|∅|4|2023-11-14T22:13:20.000Z|∅",
          "general/5|general|u1|1|2023-11-14T22:13:20.000Z|∅",
        ])
    #expect(
      try rows(database, "SELECT * FROM text_messages ORDER BY message_id") == [
        "general/1|hello", "general/5|see attached",
      ])
    #expect(try rows(database, "SELECT * FROM image_messages") == ["general/2|https://example.org/a.png|a|640|480"])
    #expect(try rows(database, "SELECT * FROM file_messages") == ["general/3|a.pdf|∅|application/pdf|1234"])
    #expect(try rows(database, "SELECT * FROM system_messages") == ["general/4|join|∅"])
    #expect(
      try rows(database, "SELECT * FROM message_attachments ORDER BY position") == [
        "general/5|0|3|∅|b.txt|∅|∅|3|∅|∅", "general/5|1|2|c.png|∅|∅|∅|∅|1|2",
      ])
    // Every message has exactly one row among the kinds' tables, and it is its own kind's.
    #expect(
      try rows(
        database,
        """
        SELECT count(*) FROM messages m WHERE 1 <> (SELECT count(*) FROM text_messages t WHERE t.message_id = m.message_id)
          + (SELECT count(*) FROM image_messages t WHERE t.message_id = m.message_id)
          + (SELECT count(*) FROM file_messages t WHERE t.message_id = m.message_id)
          + (SELECT count(*) FROM system_messages t WHERE t.message_id = m.message_id)
        """) == ["0"])
    #expect(try rows(database, "SELECT * FROM conversations") == ["general|General"])
    #expect(try rows(database, "SELECT * FROM senders") == ["u1|Ana"])
    #expect(report.rowsWritten["senders"] == 1)
  }

  @Test func reimportingIsIdempotentAndAMessageThatChangedKindLosesItsOldKindsRow() throws {
    let directory = try TemporaryDirectory()
    let database = directory.file("m.sqlite")
    #expect(try load(Self.oneOfEach, into: database, in: directory).status == .succeeded)
    let tables = MessageTables.schema.tableNames
    let before = try DatabaseSnapshot(of: database, tables: tables)
    let again = try load(Self.oneOfEach, into: database, in: directory)
    #expect(again.status == .succeeded)
    #expect(try DatabaseSnapshot(of: database, tables: tables) == before)
    #expect(again.rowsWritten["conversations"] == 0 && again.rowsWritten["senders"] == 0)

    // Message 1 becomes a file; message 5 keeps one attachment of its two.
    let edited = [
      Self.message("1", .file(FileContent(name: "x.bin"))),
      Self.message("5", .text("see attached"), attachments: [.image(ImageContent(url: "d.png"))]),
    ]
    #expect(try load(edited, into: database, in: directory).status == .succeeded)
    #expect(try rows(database, Self.kindCounts) == ["file|2", "image|1", "system|1", "text|1"])
    #expect(try rows(database, "SELECT message_id FROM text_messages") == ["general/5"])
    #expect(
      try rows(database, "SELECT message_id, name FROM file_messages ORDER BY message_id") == [
        "general/1|x.bin", "general/3|a.pdf",
      ])
    #expect(try rows(database, "SELECT message_id, position, url FROM message_attachments") == ["general/5|0|d.png"])
    #expect(try rows(database, "SELECT count(*) FROM pragma_foreign_key_check") == ["0"])
  }

  @Test func aMessageThatDoesNotNameItsSenderOrConversationKeepsTheirNames() throws {
    let directory = try TemporaryDirectory()
    let database = directory.file("m.sqlite")
    let unnamed = Conversation(id: "general")
    let messages = [
      Self.message("1", .text("a")),
      Self.message("2", .text("b"), in: unnamed, from: Sender(id: "u1")),
      Self.message("3", .text("c"), in: Conversation(id: "random"), from: Sender(id: "u2")),
    ]
    #expect(try load(messages, into: database, in: directory).status == .succeeded)
    #expect(
      try rows(database, "SELECT * FROM conversations ORDER BY conversation_id") == ["general|General", "random|∅"])
    #expect(try rows(database, "SELECT * FROM senders ORDER BY sender_id") == ["u1|Ana", "u2|∅"])
    // A later import that names them fills the names in.
    let named = [
      Self.message("4", .text("d"), in: Conversation(id: "random", name: "Random"), from: Sender(id: "u2", name: "Bo"))
    ]
    #expect(try load(named, into: database, in: directory).status == .succeeded)
    #expect(
      try rows(database, "SELECT * FROM conversations ORDER BY conversation_id") == [
        "general|General", "random|Random",
      ])
    #expect(try rows(database, "SELECT * FROM senders ORDER BY sender_id") == ["u1|Ana", "u2|Bo"])
  }

  @Test func scopedIDsNeverCollideAcrossConversations() {
    #expect(Message.scopedID("42", in: "general") == "general/42")
    #expect(Message.scopedID("c", in: "a/b") == "a%2Fb/c")
    #expect(Message.scopedID("b/c", in: "a") == "a/b/c")
    #expect(Message.scopedID("c", in: "a/b") != Message.scopedID("b/c", in: "a"))
    #expect(Message.scopedID("1", in: "50%") == "50%25/1")
    #expect(Message.scopedID("1", in: "50%2F") != Message.scopedID("1", in: "50/"))
  }
}
