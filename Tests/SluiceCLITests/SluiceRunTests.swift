import SluiceCLI
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `Sluice.run(arguments:datasets:)` in process: the tool knows the datasets it is handed and
/// no others — SluiceCLI does not depend on the catalog. Results go to the test process's own
/// standard output.
@Suite("Sluice as a library", .serialized)  // one process-wide standard output
struct SluiceRunTests {
  /// A dataset no catalog lists.
  struct NotesDataset: Dataset {
    struct Note: Decodable { let id: String }
    var name: String { "notes" }
    var summary: String { "notes → notes" }
    static let notes = Table("notes", key: ["note_id"], columns: [.text("note_id", field: "id")])
    var schema: Schema { Schema([Self.notes]) }
    func validate(_ note: Note, into validation: inout Validation) {}
    func map(_ note: Note, context _: inout MappingContext) throws(MappingError) -> Note { note }
    func rows(for note: Note, into rows: inout RecordRows) { rows.add(Self.notes, note.id) }
  }

  /// A dataset whose one table keeps its history (`Table(…, history: .scd2)`).
  struct VersionedNotesDataset: Dataset {
    struct Note: Decodable { let id: String, text: String }
    var name: String { "versioned-notes" }
    var summary: String { "notes → notes, every version kept" }
    static let notes = Table(
      "notes", key: ["note_id"], columns: [.text("note_id", field: "id"), .text("text")], history: .scd2)
    var schema: Schema { Schema([Self.notes]) }
    func validate(_ note: Note, into validation: inout Validation) {}
    func map(_ note: Note, context _: inout MappingContext) throws(MappingError) -> Note { note }
    func rows(for note: Note, into rows: inout RecordRows) { rows.add(Self.notes, note.id, note.text) }
  }

  @Test func aSwiftDatasetsHistoryTableKeepsEveryVersionAndARunInChunksOfItIsAUsageError() throws {
    let scratch = try TemporaryDirectory()
    let datasets = [AnyDataset(VersionedNotesDataset())]
    _ = try scratch.write("1.ndjson", #"{"id":"a","text":"first"}"# + "\n")
    let second = try scratch.write("2.ndjson", #"{"id":"a","text":"second"}"# + "\n")
    let spec = try scratch.write(
      "spec.json",
      #"{"dataset": "versioned-notes", "input": "1.ndjson", "format": "ndjson", "database": "notes.sqlite"}"#)
    func run(_ arguments: [String]) -> Int32 {
      Sluice.run(arguments: ["run", spec] + arguments, datasets: datasets, drivers: [SQLiteDriver()])
    }
    #expect(run([]) == 0)
    #expect(run(["--input", second]) == 0)
    #expect(run(["--input", second]) == 0)
    #expect(run(["--checkpoint-every", "10"]) == 64)
    let versions = try TableRows(sqlite: scratch.file("notes.sqlite"), tables: ["sluice_history_notes"])
    let rows = (versions.tables["sluice_history_notes"] ?? []).map { row in
      row.split(separator: " | ").prefix(2).joined(separator: " | ")
    }
    #expect(
      rows == ["note_id, text, sluice_valid_from, sluice_valid_to, sluice_run_id", "'a' | 'first'", "'a' | 'second'"])
    #expect(versions.tables["sluice_history_notes"]?.last?.hasSuffix(" | NULL | 2") == true)
  }

  @Test func theDatasetsHandedInAreTheOnlyOnes() {
    let datasets = [AnyDataset(NotesDataset())]
    #expect(Sluice.run(arguments: ["schema", "notes"], datasets: datasets, drivers: [SQLiteDriver()]) == 0)
    #expect(Sluice.run(arguments: ["schema", "fruits"], datasets: datasets, drivers: [SQLiteDriver()]) == 64)
  }

  @Test func errorsBecomeTheirExitCodes() throws {
    let scratch = try TemporaryDirectory()
    let datasets = [AnyDataset(NotesDataset())]
    #expect(Sluice.run(arguments: ["frobnicate"], datasets: datasets, drivers: [SQLiteDriver()]) == 64)
    #expect(
      Sluice.run(arguments: ["runs", scratch.file("none.sqlite")], datasets: datasets, drivers: [SQLiteDriver()]) == 66)
    let spec = try scratch.write("spec.json", #"{"dataset": "fruits", "input": "x.json", "database": "x.sqlite"}"#)
    #expect(Sluice.run(arguments: ["validate", spec], datasets: datasets, drivers: [SQLiteDriver()]) == 64)
  }
}
