import Foundation
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

/// XML Schema's null, `xsi:nil="true"`, reads as JSON's `null`: a required field is
/// `nullValue`, an optional one nil — so the same bad record gets the same issue from JSON and XML.
@Suite("xsi:nil is null")
struct XMLNilTests {
  private struct Line: Decodable, Equatable {
    var sku: String
    var note: String?
  }

  private struct Tagged: Decodable {
    var sku: String
    var tags: [String]?
  }

  private func decode(_ xml: String) throws -> Result<Line, RecordDecodingError> {
    let reader = XMLRecordReader(source: MemoryByteSource(Array(xml.utf8)), path: ["lines", "line"])
    let record = try #require(try reader.next())
    var diagnostics = DecodeDiagnostics()
    return Result { () throws(RecordDecodingError) in
      try SluiceDecoder().decode(Line.self, from: record, diagnostics: &diagnostics)
    }
  }

  private let xsi = #"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#

  @Test func aNilOptionalIsNil() throws {
    let line = try decode(#"<lines \#(xsi)><line><sku>S</sku><note xsi:nil="true"/></line></lines>"#).get()
    #expect(line == Line(sku: "S", note: nil))
  }

  @Test func aNilOptionalArrayIsNilAsInJSON() throws {
    // An empty element asked for as an array is an empty one; a nil one is no array, as JSON's
    // null is. Found by the replay fuzz target: it failed as `nullValue` at `tags[0]`.
    let reader = XMLRecordReader(
      source: MemoryByteSource(Array(#"<lines \#(xsi)><line><sku>S</sku><tags xsi:nil="true"/></line></lines>"#.utf8)),
      path: ["lines", "line"])
    let record = try #require(try reader.next())
    var diagnostics = DecodeDiagnostics()
    let tagged = try SluiceDecoder().decode(Tagged.self, from: record, diagnostics: &diagnostics)
    #expect(tagged.tags == nil)
    let empty = XMLRecordReader(
      source: MemoryByteSource(Array("<lines><line><sku>S</sku><tags/></line></lines>".utf8)), path: ["lines", "line"])
    let emptyRecord = try #require(try empty.next())
    #expect(try SluiceDecoder().decode(Tagged.self, from: emptyRecord, diagnostics: &diagnostics).tags == [])
  }

  @Test func aNilRequiredFieldIsNullValueAtItsPath() throws {
    let xml = #"<lines \#(xsi)><line><sku xsi:nil="1"/></line></lines>"#
    guard case .failure(let error) = try decode(xml) else {
      Issue.record("a nil sku decoded")
      return
    }
    #expect(error.code == .nullValue)
    #expect(error.path == "sku")
  }

  @Test func nilFalseIsNoAttributeAndNilInAnotherNamespaceIsAField() throws {
    let notNil = #"<lines \#(xsi)><line><sku>S</sku><note xsi:nil="false">n</note></line></lines>"#
    #expect(try decode(notNil).get() == Line(sku: "S", note: "n"))
    // `x:nil` is an ordinary attribute: the note is an element with an attribute and text, an
    // object, which a `String?` cannot take.
    let other = #"<lines xmlns:x="urn:other"><line><sku>S</sku><note x:nil="true">n</note></line></lines>"#
    guard case .failure(let error) = try decode(other) else {
      Issue.record("an x:nil note decoded as a string")
      return
    }
    #expect(error.code == .typeMismatch)
    #expect(error.path == "note")
  }
}
