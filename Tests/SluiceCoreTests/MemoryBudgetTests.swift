import Foundation
import SluiceKeySpill
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// The memory budget (`MemoryBudget`): how it is written, how the parts of a run share it, and
/// that a run's store gets its share.
@Suite("Memory budget")
struct MemoryBudgetTests {
  static let mebibyte = MemoryBudget.mebibyte

  @Test func theDefaultGivesTheKeyCachesWhatTheyHadBeforeTheBudget() {
    let budget = MemoryBudget.default
    #expect(budget.bytes == 64 * Self.mebibyte)
    #expect(budget.pageCacheBytes == 9 * Self.mebibyte)
    #expect(budget.handOffBytes == 6 * Self.mebibyte)
    #expect(budget.keyCacheGeneration == 98_304)
    #expect(budget.patchStageBytes == 6 * Self.mebibyte)
    #expect(budget.description == "64 MiB")
  }

  @Test(arguments: [56, 64, 100, 128, 512, 2048, 65_536])
  func theSharesFitTheBudgetAboveTheBase(mebibytes: Int) {
    let budget = MemoryBudget(bytes: mebibytes * Self.mebibyte)
    // Two generations of hash tables, 32 bytes an entry, three quarters of them used.
    let keyCaches = budget.keyCacheGeneration * 4 / 3 * 32 * 2
    let inFlight = (budget.bytes - MemoryBudget.base) / 18
    #expect(budget.pageCacheBytes > 0 && budget.handOffBytes > 0 && budget.patchStageBytes > 0)
    #expect(budget.handOffBytes >= 2 * Self.mebibyte && budget.handOffBytes <= 16 * Self.mebibyte)
    #expect(
      MemoryBudget.base + budget.pageCacheBytes + inFlight + max(keyCaches, budget.patchStageBytes) <= budget.bytes)
    // A generation is as many keys as a hash table holds before it doubles (`KeyCache`).
    #expect(Set<DatabaseValue>(minimumCapacity: budget.keyCacheGeneration).capacity == budget.keyCacheGeneration)
  }

  @Test func aLargerBudgetNeverGivesAPartLess() {
    let budgets = stride(from: 56, through: 4096, by: 8).map { MemoryBudget(bytes: $0 * Self.mebibyte) }
    for (smaller, larger) in zip(budgets, budgets.dropFirst()) {
      #expect(smaller.pageCacheBytes <= larger.pageCacheBytes)
      #expect(smaller.handOffBytes <= larger.handOffBytes)
      #expect(smaller.keyCacheGeneration <= larger.keyCacheGeneration)
      #expect(smaller.patchStageBytes <= larger.patchStageBytes)
    }
    // What a large budget buys: most of it goes to the page cache.
    let large = MemoryBudget(bytes: 512 * Self.mebibyte)
    #expect(large.pageCacheBytes == 233 * Self.mebibyte)
    #expect(large.keyCacheGeneration == 1_572_864)
  }

  @Test(arguments: [
    ("64", 64), ("64MiB", 64), ("512 MiB", 512), ("512M", 512), ("512mb", 512), ("2GiB", 2048), ("2g", 2048),
    (" 56 ", 56), ("1024GiB", 1_048_576), ("1TiB", 1_048_576), ("1t", 1_048_576), ("1048576", 1_048_576),
  ])
  func aBudgetIsAWholeNumberOfMebibytesOrGibibytes(text: String, mebibytes: Int) {
    #expect(MemoryBudget(text: text)?.bytes == mebibytes * Self.mebibyte)
  }

  @Test(arguments: [
    "", "55", "40", "0", "-64", "1.5GiB", "64KiB", "2TiB", "1025GiB", "MiB", "64 MiB x", "99999999999999",
  ])
  func anythingElseIsNoBudget(text: String) {
    #expect(MemoryBudget(text: text) == nil)
  }

  /// A re-run writes its shared rows (customers) record by record, and the row writer remembers
  /// the rows it wrote: 65,536 customers' rows took 10 MiB, beyond the budget's base.
  @Test func theSharedRowsARunRemembersStayWithinTheirPartOfTheBase() throws {
    let directory = try TemporaryDirectory()
    let customers = Table(
      "customers", key: ["customer_id"], columns: [.integer("customer_id"), .text("name")], onConflict: .upsert)
    let schema = Schema([customers])
    let store = try SQLiteConnection.openForImport(path: directory.file("c.sqlite"), busyTimeoutMilliseconds: 1000)
    _ = try Migrator.migrate(store, schema.migrations(dialect: store.dialect))
    let writer = try RowWriter(
      store: store, schema: schema, conflict: .upsert, budget: MemoryBudget(bytes: 56 * Self.mebibyte))
    // What a cached row takes at the least: a slot of the hash table, the array of its values
    // and the storage of its name (too long to be stored inline).
    let name = "a customer whose name is long"
    let rowBytes =
      MemoryLayout<DatabaseValue>.stride + MemoryLayout<[DatabaseValue?]>.stride + 32 + 2
      * MemoryLayout<DatabaseValue?>.stride + 32 + name.utf8.count
    var most = 0
    try store.withTransaction {
      for customer in 0..<100_000 {
        var rows = RecordRows()
        rows.add(customers, Int64(customer), name)
        _ = try writer.write(&rows, at: nil)
        writer.commitRecord()
        most = max(most, writer.plans[0].rowCache.count)
      }
    }
    #expect(most > 1_000)
    #expect(most * rowBytes <= MemoryBudget.rowCacheBytes, "\(most) rows of at least \(rowBytes) bytes")
    #expect(writer.plans[0].rowCache.bytes <= MemoryBudget.rowCacheBytes)
  }

  /// SQLite's page caches beside the run's own are part of the base: a snapshot's keys seen and
  /// a plan's copies of the tables live in the run's temporary schema, the keys the key registry
  /// moved out of memory in a private database; each cache is what the base has for it, whatever
  /// the budget.
  /// The shipments dataset's run at a budget of `mebibytes`, and the store it opens in `directory`.
  private static func shipmentsStore(budget mebibytes: Int, in directory: TemporaryDirectory) throws
    -> (PipelineRunner, any Store)
  {
    var configuration = PipelineConfiguration(
      name: "shipments", input: try directory.write("s.ndjson", "{}\n"), format: .ndjson, policy: .strict,
      database: .sqlite(directory.file("s\(mebibytes).sqlite")))
    configuration.memoryBudget = MemoryBudget(bytes: mebibytes * Self.mebibyte)
    let runner = try PipelineRunner(configuration: configuration, datasets: [AnyDataset(ShipmentsDataset())])
    return (runner, try runner.openDatabase())
  }

  @Test func sqlitesOtherPageCachesAreWhatTheBaseHasForThem() throws {
    let directory = try TemporaryDirectory()
    for mebibytes in [56, 512] {
      let (runner, store) = try Self.shipmentsStore(budget: mebibytes, in: directory)
      _ = try Migrator.migrate(store, runner.schema.migrations(dialect: store.dialect))
      _ = try store.withTransaction {
        // A snapshot's keys seen: a temporary table.
        let mirror = try SnapshotMirror(store: store, tables: [ShipmentsDataset.shipments], schema: runner.schema)
        #expect(mirror.tables == ["shipments"])
        #expect(try store.scalarInt("SELECT count(*) FROM temp.sqlite_schema WHERE type = 'table'") == 1)
        #expect(
          try store.scalarInt("PRAGMA temp.cache_size") == -Int64(MemoryBudget.temporaryCacheBytes / 1024),
          "\(mebibytes) MiB")
      }
    }
    #expect(try SQLiteKeySpill().pageCacheBytes() == MemoryBudget.keySpillCacheBytes)
  }

  @Test func theRunsStoreHasTheBudgetsPageCache() throws {
    let directory = try TemporaryDirectory()
    for mebibytes in [56, 64, 512] {
      let (runner, store) = try Self.shipmentsStore(budget: mebibytes, in: directory)
      // SQLite's `cache_size` in KiB, negative.
      #expect(
        try store.scalarInt("PRAGMA cache_size") == -Int64(runner.configuration.memoryBudget.pageCacheBytes / 1024),
        "\(mebibytes) MiB")
    }
  }
}
