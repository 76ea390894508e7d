import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluiceInspect

/// The structure passes of `sluice inspect`: telling the format, and listing the record paths
/// (arrays of objects, repeated XML elements) with their counts — every path one the record
/// readers accept as it is written.
@Suite("Inspect: format and record paths")
struct InspectOutlineTests {
  private func outline(_ json: String, sample: Int? = nil, maxCandidates: Int = 256, chunk: Int = .max) throws
    -> JSONOutline.Result
  {
    try JSONOutline(source: MemoryByteSource(json, chunk: chunk), sampleSize: sample, maxCandidates: maxCandidates)
      .run()
  }

  private func summary(_ result: JSONOutline.Result) -> [String] {
    result.candidates.map { "\($0.text) \($0.records)/\($0.longest)\($0.isExact ? "" : "+")" }
  }

  static let nested = """
    {"meta": {"tags": [{"t": 1}, {"t": 2}], "version": 3},
     "data": {"items": [
       {"id": 1, "lines": [{"sku": "a"}, {"sku": "b"}], "scores": [1, 2], "grid": [[{"x": 1}]]},
       {"id": 2, "lines": [], "extra": {"notes": [{"n": 1}]}},
       {"id": 3, "lines": [{"sku": "c"}]}
     ]},
     "numbers": [1, 2, 3], "mixed": [{"a": 1}, 2, "x"], "empty": []}
    """

  @Test func listsEveryArrayOfObjectsWithItsRecordsAndItsLongestArray() throws {
    for chunk in [1, 5, Int.max] {
      let result = try outline(Self.nested, chunk: chunk)
      #expect(result.isComplete)
      #expect(
        summary(result) == [
          "meta.tags 2/2", "data.items 3/3", "data.items[].lines 3/2", "data.items[].extra.notes 1/1", "mixed 1/1",
        ])
      // Arrays of scalars, empty arrays and arrays nested directly in arrays are no record paths.
      #expect(result.candidates.first { $0.text == "mixed" }?.otherElements == 2)
    }
  }

  @Test func aPathThroughArraysMissingInSomeElementsIsNotReadable() throws {
    let candidates = try outline(Self.nested).candidates
    #expect(candidates.filter { !$0.isReadable }.map(\.text) == ["data.items[].extra.notes"])
    #expect(candidates.first { $0.text == "data.items[].extra.notes" }?.missingInElements == 2)
    // Empty arrays count as there: every item has `lines`.
    #expect(candidates.first { $0.text == "data.items[].lines" }?.isReadable == true)
    let reader = JSONRecordReader(
      source: MemoryByteSource(Self.nested), layout: .array(path: ["data", "items[]", "extra", "notes"]))
    #expect(throws: RecordReadError.self) { while try reader.next() != nil {} }
    let unreadable = RecordPathCandidate(
      keys: ["a[]", "b"], records: 90, longest: 90, missingInElements: 1, isExact: true)
    let readable = RecordPathCandidate(keys: ["a"], records: 3, longest: 3, isExact: true)
    #expect(RecordPathCandidate.best(of: [unreadable, readable]) == readable)
  }

  @Test func everyReadableListedPathReadsItsRecordsWithTheJSONReader() throws {
    for candidate in try outline(Self.nested).candidates where candidate.isReadable {
      let reader = JSONRecordReader(source: MemoryByteSource(Self.nested), layout: .array(path: candidate.keys))
      var objects = 0
      while let record = try reader.next() {
        if record.bytes.first == UInt8(ascii: "{") { objects += 1 }
      }
      #expect(objects == candidate.records, "\(candidate.text)")
    }
  }

  @Test func aTopLevelArrayIsTheEmptyPathAndItsNestedArraysStepThroughIt() throws {
    let result = try outline(#"[{"items": [{"q": 1}, {"q": 2}]}, {"items": [{"q": 3}]}]"#)
    #expect(summary(result) == ["'' 2/2", "[].items 3/2"])
    #expect(result.candidates.map(\.keys) == [[], ["[]", "items"]])
    #expect(RecordPathCandidate.best(of: result.candidates)?.keys == [])
  }

  @Test func theBestCandidateIsTheLongestSingleArray() {
    let orders = RecordPathCandidate(keys: [], records: 100, longest: 100, isExact: true)
    let items = RecordPathCandidate(keys: ["[]", "items"], records: 400, longest: 7, isExact: true)
    #expect(RecordPathCandidate.best(of: [items, orders]) == orders)
    let chats = RecordPathCandidate(keys: ["chats", "list"], records: 2, longest: 2, isExact: true)
    let messages = RecordPathCandidate(
      keys: ["chats", "list[]", "messages"], records: 500, longest: 300, isExact: true)
    #expect(RecordPathCandidate.best(of: [chats, messages]) == messages)
    // Ties: more records, then the shallower path.
    let shallow = RecordPathCandidate(keys: ["a"], records: 5, longest: 5, isExact: true)
    let deep = RecordPathCandidate(keys: ["b", "c"], records: 5, longest: 5, isExact: true)
    #expect(RecordPathCandidate.best(of: [deep, shallow]) == shallow)
    #expect(RecordPathCandidate.best(of: []) == nil)
    // A sample counts lengths up to its size: two orders sampled, one with four items, are
    // still the records.
    let sampledOrders = RecordPathCandidate(keys: [], records: 2, longest: 2, isExact: false)
    let sampledItems = RecordPathCandidate(keys: ["[]", "items"], records: 7, longest: 4, isExact: false)
    #expect(RecordPathCandidate.best(of: [sampledOrders, sampledItems], sampleSize: 2) == sampledOrders)
    #expect(RecordPathCandidate.best(of: [sampledOrders, sampledItems]) == sampledItems)
  }

  @Test func aNestedListAloneDoesNotStopTheWalkBeforeItsRecordsAreSampled() throws {
    // The first order has five items: a sample of two stops at the second order, not inside the first.
    let json = #"[{"items": [{"q": 1}, {"q": 2}, {"q": 3}, {"q": 4}, {"q": 5}]}, {"items": [{"q": 6}]}, {"items": []}]"#
    let result = try outline(json, sample: 2)
    #expect(summary(result) == ["'' 2/2+", "[].items 6/5+"])
    #expect(RecordPathCandidate.best(of: result.candidates, sampleSize: 2)?.keys == [])
  }

  @Test func aSampleStopsTheWalkOnceOneArrayHasThatManyObjects() throws {
    let records = (1...50).map { #"{"id": \#($0), "items": [{"q": 1}, {"q": 2}]}"# }.joined(separator: ",")
    let json = #"{"head": [{"a": 1}], "data": [\#(records)], "tail": [{"z": 1}]}"#
    let sampled = try outline(json, sample: 10)
    #expect(!sampled.isComplete)
    // `head` had closed: exact. `data` was open, `data[].items` steps through an array: lower bounds.
    #expect(summary(sampled) == ["head 1/1", "data 10/10+", "data[].items 20/2+"])
    let whole = try outline(json)
    #expect(summary(whole) == ["head 1/1", "data 50/50", "data[].items 100/2", "tail 1/1"])
    // A path through arrays stops the walk at ten times the sample in all, before any one
    // array reaches the sample.
    let items = (1...11).map { #"{"q": \#($0)}"# }.joined(separator: ",")
    let many = (1...40).map { _ in #"{"items": [\#(items)]}"# }.joined(separator: ",")
    let nestedStop = try outline(#"{"data": [\#(many)]}"#, sample: 12)
    #expect(summary(nestedStop) == ["data 11/11+", "data[].items 120/11+"])
  }

  @Test func candidatePathsAreCapped() throws {
    let json = "{" + (1...5).map { #""k\#($0)": [{"a": 1}]"# }.joined(separator: ",") + "}"
    let result = try outline(json, maxCandidates: 3)
    #expect(result.candidates.map(\.text) == ["k1", "k2", "k3"])
    #expect(result.droppedCandidates == 2)
  }

  @Test func malformedJSONFailsWithItsLineAndByte() throws {
    let error = #expect(throws: RecordReadError.self) {
      try outline("{\"data\": [\n{\"a\": 1},\n{\"a\": }]}")
    }
    #expect(error?.code == .syntax)
    #expect(error?.location.line == 3)
    #expect(error?.location.byteOffset == 27)
    let after = #expect(throws: RecordReadError.self) { try outline("[{\"a\": 1}] x") }
    #expect(after?.message == "unexpected 'x' after the end of the document")
    let deep = #expect(throws: RecordReadError.self) {
      try JSONOutline(
        source: try Input(path: Corpus.root + "/attacks/json-deep/n_structure_100000_opening_arrays.json"),
        sampleSize: nil
      ).run()
    }
    #expect(deep?.code == .nestingTooDeep)
  }

  // MARK: - XML

  @Test func xmlRepeatedElementsAreCandidatesWithTheirCounts() throws {
    let xml = """
      <?xml version="1.0"?>
      <osm version="0.6"><bounds/>
        <node id="1"><tag k="a" v="1"/></node>
        <node id="2"><tag k="a" v="1"/><tag k="b" v="2"/><tag k="c" v="3"/></node>
        <node id="3"/>
        <way id="9"><nd ref="1"/><nd ref="2"/></way>
      </osm>
      """
    for chunk in [1, 7, Int.max] {
      let result = try XMLOutline(source: MemoryByteSource(xml, chunk: chunk), sampleSize: nil).run()
      #expect(result.isComplete)
      #expect(
        result.candidates.map { "\($0.text) \($0.records)/\($0.longest)" } == [
          "osm.bounds 1/1", "osm.node 3/3", "osm.node.tag 4/3", "osm.way 1/1", "osm.way.nd 2/2",
        ])
    }
  }

  @Test func theStackExchangeDumpsRowsAreItsRecordPath() throws {
    let sample = try XMLOutline(
      source: Input(path: Repository.path("SampleData/stackexchange/Posts.xml")), sampleSize: nil
    )
    .run()
    #expect(sample.candidates.map(\.text) == ["posts.row"])
    #expect(sample.candidates.first?.records == 7)
    let corpus = Corpus.root + "/xml-legacy/stackexchange-conlang-meta/"
    for (file, root, rows) in [("Posts.xml", "posts", 177), ("Users.xml", "users", 272), ("Votes.xml", "votes", 1119)] {
      let result = try XMLOutline(source: Input(path: corpus + file), sampleSize: nil).run()
      #expect(result.candidates.map(\.keys) == [[root, "row"]])
      #expect(result.candidates.first?.records == rows)
      let sampled = try XMLOutline(source: Input(path: corpus + file), sampleSize: 100).run()
      #expect(!sampled.isComplete)
      #expect(sampled.candidates.first?.records == 100)
      #expect(sampled.candidates.first?.isExact == false)
    }
  }

  @Test func xmlThatDeclaresAnEntityOrIsMalformedIsRefused() throws {
    let bomb = #expect(throws: RecordReadError.self) {
      try XMLOutline(source: Input(path: Corpus.root + "/attacks/xml-defusedxml/xmlbomb.xml"), sampleSize: nil).run()
    }
    #expect(bomb?.code == .unsafeXML)
    #expect(bomb?.message.contains("declares the entity 'a'") == true)
    let broken = #expect(throws: RecordReadError.self) {
      try XMLOutline(source: MemoryByteSource("<a>\n<b></c></a>"), sampleSize: nil).run()
    }
    #expect(broken?.code == .syntax)
    #expect(broken?.location.line == 2)
  }

  // MARK: - Format

  @Test func theFormatIsToldFromTheFirstBytes() throws {
    let cases: [(String, PipelineConfiguration.Format)] = [
      ("[{\"a\": 1}]", .json), ("\u{FEFF}\n {\"data\": [{\"a\": 1}]}\n", .json), ("{\"a\": 1}\n{\"a\": 2}\n", .ndjson),
      ("[1]\n[2]", .ndjson), ("\n\n<?xml version=\"1.0\"?><a/>", .xml), ("{\"a\": 1}", .json),
      // A first value that is malformed is left to the JSON pass, which says where.
      ("{\"a\": }\n{\"a\": 2}", .json),
    ]
    for (text, format) in cases {
      #expect(try FormatSniffer.sniff(MemoryByteSource(text, chunk: 3)) == format, "\(text)")
    }
    let garbage = #expect(throws: RecordReadError.self) { try FormatSniffer.sniff(MemoryByteSource("\n  hello")) }
    #expect(
      garbage?.message
        == "the input starts with 'h'; expected JSON ('[' or '{'), NDJSON, XML ('<') or delimited rows (CSV, TSV)")
    #expect(garbage?.location.line == 2)
    #expect(garbage?.location.byteOffset == 3)
    let empty = #expect(throws: RecordReadError.self) { try FormatSniffer.sniff(MemoryByteSource(" \n ")) }
    #expect(empty?.message.contains("empty") == true)
  }
}
