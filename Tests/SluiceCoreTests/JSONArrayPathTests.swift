import Foundation
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

/// Record paths that step through arrays of objects (`chats.list[].messages`), streaming, with
/// the enclosing objects' scalar fields and each record's place in its array.
@Suite("JSON record paths through arrays")
struct JSONArrayPathTests {
  private func read(_ json: String, _ path: [String]) throws -> [RawRecord] {
    let reader = JSONRecordReader(source: MemoryByteSource(Array(json.utf8)), layout: .array(path: path), bufferSize: 7)
    var records: [RawRecord] = []
    while let record = try reader.next() { records.append(record) }
    return records
  }

  static let export = """
    {"about": "x", "chats": {"about": "chats", "list": [
      {"name": "Ana", "type": "personal_chat", "id": 11, "pinned": true, "meta": {"a": 1}, "messages": [{"id": 1}, {"id": 2}], "tail": [1]},
      {"name": "Bo \\"B\\"", "id": 12, "messages": []},
      {"id": 13, "messages": [{"id": 3}]}
    ]}, "end": null}
    """

  @Test func everyChatsMessagesInTurnWithTheChatsFields() throws {
    let records = try read(Self.export, ["chats", "list[]", "messages"])
    #expect(records.map { String(decoding: $0.bytes, as: UTF8.self) } == [#"{"id": 1}"#, #"{"id": 2}"#, #"{"id": 3}"#])
    #expect(records.map(\.position) == [0, 1, 0])
    #expect(records.map(\.location.ordinal) == [1, 2, 3])
    // Scalars only, inner objects' fields winning; `about` comes from the outer objects, and an
    // object member's scalars come as `key.member`.
    #expect(
      records[0].context == [
        "about": "chats", "name": "Ana", "type": "personal_chat", "id": "11", "pinned": "true", "meta.a": "1",
      ])
    #expect(records[2].context == ["about": "chats", "id": "13"])
    #expect(records[2].location.line == 4)
  }

  @Test func aTopLevelObjectsFieldsBeforeTheRecordsArrive() throws {
    let records = try read(#"{"name": "Chat", "id": 7, "messages": [{"id": 1}], "after": 1}"#, ["messages"])
    #expect(records.first?.context == ["name": "Chat", "id": "7"])
    #expect(try read("[1, 2]", []).map(\.context) == [nil, nil])
  }

  /// A Messenger export's `title` follows its `messages`: once the records are all read, the
  /// reader's document fields hold the scalars after them too (a key given again is no winner:
  /// `JSONEnclosingKeyTests`), an object member's one level deep; a member after the records of one element of an
  /// array of objects is not kept; a document broken after its records still fails.
  @Test func theScalarsAfterTheRecordsArriveOnceEveryRecordIsRead() throws {
    let json = #"""
      {"participants": [{"name": "A"}], "id": 1, "messages": [{"id": 1}, {"id": 2}], "title": "T\u00c3\u00a9",
       "is_still_participant": true, "magic_words": [], "image": {"uri": "i.jpg", "deep": {"x": 1}}, "n": 2,
       "thread_path": null}
      """#
    let reader = JSONRecordReader(
      source: MemoryByteSource(Array(json.utf8)), layout: .array(path: ["messages"]), bufferSize: 5)
    #expect(try reader.next() != nil)
    #expect(reader.documentFields == ["id": "1"])
    #expect(try reader.next() != nil)
    #expect(try reader.next() == nil)
    #expect(
      reader.documentFields == [
        "id": "1", "n": "2", "title": "T\u{C3}\u{A9}", "is_still_participant": "true", "image.uri": "i.jpg",
      ])
    // Nested: the chats' trailing members are skipped, the document's are kept.
    let nested = JSONRecordReader(
      source: MemoryByteSource(
        Array(#"{"chats": {"list": [{"id": 5, "messages": [{"id": 1}], "tail": "x"}], "n": 1}, "end": "y"}"#.utf8)),
      layout: .array(path: ["chats", "list[]", "messages"]))
    while try nested.next() != nil {}
    #expect(nested.documentFields == ["n": "1", "end": "y"])
    let topLevel = JSONRecordReader(source: MemoryByteSource(Array("[1]".utf8)), layout: .array(path: []))
    while try topLevel.next() != nil {}
    #expect(topLevel.documentFields == [:])
    for broken in [#"{"messages": [], "title": "x" "more": 1}"#, #"{"messages": [], "title": }"#] {
      let error = #expect(throws: RecordReadError.self) { try read(broken, ["messages"]) }
      #expect(error?.code == .syntax, "\(broken)")
    }
  }

  /// DiscordChatExporter writes the channel and its guild as objects before the messages
  /// (`JsonMessageWriter.WritePreambleAsync`): their scalars reach the records, one level deep.
  @Test func anObjectMembersScalarsArriveAsKeyDotMember() throws {
    let json = #"""
      {"guild": {"id": "9", "name": "G", "iconUrl": null}, "channel": {"id": "100", "category": "Text",
       "name": "general", "topic": null, "deep": {"x": 1}, "list": [1], "flag": false}, "dateRange": {},
       "exportedAt": "2026-06-24", "messages": [{"id": 1}], "messageCount": 1}
      """#
    let records = try read(json, ["messages"])
    #expect(
      records.first?.context == [
        "guild.id": "9", "guild.name": "G", "channel.id": "100", "channel.category": "Text", "channel.name": "general",
        "channel.flag": "false", "exportedAt": "2026-06-24",
      ])
    for broken in [
      #"{"channel": {"id": "1" "name": "x"}, "messages": []}"#, #"{"channel": {"id": }, "messages": []}"#,
      #"{"channel": {"id": "1",}, "messages": []}"#, #"{"channel": {"id": "1""#,
    ] {
      let error = #expect(throws: RecordReadError.self) { try read(broken, ["messages"]) }
      #expect(error?.code == .syntax, "\(broken)")
    }
  }

  @Test func theDocumentIsCheckedAroundEveryArray() throws {
    #expect(throws: RecordReadError.self) {
      try read(#"{"list": [{"messages": [{"id": 1}]}, {"messages": [], "x": }]}"#, ["list[]", "messages"])
    }
    let notObjects = #expect(throws: RecordReadError.self) {
      try read(#"{"list": [[1]]}"#, ["list[]", "messages"])
    }
    #expect(notObjects?.message.contains("expected an object at 'list[]'") == true)
    let notArray = #expect(throws: RecordReadError.self) {
      try read(#"{"list": [{"messages": 3}]}"#, ["list[]", "messages"])
    }
    #expect(notArray?.message == "record path 'list[].messages' holds a number at 'list[].messages', not an array")
  }

  @Test func aPathEndingInAnArrayStepNamesTheRecordArray() throws {
    #expect(try read(#"{"list": [{"a": 1}, {"a": 2}]}"#, ["list[]"]).count == 2)
  }
}
