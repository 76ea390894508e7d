import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Contacts some records give in part (`RecordRows.merge`: a field the record leaves out is left
/// as the row has it) and others whole, each named by a note: on PostgreSQL's bulk path
/// (`PostgreSQLBulkWriter+Merges`) against SQLite's row writer — the same rows, the same counts
/// of rows written (a merge counts when it changed its row), the same issues.
private struct MergedContactsDataset: Dataset {
  struct DTO: Decodable {
    var id: String
    var contact: String
    var name: Patch<String>
    var email: Patch<String>
    var score: Patch<Int>
    var whole: Bool?
  }

  static let contacts = Table(
    "merged_contacts", key: ["contact_id"],
    columns: [
      .text("contact_id", field: "contact"), .text("name", nullable: true), .text("email", nullable: true),
      .integer("score", nullable: true),
    ],
    onConflict: .upsert)
  static let notes = Table(
    "merged_notes", key: ["note_id"],
    columns: [.text("note_id", field: "id"), .reference("contact_id", to: contacts, field: "contact")])

  var name: String { "merged-contacts" }
  var summary: String { "contacts merged by the notes that name them" }
  var schema: Schema { Schema([Self.contacts, Self.notes]) }
  func validate(_ dto: DTO, into validation: inout Validation) {}
  func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> DTO { dto }
  func rows(for note: DTO, into rows: inout RecordRows) {
    if note.whole == true {
      rows.add(
        Self.contacts, note.contact, note.name.applied(to: nil), note.email.applied(to: nil),
        note.score.applied(to: nil))
    } else {
      rows.merge(Self.contacts, note.contact, note.name, note.email, note.score)
    }
    rows.add(Self.notes, note.id, note.contact)
  }
}

@Suite(
  "PostgreSQL: merged rows in bulk",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLBulkMergeTests {
  static let contacts = [AnyDataset(MergedContactsDataset())]
  static let tables = ["merged_contacts", "merged_notes"]

  /// `count` notes `n<first>` … over `keys` contacts, drawn by a fixed generator: each field left
  /// out, cleared or set to one of a few values (so that many merges change nothing), one note
  /// in eight giving its contact whole.
  static func notes(_ count: Int, keys: Int, seed: UInt64, first: Int = 0) -> [String] {
    var state = seed
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    return (first..<first + count).map { index in
      let whole = next(8) == 0
      var fields = [#""id":"n\#(index)""#, #""contact":"c\#(next(keys))""#]
      for (name, values) in [
        ("name", [#""Ann""#, #""Bo""#, #""Cy""#]), ("email", [#""a@x""#, #""b@x""#]), ("score", ["1", "2", "3"]),
      ] {
        switch next(4) {
        case 0 where !whole: continue
        case 1: fields.append(#""\#(name)":null"#)
        default: fields.append(#""\#(name)":\#(values[next(values.count)])"#)
        }
      }
      if whole { fields.append(#""whole":true"#) }
      return "{" + fields.joined(separator: ",") + "}"
    }
  }

  func run(
    _ twin: TwinStores, _ lines: [String], name: String, policy: Policy = .strict, usesMerge: Bool = true
  ) throws -> TwinStores.Reports {
    let input = try twin.directory.write("\(name).ndjson", FruitsDump.ndjson(lines))
    var configuration = PipelineConfiguration(
      name: name, input: input, format: .ndjson, policy: policy, database: .sqlite(""), conflict: .upsert)
    configuration.reportPath = nil
    var sqlite = configuration
    sqlite.database = .sqlite(twin.sqlitePath)
    var postgreSQL = configuration
    postgreSQL.database = .postgreSQL(
      twin.schema.url, schema: twin.schema.name, options: .init(usesMerge: usesMerge))
    return TwinStores.Reports(
      sqlite: try Pipeline(datasets: Self.contacts, configuration: sqlite.counted).run(),
      postgreSQL: try Pipeline(datasets: Self.contacts, configuration: postgreSQL.counted).run())
  }

  /// New contacts, then other notes merging the same contacts and new ones, then the first notes
  /// again: each batch's merges are staged and applied by round, with MERGE (PostgreSQL 15) or
  /// the UPDATE and INSERT older servers take, and every count is the row writer's.
  @Test(arguments: [true, false])
  func mergesOfNewAndKnownKeysEndAsRowByRow(usesMerge: Bool) throws {
    let twin = try TwinStores()
    for (round, seed) in [(1, UInt64(11)), (2, 12), (3, 11)] {
      let reports = try run(
        twin, Self.notes(9000, keys: 300 + 100 * round, seed: seed, first: round == 3 ? 0 : (round - 1) * 9000),
        name: "round\(round)", usesMerge: usesMerge)
      #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
      #expect(reports.postgreSQL.outcome == reports.sqlite.outcome, "round \(round)")
      let written = try #require(reports.sqlite.rowsWritten["merged_contacts"])
      // Some merges change nothing (the row has their values already).
      #expect(written > 0 && written < 9000, "round \(round): \(written)")
      let writes = try #require(reports.postgreSQL.bulkWrites)
      #expect((writes.tables["merged_contacts"]?.staged ?? 0) >= 2, "round \(round): \(writes)")
      #expect(writes.rowByRow == 0, "round \(round): \(writes)")
      let (sqlite, postgreSQL) = try twin.tables(Self.tables)
      #expect(postgreSQL == sqlite, "round \(round)")
    }
  }

  /// One contact renamed back and forth by more notes of one batch than the bulk writer stages
  /// rounds for: that batch goes row by row, with the same rows and counts.
  @Test func aKeyMergedInMoreRoundsThanTheLimitGoesRowByRow() throws {
    let twin = try TwinStores()
    var lines = Self.notes(3000, keys: 100, seed: 21)
    for index in 0..<100 {
      lines[index * 2] = #"{"id":"n\#(index * 2)","contact":"c-busy","name":"\#(index % 2 == 0 ? "Ann" : "Bo")"}"#
    }
    let reports = try run(twin, lines, name: "busy")
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(reports.sqlite.rowsWritten["merged_contacts", default: 0] >= 100)
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect(writes.rowByRow >= 1, "\(writes)")
    let (sqlite, postgreSQL) = try twin.tables(Self.tables)
    #expect(postgreSQL == sqlite)
  }

  /// A constraint the PostgreSQL table has and Sluice does not declare (a check added by its
  /// owner) breaks a merge: the batch goes back to the row writer, which rejects that note at
  /// its line, and writes the rest. The tables are SQLite's without that note.
  @Test func aMergeBreakingAConstraintSendsItsBatchRowByRow() throws {
    let twin = try TwinStores()
    let policy = Policy(preset: .lenient)
    _ = try run(twin, Self.notes(10, keys: 10, seed: 1), name: "first")
    try SQLiteConnection(path: twin.sqlitePath).execute("UPDATE merged_contacts SET score = NULL WHERE score >= 3")
    try twin.schema.connect().execute("UPDATE merged_contacts SET score = NULL WHERE score >= 3")
    try twin.schema.connect().execute(
      "ALTER TABLE merged_contacts ADD CONSTRAINT merged_contacts_small_score CHECK (score < 3)")
    var lines = Self.notes(12_000, keys: 300, seed: 31, first: 10)
      .map { $0.replacingOccurrences(of: #""score":3"#, with: #""score":2"#) }
    lines[7000] = #"{"id":"n-big","contact":"c7","score":9}"#
    let postgreSQL = try Pipeline(
      datasets: Self.contacts,
      configuration: twin.schema.aim(
        PipelineConfiguration(
          name: "checked", input: try twin.directory.write("checked.ndjson", FruitsDump.ndjson(lines)),
          format: .ndjson, policy: policy, database: .sqlite(""), conflict: .upsert)
      ).counted
    ).run()
    var kept = lines
    kept.remove(at: 7000)
    let sqlite = try Pipeline(
      datasets: Self.contacts,
      configuration: PipelineConfiguration(
        name: "checked", input: try twin.directory.write("kept.ndjson", FruitsDump.ndjson(kept)), format: .ndjson,
        policy: policy, database: .sqlite(twin.sqlitePath), conflict: .upsert
      ).counted
    ).run()
    #expect(postgreSQL.status == .succeeded, "\(postgreSQL.failure?.message ?? "")")
    let issues = postgreSQL.issues.map { "\($0.code.rawValue) \($0.location?.line ?? -1)" }
    #expect(issues == ["constraint 7001"], "\(issues)")
    #expect(postgreSQL.rowsWritten == sqlite.rowsWritten)
    #expect(postgreSQL.tableRows == sqlite.tableRows)
    let writes = try #require(postgreSQL.bulkWrites)
    #expect(writes.rowByRow >= 1, "\(writes)")
    #expect((writes.tables["merged_contacts"]?.staged ?? 0) >= 1, "\(writes)")
    let (sqliteRows, postgreSQLRows) = try twin.tables(Self.tables)
    #expect(postgreSQLRows == sqliteRows)
  }

  /// The catalog's chat pipelines, whose messages merge their senders and conversations: in
  /// bulk on PostgreSQL, with SQLite's rows and report.
  @Test(arguments: ["messages-lenient.json", "mattermost.json", "slack.json"])
  func chatPipelinesMergeInBulk(spec: String) throws {
    let twin = try TwinStores()
    let reports = try twin.run(spec: spec)
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect(writes.tables["senders"]?.staged ?? 0 >= 1, "\(writes)")
    #expect(writes.rowByRow == 0, "\(writes)")
    let tables = Array(reports.sqlite.tableRows.keys)
    let (sqlite, postgreSQL) = try twin.tables(tables)
    #expect(postgreSQL == sqlite)
  }
}
