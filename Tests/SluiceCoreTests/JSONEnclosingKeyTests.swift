import Foundation
import Testing

@_spi(Internals) @testable import SluiceCore

/// Keys repeated in the objects around the records (issue 55): the key that leads to the record
/// array given twice, and a document field given twice, are `duplicateKey` issues at the
/// repeated key — never a silent last-wins or a silently ignored second array — and a document
/// field that holds no text (null, an object, an unpaired surrogate) is known as such.
@Suite("JSON keys repeated around the records")
struct JSONEnclosingKeyTests {
  /// What a reader gives: its records, and its recoverable errors in order.
  private struct Reading {
    var records: [String] = []
    var issues: [RecordReadError] = []
  }

  private func read(_ json: String, _ path: [String], bufferSize: Int = 5) throws -> (Reading, JSONRecordReader) {
    let reader = JSONRecordReader(
      source: MemoryByteSource(Array(json.utf8)), layout: .array(path: path), bufferSize: bufferSize)
    var reading = Reading()
    while true {
      do {
        guard let record = try reader.next() else { break }
        reading.records.append(String(decoding: record.bytes, as: UTF8.self))
      } catch let error as RecordReadError where error.isRecoverable {
        reading.issues.append(error)
      }
    }
    return (reading, reader)
  }

  private func offset(of needle: String, in text: String, occurrence: Int) -> Int64 {
    var from = text.startIndex
    var found = text.startIndex
    for _ in 0..<occurrence {
      guard let range = text.range(of: needle, range: from..<text.endIndex) else { return -1 }
      found = range.lowerBound
      from = range.upperBound
    }
    return Int64(text.utf8.distance(from: text.startIndex, to: found))
  }

  @Test func aSecondRecordArrayUnderTheSameKeyIsADuplicateKeyIssueAndItsRecordsAreReadToo() throws {
    let json = "{\"orders\": [{\"id\": 1}, {\"id\": 2}],\n \"orders\": [{\"id\": 3}, {\"id\": 4}]}"
    let (reading, _) = try read(json, ["orders"])
    // Every record is read (as `inspect` counts them), and the repeat is said once, at its key.
    #expect(reading.records == [#"{"id": 1}"#, #"{"id": 2}"#, #"{"id": 3}"#, #"{"id": 4}"#])
    let issue = try #require(reading.issues.first)
    #expect(reading.issues.count == 1)
    #expect(issue.code == .duplicateKey && issue.path == "orders" && issue.isOutsideRecords)
    #expect(issue.location.byteOffset == offset(of: "\"orders\"", in: json, occurrence: 2))
    #expect(issue.location.line == 2 && issue.location.ordinal == 0)
  }

  @Test func aRepeatedKeyOnTheWayToTheRecordsIsFoundAtEveryDepth() throws {
    // The outer key of a two-key path, and the record key inside one chat of a list.
    let outer = #"{"data": {"orders": [1]}, "data": {"orders": [2, 3]}}"#
    let (first, _) = try read(outer, ["data", "orders"])
    #expect(first.records == ["1", "2", "3"])
    #expect(first.issues.map(\.code) == [.duplicateKey] && first.issues.first?.path == "data")
    #expect(first.issues.first?.location.byteOffset == offset(of: "\"data\"", in: outer, occurrence: 2))

    let chats = #"{"chats": [{"id": 1, "messages": [1]}, {"id": 2, "messages": [2], "messages": []}]}"#
    let (second, _) = try read(chats, ["chats[]", "messages"])
    #expect(second.records == ["1", "2"])
    #expect(second.issues.map(\.path) == ["chats[1].messages"])
    #expect(second.issues.first?.location.byteOffset == offset(of: "\"messages\"", in: chats, occurrence: 3))
  }

  @Test func aRepeatedDocumentFieldIsADuplicateKeyIssueAndNeitherValueIsKept() throws {
    // Messenger's `title` after its messages, given twice; an `id` before and after them.
    let json = #"{"id": 1, "messages": [{"n": 1}], "title": "A", "title": "B", "id": 2, "x": null, "x": 3}"#
    let (reading, reader) = try read(json, ["messages"])
    #expect(reading.records == [#"{"n": 1}"#])
    #expect(reading.issues.map(\.code) == [.duplicateKey, .duplicateKey, .duplicateKey])
    #expect(reading.issues.map(\.path) == ["title", "id", "x"])
    #expect(
      reading.issues.map(\.location.byteOffset) == [
        offset(of: "\"title\"", in: json, occurrence: 2), offset(of: "\"id\"", in: json, occurrence: 2),
        offset(of: "\"x\"", in: json, occurrence: 2),
      ])
    #expect(reader.documentFields == [:])
  }

  @Test func aDocumentFieldThatHoldsNoTextIsKnownByWhatItHolds() throws {
    let json = #"{"messages": [], "title": {"a": 1}, "name": null, "about": "bad \ud800 escape", "n": 5}"#
    let (reading, reader) = try read(json, ["messages"])
    #expect(reading.issues.isEmpty)
    #expect(reader.documentFields == ["title.a": "1", "n": "5"])
    let unreadable = reader.unreadableDocumentFields
    #expect(unreadable["title"]?.holds == "an object")
    #expect(unreadable["name"]?.holds == "null")
    #expect(unreadable["about"]?.holds == "a string with an unpaired surrogate escape")
    #expect(unreadable["about"]?.location.byteOffset == offset(of: "\"bad", in: json, occurrence: 1))
    #expect(unreadable["n"] == nil)
  }
}

/// The escapes a rejects file keeps bytes that are not UTF-8 in (issue 55, finding 5).
@Suite("JSON strings that keep bytes")
struct JSONStringKeptBytesTests {
  @Test(arguments: [
    [UInt8]("bad".utf8) + [0x81] + Array(",ok".utf8),
    [0xFF, 0xFE, 0xC3, 0x28, 0xED, 0xA0, 0x80] + Array("é \"q\" \\ \n".utf8),
    Array("plain".utf8),
  ])
  func bytesThatAreNotUTF8SurviveTheirEscapes(_ bytes: [UInt8]) throws {
    let body = JSONString.escapedKeepingBytes(bytes)
    #expect(!body.contains("\u{FFFD}"))
    #expect(JSONString.decodeKeepingBytes(Array(body.utf8)) == bytes)
  }

  @Test func aSurrogatePairWrittenByHandStaysItsCharacter() {
    // U+1F480 is \ud83d\udc80: its low half is no kept byte.
    #expect(JSONString.decodeKeepingBytes(Array(#"a\ud83d\udc80\udc81"#.utf8)) == Array("a💀".utf8) + [0x81])
    #expect(JSONString.decodeKeepingBytes(Array(#"\ud800x"#.utf8)) == nil)
  }
}
