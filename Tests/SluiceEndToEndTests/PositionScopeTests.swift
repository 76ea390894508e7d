import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// A top-level table keyed by the record's position (`"$position"`) is keyed by its input too
/// (`"$input"`): positions restart at 0 in every input, so a key of position alone let a
/// Messenger thread's `message_2.json` replace `message_1.json`'s rows, children and all, exit 0
/// (issue 58). The thread is real (`Tests/Corpus/messages/facebook/split-thread`), split in two.
@Suite("dataset files: positions scoped by their input")
struct PositionScopeTests {
  static let thread = "Tests/Corpus/messages/facebook/split-thread"

  /// The Messenger thread's messages, keyed by input and position, their photos a child table.
  static func dataset(key: [String] = ["record_input", "record_position"]) -> String {
    """
    { "name": "thread",
      "fields": [
        { "name": "sender_name", "type": "text" }, { "name": "timestamp_ms", "type": "integer" },
        { "name": "content", "type": "text", "optional": true },
        { "name": "photos", "type": "array", "optional": true, "items": { "type": "object", "fields": [
          { "name": "uri", "type": "text" }, { "name": "creation_timestamp", "type": "integer" }] } }
      ],
      "tables": [
        { "name": "messages", "key": [\(key.map { "\"\($0)\"" }.joined(separator: ", "))],
          "columns": [{ "name": "record_input", "field": "$input" }, { "name": "record_position", "field": "$position" },
                      { "name": "sender_name" }, { "name": "timestamp_ms" }, { "name": "content" }] },
        { "name": "photos", "parent": "messages", "field": "photos", "position": "photo_position",
          "columns": [{ "name": "uri" }] }
      ] }
    """
  }

  /// The thread copied into a scratch folder, beside a dataset file and a spec that reads
  /// `inbox/*/message_*.json`.
  static func workspace(dataset: String = dataset()) throws -> TemporaryDirectory {
    let scratch = try TemporaryDirectory()
    try FileManager.default.copyItem(atPath: Repository.path("\(thread)/inbox"), toPath: scratch.file("inbox"))
    _ = try scratch.write("thread.dataset.json", dataset)
    _ = try scratch.write(
      "thread.json",
      #"{"dataset": "thread.dataset.json", "input": "inbox/*/message_*.json", "format": "json", "recordPath": "messages", "database": "thread.sqlite"}"#
    )
    return scratch
  }

  /// The messages of both files as an independent parse reads them: input name, position, sender.
  static func expectedMessages() throws -> [String] {
    var rows: [String] = []
    for file in ["message_1.json", "message_2.json"] {
      let name = "inbox/user1andusers2_10153923148213829/\(file)"
      let data = try Data(contentsOf: URL(fileURLWithPath: Repository.path("\(thread)/\(name)")))
      let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      let messages = try #require(document["messages"] as? [[String: Any]])
      for (position, message) in messages.enumerated() {
        rows.append("'\(name)'|\(position)|'\(try #require(message["sender_name"] as? String))'")
      }
    }
    return rows.sorted()
  }

  @Test func twoFilesOfOneThreadKeepEachOthersRowsAndARerunReplacesOnlyItsOwn() throws {
    let scratch = try Self.workspace()
    for _ in 0..<2 {
      let result = try SluiceCommand.run(["run", scratch.file("thread.json")], in: scratch.path)
      #expect(result.status == 0, "\(result.stderr)")
    }
    let rows = try DatabaseSnapshot(of: scratch.file("thread.sqlite"), tables: ["messages", "photos"])
    let messages = (rows.tables["messages"] ?? []).map { $0.split(separator: "|").prefix(3).joined(separator: "|") }
    #expect(messages.count == 11)
    #expect(messages.sorted() == (try Self.expectedMessages()))
    // message_2.json's first message has the thread's one photo; message_1.json's has none.
    let photo = "'inbox/user1andusers2_10153923148213829/message_2.json'|0|0"
    #expect(rows.tables["photos"]?.map { $0.split(separator: "|").prefix(3).joined(separator: "|") } == [photo])
  }

  @Test func aKeyOfThePositionAloneIsRefusedSayingWhatToAdd() throws {
    let scratch = try Self.workspace(dataset: Self.dataset(key: ["record_position"]))
    let result = try SluiceCommand.run(["run", scratch.file("thread.json")], in: scratch.path)
    #expect(result.status == 64)
    #expect(
      result.stderr.contains(
        #"'tables[0].key[0]': a key of the record's position alone lets a second input replace the first one's rows (positions restart at 0 in every input): add a column { "name": "record_input", "field": "$input" } and put it in the key before record_position"#
      ), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("thread.sqlite")))
  }

  /// A database a Sluice before the fix wrote — `messages` keyed by position alone, no
  /// `record_input` — is refused before anything is written, with what to do.
  @Test func aTableWrittenBeforePositionsWereScopedIsRefusedUntouched() throws {
    let scratch = try Self.workspace()
    let database = scratch.file("thread.sqlite")
    let old = try SQLiteConnection(path: database, options: .init(readOnly: false, create: true))
    try old.execute(
      """
      CREATE TABLE sluice_migrations (identifier TEXT NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL);
      INSERT INTO sluice_migrations VALUES ('create table messages', '2026-12-01T00:00:00Z');
      CREATE TABLE messages (record_position INTEGER NOT NULL PRIMARY KEY, sender_name TEXT NOT NULL,
        timestamp_ms INTEGER NOT NULL, content TEXT);
      INSERT INTO messages VALUES (0, 'User 1', 1, 'kept');
      """)
    let result = try SluiceCommand.run(["run", scratch.file("thread.json")], in: scratch.path)
    #expect(result.status == 73)
    #expect(
      result.stderr.contains(
        "table messages exists without column(s) record_input that the dataset declares; migrate it by hand or use another database"
      ), "\(result.stderr)")
    let rows = try DatabaseSnapshot(of: database, tables: ["messages"])
    #expect(rows.tables["messages"] == ["0|'User 1'|1|'kept'"])
  }
}
