import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluiceInspect

/// Collections keyed by id (`recipes{id}`): the members of an object are the records, each with
/// its member's name added as a field, read in a stream with the same places, context and
/// checks as an array's elements. The dump is shaped like the recipe-box dataset's
/// `recipes_raw_nosource_*.json` (github.com/rtlee9/recipe-box: an object of recipes keyed by
/// an opaque id, each `{"title", "ingredients": […], "instructions", "picture_link"}`) and like a
/// Firebase Realtime Database export (`{"users": {"<uid>": {…}}}`).
@Suite("Keyed collections in JSON record paths")
struct KeyedCollectionTests {
  private func read(_ json: String, _ path: [String], bufferSize: Int = 7) throws -> [RawRecord] {
    let reader = JSONRecordReader(
      source: MemoryByteSource(Array(json.utf8)), layout: .array(path: path), bufferSize: bufferSize)
    var records: [RawRecord] = []
    while let record = try reader.next() { records.append(record) }
    return records
  }

  private func text(_ record: RawRecord) -> String { String(decoding: record.bytes, as: UTF8.self) }

  static let recipes = """
    {
      "rmK12Uau.ntP510KeImX506H6Mr6jTu": {"title": "Slow Cooker Chicken", "ingredients": ["4 chicken breasts", "2 cans soup"], "instructions": "Cook.", "picture_link": "55lznCYBbs2mT8BTx6BTkLhynGHzM.S"},
      "5ZpZE8hSVdPk2ZXo1mZTyoPWJRSCPSm": {"title": "Awesome Slow Cooker Pot Roast", "ingredients": [], "instructions": "Roast.", "picture_link": null},
      "clyYQv.CplpwJtjNaFGhx0VilNYqRxu" : {  }
    }
    """

  @Test(arguments: [1, 7, 4096])
  func everyMemberIsARecordWithItsNameAsAField(bufferSize: Int) throws {
    let records = try read(Self.recipes, ["{id}"], bufferSize: bufferSize)
    #expect(records.count == 3)
    #expect(records.map(\.position) == [0, 1, 2])
    #expect(records.map(\.location.ordinal) == [1, 2, 3])
    #expect(records.map(\.location.line) == [2, 3, 4])
    // Each record starts at its value's `{` in the input, and its bytes are the input's up to
    // the closing brace, before which the name is added.
    let input = Array(Self.recipes.utf8)
    for record in records { #expect(input[Int(record.location.byteOffset)] == UInt8(ascii: "{")) }
    #expect(text(records[2]) == #"{  "id":"clyYQv.CplpwJtjNaFGhx0VilNYqRxu"}"#)
    let decoded = try records.map { try #require(JSONSerialization.jsonObject(with: Data($0.bytes)) as? [String: Any]) }
    #expect(
      decoded.map { $0["id"] as? String } == [
        "rmK12Uau.ntP510KeImX506H6Mr6jTu", "5ZpZE8hSVdPk2ZXo1mZTyoPWJRSCPSm", "clyYQv.CplpwJtjNaFGhx0VilNYqRxu",
      ])
    #expect(decoded[0]["title"] as? String == "Slow Cooker Chicken")
    #expect((decoded[0]["ingredients"] as? [String])?.count == 2)
    // The bytes before the added member are the input's own, so issues keep their offsets.
    let first = records[0]
    let start = Int(first.location.byteOffset)
    let added = #","id":"rmK12Uau.ntP510KeImX506H6Mr6jTu""#.utf8.count
    #expect(
      Array(first.bytes[..<(first.bytes.count - 1 - added)])
        == Array(input[start..<(start + first.bytes.count - 1 - added)]))
  }

  /// Under a key path, with the enclosing object's scalars as the records' context and those
  /// after the collection as the document's fields; through an array of objects too.
  @Test func underAKeyPathAndThroughAnArray() throws {
    let firebase =
      #"{"version": 3, "users": {"uid-1": {"name": "Ana"}, "uid-2": {"name": "Bo"}}, "exportedAt": "2026-01-01"}"#
    let reader = JSONRecordReader(
      source: MemoryByteSource(Array(firebase.utf8)), layout: .array(path: ["users{uid}"]), bufferSize: 5)
    var records: [RawRecord] = []
    while let record = try reader.next() { records.append(record) }
    #expect(records.map(text) == [#"{"name": "Ana","uid":"uid-1"}"#, #"{"name": "Bo","uid":"uid-2"}"#])
    #expect(records.map(\.context) == [["version": "3"], ["version": "3"]])
    #expect(reader.documentFields == ["version": "3", "exportedAt": "2026-01-01"])

    let shops =
      #"{"shops": [{"id": 1, "stock": {"sku-1": {"qty": 2}}}, {"id": 2, "stock": {}}, {"id": 3, "stock": {"sku-9": {"qty": 0}}}]}"#
    let stock = try read(shops, ["shops[]", "stock{sku}"])
    #expect(stock.map(text) == [#"{"qty": 2,"sku":"sku-1"}"#, #"{"qty": 0,"sku":"sku-9"}"#])
    #expect(stock.map { $0.context?["id"] } == ["1", "3"])
  }

  /// A name with quotes, backslashes and control characters is escaped as JSON; a member whose
  /// value is not an object is read as it is (a DTO then rejects it as of the wrong type).
  @Test func namesAreEscapedAndNonObjectsLeftAsTheyAre() throws {
    let records = try read(#"{"a\"b\\c\n": {"x": 1}, "n": 5, "s": "text", "e": {}}"#, ["{key}"])
    #expect(records.map(text) == [#"{"x": 1,"key":"a\"b\\c\n"}"#, "5", #""text""#, #"{"key":"e"}"#])
    let first = try #require(JSONSerialization.jsonObject(with: Data(records[0].bytes)) as? [String: Any])
    #expect(first["key"] as? String == "a\"b\\c\n")
  }

  /// What is not a keyed collection where the path says one is, and a malformed one, fail with
  /// the path and the place — never a record read from the wrong place.
  @Test func aPathThatDoesNotHoldAnObjectOrABrokenCollectionFails() throws {
    for (json, path, message) in [
      (
        #"{"users": [1, 2]}"#, ["users{id}"],
        "record path 'users{id}' holds an array at 'users', not an object whose members are the records"
      ),
      (
        "[1]", ["{id}"],
        "record path '{id}' holds an array at the top level, not an object whose members are the records"
      ),
      (#"{"a": {"x": 1},}"#, ["{id}"], "trailing comma before '}'"),
      (#"{"a": {"x": 1} "b": {}}"#, ["{id}"], "expected ',' or '}' after a record, found '\"'"),
      (#"{"a" {"x": 1}}"#, ["{id}"], "expected ':' after a member's name in the keyed collection"),
      (#"{"a": {"x": 1}"#, ["{id}"], "unexpected end of input inside the record collection; expected ',' or '}'"),
    ] {
      #expect(throws: RecordReadError.self, "\(json)") { _ = try read(json, path) }
      do {
        _ = try read(json, path)
      } catch let error as RecordReadError {
        #expect(error.message.contains(message), "\(json): \(error.message)")
        #expect(!error.isRecoverable)
      }
    }
  }

  /// The spec and `--record-path` take a keyed collection only as the path's last component,
  /// well formed, for JSON.
  @Test func theSyntaxIsCheckedBeforeAnyInputIsRead() {
    #expect(KeyedCollection("recipes{id}") == KeyedCollection(key: "recipes", field: "id"))
    #expect(KeyedCollection("{id}") == KeyedCollection(key: "", field: "id"))
    for bad in ["recipes{}", "recipes{id", "recipes}", "{{id}}", "a{b}c"] {
      #expect(KeyedCollection(bad) == nil, "\(bad)")
      #expect(KeyedCollection.problem(in: [bad], jsonFormat: true)?.contains("is written key{field}") == true, "\(bad)")
    }
    #expect(KeyedCollection.problem(in: ["data", "recipes{id}"], jsonFormat: true) == nil)
    #expect(KeyedCollection.problem(in: ["recipes{id}", "steps"], jsonFormat: true)?.contains("can only end") == true)
    #expect(KeyedCollection.problem(in: ["r{id}"], jsonFormat: false)?.contains("XML has none") == true)
    #expect(KeyedCollection.problem(in: ["data", "list[]", "x"], jsonFormat: true) == nil)
    for (recordPath, format, fails) in [
      ("recipes{id}", "json", false), ("recipes{id}.x", "json", true), ("recipes{}", "json", true),
      ("r{id}", "xml", true),
    ] {
      let spec = #"{"dataset": "fruits", "input": "x.json", "format": "\#(format)", "recordPath": "\#(recordPath)"}"#
      do {
        let parsed = try PipelineSpec(data: Data(spec.utf8), path: "spec.json")
        #expect(!fails, "\(recordPath) was taken")
        #expect(parsed.recordPath == PipelineSpec.parseRecordPath(recordPath))
      } catch {
        #expect(fails, "\(recordPath): \(error)")
        #expect(error.message.hasPrefix("'recordPath': '"), "\(error.message)")
      }
    }
  }
}

/// A keyed collection through the whole pipeline and through `inspect`: people keyed by id load
/// into their table keyed by it, a re-run of the members in another order changes nothing, an
/// issue points at its byte and field, and a record with an `id` of its own is refused.
@Suite("Keyed collections loaded and inspected")
struct KeyedCollectionPipelineTests {
  let directory: TemporaryDirectory
  init() throws { directory = try TemporaryDirectory() }

  private func load(_ json: String, policy: Policy = .strict, into database: String) throws -> RunReport {
    let input = try directory.write("people-\(UUID().uuidString).json", json)
    let configuration = PipelineConfiguration(
      name: "people", input: input, format: .json, recordPath: ["data", "people{id}"], policy: policy,
      database: .sqlite(database))
    return try Pipeline(dataset: PeopleDataset(), configuration: configuration.counted).run()
  }

  @Test func membersLoadKeyedByTheirNamesAndAReorderedReRunChangesNothing() throws {
    let database = directory.file("people.sqlite")
    let first = try load(
      #"{"data": {"people": {"p-1": {"name": "Ana", "email": "ana@x"}, "p-2": {"name": "Bo", "email": null}}}}"#,
      into: database)
    #expect(first.failure == nil && first.tableRows["people"] == 2 && first.issues.isEmpty, "\(first.issues)")
    let people = try DatabaseSnapshot(of: database, tables: ["people"])
    #expect(people.tables["people"] == ["'p-1'|'Ana'|'ana@x'", "'p-2'|'Bo'|NULL"])
    let again = try load(
      #"{"data": {"people": {"p-2": {"email": null, "name": "Bo"}, "p-1": {"name": "Ana", "email": "ana@x"}}}}"#,
      into: database)
    #expect(again.failure == nil && again.tableRows["people"] == 2)
    #expect(try DatabaseSnapshot(of: database, tables: ["people"]) == people)
  }

  @Test func anIssuePointsAtItsByteAndFieldAndAnIdOfTheRecordsOwnIsRefused() throws {
    let json =
      #"{"data": {"people": {"p-1": {"name": 5, "email": null}, "p-2": {"id": "x", "name": "B", "email": null}, "p-3": {"name": "C", "email": null}}}}"#
    let report = try load(json, policy: .lenient, into: directory.file("issues.sqlite"))
    #expect(report.failure == nil && report.tableRows["people"] == 1)
    let typeIssue = try #require(report.issues.first { $0.path == "name" }, "\(report.issues)")
    let nameOffset = Int64(Array(json.utf8).firstIndex(of: UInt8(ascii: "5"))!)
    #expect(typeIssue.location?.byteOffset == nameOffset)
    #expect(report.issues.contains { $0.code == .duplicateKey && $0.path == "id" }, "\(report.issues)")
  }

  /// `inspect` proposes a keyed collection where an object's first member has an id-like name
  /// and an object as its value, at the top level or under keys; named sub-objects of a record
  /// (`customer`, `shipping`) are not one.
  @Test func inspectProposesAKeyedCollectionAndNotARecordsNamedObjects() throws {
    let top = try directory.write("top.json", KeyedCollectionTests.recipes)
    let inspected = try Inspector.inspect(path: top)
    #expect(inspected.recordPath == ["{id}"])
    #expect(inspected.records == 3)
    #expect(inspected.fields.contains { $0.path == "id" })
    let nested = try directory.write(
      "nested.json", #"{"exported": "2026", "users": {"-Mx3fQ1": {"name": "A"}, "-Mx3fQ2": {"name": "B"}}}"#)
    #expect(try Inspector.inspect(path: nested).recordPath == ["users{id}"])
    let orders = try directory.write(
      "orders.json", #"{"orders": [{"customer": {"name": "A"}, "shipping": {"city": "B"}, "items": [{"sku": "1"}]}]}"#)
    let candidates = try Inspector.inspect(path: orders).candidates.map(\.text)
    #expect(candidates == ["orders", "orders[].items"])
    for (name, isID) in [
      ("1042", true), ("rmK12Uau.ntP510KeImX506H6Mr6jTu", true), ("customer", false), ("shipping_address", false),
      ("two words 1", false), ("", false),
    ] {
      #expect(JSONOutline.looksLikeID(name) == isID, "\(name)")
    }
  }
}

extension KeyedCollection {
  init(key: String, field: String) {
    self.init("\(key){\(field)}")!
  }
}
