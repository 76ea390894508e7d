import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The bulk writer (COPY into staging tables, then set-based statements) against the row writer
/// on SQLite: the same tables, row for row, and the same report — counts, kept records, issues —
/// for what a batch makes hard: repeated keys within a batch and across batches, under each
/// conflict policy, strict and lenient, text COPY must escape, and a value COPY cannot carry.
@Suite(
  "PostgreSQL: the bulk writer",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLBulkWriterTests {
  static let fruits = [Catalog.dataset(named: "fruits")].compactMap { $0 }
  static let orders = [Catalog.dataset(named: "orders")].compactMap { $0 }

  static let cases: [(ConflictPolicy, Bool)] = ConflictPolicy.allCases.flatMap { [($0, false), ($0, true)] }

  /// 700 fruits over 150 keys, 100 of them loaded before: keys repeat within each batch of 256
  /// and across batches, with other names and other numbers of recipes.
  @Test("repeated keys within and across batches end as row by row", arguments: cases)
  func repeatedKeysEndAsRowByRow(conflict: ConflictPolicy, lenient: Bool) throws {
    let twin = try TwinStores()
    let first = try twin.directory.write(
      "first.json", FruitsDump.array((0..<100).map { FruitsDump.fruit($0, recipes: 2) }))
    _ = try twin.run(PipelineConfiguration(name: "first", input: first, database: .sqlite("")), datasets: Self.fruits)
    let records = (0..<700).map { FruitsDump.fruit($0 % 150, recipes: $0 % 4, name: "Name \($0 % 7)") }
    let second = try twin.directory.write("second.json", FruitsDump.array(records))
    let reports = try twin.run(
      PipelineConfiguration(
        name: "second", input: second, policy: lenient ? Policy(preset: .lenient) : .strict, database: .sqlite(""),
        conflict: conflict),
      datasets: Self.fruits)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(reports.postgreSQL.failure?.message == reports.sqlite.failure?.message)
    #expect(reports.postgreSQL.stages.map(\.kept) == reports.sqlite.stages.map(\.kept))
    #expect(reports.postgreSQL.status == (conflict == .fail && !lenient ? .failed : .succeeded))
    let (sqlite, postgreSQL) = try twin.tables(["fruits", "recipes"])
    #expect(postgreSQL == sqlite)
  }

  /// A shared table (customers, `onConflict: .upsert`) counts a row each time it changes: a
  /// customer renamed back and forth within one batch counts every change, a repeat none.
  @Test("a shared table counts each change as the row writer does", arguments: ConflictPolicy.allCases)
  func sharedRowsCountEachChange(conflict: ConflictPolicy) throws {
    let twin = try TwinStores()
    let names = ["Ann", "Bo", "Ann", "Anna", "Anna", "Ann", "Cy", "Bo"]
    let ids = [1, 2, 1, 1, 1, 1, 3, 2]
    let records = names.indices.map { index in
      #"{"orderId":"\#(index % 5)","amount":\#(100 + index),"currency":"EUR","status":"pending","createdAt":"2023-01-01T00:00:0\#(index)Z","customer":{"id":\#(ids[index]),"name":"\#(names[index])"},"items":[\#((0...(index % 3)).map { #"{"sku":"S\#($0)","qty":\#(index + 1),"priceMinor":\#($0)}"# }.joined(separator: ","))]}"#
    }
    let input = try twin.directory.write("orders.ndjson", FruitsDump.ndjson(records))
    var configuration = PipelineConfiguration(
      name: "orders", input: input, format: .ndjson, policy: Policy(preset: .lenient), database: .sqlite(""),
      conflict: conflict)
    configuration.reportPath = nil
    for run in 1...2 {
      let reports = try twin.run(configuration, datasets: Self.orders)
      #expect(reports.postgreSQL.outcome == reports.sqlite.outcome, "run \(run)")
      #expect(reports.postgreSQL.stages.map(\.kept) == reports.sqlite.stages.map(\.kept), "run \(run)")
      let (sqlite, postgreSQL) = try twin.tables(["customers", "orders", "order_items"])
      #expect(postgreSQL == sqlite, "run \(run)")
    }
  }

  /// A first load brings only new keys: every batch is copied straight into its tables, none is
  /// staged, and the rows are the row writer's. Loading the same file again finds every key:
  /// each batch is staged (after the first direct copy's unique violation, the writer backs
  /// off), and the rows are still the row writer's.
  @Test(
    "a first load is copied straight in; a re-run is staged", arguments: [ConflictPolicy.upsert, .ignore, .replace])
  func firstLoadCopiedReRunStaged(conflict: ConflictPolicy) throws {
    let twin = try TwinStores()
    let input = try twin.directory.write(
      "fruits.json", FruitsDump.array((0..<3000).map { FruitsDump.fruit($0, recipes: $0 % 3) }))
    let configuration = PipelineConfiguration(name: "fruits", input: input, database: .sqlite(""), conflict: conflict)
    let first = try twin.run(configuration, datasets: Self.fruits)
    #expect(first.postgreSQL.status == .succeeded)
    #expect(first.postgreSQL.outcome == first.sqlite.outcome)
    let firstWrites = try #require(first.postgreSQL.bulkWrites)
    #expect((firstWrites.tables["fruits"]?.copied ?? 0) >= 2)
    #expect(firstWrites.tables["fruits"]?.staged == 0)
    #expect(firstWrites.rowByRow == 0)
    // SQLite writes the new keys in bulk too (multi-row inserts, `MultiRowWriter`).
    let sqliteFirst = try #require(first.sqlite.bulkWrites)
    #expect((sqliteFirst.tables["fruits"]?.copied ?? 0) >= 2)
    #expect(sqliteFirst.rowByRow == 0)

    let again = try twin.run(configuration, datasets: Self.fruits)
    #expect(again.postgreSQL.status == .succeeded)
    #expect(again.postgreSQL.outcome == again.sqlite.outcome)
    let againWrites = try #require(again.postgreSQL.bulkWrites)
    #expect(againWrites.tables["fruits"]?.copied == 0)
    #expect((againWrites.tables["fruits"]?.staged ?? 0) >= 2)
    // SQLite has no staging: the keys it has send its batches row by row.
    let sqliteAgain = try #require(again.sqlite.bulkWrites)
    #expect((sqliteAgain.tables["fruits"]?.copied ?? 0) == 0)
    #expect(sqliteAgain.rowByRow >= 2)
    let (sqlite, postgreSQL) = try twin.tables(["fruits", "recipes"])
    #expect(postgreSQL == sqlite)
  }

  /// A staged upsert rewrites a parent row only where a column differs, and replaces only the
  /// children that differ: after a re-run of the same fruits with one renamed and one given
  /// another recipe, every other fruit and recipe keeps its row version (`xmin`) — and the
  /// counts and rows are still the row writer's.
  @Test func aReRunRewritesOnlyTheRowsThatChanged() throws {
    let twin = try TwinStores()
    let fruits = (0..<600).map { FruitsDump.fruit($0, recipes: $0 % 3) }
    let input = try twin.directory.write("fruits.json", FruitsDump.array(fruits))
    _ = try twin.run(PipelineConfiguration(name: "first", input: input, database: .sqlite("")), datasets: Self.fruits)
    func versions(_ query: String) throws -> [String: String] {
      let statement = try twin.schema.connect().prepare(query)
      var versions: [String: String] = [:]
      while try statement.step() {
        if case .text(let id)? = statement.columnValue(0), case .text(let version)? = statement.columnValue(1) {
          versions[id] = version
        }
      }
      return versions
    }
    let fruitVersions = "SELECT fruit_id, xmin::text FROM fruits"
    let recipeVersions = "SELECT fruit_id || '/' || position, xmin::text FROM recipes"
    let (fruitsBefore, recipesBefore) = (try versions(fruitVersions), try versions(recipeVersions))
    var again = fruits
    // Fruit 7 keeps its one recipe; fruit 8 (two recipes) gets another second one and a third.
    again[7] = FruitsDump.fruit(7, recipes: 1, name: "Renamed")
    again[8] = FruitsDump.fruit(8, recipes: 2).replacingOccurrences(of: "Stir 1 times", with: "Stir once")
    again[8] = again[8].replacingOccurrences(
      of: "]}", with: #", {"title": "New", "description": "Added.", "videoTutorial": "https://v.example.com/n"}]}"#)
    let second = try twin.directory.write("again.json", FruitsDump.array(again))
    let reports = try twin.run(
      PipelineConfiguration(name: "again", input: second, database: .sqlite("")), datasets: Self.fruits)
    #expect(reports.postgreSQL.status == .succeeded)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect((reports.postgreSQL.bulkWrites?.tables["fruits"]?.staged ?? 0) >= 1)
    let (fruitsAfter, recipesAfter) = (try versions(fruitVersions), try versions(recipeVersions))
    #expect(fruitsBefore.count == 600)
    #expect(fruitsAfter.filter { fruitsBefore[$0.key] != $0.value }.keys.sorted() == ["F7"])
    let rewritten = recipesAfter.filter { recipesBefore[$0.key] != $0.value }.keys.sorted()
    #expect(rewritten == ["F8/1", "F8/2"])
    #expect(recipesAfter.count == recipesBefore.count + 1)
    let (sqlite, postgreSQL) = try twin.tables(["fruits", "recipes"])
    #expect(postgreSQL == sqlite)
  }

  /// A feed whose known keys come first and new ones after: the known ones are staged, and once
  /// the back-off has passed, the new ones go straight in again — with the row writer's rows.
  @Test func newKeysAfterKnownOnesAreCopiedStraightInAgain() throws {
    let twin = try TwinStores()
    let known = try twin.directory.write("known.json", FruitsDump.array((0..<500).map { FruitsDump.fruit($0) }))
    _ = try twin.run(PipelineConfiguration(name: "known", input: known, database: .sqlite("")), datasets: Self.fruits)
    let feed = try twin.directory.write(
      "feed.json", FruitsDump.array((0..<8000).map { FruitsDump.fruit($0, recipes: 1, name: "Renamed \($0 % 11)") }))
    let reports = try twin.run(
      PipelineConfiguration(name: "feed", input: feed, policy: Policy(preset: .lenient), database: .sqlite("")),
      datasets: Self.fruits)
    #expect(reports.postgreSQL.status == .succeeded)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect((writes.tables["fruits"]?.staged ?? 0) >= 1)
    #expect((writes.tables["fruits"]?.copied ?? 0) >= 1)
    let (sqlite, postgreSQL) = try twin.tables(["fruits", "recipes"])
    #expect(postgreSQL == sqlite)
  }

  /// A customer named by several orders of a batch is written once when the rows repeat, but
  /// each change counts — and a name spelled with a combining mark is a change from the same
  /// name precomposed (Swift's `==` equates them; the database stores other bytes).
  @Test func repeatedCustomersCountOnlyTheirChangesByteForByte() throws {
    let twin = try TwinStores()
    let names = ["Zo\u{EB}", "Zo\u{EB}", "Zoe\u{308}", "Zoe\u{308}", "Zo\u{EB}", "Ann", "Ann"]
    let records = names.enumerated().map { index, name in
      let customer = name == "Ann" ? 2 : 1
      return
        #"{"orderId":"O\#(index)","amount":100,"currency":"EUR","status":"pending","createdAt":"2023-01-01T00:00:00Z","customer":{"id":\#(customer),"name":"\#(name)"},"items":[{"sku":"S","qty":1,"priceMinor":5}]}"#
    }
    let input = try twin.directory.write("orders.ndjson", FruitsDump.ndjson(records))
    var configuration = PipelineConfiguration(name: "orders", input: input, format: .ndjson, database: .sqlite(""))
    configuration.reportPath = nil
    let reports = try twin.run(configuration, datasets: Self.orders)
    #expect(reports.postgreSQL.status == .succeeded)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(reports.postgreSQL.rowsWritten["customers"] == 4)
    let store = try twin.schema.connect()
    // The last name, precomposed: three characters, not four.
    let stored = try store.prepare("SELECT length(name) FROM customers WHERE customer_id = 1")
    #expect(try stored.step())
    #expect(stored.columnValue(0) == .integer(3))
  }

  /// COPY's text format escapes backslashes, tabs, newlines and carriage returns.
  @Test func textThatCOPYMustEscapeArrivesAsIs() throws {
    let twin = try TwinStores()
    let names = [
      #"back\\slash"#, #"tab\there"#, #"new\nline"#, #"carriage\rreturn"#, #"\\N"#, "emoji 🍓 ü", #"quote \" '"#,
    ]
    let records = names.enumerated().map { FruitsDump.fruit($0.offset, recipes: 1, name: $0.element) }
    let input = try twin.directory.write("fruits.json", FruitsDump.array(records))
    let reports = try twin.run(
      PipelineConfiguration(name: "escapes", input: input, database: .sqlite("")), datasets: Self.fruits)
    #expect(reports.postgreSQL.status == .succeeded)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let (sqlite, postgreSQL) = try twin.tables(["fruits", "recipes"])
    #expect(postgreSQL == sqlite)
    let store = try twin.schema.connect()
    let stored = try store.prepare("SELECT name FROM fruits WHERE fruit_id = 'F4'")
    #expect(try stored.step())
    #expect(stored.columnValue(0) == .text(#"\N"#))
  }

  /// Text with a NUL cannot travel in COPY (nor be stored): the batch goes row by row, which
  /// rejects that record with its location, and keeps the others.
  @Test func aValueCOPYCannotCarryIsRejectedWithItsRecordAndTheRestKept() throws {
    let twin = try TwinStores()
    let records = [FruitsDump.fruit(1), FruitsDump.fruit(2, name: #"nul \u0000 here"#), FruitsDump.fruit(3)]
    let input = try twin.directory.write("fruits.json", FruitsDump.array(records))
    let reports = try twin.run(
      PipelineConfiguration(name: "nul", input: input, policy: Policy(preset: .lenient), database: .sqlite("")),
      datasets: Self.fruits)
    #expect(reports.postgreSQL.status == .succeeded)
    let issue = try #require(reports.postgreSQL.issues.first)
    #expect(issue.stage == .load)
    #expect(issue.code == .invalidValue)
    #expect(issue.path == "name")
    #expect(issue.location?.ordinal == 2)
    #expect(issue.location?.line == 3)
    #expect(reports.postgreSQL.bulkWrites?.rowByRow == 1)
    #expect(try twin.schema.rows(of: ["fruits"]).count("fruits") == 2)
    #expect(try twin.schema.rows(of: ["recipes"]).count("recipes") == 4)
  }

  /// The bulk writer upserts a table named by many records (customers) with one MERGE on
  /// PostgreSQL 15, or an UPDATE and an INSERT on older servers (the driver's `usesMerge: false`
  /// takes that way here): the same rows and counts, on a first run and on a re-run.
  @Test func customersUpsertTheSameWithOrWithoutMERGE() throws {
    let merge = PostgreSQLSchema()
    let older = PostgreSQLSchema()
    let spec = try PipelineSpec(contentsOf: Repository.path("Pipelines/orders.json"))
    var written: [[String: Int]] = []
    for (target, usesMerge) in [(merge, true), (older, false)] {
      var configuration = try spec.configuration(drivers: .all)
      configuration.reportPath = nil
      configuration.rejectsPath = nil
      configuration.database = .postgreSQL(target.url, schema: target.name, options: .init(usesMerge: usesMerge))
      for _ in 1...2 {
        let report = try Pipeline(datasets: Self.orders, configuration: configuration).run()
        #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
        written.append(report.rowsWritten)
      }
    }
    #expect(written.count == 4)
    #expect(written[0] == written[2])
    #expect(written[1] == written[3])
    #expect((written[0]["customers"] ?? 0) > 0)
    let tables = ["customers", "orders", "order_items"]
    #expect(try merge.rows(of: tables) == older.rows(of: tables))
  }
}
