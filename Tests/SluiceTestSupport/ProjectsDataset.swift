import Foundation
@_spi(Internals) import SluiceCore

// The projects: a dataset declared outside the catalog with every kind of declaration the table
// model has, its records as NDJSON and the people most tests start from, shared by the engine's
// tests (SluiceCoreTests, on SQLite) and the PostgreSQL driver's (SluicePostgreSQLTests).
// DeclaredDatasetTests (SluiceCoreTests) checks that the dataset stays small.

// MARK: - The dataset (its own lines: from here to "End of the dataset")

/// The states of a project; the enum owns the `project_states` table.
package enum ProjectState: String, LookupEnum {
  case open, closed
  package static var lookupTable: String { "project_states" }
  package static var lookupColumns: [Column] { [.boolean("is_final")] }
  package var lookupID: Int64 { self == .open ? 1 : 2 }
  package var lookupValues: [DatabaseValue?] { [.integer(self == .closed ? 1 : 0)] }
}

/// Projects with their tasks and the people they name, declared outside the catalog with every
/// kind of declaration the table model has: a shared table, a child table with positions, a
/// rejecting and a `setNull` reference, an enum-owned lookup and a deferrable index.
package struct ProjectsDataset: Dataset {
  package struct PersonDTO: Decodable { package var id: String, name: String, email: String? }
  package struct TaskDTO: Decodable { package var title: String, assignee: String }
  package struct DTO: Decodable {
    package var id: String, title: String, state: String, owner: String, sponsor: String?
    package var people: [PersonDTO]?
    package var tasks: [TaskDTO]
  }
  package struct Project { package var dto: DTO, state: ProjectState }

  package static let people = Table(
    "people", key: ["person_id"],
    columns: [.text("person_id", field: "id"), .text("name"), .text("email", nullable: true)], onConflict: .upsert)
  package static let projects = Table(
    "projects", key: ["project_id"],
    columns: [
      .text("project_id", field: "id"), .text("title", checks: [.notEmpty]),
      .lookup("state_id", ProjectState.self, field: "state"),
      .reference("owner_id", to: people, field: "owner"),
      .reference("sponsor_id", to: people, field: "sponsor", orphans: .setNull),
    ],
    indexes: [Index("projects_by_owner", on: ["owner_id"], deferrable: true)])
  package static let tasks = Table(
    "tasks", childOf: projects, position: "position", field: "tasks",
    columns: [.text("title", checks: [.notEmpty]), .reference("assignee_id", to: people, field: "assignee")])

  package init() {}
  package var name: String { "projects" }
  package var summary: String { "projects with tasks and people" }
  package var schema: Schema { Schema([Self.people, Self.projects, Self.tasks]) }
  package func validate(_ dto: DTO, into validation: inout Validation) {}

  package func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> Project {
    guard let state = ProjectState(rawValue: dto.state) else {
      throw MappingError(code: .unsupportedEnumValue, path: "state", message: "not a project state")
    }
    return Project(dto: dto, state: state)
  }

  package func rows(for project: Project, into rows: inout RecordRows) {
    for person in project.dto.people ?? [] { rows.add(Self.people, person.id, person.name, person.email) }
    let dto = project.dto
    rows.add(Self.projects, dto.id, dto.title, project.state, dto.owner, dto.sponsor)
    for task in dto.tasks { rows.add(Self.tasks, task.title, task.assignee) }
  }
}

/// People as whole rows, or as partial rows (`"patch": true`), where a missing field leaves its
/// column and `null` clears it.
package struct PeopleDataset: Dataset {
  package struct DTO: Decodable { package var id: String, name: Patch<String>, email: Patch<String>, patch: Bool? }

  package init() {}
  package var name: String { "people" }
  package var summary: String { "people, whole or patched" }
  package var schema: Schema { Schema([ProjectsDataset.people]) }
  package func validate(_ dto: DTO, into validation: inout Validation) {}
  package func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> DTO { dto }
  package func rows(for person: DTO, into rows: inout RecordRows) {
    if person.patch == true {
      rows.patch(ProjectsDataset.people, person.id, person.name, person.email)
    } else {
      rows.add(ProjectsDataset.people, person.id, person.name.applied(to: nil), person.email.applied(to: nil))
    }
  }
}

// End of the dataset.

// MARK: - Its records

/// One project record as NDJSON.
package func project(
  _ id: String, title: String = "Title", state: String = "open", owner: String = "alice", sponsor: String? = nil,
  people: [(String, String, String?)] = [], tasks: [(String, String)] = [("Task", "alice")]
) -> String {
  func quoted(_ text: String?) -> String { text.map { "\"\($0)\"" } ?? "null" }
  let persons = people.map { #"{"id":"\#($0.0)","name":"\#($0.1)","email":\#(quoted($0.2))}"# }
  let items = tasks.map { #"{"title":"\#($0.0)","assignee":"\#($0.1)"}"# }
  var fields = [
    #""id":"\#(id)""#, #""title":"\#(title)""#, #""state":"\#(state)""#, #""owner":"\#(owner)""#,
    #""tasks":[\#(items.joined(separator: ","))]"#,
  ]
  if let sponsor { fields.append(#""sponsor":"\#(sponsor)""#) }
  if !people.isEmpty { fields.append(#""people":[\#(persons.joined(separator: ","))]"#) }
  return "{" + fields.joined(separator: ",") + "}"
}

/// The people most tests start from.
package let alice = ("alice", "Alice", Optional("alice@example.org"))
package let bob = ("bob", "Bob", Optional("bob@example.org"))
