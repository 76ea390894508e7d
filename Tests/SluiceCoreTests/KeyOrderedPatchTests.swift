import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// Patches into SQLite are staged in a temporary table and applied in key order (each key's in
/// the order they came) before anything else writes (`SQLDialect.appliesPatchesInKeyOrder`).
/// What a run ends with must not show it: the same rows and the same counts as patches applied
/// one by one in input order, a patch the database refuses rejected at its field, with its line,
/// when it is staged, and whole rows between patches of the same key written in their place.
@Suite("Patches applied in key order")
struct KeyOrderedPatchTests {
  /// Players whose score the table checks (0…100) and the dataset does not, so that only the
  /// store refuses a patch that breaks it.
  struct ScoresDataset: Dataset {
    struct DTO: Decodable { var id: String, score: Patch<Int64>, team: Patch<String>, patch: Bool? }

    static let players = Table(
      "players", key: ["player_id"],
      columns: [
        .text("player_id", field: "id"), .integer("score", checks: [.atLeast(0), .atMost(100)]),
        .text("team", nullable: true, checks: [.notEmpty]),
      ])

    var name: String { "scores" }
    var summary: String { "players, whole or patched" }
    var schema: Schema { Schema([Self.players]) }
    func validate(_ dto: DTO, into validation: inout Validation) {}
    func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> DTO { dto }
    func rows(for player: DTO, into rows: inout RecordRows) {
      if player.patch == true {
        rows.patch(Self.players, player.id, player.score, player.team)
      } else {
        rows.add(Self.players, player.id, player.score.applied(to: nil), player.team.applied(to: nil))
      }
    }
  }

  /// The table as `id|score|team` (NULL as `∅`), by id.
  func players(_ db: ProjectsDatabase) -> [String] {
    db.rows(["player_id", "score", "team"], from: "players ORDER BY player_id")
  }

  static func whole(_ id: String, _ score: Int, _ team: String?) -> String {
    #"{"id": "\#(id)", "score": \#(score), "team": \#(team.map { "\"\($0)\"" } ?? "null")}"#
  }

  /// More patches than a stage takes (so they are applied between batches too), several per
  /// player in no order of keys, each setting, clearing or leaving a column, or giving only the
  /// key: the table and the rows written are those of the patches applied one by one in input
  /// order, worked out here.
  @Test func manyPatchesEndAsAppliedOneByOneInInputOrder() throws {
    let db = try ProjectsDatabase()
    let ids = (0..<300).map { String(format: "p%03d", $0) }
    #expect(try db.run(ScoresDataset(), ids.map { Self.whole($0, 0, "t") }).exitCode == 0)

    // Each line, and what it does to a row: (score, team) → (score, team).
    var random: UInt64 = 0x5EED
    func next() -> Int {
      random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(random >> 33)
    }
    typealias Row = (score: Int, team: String?)
    var patches: [(id: String, line: String, apply: (Row) -> Row)] = []
    // Teams of 4,000 bytes: two patches in five carry one, more than a stage takes.
    let count = 8_000
    let padding = String(repeating: "x", count: 4_000)
    patches.reserveCapacity(count)
    for _ in 0..<count {
      let id = ids[next() % ids.count]
      let score = next() % 101
      let team = "t\(next() % 7)" + padding
      switch next() % 5 {
      case 0:
        patches.append(
          (
            id, #"{"patch": true, "id": "\#(id)", "score": \#(score)}"#,
            { (score, $0.team) }
          ))
      case 1: patches.append((id, #"{"patch": true, "id": "\#(id)", "team": "\#(team)"}"#, { ($0.score, team) }))
      case 2: patches.append((id, #"{"patch": true, "id": "\#(id)", "team": null}"#, { ($0.score, nil) }))
      case 3:
        patches.append(
          (id, #"{"patch": true, "id": "\#(id)", "score": \#(score), "team": "\#(team)"}"#, { _ in (score, team) }))
      default: patches.append((id, #"{"patch": true, "id": "\#(id)"}"#, { $0 }))
      }
    }
    /// The patches applied one by one in input order over `state`: the rows they change.
    func apply(to state: inout [String: Row]) -> Int {
      var changed = 0
      for patch in patches {
        let before = state[patch.id]!
        let after = patch.apply(before)
        if after != before { changed += 1 }
        state[patch.id] = after
      }
      return changed
    }
    var state = Dictionary(uniqueKeysWithValues: ids.map { ($0, Row(score: 0, team: "t")) })
    let changed = apply(to: &state)
    let teams = patches.filter { $0.line.contains(padding) }.count
    #expect(teams * padding.utf8.count > 2 * MemoryBudget.default.patchStageBytes)
    let report = try db.run(ScoresDataset(), patches.map(\.line))
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    #expect(report.statistics(for: .load).recordsOut == count)
    #expect(report.rowsWritten == ["players": changed])
    #expect(players(db) == ids.map { "\($0)|\(state[$0]!.score)|\(state[$0]!.team ?? "∅")" })

    // The same patches again, over the rows they left: a key's patches change its row again
    // where they pass through other values on the way to the same end.
    let changedAgain = apply(to: &state)
    #expect(changedAgain > 0 && changedAgain < changed)
    let again = try db.run(ScoresDataset(), patches.map(\.line))
    #expect(again.exitCode == 0)
    #expect(again.rowsWritten == ["players": changedAgain])
    #expect(players(db) == ids.map { "\($0)|\(state[$0]!.score)|\(state[$0]!.team ?? "∅")" })
  }

  /// The stage has the table's checks: a patch that breaks one is refused when it is staged,
  /// inside its record's savepoint, at its field and line; the patches around it apply.
  @Test func aPatchBreakingACheckIsRejectedAtItsFieldAndTheOthersApply() throws {
    let db = try ProjectsDatabase()
    #expect(try db.run(ScoresDataset(), [Self.whole("p1", 10, "a"), Self.whole("p2", 20, "b")]).exitCode == 0)
    let patches = [
      #"{"patch": true, "id": "p1", "score": 50}"#,
      #"{"patch": true, "id": "p2", "score": 150}"#,
      #"{"patch": true, "id": "p1", "team": ""}"#,
      #"{"patch": true, "id": "p2", "team": "c"}"#,
      #"{"patch": true, "id": "p1", "score": 60}"#,
    ]
    let lenient = try db.run(ScoresDataset(), patches, policy: .lenient)
    #expect(lenient.exitCode == 0, "\(lenient.failure?.message ?? "")")
    #expect(lenient.issues.map(\.place) == ["load error constraint score line 2", "load error constraint team line 3"])
    #expect(lenient.issues.allSatisfy { $0.message.contains("players") && !$0.message.contains("150") })
    #expect(lenient.statistics(for: .load).rejected == 2)
    #expect(lenient.rowsWritten == ["players": 3])
    #expect(players(db) == ["p1|60|a", "p2|20|c"])

    // Strict: the first refusal fails the run, and nothing of it stays.
    let strict = try db.run(ScoresDataset(), [#"{"patch": true, "id": "p1", "score": 1}"#, patches[1]])
    #expect(strict.exitCode == 65)
    #expect(strict.issues.map(\.place) == ["load error constraint score line 2"])
    #expect(players(db) == ["p1|60|a", "p2|20|c"])
  }

  /// Whole rows between patches of the same key, in one input: the staged patches are applied
  /// before each whole row is written, so every write sees the row the earlier records left.
  @Test func wholeRowsBetweenPatchesOfTheSameKeyAreWrittenInTheirPlace() throws {
    let db = try ProjectsDatabase()
    let report = try db.run(
      ScoresDataset(),
      [
        Self.whole("p1", 1, "a"),
        #"{"patch": true, "id": "p1", "score": 2}"#,
        #"{"patch": true, "id": "p2", "team": "x"}"#,  // no p2 yet: an orphan
        Self.whole("p2", 5, nil),
        #"{"patch": true, "id": "p1", "team": "b"}"#,
        Self.whole("p1", 3, "c"),  // after the two patches of p1, over them
        #"{"patch": true, "id": "p1", "score": 4}"#,
        #"{"patch": true, "id": "p2", "team": "d"}"#,
      ], policy: .lenient)
    #expect(report.exitCode == 0, "\(report.failure?.message ?? "")")
    // (The whole row of p1 again is a repeated key, which the lenient policy warns of.)
    #expect(
      report.issues.map(\.place) == ["load error orphanReference id line 3", "load warning duplicateKey id line 6"])
    #expect(players(db) == ["p1|4|c", "p2|5|d"])
    #expect(report.rowsWritten == ["players": 7])
  }
}
