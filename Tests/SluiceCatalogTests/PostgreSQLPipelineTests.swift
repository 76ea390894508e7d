import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@Suite("PostgreSQL names")
struct PostgreSQLNameTests {
  /// PostgreSQL silently cuts a longer identifier to 63 bytes: a check whose name were cut would
  /// no longer be recognised in its error, and two names equal in their first 63 bytes would be
  /// one object. Every name the catalog's DDL quotes must fit.
  @Test func everyIdentifierOfTheCatalogFitsPostgreSQLsLimit() {
    for dataset in Catalog.datasets {
      for migration in dataset.schema.migrations(dialect: PostgreSQLDialect()) {
        let names = migration.sql.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
          .filter { $0.offset % 2 == 1 }.map(\.element)
        #expect(!names.isEmpty)
        for name in names {
          #expect(name.utf8.count <= PostgreSQLDialect.identifierLimit, "\(dataset.name): \(name)")
        }
      }
    }
  }
}

/// Every dataset's committed pipeline, loaded into PostgreSQL and into SQLite: the same rows,
/// table by table, and the same report. Needs a server (`SLUICE_TEST_POSTGRES_URL`, which
/// `.ci/with-postgres` sets); skipped without one.
@Suite(
  "PostgreSQL: the catalog's pipelines",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLPipelineTests {
  /// Every spec in Pipelines/ but the patches, which need the profiles first (below).
  static let specs = [
    "fruits.json", "fruits-lenient.json", "fruits-and-orders.json", "orders.json", "orders-lenient.json",
    "messages.json", "messages-lenient.json", "devices.json", "devices-lenient.json", "profiles.json",
    "stackexchange.json", "slack.json", "discord.json", "mattermost.json", "messenger.json", "telegram.json",
    "telegram-account.json",
  ]

  @Test("loads the same rows into PostgreSQL as into SQLite", arguments: specs)
  func specLoadsTheSameRowsIntoBothStores(spec: String) throws {
    let twin = try TwinStores()
    let reports = try twin.run(spec: spec)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(reports.postgreSQL.failure?.message == reports.sqlite.failure?.message)
    if spec == "messages.json" {
      // The sample has a kind this version does not know: strict fails on it, in both stores.
      #expect(reports.postgreSQL.failure?.kind == .data)
      return
    }
    #expect(reports.sqlite.status == .succeeded, "\(reports.sqlite.failure?.message ?? "")")
    let tables = Array(reports.sqlite.tableRows.keys)
    #expect(!tables.isEmpty)
    let (sqlite, postgreSQL) = try twin.tables(tables)
    #expect(postgreSQL == sqlite)
    #expect(tables.allSatisfy { postgreSQL.tables[$0] != nil })
  }

  @Test(
    "re-running a pipeline leaves the tables as they were and counts what SQLite counts",
    arguments: ["fruits.json", "orders.json", "devices.json", "stackexchange.json"])
  func aRerunIsIdempotent(spec: String) throws {
    let twin = try TwinStores()
    let first = try twin.run(spec: spec)
    let tables = Array(first.postgreSQL.tableRows.keys)
    let before = try twin.schema.rows(of: tables)
    let second = try twin.run(spec: spec)
    #expect(second.postgreSQL.status == .succeeded)
    #expect(second.postgreSQL.outcome == second.sqlite.outcome)
    #expect(try twin.schema.rows(of: tables) == before)
  }

  @Test func aRerunThatIgnoresExistingRowsWritesNone() throws {
    let twin = try TwinStores()
    let first = try twin.run(spec: "fruits.json", conflict: .ignore)
    #expect(first.postgreSQL.rowsWritten.values.reduce(0, +) > 0)
    let second = try twin.run(spec: "fruits.json", conflict: .ignore)
    #expect(second.postgreSQL.status == .succeeded)
    #expect(second.postgreSQL.rowsWritten.values.allSatisfy { $0 == 0 }, "\(second.postgreSQL.rowsWritten)")
    #expect(second.postgreSQL.outcome == second.sqlite.outcome)
  }

  @Test func profilePatchesApplyAfterTheProfilesAsInSQLite() throws {
    let twin = try TwinStores()
    let profiles = try twin.run(spec: "profiles.json")
    #expect(profiles.postgreSQL.outcome == profiles.sqlite.outcome)
    let patches = try twin.run(spec: "profile-patches.json")
    #expect(patches.postgreSQL.status == .succeeded)
    #expect(patches.postgreSQL.outcome == patches.sqlite.outcome)
    #expect(!patches.postgreSQL.issues.isEmpty, "the sample's patches include rejected ones")
    let (sqlite, postgreSQL) = try twin.tables(["profiles"])
    #expect(postgreSQL == sqlite)
    #expect(postgreSQL.count("profiles") > 0)
  }

  // MARK: - Conflict policies

  /// Fruits loaded, then a second dump that renames some, drops recipes of others and adds new
  /// ones, under each conflict policy.
  @Test("each conflict policy leaves the same rows in both stores", arguments: ConflictPolicy.allCases)
  func conflictPoliciesAgree(policy: ConflictPolicy) throws {
    let twin = try TwinStores()
    let first = try twin.directory.write(
      "first.json", FruitsDump.array((1...6).map { FruitsDump.fruit($0, recipes: 3) }))
    let second = try twin.directory.write(
      "second.json",
      FruitsDump.array(
        [
          FruitsDump.fruit(2, recipes: 1, name: "Renamed"), FruitsDump.fruit(3, recipes: 3),
          FruitsDump.fruit(4, recipes: 0),
        ]
          + (7...8).map { FruitsDump.fruit($0) }))
    let datasets = [Catalog.dataset(named: "fruits")].compactMap { $0 }
    let lenient = Policy(preset: .lenient)
    _ = try twin.run(PipelineConfiguration(name: "first", input: first, database: .sqlite("")), datasets: datasets)
    let reports = try twin.run(
      PipelineConfiguration(name: "second", input: second, policy: lenient, database: .sqlite(""), conflict: policy),
      datasets: datasets)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let (sqlite, postgreSQL) = try twin.tables(["fruits", "recipes"])
    #expect(postgreSQL == sqlite)
    switch policy {
    case .fail:
      // The three fruits that exist are constraint issues, found by PostgreSQL's primary key.
      let messages = reports.postgreSQL.issues.map(\.message)
      #expect(messages.count == 3)
      #expect(messages.allSatisfy { $0 == "fruits: a row with this key exists already (primary key fruit_id)" })
      #expect(reports.postgreSQL.issues.map { $0.location?.line } == [2, 3, 4])
      #expect(postgreSQL.count("fruits") == 8)
    case .ignore:
      #expect(postgreSQL.tables["fruits"]?.contains { $0.contains("Renamed") } == false)
    case .upsert, .replace:
      #expect(postgreSQL.tables["fruits"]?.contains { $0.contains("Renamed") } == true)
      #expect(postgreSQL.count("recipes") == 3 * 6 - 2 - 3 + 2 * 2)
    }
  }

  // MARK: - Failures

  @Test func aStrictFailureLeavesPostgreSQLAsItWasAndAuditsTheRun() throws {
    let twin = try TwinStores()
    let first = try twin.directory.write("first.json", FruitsDump.array((1...4).map { FruitsDump.fruit($0) }))
    let datasets = [Catalog.dataset(named: "fruits")].compactMap { $0 }
    _ = try twin.run(PipelineConfiguration(name: "first", input: first, database: .sqlite("")), datasets: datasets)
    let before = try twin.schema.rows(of: ["fruits", "recipes"])
    // Five good fruits, the fourth renaming one that exists, then a duplicate key under `fail`.
    let records = (5...8).map { FruitsDump.fruit($0) } + [FruitsDump.fruit(1, name: "Again")]
    let second = try twin.directory.write("second.json", FruitsDump.array(records))
    let reports = try twin.run(
      PipelineConfiguration(name: "second", input: second, database: .sqlite(""), conflict: .fail), datasets: datasets)
    #expect(reports.postgreSQL.status == .failed)
    #expect(reports.postgreSQL.failure?.kind == .data)
    #expect(reports.postgreSQL.failure?.message == reports.sqlite.failure?.message)
    #expect(reports.postgreSQL.failure?.message.contains("a row with this key exists already") == true)
    #expect(try twin.schema.rows(of: ["fruits", "recipes"]) == before)
    let store = try twin.schema.connect()
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'failed'") == 1)
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'succeeded'") == 1)
  }

  @Test func aLenientRunRejectsWhatPostgreSQLRefusesWithItsLocationAndKeepsTheRest() throws {
    let twin = try TwinStores()
    let datasets = [Catalog.dataset(named: "fruits")].compactMap { $0 }
    // Record 3 repeats record 1's key: under `fail`, PostgreSQL's primary key refuses it.
    let records = [FruitsDump.fruit(1), FruitsDump.fruit(2), FruitsDump.fruit(1, name: "Twin"), FruitsDump.fruit(3)]
    let input = try twin.directory.write("fruits.json", FruitsDump.array(records))
    let reports = try twin.run(
      PipelineConfiguration(
        name: "lenient", input: input, policy: Policy(preset: .lenient), database: .sqlite(""), conflict: .fail),
      datasets: datasets)
    #expect(reports.postgreSQL.status == .succeeded)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let issue = try #require(reports.postgreSQL.issues.first)
    #expect(issue.code == .constraint)
    #expect(issue.location?.ordinal == 3)
    #expect(issue.location?.line == 4)
    #expect(issue.path == "fruitID")
    let (sqlite, postgreSQL) = try twin.tables(["fruits", "recipes"])
    #expect(postgreSQL == sqlite)
    #expect(postgreSQL.count("fruits") == 3)
    #expect(postgreSQL.count("recipes") == 6)
    // The audit tables have the reject, without its values.
    let store = try twin.schema.connect()
    let reject = try store.prepare("SELECT code, line, path, message FROM sluice_rejects")
    #expect(try reject.step())
    #expect(reject.columnValue(0) == .text("constraint"))
    #expect(reject.columnValue(1) == .integer(4))
    #expect(reject.columnValue(2) == .text("fruitID"))
    #expect(reject.columnValue(3).map { "\($0)".contains("Twin") } == false)
  }

  @Test func aRunIntoAMissingSchemaCreatesItAndAFailedOneLeavesNoTableOfTheDataset() throws {
    let twin = try TwinStores()
    let datasets = [Catalog.dataset(named: "fruits")].compactMap { $0 }
    let bad = try twin.directory.write("bad.json", FruitsDump.array([#"{"fruitID": 1}"#]))
    let failed = try twin.run(PipelineConfiguration(name: "bad", input: bad, database: .sqlite("")), datasets: datasets)
    #expect(failed.postgreSQL.status == .failed)
    // The failed run audited itself: that made the schema, with the audit tables and nothing else.
    let afterFailure = try twin.schema.rows(of: ["fruits", "recipes"])
    #expect(afterFailure.tables.isEmpty)
    let good = try twin.directory.write("good.json", FruitsDump.array([FruitsDump.fruit(1)]))
    let loaded = try twin.run(
      PipelineConfiguration(name: "good", input: good, database: .sqlite("")), datasets: datasets)
    #expect(loaded.postgreSQL.status == .succeeded)
    #expect(try twin.schema.exists())
    #expect(try twin.schema.rows(of: ["fruits"]).count("fruits") == 1)
  }
}

/// In CI the PostgreSQL tests must run: `.ci/run` starts a server, and a missing URL there would
/// otherwise turn every PostgreSQL test into a quiet skip.
@Suite("PostgreSQL in CI")
struct PostgreSQLInCITests {
  @Test(
    .enabled(
      if: ProcessInfo.processInfo.environment["CI"] == "true",
      "only in CI (CI=true), where .ci/run runs the tests through .ci/with-postgres"))
  func theTestsHaveAServerInCI() {
    #expect(
      PostgreSQLServer.isAvailable,
      "CI=true but SLUICE_TEST_POSTGRES_URL is not set: the PostgreSQL tests would be skipped")
  }
}
