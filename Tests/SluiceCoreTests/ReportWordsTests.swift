import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// Notes as XML elements, for a read error in an XML input.
struct XMLNotesDataset: Dataset {
  struct DTO: Decodable {
    var id: String
    var text: String
  }

  static let notes = Table("notes", key: ["id"], columns: [.text("id"), .text("text")])

  var name: String { "notes" }
  var summary: String { "test dataset" }
  var schema: Schema { Schema([Self.notes]) }
  func validate(_ dto: DTO, into validation: inout Validation) {}
  func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> DTO { dto }
  func rows(for note: DTO, into rows: inout RecordRows) { rows.add(Self.notes, note.id, note.text) }
}

/// What a run says to the person reading its report or its failure: words true of the run that
/// was made, whatever its store, mode or input format.
@Suite("Report words true of the run")
struct ReportWordsTests {
  /// A SQLite run's bulk batches are multi-row inserts and upserts: no COPY, nothing staged.
  @Test func aSQLiteRunSaysItsBulkBatchesWithoutPostgreSQLsCopyWords() throws {
    let directory = try TemporaryDirectory()
    let lines = (1...3).map { #"{"id": "s\#($0)", "mode": "air", "parcels": [\#($0)]}"# }
    let input = try directory.write("shipments.ndjson", lines.joined(separator: "\n") + "\n")
    let configuration = PipelineConfiguration(
      name: "shipments", input: input, format: .ndjson, database: .sqlite(directory.file("s.sqlite")))
    let report = try Pipeline(dataset: ShipmentsDataset(), configuration: configuration).run()
    let line = try #require(report.summary().split(separator: "\n").first { $0.contains("bulk batches:") })
    #expect(line == "  bulk batches: parcels 1 inserted, 0 merged; shipments 1 inserted, 0 merged; 0 row by row")
  }

  /// `validate --db` reads the database (in a read-only transaction): its page must not say it
  /// never opened one.
  @Test func theHTMLPageOfAValidateRunWithADatabaseSaysItWroteToNone() throws {
    let directory = try TemporaryDirectory()
    let input = try directory.write("shipments.ndjson", #"{"id": "s1", "mode": "air", "parcels": [1]}"# + "\n")
    var configuration = PipelineConfiguration(
      name: "shipments", input: input, format: .ndjson, database: .sqlite(directory.file("s.sqlite")))
    _ = try Pipeline(dataset: ShipmentsDataset(), configuration: configuration).run()
    configuration.mode = .validate
    configuration.checksDatabase = true
    configuration.htmlPath = directory.file("validate.html")
    let report = try Pipeline(dataset: ShipmentsDataset(), configuration: configuration).run()
    #expect(report.status == .succeeded)
    let html = try String(contentsOfFile: directory.file("validate.html"), encoding: .utf8)
    #expect(html.contains("Nothing written: validate writes to no database."))
    #expect(!html.contains("never opens a database"))
  }

  /// A gzip XML input damaged mid-stream (stored blocks: the damage reaches the XML reader as
  /// text before the checksum at the end says so) fails on the stream, and the XML reader's error
  /// is named as its consequence — not as a JSON error.
  @Test func aCorruptGzipXMLInputBlamesTheStreamAndNamesNoJSONError() throws {
    let directory = try TemporaryDirectory()
    var xml = "<notes>\n<note><id>n0</id><text>first</text></note>\n<note><id>n1</id><text>MARK</text></note>\n"
    for index in 2..<4_000 { xml += "<note><id>n\(index)</id><text>note number \(index)</text></note>\n" }
    xml += "</notes>\n"
    var compressed = Gzip.compress(Array(xml.utf8), level: 0)
    let marker = Array("MARK</text>".utf8)
    let at = try #require(
      (0...(compressed.count - marker.count)).first { Array(compressed[$0..<$0 + marker.count]) == marker })
    compressed[at + marker.count - 2] = UInt8(ascii: "X")  // </text> becomes </texX>
    let input = directory.file("notes.xml.gz")
    try Data(compressed).write(to: URL(fileURLWithPath: input))
    let configuration = PipelineConfiguration(
      name: "notes", input: input, format: .xml, recordPath: ["notes", "note"],
      database: .sqlite(directory.file("n.sqlite")))
    let report = try Pipeline(dataset: XMLNotesDataset(), configuration: configuration).run()
    let failure = try #require(report.failure)
    #expect(failure.kind == .io)
    #expect(failure.message.hasSuffix("; the XML reader's error at line 3 is a consequence"))
    #expect(!failure.message.contains("JSON"))
  }
}
