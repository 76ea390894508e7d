import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Profile patches on the real binary, checkpointed: SQLite applies a run's patches in key order
/// from a stage (`SQLDialect.appliesPatchesInKeyOrder`), and a chunk commits only once its
/// patches are applied. Killed just after a chunk's commit, the database holds exactly the
/// patches of the records the checkpoint counts; resumed, the run ends as the single transaction
/// does, with the same rows and the same rows written.
@Suite("Patches checkpointed, killed and resumed", .tags(.slow))
struct PatchCheckpointTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  static let ids = (0..<400).map { String(format: "p-%04d", $0) }
  typealias Profile = (nickname: String, introduction: String?)

  /// 3,000 patches of the 400 profiles, in no order of keys: (id, NDJSON line, effect).
  static let patches: [(id: String, line: String, apply: @Sendable (Profile) -> Profile)] = {
    var random: UInt64 = 42
    func next() -> Int {
      random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(random >> 33)
    }
    return (0..<3_000).map { _ in
      let id = ids[next() % ids.count]
      let nickname = "N\(next() % 50)"
      let introduction = "I\(next() % 50)"
      switch next() % 4 {
      case 0: return (id, #"{"id": "\#(id)", "nickname": "\#(nickname)"}"#, { (nickname, $0.introduction) })
      case 1: return (id, #"{"id": "\#(id)", "introduction": "\#(introduction)"}"#, { ($0.nickname, introduction) })
      case 2: return (id, #"{"id": "\#(id)", "introduction": null}"#, { ($0.nickname, nil) })
      default:
        return (
          id, #"{"id": "\#(id)", "nickname": "\#(nickname)", "introduction": "\#(introduction)"}"#,
          { _ in (nickname, introduction) }
        )
      }
    }
  }()

  /// The profiles after the first `count` patches, as `id|nickname|introduction` (NULL as `∅`).
  static func expected(afterPatches count: Int) -> [String] {
    var profiles = Dictionary(uniqueKeysWithValues: ids.map { ($0, Profile("N", "I")) })
    for patch in patches.prefix(count) { profiles[patch.id] = patch.apply(profiles[patch.id]!) }
    return ids.map { "\($0)|\(profiles[$0]!.nickname)|\(profiles[$0]!.introduction ?? "∅")" }
  }

  /// A database holding the 400 profiles, and the spec of the patches into it.
  func prepare(_ name: String) throws -> (database: String, spec: String) {
    let database = scratch.file("\(name).sqlite")
    let profiles = try scratch.write(
      "profiles.ndjson",
      Self.ids.map { #"{"id": "\#($0)", "nickname": "N", "introduction": "I"}"# }.joined(separator: "\n") + "\n")
    let patches = try scratch.write("patches.ndjson", Self.patches.map(\.line).joined(separator: "\n") + "\n")
    let load = try scratch.write(
      "\(name)-profiles.json",
      #"{"dataset": "profiles", "input": "\#(profiles)", "format": "ndjson", "database": "\#(database)"}"#)
    let loaded = try SluiceCommand.run(["run", load])
    try #require(loaded.status == 0, "\(loaded.stderr)")
    let spec = try scratch.write(
      "\(name)-patches.json",
      #"{"dataset": "profile-patches", "input": "\#(patches)", "format": "ndjson", "database": "\#(database)"}"#)
    return (database, spec)
  }

  func profiles(_ database: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(
      "SELECT profile_id, nickname, ifnull(introduction, '∅') FROM profiles ORDER BY profile_id")
    var rows: [String] = []
    while try statement.step() { rows.append((0..<3).map { statement.columnText($0) ?? "" }.joined(separator: "|")) }
    return rows
  }

  func rowsWritten(_ report: String) throws -> Int? {
    let data = try Data(contentsOf: URL(fileURLWithPath: report))
    let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return (json["rowsWritten"] as? [String: Int])?["profiles"]
  }

  @Test func aCheckpointedPatchRunKilledAtAChunkAndResumedEndsAsTheSingleTransaction() throws {
    let single = try prepare("single")
    let singleReport = scratch.file("single.json")
    let whole = try SluiceCommand.run(["run", single.spec, "--report", singleReport])
    try #require(whole.status == 0, "\(whole.stderr)")
    #expect(try profiles(single.database) == Self.expected(afterPatches: Self.patches.count))

    let chunked = try prepare("chunked")
    let killed = try SluiceBinary.run(["run", chunked.spec, "--checkpoint-every", "500", "--test-kill-at", "chunk-3"])
    #expect(killed.status == SIGKILL, "\(killed.stderr)")
    // The chunks that committed hold their patches, applied, and nothing after them.
    let committed = try #require(
      try SQLiteConnection(path: chunked.database, options: .init(readOnly: true)).scalarInt(
        "SELECT records FROM sluice_checkpoints"))
    #expect(committed >= 1_500 && committed < Self.patches.count)
    #expect(try profiles(chunked.database) == Self.expected(afterPatches: Int(committed)))

    let resumedReport = scratch.file("resumed.json")
    let resumed = try SluiceCommand.run(["run", chunked.spec, "--resume", "--report", resumedReport])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(try profiles(chunked.database) == Self.expected(afterPatches: Self.patches.count))
    #expect(try rowsWritten(resumedReport) == (try rowsWritten(singleReport)))
    #expect(
      try SQLiteConnection(path: chunked.database, options: .init(readOnly: true)).scalarInt(
        "SELECT count(*) FROM sluice_checkpoints") == 0)
  }
}
