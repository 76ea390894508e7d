import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluiceSQLite

/// Another dataset's `people`: a table of the same name, declared apart.
struct RivalPeopleDataset: Dataset {
  struct DTO: Decodable { var id: String }
  static let people = Table("people", key: ["person_id"], columns: [.text("person_id", field: "id")])
  var name: String { "rival-people" }
  var summary: String { "people declared again" }
  var schema: Schema { Schema([Self.people]) }
  func validate(_ dto: DTO, into validation: inout Validation) {}
  func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> DTO { dto }
  func rows(for person: DTO, into rows: inout RecordRows) { rows.add(Self.people, person.id) }
}

/// Inputs of several datasets that share tables: people, then the projects that name them.
@Suite("Runs over several datasets' inputs")
struct MultiInputEngineTests {
  private func run(
    _ inputs: [(any Dataset, [String])], in db: ProjectsDatabase, policy: Policy = .strict
  ) throws -> RunReport {
    var configured: [PipelineInput] = []
    var datasets: [AnyDataset] = []
    for (index, (dataset, lines)) in inputs.enumerated() {
      let path = try db.directory.write("input-\(index).ndjson", lines.joined(separator: "\n") + "\n")
      configured.append(PipelineInput(dataset: dataset.name, path: path, format: .ndjson))
      datasets.append(AnyDataset(dataset))
    }
    let configuration = PipelineConfiguration(
      name: "team", inputs: configured, policy: policy, database: .sqlite(db.path))
    return try Pipeline(datasets: datasets, configuration: configuration.counted).run()
  }

  private let people = [
    #"{"id": "alice", "name": "Alice", "email": "alice@example.org"}"#,
    #"{"id": "bob", "name": "Bob", "email": null}"#,
  ]

  @Test func aLaterDatasetReferencesRowsAnEarlierInputWrote() throws {
    let db = try ProjectsDatabase()
    let report = try run(
      [
        (PeopleDataset(), people),
        (ProjectsDataset(), [project("p1", owner: "alice", tasks: [("Tiles", "bob")])]),
      ], in: db)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.dataset == "people+projects")
    #expect(db.rows(["project_id", "owner_id"], from: "projects") == ["p1|alice"])
    #expect(db.rows(["person_id", "name"], from: "people ORDER BY person_id") == ["alice|Alice", "bob|Bob"])
    // The shared table was created once, and rows are counted per input.
    #expect(db.scalar("SELECT count(*) FROM sluice_migrations WHERE identifier = 'create table people'") == 1)
    #expect(report.inputs.map(\.rowsWritten["people"]) == [2, 0])
    #expect(report.inputs[1].rowsWritten["projects"] == 1)
    #expect(report.tableRows == ["people": 2, "projects": 1, "tasks": 1, "project_states": 2])
    #expect(db.scalar("SELECT count(*) FROM pragma_foreign_key_check") == 0)
  }

  @Test func inputsLoadInTheirOrder() throws {
    // The projects first: the people they name are not there yet.
    let db = try ProjectsDatabase()
    let report = try run(
      [
        (ProjectsDataset(), [project("p1", owner: "alice", tasks: [("Tiles", "bob")])]),
        (PeopleDataset(), people),
      ], in: db)
    #expect(report.exitCode == 65)
    #expect(report.issues.first?.code == .orphanReference)
    #expect(report.inputs.map(\.opened) == [true, false])
    #expect(db.snapshot().tables.isEmpty)
  }

  @Test func auditTablesOfAnEarlierReleaseGainTheInputColumns() throws {
    // A database whose audit tables an earlier release made, with one run in them.
    let db = try ProjectsDatabase()
    let connection = try SQLiteConnection(path: db.path)
    try Migrator.migrate(connection, [SQLiteConnection.auditMigrations[0]])
    try connection.execute(
      """
      INSERT INTO sluice_runs (pipeline, dataset, mode, input, policy, status, started_at, finished_at,
        duration_seconds, records_read, records_loaded, records_rejected, warnings, stages, issue_counts, rows_written)
      VALUES ('old', 'people', 'run', '/old.ndjson', 'strict', 'succeeded', '2026-01-01T00:00:00Z',
        '2026-01-01T00:00:01Z', 1, 0, 0, 0, 0, '[]', '{}', '{}')
      """)
    // The one project names a person nobody wrote: every record of the second input is rejected,
    // so the run fails, and records itself and its reject in the upgraded tables.
    let report = try run(
      [(PeopleDataset(), people), (ProjectsDataset(), [project("p1", owner: "alice", tasks: [("Tiles", "carol")])])],
      in: db, policy: .lenient)
    #expect(report.exitCode == 65)
    #expect(db.rows(["pipeline", "inputs IS NULL"], from: "sluice_runs ORDER BY run_id") == ["old|1", "team|0"])
    #expect(
      db.rows(["code", "input"], from: "sluice_rejects") == ["orphanReference|\(db.directory.file("input-1.ndjson"))"])
  }

  @Test func schemasUniteByTableIdentity() throws {
    let united = try Schema.union([PeopleDataset().schema, ProjectsDataset().schema])
    #expect(united.tables.map(\.name) == ["people", "projects", "tasks"])
    #expect(united.lookups.map(\.table) == ["project_states"])
    #expect(throws: SchemaConflict.self) {
      try Schema.union([ProjectsDataset().schema, RivalPeopleDataset().schema])
    }
  }

  @Test func aSpecWhoseDatasetsDeclareOneTableTwiceIsRefused() throws {
    let text = #"""
      {"inputs": [{"dataset": "projects", "input": "p.ndjson", "format": "ndjson"},
                  {"dataset": "rival-people", "input": "r.ndjson", "format": "ndjson"}],
       "database": "d.sqlite"}
      """#
    let spec = try PipelineSpec(data: Data(text.utf8), path: "/specs/team.json")
    let catalog = [AnyDataset(ProjectsDataset()), AnyDataset(RivalPeopleDataset())]
    do {
      _ = try spec.datasets(in: catalog)
      Issue.record("the spec was accepted")
    } catch {
      #expect(error.message.contains("two datasets declare different tables named people"), "\(error.message)")
    }
  }
}
