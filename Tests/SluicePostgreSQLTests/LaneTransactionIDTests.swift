import SluicePostgreSQL
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

/// The global transaction ids of a parallel run's lanes: they say whose run and which lane of
/// how many, and read back as they were written.
@Suite("Lane transaction ids")
struct LaneTransactionIDTests {
  @Test func anIDNamesTheDatabaseSchemaRunAndLaneOfLanes() {
    let id = LaneTransactionID(database: "shop", schema: "nightly", runID: 42, lane: 2, lanes: 3)
    #expect(id.description == "sluice:shop:nightly:42:2/3")
    #expect(LaneTransactionID(parsing: id.description) == id)
  }

  @Test func aColonOrPercentInANameIsEncodedAndReadBack() {
    let id = LaneTransactionID(database: "a:b", schema: "50%:x", runID: 1, lane: 1, lanes: 1)
    #expect(id.description == "sluice:a%3Ab:50%25%3Ax:1:1/1")
    #expect(LaneTransactionID(parsing: id.description) == id)
  }

  @Test func anIDThatWouldNotFitLeavesOutTheDatabase() {
    let database = String(repeating: ":", count: 63)
    let schema = String(repeating: "s", count: 63)
    let id = LaneTransactionID(database: database, schema: schema, runID: 9_000_000_000, lane: 64, lanes: 64)
    #expect(id.description.utf8.count <= 199)
    #expect(LaneTransactionID(parsing: id.description)?.schema == schema)
    #expect(LaneTransactionID(parsing: id.description)?.database == "")
  }

  @Test(arguments: ["sluice-4711-1764531600000-1", "sluice:shop:nightly:42:4/3", "sluice:shop:nightly:x:1/3", "other"])
  func idsSluiceDidNotWriteThisWayAreNotRead(text: String) {
    #expect(LaneTransactionID(parsing: text) == nil)
  }

  @Test func anEarlierSluicesIDIsRecognisedAsSuch() {
    #expect(LaneTransactionID.isLegacy("sluice-4711-1764531600000-1"))
    #expect(!LaneTransactionID.isLegacy("sluice:shop:nightly:42:2/3"))
  }
}
