import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// The row writer through whole runs of `ProjectsDataset` (SluiceTestSupport) against a
/// real SQLite file: conflict policies on a parent with children, references by natural key,
/// orphans, patches, and foreign keys broken by a user's trigger.
@Suite("Row writer")
struct RowWriterTests {
  /// A project with three tasks, bringing its people along.
  static let original = project(
    "p1", title: "Zephyr", people: [alice, bob], tasks: [("Alpha", "alice"), ("Beta", "bob"), ("Gamma", "alice")])
  /// The same project again: another title, one other task.
  static let reimported = project("p1", title: "Mistral", owner: "bob", tasks: [("Delta", "bob")])

  static let projectColumns = ["project_id", "title", "owner_id"]
  static let taskColumns = ["project_id", "position", "title", "assignee_id"]

  func projects(_ db: ProjectsDatabase) -> [String] {
    db.rows(Self.projectColumns, from: "projects ORDER BY project_id")
  }
  func tasks(_ db: ProjectsDatabase) -> [String] {
    db.rows(Self.taskColumns, from: "tasks ORDER BY project_id, position")
  }

  // MARK: - Conflict policies × parent and children

  @Test(arguments: [ConflictPolicy.upsert, .replace])
  func reimportedParentInALaterRunKeepsExactlyItsNewChildren(conflict: ConflictPolicy) throws {
    let db = try ProjectsDatabase()
    #expect(try db.run([Self.original, project("p2", tasks: [("Other", "bob")])]).exitCode == 0)
    let report = try db.run([Self.reimported], conflict: conflict)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(projects(db) == ["p1|Mistral|bob", "p2|Title|alice"])
    #expect(tasks(db) == ["p1|0|Delta|bob", "p2|0|Other|bob"])
    #expect(report.rowsWritten == ["people": 0, "projects": 1, "tasks": 1])
    #expect(report.statistics(for: .load).kept == 0)
    #expect(db.scalar("SELECT count(*) FROM pragma_foreign_key_check") == 0)
  }

  @Test(arguments: [ConflictPolicy.upsert, .replace])
  func reimportedParentInTheSameFirstLoadKeepsExactlyItsNewChildren(conflict: ConflictPolicy) throws {
    let db = try ProjectsDatabase()
    let report = try db.run(
      [Self.original, project("p2", tasks: [("Other", "bob")]), Self.reimported], conflict: conflict)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(projects(db) == ["p1|Mistral|bob", "p2|Title|alice"])
    #expect(tasks(db) == ["p1|0|Delta|bob", "p2|0|Other|bob"])
    #expect(report.rowsWritten == ["people": 2, "projects": 3, "tasks": 5, "project_states": 2])
    #expect(report.tableRows["tasks"] == 2)
  }

  @Test(arguments: [false, true])
  func ignoreKeepsTheOldRowWithItsOldChildrenAndCountsTheRecordKept(sameRun: Bool) throws {
    let db = try ProjectsDatabase()
    let report: RunReport
    if sameRun {
      report = try db.run([Self.original, Self.reimported], conflict: .ignore)
      #expect(report.rowsWritten == ["people": 2, "projects": 1, "tasks": 3, "project_states": 2])
    } else {
      #expect(try db.run([Self.original]).exitCode == 0)
      report = try db.run([Self.reimported], conflict: .ignore)
      #expect(report.rowsWritten == ["people": 0, "projects": 0, "tasks": 0])
    }
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(projects(db) == ["p1|Zephyr|alice"])
    #expect(tasks(db) == ["p1|0|Alpha|alice", "p1|1|Beta|bob", "p1|2|Gamma|alice"])
    let load = report.statistics(for: .load)
    #expect(load.kept == 1)
    #expect(load.recordsOut == (sameRun ? 2 : 1))
    #expect(load.rejected == 0)
  }

  @Test(arguments: [false, true])
  func failOnAnExistingKeyIsAConstraintIssueAndAStrictRunChangesNothing(sameRun: Bool) throws {
    let db = try ProjectsDatabase()
    if !sameRun { #expect(try db.run([Self.original]).exitCode == 0) }
    let before = db.snapshot()
    let report = try db.run(sameRun ? [Self.original, Self.reimported] : [Self.reimported], conflict: .fail)
    #expect(report.exitCode == 65)
    #expect(report.committed == false)
    #expect(report.issues.map(\.place) == ["load error constraint id line \(sameRun ? 2 : 1)"])
    let issue = try #require(report.issues.first)
    #expect(issue.message.contains("projects"))
    for value in ["p1", "Mistral", "Zephyr", "bob", "Delta"] {
      #expect(!issue.message.contains(value))
      #expect(report.failure?.message.contains(value) == false)
    }
    #expect(db.snapshot() == before)
  }

  @Test func failOnAnExistingKeySkipsOnlyThatRecordUnderLenient() throws {
    let db = try ProjectsDatabase()
    #expect(try db.run([Self.original]).exitCode == 0)
    let report = try db.run(
      [project("p2", tasks: [("Other", "bob")]), Self.reimported, project("p3", tasks: [])], policy: .lenient,
      conflict: .fail)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.issues.map(\.place) == ["load error constraint id line 2"])
    #expect(report.statistics(for: .load).rejected == 1)
    #expect(projects(db) == ["p1|Zephyr|alice", "p2|Title|alice", "p3|Title|alice"])
    #expect(tasks(db) == ["p1|0|Alpha|alice", "p1|1|Beta|bob", "p1|2|Gamma|alice", "p2|0|Other|bob"])
    #expect(report.rowsWritten == ["people": 0, "projects": 2, "tasks": 1])
  }

  // MARK: - References

  @Test func referencesResolveToRowsOfAnEarlierRun() throws {
    let db = try ProjectsDatabase()
    #expect(try db.run([Self.original]).exitCode == 0)
    // A second run: the rows of the first are there to be referenced.
    let report = try db.run([project("p2", owner: "bob", sponsor: "alice", tasks: [("Other", "alice")])])
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.issues.isEmpty)
    #expect(db.rows(["owner_id", "sponsor_id"], from: "projects WHERE project_id = 'p2'") == ["bob|alice"])
    #expect(db.rows(["assignee_id"], from: "tasks WHERE project_id = 'p2'") == ["alice"])
  }

  @Test func referencesResolveToRowsOfAnEarlierRecordOrTheSameRecord() throws {
    let db = try ProjectsDatabase()
    let report = try db.run([
      project("p1", people: [alice]),
      // alice comes from the record above, carol from this one.
      project(
        "p2", owner: "alice", sponsor: "carol", people: [("carol", "Carol", nil)],
        tasks: [("T", "carol"), ("U", "alice")]),
    ])
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.issues.isEmpty)
    #expect(db.rows(["owner_id", "sponsor_id"], from: "projects WHERE project_id = 'p2'") == ["alice|carol"])
    #expect(tasks(db) == ["p1|0|Task|alice", "p2|0|T|carol", "p2|1|U|alice"])
  }

  @Test func aRowOfARolledBackRecordSatisfiesNoLaterReference() throws {
    let db = try ProjectsDatabase()
    let report = try db.run(
      [
        project("p1", people: [alice]),
        // carol is written, then the duplicate project rolls the record back, carol with it.
        project("p1", owner: "carol", people: [("carol", "Carol", nil)], tasks: [("T", "carol")]),
        project("p2", owner: "carol"),
      ], policy: .lenient, conflict: .fail)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(
      report.issues.map(\.place) == ["load error constraint id line 2", "load error orphanReference owner line 3"])
    #expect(db.rows(["person_id"], from: "people") == ["alice"])
    #expect(projects(db) == ["p1|Title|alice"])
    #expect(report.rowsWritten == ["people": 1, "projects": 1, "tasks": 1, "project_states": 2])
  }

  // MARK: - Orphans

  @Test(arguments: [false, true])
  func orphanFailsAStrictRunAndChangesNothing(firstLoad: Bool) throws {
    let db = try ProjectsDatabase()
    if !firstLoad { #expect(try db.run([Self.original]).exitCode == 0) }
    let before = db.snapshot()
    let report = try db.run([project("p2", people: [alice]), project("p3", owner: "ghost")])
    #expect(report.exitCode == 65)
    #expect(report.issues.map(\.place) == ["load error orphanReference owner line 2"])
    #expect(report.issues.first?.message.contains("people") == true)
    #expect(report.issues.first?.message.contains("ghost") == false)
    #expect(db.snapshot() == before)
  }

  @Test(arguments: [false, true])
  func orphanSkipsItsRecordUnderLenientWithTheReferencePath(firstLoad: Bool) throws {
    let db = try ProjectsDatabase()
    if !firstLoad { #expect(try db.run([project("p0", people: [alice])]).exitCode == 0) }
    let report = try db.run(
      [
        project("p1", people: [alice]),
        project("p2", owner: "ghost"),
        project("p3", tasks: [("T", "alice"), ("U", "ghost")]),
        project("p4"),
      ], policy: .lenient)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(
      report.issues.map(\.place) == [
        "load error orphanReference owner line 2", "load error orphanReference tasks[1].assignee line 3",
      ])
    #expect(report.issues.allSatisfy { !$0.message.contains("ghost") })
    #expect(report.statistics(for: .load).rejected == 2)
    #expect(report.statistics(for: .load).recordsOut == 2)
    #expect(db.rows(["project_id"], from: "projects WHERE project_id <> 'p0' ORDER BY 1") == ["p1", "p4"])
    #expect(db.scalar("SELECT count(*) FROM tasks WHERE project_id IN ('p2', 'p3')") == 0)
    #expect(report.rowsWritten["projects"] == 2)
    #expect(report.rowsWritten["tasks"] == 2)
  }

  @Test(arguments: [false, true])
  func setNullOrphanKeepsTheRowWithNullAndWarns(firstLoad: Bool) throws {
    let db = try ProjectsDatabase()
    if !firstLoad { #expect(try db.run([project("p0", people: [alice])]).exitCode == 0) }
    // Strict: a warning does not fail the run.
    let report = try db.run([project("p1", sponsor: "ghost", people: [alice]), project("p2", sponsor: "alice")])
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.issues.map(\.place) == ["load warning orphanReference sponsor line 1"])
    #expect(report.issues.first?.message.contains("ghost") == false)
    #expect(report.statistics(for: .load).warnings == 1)
    #expect(report.statistics(for: .load).rejected == 0)
    #expect(
      db.rows(["project_id", "sponsor_id"], from: "projects WHERE project_id <> 'p0' ORDER BY 1")
        == ["p1|∅", "p2|alice"])
    #expect(report.rowsWritten["projects"] == 2)
  }

  // MARK: - Patches

  static let people = [alice, bob, ("carol", "Carol", nil), ("dave", "Dave", Optional("dave@example.org"))]

  @Test func patchesLeaveClearAndSetColumnsAndCountThePatchedRows() throws {
    let db = try ProjectsDatabase()
    #expect(try db.run([project("p1", people: Self.people)]).exitCode == 0)
    let report = try db.run(
      PeopleDataset(),
      [
        #"{"patch": true, "id": "alice", "email": null}"#,
        #"{"patch": true, "id": "bob", "name": "Robert"}"#,
        #"{"patch": true, "id": "carol", "name": null}"#,
        #"{"patch": true, "id": "zed", "name": "Zed"}"#,
        #"{"patch": true, "id": "carol", "email": "carol@example.org", "name": "Caroline"}"#,
        #"{"patch": true, "id": "dave"}"#,
      ], policy: .lenient)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(
      db.rows(["person_id", "name", "email"], from: "people ORDER BY 1") == [
        "alice|Alice|∅", "bob|Robert|bob@example.org", "carol|Caroline|carol@example.org",
        "dave|Dave|dave@example.org",
      ])
    #expect(
      report.issues.map(\.place) == ["load error nullValue name line 3", "load error orphanReference id line 4"])
    #expect(report.issues.allSatisfy { !$0.message.contains("zed") })
    #expect(report.statistics(for: .load).rejected == 2)
    #expect(report.rowsWritten == ["people": 3])
    #expect(report.tableRows == ["people": 4])
  }

  @Test func patchOfAMissingRowFailsAStrictRunAndChangesNothing() throws {
    let db = try ProjectsDatabase()
    #expect(try db.run([project("p1", people: Self.people)]).exitCode == 0)
    let before = db.snapshot()
    let report = try db.run(
      PeopleDataset(),
      [#"{"patch": true, "id": "alice", "name": "Alicia"}"#, #"{"patch": true, "id": "zed", "email": null}"#])
    #expect(report.exitCode == 65)
    #expect(report.issues.map(\.place) == ["load error orphanReference id line 2"])
    #expect(db.snapshot() == before)
  }

  @Test func patchClearingANotNullColumnIsFoundBeforeTheDatabase() throws {
    let db = try ProjectsDatabase()
    #expect(try db.run([project("p1", people: Self.people)]).exitCode == 0)
    let before = db.snapshot()
    let report = try db.run(PeopleDataset(), [#"{"patch": true, "id": "bob", "name": null, "email": "x@example.org"}"#])
    #expect(report.exitCode == 65)
    #expect(report.issues.map(\.place) == ["load error nullValue name line 1"])
    #expect(report.issues.first?.message.contains("people.name") == true)
    #expect(db.snapshot() == before)
  }

  @Test func wholeRowAfterAPatchOfTheSameRowInOneRunIsWritten() throws {
    // The writer skips an upsert of a row it wrote the same way earlier in the run; a patch in
    // between changed the row, so the last whole row must still be written.
    let db = try ProjectsDatabase()
    let report = try db.run(
      PeopleDataset(),
      [
        #"{"id": "alice", "name": "Alice", "email": "alice@example.org"}"#,
        #"{"patch": true, "id": "alice", "email": null}"#,
        #"{"id": "alice", "name": "Alice", "email": "alice@example.org"}"#,
      ])
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.issues.isEmpty)
    #expect(db.rows(["person_id", "name", "email"], from: "people") == ["alice|Alice|alice@example.org"])
    #expect(report.rowsWritten == ["people": 3])
  }

  // MARK: - Checks

  @Test func brokenCheckIsAConstraintIssueAtTheColumnsField() throws {
    let db = try ProjectsDatabase()
    let report = try db.run(
      [
        project("p1", people: [alice]), project("p2", title: ""),
        project("p3", tasks: [("T", "alice"), ("", "alice")]),
      ],
      policy: .lenient)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(
      report.issues.map(\.place) == [
        "load error constraint title line 2", "load error constraint tasks[1].title line 3",
      ])
    #expect(
      report.issues.map(\.message) == [
        "projects: check title not empty violated", "tasks: check title not empty violated",
      ])
    #expect(projects(db) == ["p1|Title|alice"])
    #expect(tasks(db) == ["p1|0|Task|alice"])
  }

  // MARK: - Foreign keys broken by writes the engine did not make

  /// A user trigger that, for every task inserted, inserts a row naming a project that does not
  /// exist — into `tasks` itself or into a user table beside the dataset's: the engine resolved
  /// every reference it wrote, yet the database ends up breaking a foreign key.
  static func ghostTrigger(into table: String) -> String {
    let insert =
      table == "tasks"
      ? "INSERT INTO tasks (project_id, position, title, assignee_id) VALUES ('ghost', NEW.position, 'Boo', NEW.assignee_id);"
      : "INSERT INTO task_notes (project_id, note) VALUES ('ghost', 'Boo');"
    return """
      CREATE TABLE IF NOT EXISTS task_notes (project_id TEXT NOT NULL REFERENCES projects (project_id), note TEXT);
      CREATE TRIGGER haunt AFTER INSERT ON tasks WHEN NEW.project_id <> 'ghost' BEGIN \(insert) END;
      """
  }

  static let ghostTables = ["tasks", "task_notes"]

  @Test(arguments: ghostTables)
  func firstLoadChecksForeignKeysRowByRowToo(ghostsInto table: String) throws {
    let db = try ProjectsDatabase()
    // An empty input creates the schema and loads nothing: the next run is a first load.
    let empty = try db.run([])
    #expect(empty.exitCode == 0, "\(empty.failure?.message ?? "")")
    #expect(db.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'tasks'") == 1)
    try db.connection().execute(Self.ghostTrigger(into: table))
    let before = db.snapshot()
    #expect(before.count("projects") == 0 && before.count("tasks") == 0 && before.count("people") == 0)
    let report = try db.run([project("p1", people: [alice])])
    #expect(report.exitCode == 65)
    #expect(report.committed == false)
    #expect(db.snapshot() == before)
    #expect(db.scalar("SELECT count(*) FROM task_notes") == 0)
    let issue = try #require(report.issues.first { $0.code == .constraint })
    #expect(issue.stage == .load)
    #expect(issue.message.contains("foreign key"))
    // Lenient: the store refuses the record's rows, so only that record is skipped.
    let lenient = try db.run(
      [project("p1", people: [alice]), project("p2", people: [alice], tasks: [])], policy: .lenient)
    #expect(lenient.exitCode == 0, "\(lenient.failure?.message ?? "")")
    #expect(lenient.issues.map(\.code) == [.constraint])
    #expect(db.scalar("SELECT count(*) FROM task_notes") == 0)
  }

  @Test(arguments: ghostTables)
  func laterLoadChecksForeignKeysRowByRow(ghostsInto table: String) throws {
    let db = try ProjectsDatabase()
    #expect(try db.run([project("p0", people: [alice])]).exitCode == 0)
    try db.connection().execute(Self.ghostTrigger(into: table))
    let before = db.snapshot()
    let report = try db.run([project("p1")])
    #expect(report.exitCode == 65)
    #expect(report.issues.map(\.place) == ["load error constraint - line 1"])
    #expect(report.issues.first?.message.contains("foreign key") == true)
    #expect(db.snapshot() == before)
    // Lenient: the store refuses the record's row, so only that record is skipped.
    let lenient = try db.run([project("p1"), project("p2", tasks: [])], policy: .lenient)
    #expect(lenient.exitCode == 0, "\(lenient.failure?.message ?? "")")
    #expect(lenient.issues.map(\.place) == ["load error constraint - line 1"])
    #expect(db.rows(["project_id"], from: "projects ORDER BY 1") == ["p0", "p2"])
    #expect(db.scalar("SELECT count(*) FROM tasks WHERE project_id = 'ghost'") == 0)
    #expect(db.scalar("SELECT count(*) FROM task_notes") == 0)
  }
}
