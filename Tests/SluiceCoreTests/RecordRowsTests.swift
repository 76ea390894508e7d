import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

/// How a record becomes rows, before any database: child numbering and paths, references the
/// record resolves itself, and what a row breaks that needs no database to see.
@Suite("Record rows")
struct RecordRowsTests {
  static let people = Table(
    "rr_people", key: ["person_id"],
    columns: [.text("person_id", field: "id"), .text("name"), .text("email", nullable: true)])
  static let teams = Table(
    "rr_teams", key: ["team_id"],
    columns: [.text("team_id", field: "id"), .reference("lead_id", to: people, field: "lead")])
  static let members = Table(
    "rr_members", childOf: teams, position: "line", startingAt: 1, field: "members",
    columns: [.reference("person_id", to: people, field: "person"), .text("role")])

  @Test func childrenAreNumberedPerParentAndPointAtTheirElement() {
    var rows = RecordRows()
    rows.add(Self.teams, "t1", "ann")
    rows.add(Self.members, "ann", "lead")
    rows.add(Self.members, "bob", "dev")
    rows.add(Self.teams, "t2", "cy")
    rows.add(Self.members, "cy", "lead")
    #expect(rows.entries.map(\.index) == [0, 0, 1, 0, 0])
    #expect(rows.entries.map(\.parent) == [-1, 0, 0, -1, 3])
    // team_id, line, person_id, role: the key and the position come from the parent.
    #expect(rows.fullValue(2, 0, in: Self.members) == .text("t1"))
    #expect(rows.fullValue(2, 1, in: Self.members) == .integer(2))
    #expect(rows.fullValue(2, 2, in: Self.members) == .text("bob"))
    #expect(rows.path(2, column: 2, in: Self.members) == "members[1].person")
    #expect(rows.path(2, column: 0, in: Self.members) == "members[1]")
  }

  @Test func referencesToRowsEarlierInTheRecordNeedNoLookUp() {
    var rows = RecordRows()
    rows.add(Self.people, "ann", "Ann", String?.none)
    rows.add(Self.teams, "t1", "ann")
    rows.add(Self.members, "ann", "lead")
    rows.add(Self.members, "bob", "dev")
    // Only bob, whom no earlier row of the record writes, is left for the writer to look up.
    #expect(rows.openReferences.map(\.entry) == [3])
    #expect(rows.openReferences.first?.target == Self.people.serial)
    #expect(rows.violations.isEmpty)
  }

  @Test func aPatchOfARowWrittenEarlierInTheRecordIsResolved() {
    var rows = RecordRows()
    rows.patch(Self.people, "ann", Patch<String>.set("Ann"), Patch<String>.unchanged)
    rows.add(Self.people, "bob", "Bob", String?.none)
    rows.patch(Self.people, "bob", Patch<String>.unchanged, Patch<String>.cleared)
    #expect(rows.openReferences.map(\.entry) == [0])
    #expect(rows.openReferences.allSatisfy { $0.isPatchKey })
    #expect(rows.entries[2].unchanged == 0b010)
  }

  @Test func nullsANotNullColumnCannotTakeAreFoundWithTheirPath() {
    var rows = RecordRows()
    rows.add(Self.teams, "t1", String?.none)
    rows.add(Self.members, "ann", String?.none)
    rows.patch(Self.people, "ann", Patch<String>.cleared, Patch<String>.cleared)
    rows.patch(Self.people, Patch<String>.unchanged, Patch<String>.set("X"), Patch<String>.unchanged)
    #expect(rows.violations.map(\.path) == ["lead", "members[0].role", "name", "id"])
    #expect(rows.violations.map(\.code) == [.nullValue, .nullValue, .nullValue, .missingField])
    // Clearing a nullable column is fine; so is leaving a NOT NULL one unchanged.
    #expect(!rows.violations.contains { $0.path == "email" })
  }

  /// A value of the wrong kind for its column is the dataset's bug: a record issue naming the
  /// table and the column, where the store would otherwise fail the whole run (exit 74 on
  /// PostgreSQL) on a string bound to an integer column.
  @Test func aValueOfTheWrongKindForItsColumnNamesTheTableAndTheColumn() {
    let scores = Table(
      "rr_scores", key: ["id"],
      columns: [.text("id"), .integer("points"), .real("ratio"), .boolean("final"), .timestamp("at", nullable: true)])
    var rows = RecordRows()
    rows.add(scores, "s1", 3, 2, true, Timestamp?.none)  // an integer where a real goes is fine
    #expect(rows.violations.isEmpty)
    rows.add(scores, "s2", "three", 0.5, 1.5, Timestamp?.none)
    #expect(rows.violations.map(\.path) == ["points", "final"])
    #expect(rows.violations.map(\.code) == [.typeMismatch, .typeMismatch])
    #expect(rows.violations.first?.message == "rr_scores.points is an integer column, but the dataset gave it text")
    #expect(
      rows.violations.last?.message == "rr_scores.final is a boolean column, but the dataset gave it a real number")
  }
  /// The decoding thread refills the rows of records the loading thread is done with
  /// (`RecordRows.reuse`): emptied rows are the rows of a new record in every respect — entries,
  /// values, references left open, violations, children numbered from their own parent.
  @Test func reusedRowsAreThoseOfANewRecord() {
    func fill(_ rows: inout RecordRows) {
      rows.add(Self.people, "ann", "Ann", String?.none)
      rows.add(Self.teams, "t9", "ann")
      rows.add(Self.members, "bob", "dev")
    }
    var used = RecordRows()
    used.add(Self.teams, "t1", String?.none)
    used.add(Self.members, "cy", String?.none)
    used.add(Self.members, "dee", "ops")
    #expect(!used.violations.isEmpty && !used.openReferences.isEmpty)
    let reused = used.reuse()
    #expect(reused)
    #expect(used.isEmpty && used.violations.isEmpty && used.openReferences.isEmpty)
    fill(&used)
    var fresh = RecordRows()
    fill(&fresh)
    #expect(used.values == fresh.values)
    #expect(used.entries.map(\.serial) == fresh.entries.map(\.serial))
    #expect(used.entries.map(\.parent) == fresh.entries.map(\.parent))
    #expect(used.entries.map(\.index) == fresh.entries.map(\.index))
    #expect(used.openReferences.map(\.entry) == fresh.openReferences.map(\.entry) && used.openReferences.count == 1)
    #expect(used.violations.isEmpty)
    #expect(used.path(2, column: 2, in: Self.members) == "members[0].person")
  }

  /// What one big record needed is not kept for the next: its rows are not reused.
  @Test func aBigRecordsRowsAreNotKeptForReuse() {
    var rows = RecordRows()
    rows.add(Self.teams, "t1", "ann")
    for index in 0...RecordRows.reusedValues { rows.add(Self.members, "p\(index)", "dev") }
    let bigReused = rows.reuse()
    #expect(!bigReused)
    var small = RecordRows()
    small.add(Self.teams, "t1", "ann")
    let smallReused = small.reuse()
    #expect(smallReused)
  }
}
