import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Profile patches (seed 002, section 4; issue 12): a missing field leaves its column unchanged,
/// `null` clears it, a value sets it — shown on one row across runs with the table's state after
/// each; a patch never inserts, never clears what may not be NULL, and changes nothing twice.
@Suite("Profile patches")
struct ProfilePatchTests {
  final class Workspace {
    let directory: TemporaryDirectory
    let database: String
    private var files = 0

    init() throws {
      directory = try TemporaryDirectory()
      database = directory.file("profiles.sqlite")
    }

    /// Writes `text` as the next input file of `dataset`.
    func input(_ dataset: String, _ text: String, format: PipelineConfiguration.Format = .ndjson) throws
      -> PipelineInput
    {
      files += 1
      let name = "input-\(files).\(format == .xml ? "xml" : "ndjson")"
      return PipelineInput(dataset: dataset, path: try directory.write(name, text), format: format)
    }

    func run(_ inputs: [PipelineInput], policy: Policy = .strict) throws -> RunReport {
      let configuration = PipelineConfiguration(
        name: "profiles", inputs: inputs, policy: policy, database: .sqlite(database))
      let datasets = try inputs.map { input in try #require(Catalog.dataset(named: input.dataset ?? "")) }
      return try Pipeline(datasets: datasets, configuration: configuration).run()
    }

    func patch(_ lines: String..., policy: Policy = .strict) throws -> RunReport {
      try run([try input("profile-patches", lines.joined(separator: "\n") + "\n")], policy: policy)
    }

    /// The table, `id|nickname|introduction` per row (NULL as `∅`), in id order.
    func profiles() throws -> [String] {
      let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(
        "SELECT profile_id, nickname, ifnull(introduction, '∅') FROM profiles ORDER BY profile_id")
      var rows: [String] = []
      while try statement.step() {
        rows.append((0..<3).map { statement.columnText($0) ?? "" }.joined(separator: "|"))
      }
      return rows
    }

    /// Loads the two profiles every test starts from.
    func loadProfiles() throws {
      let report = try run([
        try input(
          "profiles",
          """
          {"id": "p1", "nickname": "Ada", "introduction": "Hello"}
          {"id": "p2", "nickname": "Bob", "introduction": "Hi"}

          """)
      ])
      #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
      #expect(try profiles() == ["p1|Ada|Hello", "p2|Bob|Hi"])
    }
  }

  @Test func missingLeavesNullClearsAValueSetsOneRowAcrossThreeRuns() throws {
    let workspace = try Workspace()
    try workspace.loadProfiles()

    // Run 1: a value sets; the missing nickname stays.
    let set = try workspace.patch(#"{"id": "p1", "introduction": "Sensors and locks"}"#)
    #expect(set.status == .succeeded, "\(set.failure?.message ?? "")")
    #expect(set.rowsWritten["profiles"] == 1)
    #expect(try workspace.profiles() == ["p1|Ada|Sensors and locks", "p2|Bob|Hi"])

    // Run 2: the introduction is missing, so it stays as run 1 left it.
    let unchanged = try workspace.patch(#"{"id": "p1", "nickname": "Ada L."}"#)
    #expect(unchanged.rowsWritten["profiles"] == 1)
    #expect(try workspace.profiles() == ["p1|Ada L.|Sensors and locks", "p2|Bob|Hi"])

    // Run 3: null clears.
    let cleared = try workspace.patch(#"{"id": "p1", "introduction": null}"#)
    #expect(cleared.rowsWritten["profiles"] == 1)
    #expect(try workspace.profiles() == ["p1|Ada L.|∅", "p2|Bob|Hi"])

    // The same patch again, and a patch that names only its row, change nothing and count nothing.
    let again = try workspace.patch(#"{"id": "p1", "introduction": null}"#, #"{"id": "p2"}"#)
    #expect(again.status == .succeeded)
    #expect(again.statistics(for: .load).recordsOut == 2)
    #expect(again.rowsWritten["profiles"] ?? 0 == 0)
    #expect(try workspace.profiles() == ["p1|Ada L.|∅", "p2|Bob|Hi"])
  }

  @Test func thePatchedRowsAreLookedUpInBatches() throws {
    let workspace = try Workspace()
    try workspace.loadProfiles()
    let report = try workspace.patch(
      #"{"id": "p1", "nickname": "A"}"#, #"{"id": "p2", "nickname": "B"}"#, #"{"id": "p1", "introduction": "x"}"#)
    #expect(report.rowsWritten["profiles"] == 3)
    #expect(report.referenceLookups?["profiles"] == RunReport.ReferenceLookups(keys: 2, queries: 1))
    #expect(try workspace.profiles() == ["p1|A|x", "p2|B|Hi"])
  }

  @Test func clearingTheNicknameIsANullValueIssueAtNickname() throws {
    let workspace = try Workspace()
    try workspace.loadProfiles()
    let strict = try workspace.patch(#"{"id": "p2", "introduction": "Changed"}"#, #"{"id": "p1", "nickname": null}"#)
    #expect(strict.exitCode == 65)
    #expect(strict.issues.map(\.code) == [.nullValue])
    #expect(strict.issues.first?.path == "nickname")
    #expect(strict.issues.first?.stage == .load)
    #expect(strict.issues.first?.location?.ordinal == 2)
    #expect(try workspace.profiles() == ["p1|Ada|Hello", "p2|Bob|Hi"])

    let lenient = try workspace.patch(
      #"{"id": "p2", "introduction": "Changed"}"#, #"{"id": "p1", "nickname": null}"#, policy: .lenient)
    #expect(lenient.status == .succeeded)
    #expect(lenient.statistics(for: .load).rejected == 1)
    #expect(try workspace.profiles() == ["p1|Ada|Hello", "p2|Bob|Changed"])
  }

  @Test func aPatchForAnUnknownProfileIsAnOrphanAtIdAndNeverInserts() throws {
    let workspace = try Workspace()
    try workspace.loadProfiles()
    let strict = try workspace.patch(#"{"id": "p1", "nickname": "A"}"#, #"{"id": "p404", "nickname": "Nobody"}"#)
    #expect(strict.exitCode == 65)
    #expect(strict.issues.map(\.code) == [.orphanReference])
    #expect(strict.issues.first?.path == "id")
    #expect(strict.issues.first?.location?.ordinal == 2)
    #expect(strict.issues.first?.location?.line == 2)
    #expect(!strict.summary().contains("p404"))
    #expect(try workspace.profiles() == ["p1|Ada|Hello", "p2|Bob|Hi"])

    let lenient = try workspace.patch(
      #"{"id": "p1", "nickname": "A"}"#, #"{"id": "p404", "nickname": "Nobody"}"#, policy: .lenient)
    #expect(lenient.status == .succeeded)
    #expect(lenient.issues.map(\.code) == [.orphanReference])
    #expect(try workspace.profiles() == ["p1|A|Hello", "p2|Bob|Hi"])
  }

  @Test func aPatchFindsAProfileAnEarlierInputOfTheSamePipelineLoaded() throws {
    let workspace = try Workspace()
    let report = try workspace.run([
      try workspace.input("profiles", #"{"id": "p9", "nickname": "Nine", "introduction": "New"}"# + "\n"),
      try workspace.input("profile-patches", #"{"id": "p9", "introduction": null}"# + "\n"),
    ])
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(try workspace.profiles() == ["p9|Nine|∅"])
  }

  @Test func xmlPatchesReadAMissingElementAsUnchangedAndXsiNilAsCleared() throws {
    let workspace = try Workspace()
    try workspace.loadProfiles()
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <patches xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <patch><id>p1</id><nickname>Ada L.</nickname></patch>
        <patch><id>p2</id><introduction xsi:nil="true"/></patch>
      </patches>
      """
    let input = try workspace.input("profile-patches", xml, format: .xml)
    var configured = input
    configured.recordPath = ["patches", "patch"]
    let report = try workspace.run([configured])
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "") \(report.issues)")
    #expect(try workspace.profiles() == ["p1|Ada L.|Hello", "p2|Bob|∅"])
  }

  @Test func aFullImportReplacesTheWholeProfile() throws {
    let workspace = try Workspace()
    try workspace.loadProfiles()
    let report = try workspace.run([try workspace.input("profiles", #"{"id": "p1", "nickname": "Ada"}"# + "\n")])
    #expect(report.status == .succeeded)
    #expect(try workspace.profiles() == ["p1|Ada|∅", "p2|Bob|Hi"])
  }
}
