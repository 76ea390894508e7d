import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Patches on PostgreSQL's bulk path (`PostgreSQLBulkWriter+Patches`: staged by COPY, one
/// `UPDATE … FROM` per round of a key's patches) against SQLite's row writer: the same profiles
/// row for row, the same rows written (a patch counts when it changed its row), the same issues
/// at the same records — for keys patched many times in a batch, in the order they came; for
/// patches that set, clear, leave alone, or change nothing; for orphans and cleared NOT NULL
/// columns, which send their batch row by row.
@Suite(
  "PostgreSQL: patches in bulk",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLBulkPatchTests {
  static let profiles = [Catalog.dataset(named: "profiles")].compactMap { $0 }
  static let patches = [Catalog.dataset(named: "profile-patches")].compactMap { $0 }

  /// `count` profiles `p-0` … into both stores; every other one without an introduction.
  static func loadProfiles(_ twin: TwinStores, count: Int) throws {
    let lines = (0..<count).map { index in
      index % 2 == 0
        ? #"{"id":"p-\#(index)","nickname":"N\#(index)","introduction":"I\#(index)"}"#
        : #"{"id":"p-\#(index)","nickname":"N\#(index)"}"#
    }
    let input = try twin.directory.write("profiles.ndjson", FruitsDump.ndjson(lines))
    var configuration = PipelineConfiguration(name: "profiles", input: input, format: .ndjson, database: .sqlite(""))
    configuration.reportPath = nil
    let reports = try twin.run(configuration, datasets: profiles)
    #expect(reports.postgreSQL.status == .succeeded)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
  }

  /// Patches of `keys` profiles drawn by a fixed generator, several per key in each batch: a
  /// nickname from a few (so some patches change nothing), an introduction set, cleared or
  /// left alone, sometimes nothing but the id.
  static func patchLines(_ count: Int, keys: Int, seed: UInt64 = 7) -> [String] {
    var state = seed
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    return (0..<count).map { _ in
      var fields = [#""id":"p-\#(next(keys))""#]
      if next(3) != 0 { fields.append(#""nickname":"Nick \#(next(4))""#) }
      switch next(4) {
      case 0: fields.append(#""introduction":null"#)
      case 1: fields.append(#""introduction":"Intro \#(next(3))""#)
      default: break
      }
      return "{" + fields.joined(separator: ",") + "}"
    }
  }

  func runPatches(
    _ twin: TwinStores, _ lines: [String], name: String, policy: Policy = .strict
  ) throws -> TwinStores.Reports {
    let input = try twin.directory.write("\(name).ndjson", FruitsDump.ndjson(lines))
    var configuration = PipelineConfiguration(
      name: name, input: input, format: .ndjson, policy: policy, database: .sqlite(""))
    configuration.reportPath = nil
    return try twin.run(configuration, datasets: Self.patches)
  }

  @Test func patchesOfRepeatedKeysApplyInOrderSetBasedAsTheRowWriterDoes() throws {
    let twin = try TwinStores()
    try Self.loadProfiles(twin, count: 1000)
    let lines = Self.patchLines(6000, keys: 1000)
    let reports = try runPatches(twin, lines, name: "patches")
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect((reports.postgreSQL.rowsWritten["profiles"] ?? 0) > 3000)
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect((writes.tables["profiles"]?.staged ?? 0) >= 2, "\(writes)")
    #expect(writes.rowByRow == 0, "\(writes)")
    let (sqlite, postgreSQL) = try twin.tables(["profiles"])
    #expect(postgreSQL == sqlite)

    // The same patches again: only those a later patch of the same key undid change anything.
    let again = try runPatches(twin, lines, name: "again")
    #expect(again.postgreSQL.outcome == again.sqlite.outcome)
    #expect(again.postgreSQL.bulkWrites?.rowByRow == 0)
    let (sqliteAgain, postgreSQLAgain) = try twin.tables(["profiles"])
    #expect(postgreSQLAgain == sqliteAgain)
  }

  /// Under a lenient policy, a batch with a patch of a profile that does not exist, or one
  /// clearing the nickname, goes row by row: those records are rejected at their lines and
  /// paths, the rest apply — and later batches go in bulk again once the back-off has passed.
  @Test func orphansAndClearedNicknamesAreRejectedAtTheirRecordsAndTheRestApply() throws {
    let twin = try TwinStores()
    try Self.loadProfiles(twin, count: 3000)
    var lines = Self.patchLines(30000, keys: 3000, seed: 11)
    lines[10] = #"{"id":"p-nobody","nickname":"Ghost"}"#
    lines[20] = #"{"id":"p-3","nickname":null}"#
    lines[29_990] = #"{"id":"p-nobody-either","introduction":null}"#
    let reports = try runPatches(twin, lines, name: "messy", policy: Policy(preset: .lenient))
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let codes = reports.postgreSQL.issues.map { "\($0.code.rawValue) \($0.location?.line ?? -1) \($0.path)" }
    #expect(codes.contains("orphanReference 11 id"), "\(codes)")
    #expect(codes.contains("nullValue 21 nickname"), "\(codes)")
    #expect(codes.contains("orphanReference 29991 id"), "\(codes)")
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect(writes.rowByRow >= 2, "\(writes)")
    #expect((writes.tables["profiles"]?.staged ?? 0) >= 1, "\(writes)")
    let (sqlite, postgreSQL) = try twin.tables(["profiles"])
    #expect(postgreSQL == sqlite)
  }

  /// Strict: one orphan fails the run, and PostgreSQL keeps the profiles as they were — as
  /// SQLite does.
  @Test func aStrictRunWithAnOrphanLeavesTheProfilesAsTheyWere() throws {
    let twin = try TwinStores()
    try Self.loadProfiles(twin, count: 200)
    let before = try twin.schema.rows(of: ["profiles"])
    var lines = Self.patchLines(5000, keys: 200)
    lines.append(#"{"id":"p-missing","nickname":"X"}"#)
    let reports = try runPatches(twin, lines, name: "strict")
    #expect(reports.postgreSQL.status == .failed)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(try twin.schema.rows(of: ["profiles"]) == before)
    let (sqlite, postgreSQL) = try twin.tables(["profiles"])
    #expect(postgreSQL == sqlite)
  }

  /// A key patched more often in a batch than the bulk path's rounds allow goes row by row,
  /// with the same result; text COPY must escape arrives as is.
  @Test func aKeyPatchedManyTimesAndTextCOPYMustEscapeEndAsTheRowWritersDo() throws {
    let twin = try TwinStores()
    try Self.loadProfiles(twin, count: 10)
    let names = [#"back\\slash"#, #"tab\there"#, #"new\nline"#, #"\\N"#, "emoji 🍓 ü", #"quote \" '"#]
    var lines = (0..<100).map { #"{"id":"p-1","nickname":"\#(names[$0 % names.count])"}"# }
    lines += names.enumerated().map { #"{"id":"p-\#($0.offset + 2)","introduction":"\#($0.element)"}"# }
    let reports = try runPatches(twin, lines, name: "many")
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect((reports.postgreSQL.bulkWrites?.rowByRow ?? 0) >= 1)
    let (sqlite, postgreSQL) = try twin.tables(["profiles"])
    #expect(postgreSQL == sqlite)

    let few = try runPatches(twin, Array(lines.suffix(names.count + 3)), name: "few")
    #expect(few.postgreSQL.outcome == few.sqlite.outcome)
    #expect(few.postgreSQL.bulkWrites?.rowByRow == 0)
    #expect((few.postgreSQL.bulkWrites?.tables["profiles"]?.staged ?? 0) >= 1)
    let (sqliteFew, postgreSQLFew) = try twin.tables(["profiles"])
    #expect(postgreSQLFew == sqliteFew)
    let store = try twin.schema.connect()
    let stored = try store.prepare("SELECT introduction FROM profiles WHERE profile_id = 'p-5'")
    #expect(try stored.step())
    #expect(stored.columnValue(0) == .text(#"\N"#))
  }
  /// In a run over two connections (`--jobs 2`: profiles then their patches in one lane, fruits
  /// in the other, each lane a prepared transaction), the patch stage is an ordinary unlogged
  /// table named after the server process: the patches apply in bulk, the tables and report equal
  /// a serial run's, and no staging table is left behind.
  @Test func patchesInALaneOfAParallelRunApplyInBulkAsInASerialOne() throws {
    let directory = try TemporaryDirectory()
    let profiles = (0..<800).map { #"{"id":"p-\#($0)","nickname":"N\#($0)"}"# }
    let inputs = [
      PipelineInput(
        dataset: "profiles", path: try directory.write("profiles.ndjson", FruitsDump.ndjson(profiles)), format: .ndjson),
      PipelineInput(
        dataset: "profile-patches",
        path: try directory.write("patches.ndjson", FruitsDump.ndjson(Self.patchLines(5000, keys: 800, seed: 3))),
        format: .ndjson),
      PipelineInput(dataset: "fruits", path: Repository.path("SampleData/fruits-broken.ndjson.gz"), format: .ndjson),
    ]
    let serialSchema = PostgreSQLSchema()
    let parallelSchema = PostgreSQLSchema()
    let serial = try ParallelLoadTests.run(inputs, into: serialSchema, jobs: 1)
    let parallel = try ParallelLoadTests.run(inputs, into: parallelSchema, jobs: 2)
    #expect(serial.status == .succeeded, "\(serial.failure?.message ?? "")")
    #expect(parallel.status == .succeeded, "\(parallel.failure?.message ?? "")")
    #expect(parallel.parallel?.commit == "two-phase")
    #expect(ParallelLoadTests.essence(parallel) == ParallelLoadTests.essence(serial))
    #expect((parallel.bulkWrites?.tables["profiles"]?.staged ?? 0) >= 1, "\(String(describing: parallel.bulkWrites))")
    let tables = ["profiles", "fruits", "recipes"]
    #expect(try parallelSchema.rows(of: tables) == serialSchema.rows(of: tables))
    let store = try parallelSchema.connect()
    #expect(try store.scalarInt("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'sluice\\_%\\_patch\\_%'") == 0)
  }
}
