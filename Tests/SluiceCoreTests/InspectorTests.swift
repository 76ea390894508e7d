import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluiceInspect

/// `Inspector` end to end on files: format and gzip found from the content, the record path
/// chosen or given, samples against whole inputs, NDJSON's bad lines, and both renderings.
@Suite("Inspect: the inspector and its reports")
struct InspectorTests {
  static let document = """
    {"meta": {"tags": [{"t": 1}]},
     "data": {"items": [
       {"id": "a1", "name": "Ann", "note": null, "lines": [{"qty": 1}, {"qty": 2.5}]},
       {"id": "b2", "name": "Bartholomew", "lines": []},
       {"id": "c3", "name": "Cy", "note": "n", "lines": [{"qty": 3}]},
       {"id": "d4", "name": "Di", "note": null, "lines": [{"qty": 4}]}
     ]}}
    """

  @Test func aGzipDocumentIsInspectedAtItsBestRecordPath() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("dump.bin", Gzip.compress(Self.document))
    let inspection = try Inspector.inspect(path: file)
    #expect(inspection.isGzip)
    #expect(inspection.format == .json)
    #expect(inspection.formatWasDetected)
    #expect(inspection.recordPath == ["data", "items"])
    #expect(inspection.candidates.map(\.text) == ["meta.tags", "data.items", "data.items[].lines"])
    #expect(inspection.records == 4)
    #expect(!inspection.hasMoreRecords)
    #expect(inspection.decompressedBytes == Int64(Self.document.utf8.count))
    #expect(inspection.fileBytes == Int64(Gzip.compress(Self.document).count))
    let note = try #require(inspection.fields.first { $0.path == "note" })
    #expect((note.present, note.holders, note.kinds.null) == (3, 4, 2))
    #expect(inspection.fields.first { $0.path == "lines[].qty" }?.kinds.nonNull.map(\.name) == ["integer", "number"])
  }

  @Test func aGivenRecordPathIsInspectedAndAWrongOneNamesTheCandidates() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("dump.json", Self.document)
    let lines = try Inspector.inspect(path: file, options: InspectOptions(recordPath: ["data", "items[]", "lines"]))
    #expect(lines.records == 4)
    #expect(lines.recordPathWasGiven)
    #expect(lines.fields.map(\.path) == ["qty"])
    let wrong = #expect(throws: RecordReadError.self) {
      try Inspector.inspect(path: file, options: InspectOptions(recordPath: ["data", "things"]))
    }
    #expect(wrong?.message.hasSuffix("record paths found: meta.tags, data.items, data.items[].lines") == true)
  }

  @Test func aSampleReadsThatManyRecordsAndSaysMoreFollow() throws {
    let scratch = try TemporaryDirectory()
    let lines = (1...30).map { #"{"n": \#($0)}"# }.joined(separator: "\n")
    let file = try scratch.write("lines.ndjson", lines + "\n")
    let sampled = try Inspector.inspect(path: file, options: InspectOptions(sampleSize: 10))
    #expect(sampled.format == .ndjson)
    #expect(sampled.records == 10)
    #expect(sampled.hasMoreRecords)
    #expect(sampled.decompressedBytes == nil)
    #expect(sampled.fields.first?.present == 10)
    let whole = try Inspector.inspect(path: file, options: InspectOptions(sampleSize: nil))
    #expect(whole.records == 30)
    #expect(!whole.hasMoreRecords)
    let exact = try Inspector.inspect(path: file, options: InspectOptions(sampleSize: 30))
    #expect(exact.records == 30)
    #expect(!exact.hasMoreRecords)
  }

  @Test func badNDJSONLinesAreCountedAndSkipped() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("lines.ndjson", "{\"a\": 1}\n{\"a\": \n{\"a\": 2}\nnope\n")
    let inspection = try Inspector.inspect(path: file)
    #expect(inspection.records == 2)
    #expect(inspection.skippedRecords == 2)
    #expect(inspection.firstSkippedRecord?.location.line == 2)
    #expect(
      inspection.text().contains(
        "\nskipped: 2 record(s) could not be read; the first at line 2, byte 15: unexpected end of line; expected a value"
      ))
    let document = try #require(try JSONSerialization.jsonObject(with: Data(inspection.json().utf8)) as? [String: Any])
    #expect((document["skippedRecords"] as? [String: Any])?["count"] as? Int == 2)
  }

  @Test func aRecordPathForNDJSONAndAnInputWithoutRecordsAreRefused() throws {
    let scratch = try TemporaryDirectory()
    let lines = try scratch.write("lines.ndjson", "{\"a\": 1}\n{\"a\": 2}\n")
    let notApplicable = #expect(throws: InspectionError.self) {
      try Inspector.inspect(path: lines, options: InspectOptions(recordPath: ["a"]))
    }
    #expect(notApplicable?.code == .recordPathNotApplicable)
    let object = try scratch.write("object.json", #"{"a": [1, 2], "b": {"c": 3}}"#)
    let none = #expect(throws: InspectionError.self) { try Inspector.inspect(path: object) }
    #expect(none?.code == .noRecordPath)
    #expect(throws: InputError.self) { try Inspector.inspect(path: scratch.file("missing.json")) }
  }

  @Test func aDamagedGzipStreamIsReportedAsSuch() throws {
    let scratch = try TemporaryDirectory()
    let packed = Gzip.compress(String(repeating: #"{"a": "x"},"#, count: 2_000))
    let file = try scratch.write("cut.json.gz", Array(packed.prefix(packed.count / 2)))
    let error = #expect(throws: InputError.self) { try Inspector.inspect(path: file) }
    #expect(error?.code == .truncatedStream)
  }

  @Test func theTextReportHasAHeaderTheRecordPathsAndAlignedFields() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("dump.json", Self.document)
    let text = try Inspector.inspect(path: file).text()
    let lines = text.components(separatedBy: "\n")
    #expect(lines[0] == "file     \(file)")
    #expect(lines[1] == "size     \(Self.document.utf8.count) bytes")
    #expect(lines[2] == "format   JSON, records in an array at a key path (detected)")
    #expect(lines[3] == "records  4 at data.items, all of them")
    #expect(text.contains("\n  *  data.items                4        4\n"))
    #expect(text.contains("\n     data.items[].lines        4        2\n"))
    let fieldRows = lines.drop { !$0.hasPrefix("  FIELD") }
    #expect(fieldRows.first == "  FIELD        TYPES                PRESENT            NULL       LENGTH")
    #expect(fieldRows.contains("  note         string                   3/4    75.0 %  2  50.0 %  1 chars"))
    #expect(fieldRows.contains("  lines[]      object                     4  elements  0"))
    #expect(fieldRows.contains("  lines[].qty  integer 3, number 1      4/4   100.0 %  0"))
    #expect(fieldRows.contains("  name         string                   4/4   100.0 %  0          2…11 chars"))
    // Every field row's PRESENT column ends at the same place.
    let ends = fieldRows.filter { $0.contains("%") }.map { $0.range(of: "%")?.lowerBound.utf16Offset(in: $0) }
    #expect(Set(ends).count == 1)
    #expect(!text.contains("Bartholomew"))
  }

  @Test func theJSONReportParsesWithItsDocumentedKeys() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("dump.json", Self.document)
    let json = try Inspector.inspect(path: file, options: InspectOptions(showsValues: true)).json()
    let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(
      Set(document.keys) == [
        "inspectVersion", "input", "format", "formatDetected", "recordPath", "recordPathKeys", "sample", "records",
        "moreRecords", "recordTypes", "candidatesComplete", "candidates", "fields", "notes",
      ])
    #expect(document["inspectVersion"] as? Int == 1)
    #expect(document["recordPath"] as? String == "data.items")
    #expect(document["recordPathKeys"] as? [String] == ["data", "items"])
    #expect(document["sample"] as? Int == 1_000)
    let candidates = try #require(document["candidates"] as? [[String: Any]])
    #expect(candidates.map { $0["path"] as? String } == ["meta.tags", "data.items", "data.items[].lines"])
    #expect(candidates.map { $0["selected"] as? Bool } == [false, true, false])
    let fields = try #require(document["fields"] as? [[String: Any]])
    let name = try #require(fields.first { $0["path"] as? String == "name" })
    #expect(name["present"] as? Int == 4)
    #expect(name["holders"] as? Int == 4)
    #expect((name["text"] as? [String: Any])?["length"] as? [String: Int] == ["min": 2, "max": 11])
    #expect(name["examples"] as? [String] == [#""Ann""#, #""Bartholomew""#, #""Cy""#])
    let lines = try #require(fields.first { $0["path"] as? String == "lines" })
    #expect(lines["elements"] as? [String: Int] == ["min": 0, "max": 2])
    #expect(lines["types"] as? [String: Int] == ["array": 4])
    // Without --show-values there is no examples key at all.
    let plain = try Inspector.inspect(path: file).json()
    #expect(!plain.contains("examples"))
    #expect(!plain.contains("Bartholomew"))
  }
}
