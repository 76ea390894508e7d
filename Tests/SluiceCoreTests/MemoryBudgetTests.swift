import Foundation
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

  @Test func theRunsStoreHasTheBudgetsPageCache() throws {
    let directory = try TemporaryDirectory()
    for mebibytes in [56, 64, 512] {
      var configuration = PipelineConfiguration(
        name: "shipments", input: try directory.write("s.ndjson", "{}\n"), format: .ndjson, policy: .strict,
        database: .sqlite(directory.file("s\(mebibytes).sqlite")))
      configuration.memoryBudget = MemoryBudget(bytes: mebibytes * Self.mebibyte)
      let runner = try PipelineRunner(configuration: configuration, datasets: [AnyDataset(ShipmentsDataset())])
      let store = try runner.openDatabase()
      // SQLite's `cache_size` in KiB, negative.
      #expect(
        try store.scalarInt("PRAGMA cache_size") == -Int64(configuration.memoryBudget.pageCacheBytes / 1024),
        "\(mebibytes) MiB")
    }
  }
}
