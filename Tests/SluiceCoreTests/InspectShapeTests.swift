import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluiceInspect

/// The field shapes `sluice inspect` reports: kinds, presence and nulls counted against the
/// objects that can hold a field, text lengths and looks, array sizes, XML's repeated elements
/// as arrays, the path cap, and values kept only when asked.
@Suite("Inspect: field shapes")
struct InspectShapeTests {
  private func collect(_ records: [String], showsValues: Bool = false, maxPaths: Int = 1_000) throws
    -> (ShapeCollector, [String: FieldShape], [String])
  {
    var collector = ShapeCollector(showsValues: showsValues, maxPaths: maxPaths)
    var tape = RecordTape()
    for record in records {
      try tape.loadJSON(Array(record.utf8))
      collector.add(tape)
    }
    let fields = collector.finish()
    return (collector, Dictionary(uniqueKeysWithValues: fields.map { ($0.path, $0) }), fields.map(\.path))
  }

  private func collectXML(_ document: String, path: [String]) throws -> (ShapeCollector, [String: FieldShape], [String])
  {
    var collector = ShapeCollector()
    let reader = XMLRecordReader(source: MemoryByteSource(document), path: path)
    while let record = try reader.next() {
      if let tape = record.tape { collector.add(tape) }
    }
    let fields = collector.finish()
    return (collector, Dictionary(uniqueKeysWithValues: fields.map { ($0.path, $0) }), fields.map(\.path))
  }

  @Test func presenceAndNullsAreCountedAgainstTheObjectsThatCanHoldTheField() throws {
    let (collector, fields, order) = try collect([
      #"{"id": "a", "note": null, "customer": {"name": "Ann"}, "items": [{"qty": 1}, {"qty": null}]}"#,
      #"{"id": "b", "customer": {"name": null, "vip": true}, "items": []}"#,
      #"{"id": "c", "note": "x", "customer": null, "items": [{"qty": 2, "sku": "s"}]}"#,
      #"{"id": "d", "note": "yy"}"#,
    ])
    #expect(collector.records == 4)
    #expect(
      order == [
        "id", "note", "customer", "customer.name", "customer.vip", "items", "items[]", "items[].qty", "items[].sku",
      ])
    func check(_ path: String, holders: Int, present: Int, null: Int, sourceLocation: SourceLocation = #_sourceLocation)
    {
      let field = fields[path]
      #expect(field?.holders == holders, "\(path) holders", sourceLocation: sourceLocation)
      #expect(field?.present == present, "\(path) present", sourceLocation: sourceLocation)
      #expect(field?.kinds.null == null, "\(path) null", sourceLocation: sourceLocation)
    }
    check("id", holders: 4, present: 4, null: 0)
    check("note", holders: 4, present: 3, null: 1)
    check("customer", holders: 4, present: 3, null: 1)
    // Out of the two customer objects, not the four records.
    check("customer.name", holders: 2, present: 2, null: 1)
    check("customer.vip", holders: 2, present: 1, null: 0)
    check("items", holders: 4, present: 3, null: 0)
    // Elements: present counts them, out of the three arrays.
    check("items[]", holders: 3, present: 3, null: 0)
    check("items[].qty", holders: 3, present: 3, null: 1)
    check("items[].sku", holders: 3, present: 1, null: 0)
    #expect(fields["items"]?.minElements == 0)
    #expect(fields["items"]?.maxElements == 2)
    #expect(fields["note"]?.isSometimesAbsent == true)
    #expect(fields["id"]?.isSometimesAbsent == false)
  }

  @Test func kindsLengthsAndWhatTextLooksLike() throws {
    let (_, fields, _) = try collect([
      #"{"n": 1, "big": 99999999999999999999, "s": "héllo\u00e9", "d": "2024-01-02T03:04:05Z", "i": "0042", "b": "True", "e": ""}"#,
      #"{"n": 1.5, "big": 1, "s": "a\"b", "d": "2024-01-02T03:04:05.5+01:00", "i": "-7", "b": "0", "e": "x"}"#,
      #"{"n": 2e3, "big": 2, "s": "", "d": "yesterday", "i": "12", "b": "false", "e": ""}"#,
    ])
    #expect(fields["n"]?.kinds.integer == 1)
    #expect(fields["n"]?.kinds.number == 2)
    // An integer past Int64 is a number, and remembered as a wide integer.
    #expect(fields["big"]?.kinds.number == 1)
    #expect(fields["big"]?.wideIntegers == 1)
    #expect(fields["big"]?.kinds.integer == 2)
    // Lengths in Unicode scalars, escapes decoded: "héllo" + é is 6, a"b is 3.
    #expect(fields["s"]?.text.minLength == 0)
    #expect(fields["s"]?.text.maxLength == 6)
    #expect(fields["d"]?.text.dateLike == 2)
    #expect(fields["d"]?.text.looksLike == nil)
    #expect(fields["i"]?.text.looksLike == "integer")
    #expect(fields["b"]?.text.looksLike == "boolean")
    #expect(fields["e"]?.text.empty == 2)
    #expect(fields["e"]?.text.looksLike == nil)
    #expect(InspectShapeTests.looks(["1.5", "-2", "3e2"]) == "number")
    #expect(InspectShapeTests.looks(["2024-01-02T03:04:05Z", "2024-02-29T00:00:00.000Z"]) == "date")
    // February 30th is no date the decoder accepts.
    #expect(InspectShapeTests.looks(["2024-02-30T00:00:00Z"]) == nil)
  }

  private static func looks(_ values: [String]) -> String? {
    var collector = ShapeCollector()
    var tape = RecordTape()
    for value in values {
      try? tape.loadJSON(Array(#"{"v": "\#(value)"}"#.utf8))
      collector.add(tape)
    }
    return collector.finish().first?.text.looksLike
  }

  @Test func valuesAreKeptOnlyWhenAsked() throws {
    let records = [
      #"{"name": "Aiko Lima", "qty": 3, "ok": true, "long": "\#(String(repeating: "x", count: 60))"}"#,
      #"{"name": "Aiko Lima", "qty": 4, "ok": false, "long": "y"}"#,
      #"{"name": "Bo", "qty": 5, "ok": true}"#, #"{"name": "Cy", "qty": 6}"#,
    ]
    let (_, hidden, _) = try collect(records)
    #expect(hidden.values.allSatisfy { $0.examples.isEmpty })
    let (_, shown, _) = try collect(records, showsValues: true)
    #expect(shown["name"]?.examples == [#""Aiko Lima""#, #""Bo""#, #""Cy""#])
    #expect(shown["qty"]?.examples == ["3", "4", "5"])
    #expect(shown["ok"]?.examples == ["true", "false"])
    #expect(shown["long"]?.examples.first == "\"" + String(repeating: "x", count: 40) + "…\"")
  }

  @Test func aKeyRepeatedInOneJSONObjectCountsOnce() throws {
    let (collector, fields, _) = try collect([#"{"a": 1, "a": 2}"#, #"{"a": 3}"#])
    #expect(fields["a"]?.present == 2)
    #expect(collector.duplicateKeys == 1)
  }

  @Test func pathsPastTheCapAreCountedNotDescribed() throws {
    let records = (0..<50).map { #"{"id": \#($0), "k\#($0)": {"deep": [1, 2]}}"# }
    let (collector, fields, order) = try collect(records, maxPaths: 10)
    #expect(order.count == 10)
    #expect(fields["id"]?.present == 50)
    #expect(collector.isCapped)
    // id, then k0, k1 and k2 with their deep and deep[] fill the cap: k3 … k49 are left out.
    #expect(collector.untrackedValues == 47)
  }

  @Test func xmlRepeatedElementsAreArraysAndEarlierSinglesFoldIntoThem() throws {
    let document = """
      <osm>
        <node id="1" lat="52.5"><tag k="a" v="1"/></node>
        <node id="2" lat="52.25"/>
        <node id="3" lat="x"><tag k="a" v="1"/><tag k="b" v="2"/><tag k="c"/></node>
        <node id="4" lat="1"><tag k="d" v="4"/><note>hi</note></node>
      </osm>
      """
    let (collector, fields, order) = try collectXML(document, path: ["osm", "node"])
    #expect(collector.records == 4)
    #expect(order == ["id", "lat", "tag", "tag[]", "tag[].k", "tag[].v", "note"])
    // Node 1's single tag, seen before any node repeated it, is an array of one like node 4's.
    #expect(fields["tag"]?.kinds.array == 3)
    #expect(fields["tag"]?.kinds.object == 0)
    #expect(fields["tag"]?.present == 3)
    #expect(fields["tag"]?.holders == 4)
    #expect(fields["tag"]?.minElements == 1)
    #expect(fields["tag"]?.maxElements == 3)
    #expect(fields["tag[]"]?.present == 5)
    #expect(fields["tag[].k"]?.holders == 5)
    #expect(fields["tag[].k"]?.present == 5)
    #expect(fields["tag[].v"]?.present == 4)
    #expect(fields["id"]?.text.looksLike == "integer")
    #expect(fields["lat"]?.text.numberLike == 3)
    #expect(fields["lat"]?.text.looksLike == nil)
    #expect(fields["note"]?.kinds.string == 1)
  }

  @Test func recordsThatAreNotObjectsAreCounted() throws {
    let (collector, fields, _) = try collect([#"{"a": 1}"#, "[1, 2]", "3"])
    #expect(collector.record.kinds.object == 1)
    #expect(collector.record.kinds.array == 1)
    #expect(collector.record.kinds.integer == 1)
    #expect(fields["a"]?.holders == 1)
  }
}
