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
