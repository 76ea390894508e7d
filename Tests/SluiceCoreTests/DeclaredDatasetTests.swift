import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

// MARK: - Running it

/// A database in a temporary directory and the runs that load it.
final class ProjectsDatabase {
  let directory: TemporaryDirectory
  let path: String
  private var runs = 0

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.file("projects.sqlite")
  }

  static let tables = ProjectsDataset().schema.tableNames

  func run(_ lines: [String], policy: Policy = .strict, conflict: ConflictPolicy = .upsert) throws -> RunReport {
    try run(ProjectsDataset(), lines, policy: policy, conflict: conflict)
  }

  func run<D: Dataset>(
    _ dataset: D, _ lines: [String], policy: Policy = .strict, conflict: ConflictPolicy = .upsert
  ) throws -> RunReport {
    runs += 1
    let text = lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    let input = try directory.write("input-\(runs).ndjson", text)
    let configuration = PipelineConfiguration(
      name: dataset.name, input: input, format: .ndjson, policy: policy, database: .sqlite(path), conflict: conflict)
    return try Pipeline(dataset: dataset, configuration: configuration.counted).run()
  }

  // The readers below record an error as a test issue and return a value no expectation
  // matches, so an expectation about them shows the values it compared.

  func snapshot() -> DatabaseSnapshot {
    do { return try DatabaseSnapshot(of: path, tables: Self.tables) } catch {
      Issue.record(error)
      return DatabaseSnapshot(tables: ["<error>": []])
    }
  }

  func connection() throws -> SQLiteConnection { try SQLiteConnection(path: path) }

  /// `SELECT columns FROM rest`, each row as its columns' text joined by `|` (NULL as `∅`).
  func rows(_ columns: [String], from rest: String) -> [String] {
    do {
      let db = try connection()
      let statement = try db.prepare("SELECT \(columns.joined(separator: ", ")) FROM \(rest)")
      var rows: [String] = []
      while try statement.step() {
        rows.append(
          columns.indices.map { statement.columnIsNull(Int32($0)) ? "∅" : statement.columnText(Int32($0)) ?? "" }
            .joined(separator: "|"))
      }
      return rows
    } catch {
      Issue.record(error)
      return ["<error>"]
    }
  }

  func scalar(_ sql: String) -> Int64? {
    do { return try connection().scalarInt(sql) } catch {
      Issue.record(error)
      return nil
    }
  }
}

extension SluiceCore.Issue {
  /// Stage, severity, code, path and line, to compare in one expectation.
  var place: String {
    "\(stage) \(severity) \(code) \(path.isEmpty ? "-" : path) line \(location.map { String($0.line) } ?? "-")"
  }
}

// MARK: - Declarations, end to end

@Suite("A dataset declared outside the catalog")
struct DeclaredDatasetTests {
  /// The dataset is in the test support target (Tests/SluiceTestSupport/ProjectsDataset.swift),
  /// which the PostgreSQL driver's tests share.
  @Test func declaredDatasetIsSmall() throws {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../SluiceTestSupport/ProjectsDataset.swift")
    let source = try String(contentsOf: file, encoding: .utf8)
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    let start = try #require(lines.firstIndex { $0.hasPrefix("// MARK: - The dataset") })
    let end = try #require(lines.firstIndex { $0.hasPrefix("// End of the dataset") })
    #expect(end - start - 1 < 100)
  }

  @Test func derivedDDLCarriesEveryDeclaredConstraint() {
    let sql = ProjectsDataset().schema.migrations(dialect: SQLiteDialect())
    #expect(
      sql.map(\.identifier) == [
        "create table project_states", "create table people", "create table projects", "create table tasks",
        "create index projects_by_owner",
      ])
    #expect(sql.map(\.isDeferrableIndex) == [false, false, false, false, true])
    let ddl = Dictionary(uniqueKeysWithValues: sql.map { ($0.identifier, $0.sql) })
    let projects = ddl["create table projects"] ?? ""
    #expect(projects.contains("project_id TEXT NOT NULL,"))
    #expect(projects.contains(#"title TEXT NOT NULL CONSTRAINT "projects.title check" CHECK (length(title) > 0)"#))
    #expect(projects.contains("state_id INTEGER NOT NULL REFERENCES project_states (id)"))
    #expect(projects.contains("owner_id TEXT NOT NULL REFERENCES people,"))
    // A setNull reference is nullable.
    #expect(projects.contains("sponsor_id TEXT REFERENCES people,"))
    #expect(projects.contains("PRIMARY KEY (project_id)"))
    #expect(projects.hasSuffix(") STRICT;"))
    let tasks = ddl["create table tasks"] ?? ""
    #expect(tasks.contains(#"position INTEGER NOT NULL CONSTRAINT "tasks.position check" CHECK (position >= 0)"#))
    #expect(tasks.contains(#"title TEXT NOT NULL CONSTRAINT "tasks.title check" CHECK (length(title) > 0),"#))
    #expect(tasks.contains("assignee_id TEXT NOT NULL REFERENCES people"))
    #expect(tasks.contains("PRIMARY KEY (project_id, position)"))
    #expect(tasks.contains("FOREIGN KEY (project_id) REFERENCES projects (project_id) ON DELETE CASCADE"))
    #expect(tasks.hasSuffix(") STRICT, WITHOUT ROWID;"))
    #expect(ddl["create table people"]?.contains("email TEXT,") == true)
    #expect(ddl["create table project_states"]?.contains("is_final INTEGER NOT NULL") == true)
    #expect(ddl["create index projects_by_owner"] == "CREATE INDEX projects_by_owner ON projects (owner_id);")
  }

  @Test func loadsEndToEndIntoSQLite() throws {
    let db = try ProjectsDatabase()
    let report = try db.run([
      project(
        "p1", title: "Roof", owner: "alice", sponsor: "bob", people: [alice, bob],
        tasks: [("Tiles", "bob"), ("Gutter", "alice")]),
      project("p2", title: "Cellar", state: "closed", owner: "bob", tasks: [("Pump", "alice")]),
    ])
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.rowsWritten == ["people": 2, "projects": 2, "tasks": 3, "project_states": 2])
    #expect(report.tableRows == ["people": 2, "projects": 2, "tasks": 3, "project_states": 2])
    #expect(
      db.rows(["project_id", "title", "state_id", "owner_id", "sponsor_id"], from: "projects ORDER BY project_id")
        == ["p1|Roof|1|alice|bob", "p2|Cellar|2|bob|∅"])
    #expect(
      db.rows(["project_id", "position", "title", "assignee_id"], from: "tasks ORDER BY project_id, position")
        == ["p1|0|Tiles|bob", "p1|1|Gutter|alice", "p2|0|Pump|alice"])
    #expect(
      db.rows(["id", "name", "is_final", "retired"], from: "project_states ORDER BY id") == [
        "1|open|0|0", "2|closed|1|0",
      ])
    // The deferrable index was left out of the first load and built after it, and recorded.
    #expect(db.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'projects_by_owner'") == 1)
    #expect(
      db.scalar("SELECT count(*) FROM sluice_migrations WHERE identifier = 'create index projects_by_owner'") == 1)
    #expect(db.scalar("SELECT count(*) FROM pragma_foreign_key_check") == 0)
  }

  @Test func unknownLookupValueIsAMapIssue() throws {
    let db = try ProjectsDatabase()
    let report = try db.run(
      [project("p1", people: [alice]), project("p2", state: "archived")], policy: .lenient)
    #expect(report.exitCode == 0)
    let issue = try #require(report.issues.first)
    #expect(issue.place == "map error unsupportedEnumValue state line 2")
    #expect(db.rows(["project_id"], from: "projects") == ["p1"])
  }
}
