import Foundation
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// A dataset file's names are checked against what the program's drivers declare — the longest
/// name each keeps whole, its own tables' prefixes — not against limits the engine names itself.
@Suite("dataset file names against the drivers' rules")
struct DatasetFileStoreNameTests {
  private static let both = StoreDrivers([SQLiteDriver(), PostgreSQLDriver()])
  private static let sqliteOnly = StoreDrivers([SQLiteDriver()])

  /// The orders example with its customers' `name` column renamed.
  private func file(columnNamed name: String, in scratch: TemporaryDirectory) throws -> String {
    let example = Repository.path("Examples/datasets/orders.dataset.json")
    var document = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: example))) as? [String: Any])
    var tables = try #require(document["tables"] as? [[String: Any]])
    var columns = try #require(tables[0]["columns"] as? [[String: Any]])
    columns[1]["name"] = name
    tables[0]["columns"] = columns
    document["tables"] = tables
    return try scratch.write("orders.dataset.json", [UInt8](try JSONSerialization.data(withJSONObject: document)))
  }

  private func refusal(_ path: String, _ drivers: StoreDrivers) -> SpecError? {
    do {
      _ = try DatasetFile.load(path, drivers: drivers)
      return nil
    } catch {
      return error
    }
  }

  @Test func aNameLongerThanPostgreSQLsDeclaredLimitIsRefusedWhenThatDriverIsRegistered() throws {
    let scratch = try TemporaryDirectory()
    let long = String(repeating: "t", count: 64)
    let path = try file(columnNamed: long, in: scratch)
    let error = try #require(refusal(path, Self.both))
    #expect(error.subject == "dataset file")
    #expect(
      error.message == "'tables[0].columns[1].name': '\(long)' is longer than 63 bytes, which PostgreSQL would cut")
    // SQLite declares no limit: a program that registers it alone takes the name.
    #expect(refusal(path, Self.sqliteOnly) == nil)
    // 63 bytes is PostgreSQL's limit, not past it.
    #expect(refusal(try file(columnNamed: String(long.dropLast()), in: scratch), Self.both) == nil)
  }

  @Test func aPrefixADriverReservesIsRefusedNamingTheRegisteredStoresPrefixes() throws {
    let scratch = try TemporaryDirectory()
    let postgres = try file(columnNamed: "pg_name", in: scratch)
    let error = try #require(refusal(postgres, Self.both))
    #expect(
      error.message == "'tables[0].columns[1].name': names starting with sluice_, sqlite_ or pg_ are the stores' own")
    #expect(refusal(postgres, Self.sqliteOnly) == nil)
    let sqlite = try file(columnNamed: "SQLite_name", in: scratch)
    #expect(
      refusal(sqlite, Self.sqliteOnly)?.message
        == "'tables[0].columns[1].name': names starting with sluice_ or sqlite_ are the stores' own")
  }

  @Test func aHistoryTableWhoseVersionsTableNamePostgreSQLWouldCutIsRefused() throws {
    let scratch = try TemporaryDirectory()
    let long = String(repeating: "m", count: 49)  // sluice_history_ + 49 = 64 bytes
    let top = try scratch.write(
      "top.dataset.json",
      HistoryNights.datasetFile.replacingOccurrences(of: #""name": "members""#, with: #""name": "\#(long)""#)
        .replacingOccurrences(of: #""parent": "members""#, with: #""parent": "\#(long)""#))
    #expect(
      refusal(top, Self.both)?.message
        == "'tables[0].history': its versions go to table sluice_history_\(long), longer than 63 bytes, which PostgreSQL would cut; shorten the table's name"
    )
    #expect(refusal(top, Self.sqliteOnly) == nil)
    let child = try scratch.write(
      "child.dataset.json",
      HistoryNights.datasetFile.replacingOccurrences(of: #""name": "member_addresses""#, with: #""name": "\#(long)""#))
    #expect(
      refusal(child, Self.both)?.message
        == "'tables[1].name': its versions go to table sluice_history_\(long), longer than 63 bytes, which PostgreSQL would cut; shorten the table's name"
    )
    // 48 bytes fit.
    let fits = try scratch.write(
      "fits.dataset.json",
      HistoryNights.datasetFile.replacingOccurrences(
        of: #""name": "member_addresses""#, with: #""name": "\#(long.dropLast())""#))
    #expect(refusal(fits, Self.both) == nil)
  }

  @Test func theDriversDeclareTheirOwnLimitsAndPrefixes() {
    #expect(PostgreSQLDriver().identifierLimit == 63)
    #expect(PostgreSQLDriver().reservedNamePrefixes == ["pg_"])
    #expect(SQLiteDriver().identifierLimit == nil)
    #expect(SQLiteDriver().reservedNamePrefixes == ["sqlite_"])
  }
}
