import Foundation
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice init DUMP NAME --declarative`, then `sluice run`: every value the dump holds lands in
/// a table of the dataset file — elements holding only arrays, arrays of arrays, keys with a dot,
/// keys the stores reserve — and the run warns of nothing (issue 55).
@Suite("sluice init --declarative, then sluice run: no value of the dump is left out")
struct InitEveryValueTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  /// Inits `json` as `name` and runs it; the run's report and the rows of `tables`.
  func load(_ json: String, _ name: String, tables: [String]) throws -> (
    report: [String: Any], rows: DatabaseSnapshot
  ) {
    let dump = try scratch.write("\(name).json", json)
    let directory = scratch.file(name)
    let initialized = try SluiceCommand.run(["init", dump, name, "--declarative", "--dir", directory])
    try #require(initialized.status == 0, "\(initialized.stderr)")
    let run = try SluiceCommand.run(["run", "\(directory)/\(name).json"])
    try #require(run.status == 0, "\(run.stderr)")
    let report = try #require(
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: "\(directory)/reports/\(name).json")))
        as? [String: Any])
    return (report, try DatabaseSnapshot(of: "\(directory)/\(name).sqlite", tables: tables))
  }

  /// No stage rejected or warned about anything: no value was an unknown field.
  func expectNoIssues(_ report: [String: Any], _ name: String) {
    for stage in report["stages"] as? [[String: Any]] ?? [] {
      #expect(stage["rejected"] as? Int == 0 && stage["warnings"] as? Int == 0, "\(name): \(stage)")
    }
    #expect((report["issues"] as? [Any])?.isEmpty == true, "\(name): \(report["issues"] ?? "")")
  }

  /// `a`'s elements hold only arrays: their table has no column of its own but its key, and its
  /// arrays are its child tables (`b` with `d` below it, `t` of scalars), loaded to the leaf.
  @Test func anArrayWhoseElementsHoldOnlyArraysIsATableWithChildTablesToTheLeaf() throws {
    let json = #"[{"id": 1, "a": [{"b": [{"c": 1, "d": [{"e": 1}, {"e": 2}]}], "t": ["x", "y"]}]}, {"id": 2, "a": []}]"#
    let tables = ["nest", "nest_a", "nest_a_b", "nest_a_b_d", "nest_a_t"]
    let (report, rows) = try load(json, "nest", tables: tables)
    expectNoIssues(report, "nest")
    #expect(rows.tables["nest"] == ["1", "2"])
    #expect(rows.tables["nest_a"] == ["1|0"])
    #expect(rows.tables["nest_a_b"] == ["1|0|0|1"])
    #expect(rows.tables["nest_a_b_d"] == ["1|0|0|0|1", "1|0|0|1|2"])
    #expect(rows.tables["nest_a_t"] == ["1|0|0|'x'", "1|0|1|'y'"])
  }

  /// An array of arrays is a table of the outer elements (keyed by their position) and a child
  /// table of each inner array's elements, scalars or objects.
  @Test func anArrayOfArraysIsATableOfTheOuterElementsWithTheInnerOnesAsItsChildTable() throws {
    let json = #"[{"id": 1, "mx": [[1, 2], [3]], "objarr": [[{"k": 1}, {"k": 2}]]}, {"id": 2, "mx": [], "objarr": []}]"#
    let tables = ["grid", "grid_mx", "grid_mx_values", "grid_objarr", "grid_objarr_items"]
    let (report, rows) = try load(json, "grid", tables: tables)
    expectNoIssues(report, "grid")
    #expect(rows.tables["grid_mx"] == ["1|0", "1|1"])
    #expect(rows.tables["grid_mx_values"] == ["1|0|0|1", "1|0|1|2", "1|1|0|3"])
    #expect(rows.tables["grid_objarr"] == ["1|0"])
    #expect(rows.tables["grid_objarr_items"] == ["1|0|0|1", "1|0|1|2"])
  }

  /// `"a.b"` is a key of its own, not `b` inside `a`: its column holds its values beside those
  /// of the nested `a.b`, and a dump without the object `a` runs too.
  @Test func aKeyWithADotIsItsOwnFieldNotANestedPath() throws {
    let both = #"[{"id": 1, "a.b": 4, "a": {"b": 2}}, {"id": 2, "a.b": 14, "a": {"b": 3}}]"#
    let (report, rows) = try load(both, "dotted", tables: ["dotted"])
    expectNoIssues(report, "dotted")
    #expect(rows.tables["dotted"] == ["1|4|2", "2|14|3"])
    let alone = #"[{"id": 1, "a.b": 4}, {"id": 2, "a.b": 14}]"#
    let (aloneReport, aloneRows) = try load(alone, "dot-only", tables: ["dot_only"])
    expectNoIssues(aloneReport, "dot-only")
    #expect(aloneRows.tables["dot_only"] == ["1|4", "2|14"])
  }

  /// Keys that would make names the stores reserve (`pg_`, `sqlite_`, `sluice_`) or no name at
  /// all (`""`) get columns `run` accepts, each holding its key's values.
  @Test func keysThatWouldMakeReservedOrEmptyNamesGetColumnsRunAccepts() throws {
    let json =
      #"[{"id": 1, "pg_x": 1, "sqlite_y": 2, "sluice_z": 3, "": 5}, {"id": 2, "pg_x": 6, "sqlite_y": 7, "sluice_z": 8, "": 9}]"#
    let (report, rows) = try load(json, "keys", tables: ["keys"])
    expectNoIssues(report, "keys")
    #expect(rows.tables["keys"] == ["1|1|2|3|5", "2|6|7|8|9"])
  }
}

/// `sluice init` of a CSV export makes a column an enum only on strong evidence, and a value no
/// enum declares is reported by its place, never by its text (issue 55).
@Suite("sluice init: enums from strong evidence, reported without their values")
struct InitEnumTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  /// `rows` rows whose `status` takes the values in turn, as a CSV file; its path.
  func export(_ name: String, rows: Int, statuses: [String]) throws -> String {
    let lines = (0..<rows).map { "\($0 + 1),\(statuses[$0 % statuses.count])" }
    return try scratch.write(name, (["id,status"] + lines).joined(separator: "\n") + "\n")
  }

  func statusType(_ dump: String, _ name: String) throws -> String? {
    let directory = scratch.file(name)
    let result = try SluiceCommand.run(["init", dump, name, "--declarative", "--dir", directory])
    try #require(result.status == 0, "\(result.stderr)")
    let dataset = try #require(
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name).dataset.json"))) as? [String: Any])
    let fields = dataset["fields"] as? [[String: Any]] ?? []
    return fields.first { $0["name"] as? String == "status" }?["type"] as? String
  }

  /// A handful of short texts is no evidence of an enum: ten rows of five names are text.
  @Test func aFewRowsOfAFewShortTextsAreText() throws {
    let dump = try export("few.csv", rows: 10, statuses: ["Ann", "Bob", "Cy", "Di", "Ed"])
    #expect(try statusType(dump, "few") == "text")
  }

  /// Many rows and few values are: sixty rows of three statuses make an enum.
  @Test func manyRowsOfFewValuesAreAnEnum() throws {
    let dump = try export("many.csv", rows: 60, statuses: ["open", "closed", "pending"])
    #expect(try statusType(dump, "many") == "enum")
  }

  /// A later value the enum does not declare rejects its record at the map stage, at `status`,
  /// and neither the report, the HTML report nor the terminal says what the value was.
  @Test func anUndeclaredEnumValueIsReportedByItsPlaceNotItsText() throws {
    let dump = try export("tickets.csv", rows: 60, statuses: ["open", "closed", "pending"])
    #expect(try statusType(dump, "tickets") == "enum")
    let secret = "call Jane at 555-0100"
    // Nine rows the enum reads around the one it does not: within the 10 % error budget of the
    // spec init writes.
    let later = try scratch.write(
      "later.csv", "id,status\n61,open\n62,\(secret)\n" + (63...70).map { "\($0),closed\n" }.joined())
    let directory = scratch.file("tickets")
    let run = try SluiceCommand.run([
      "run", "\(directory)/tickets.json", "--input", later, "--html", "\(directory)/reports/tickets.html",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let reportText = try String(contentsOfFile: "\(directory)/reports/tickets.json", encoding: .utf8)
    let html = try String(contentsOfFile: "\(directory)/reports/tickets.html", encoding: .utf8)
    for (place, text) in [("stderr", run.stderr), ("stdout", run.stdout), ("report", reportText), ("html", html)] {
      #expect(!text.contains("555-0100"), "\(place) names the value: \(text)")
    }
    let report = try #require(try JSONSerialization.jsonObject(with: Data(reportText.utf8)) as? [String: Any])
    let issues = try #require(report["issues"] as? [[String: Any]])
    try #require(issues.count == 1, "\(issues)")
    #expect(issues[0]["stage"] as? String == "map")
    #expect(issues[0]["code"] as? String == "unsupportedEnumValue")
    #expect(issues[0]["path"] as? String == "status")
    #expect((issues[0]["location"] as? [String: Any])?["ordinal"] as? Int == 2)
    #expect(issues[0]["value"] == nil)
  }
}
