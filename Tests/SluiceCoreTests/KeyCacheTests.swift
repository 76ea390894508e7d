import Testing

@_spi(Internals) @testable import SluiceCore

/// The referenced keys' cache: bounded, the most recently used kept, never emptied whole.
@Suite("Key cache: two generations, least recently used out")
struct KeyCacheTests {
  private func key(_ number: Int) -> DatabaseValue { .text("dev-\(number)") }

  /// `cache.contains` (which moves a key it finds to the recent generation).
  private func knows(_ cache: inout KeyCache, _ number: Int) -> Bool { cache.contains(key(number)) }

  @Test func aWorkingSetThatFitsAGenerationStaysWhole() {
    var cache = KeyCache(generationLimit: 1_000)
    for number in 0..<900 { cache.insert(key(number)) }
    // Uniform use of the 900 keys, many times over: every one is still known.
    for round in 0..<5 {
      for number in 0..<900 { #expect(knows(&cache, (number * 7 + round) % 900)) }
    }
    #expect(cache.count == 900)
  }

  @Test func itHoldsAtMostTwoGenerationsAndForgetsWhatWasNotUsed() {
    var cache = KeyCache(generationLimit: 100)
    for number in 0..<1_000 {
      cache.insert(key(number))
      #expect(cache.count <= 200)
    }
    // The last 100 inserted are recent or older; the first are gone.
    #expect(knows(&cache, 999))
    #expect(knows(&cache, 901))
    #expect(!knows(&cache, 0))
    #expect(!knows(&cache, 750))
  }

  @Test func aKeyUsedInTheOlderGenerationSurvivesTheNextAging() {
    var cache = KeyCache(generationLimit: 10)
    for number in 0..<10 { cache.insert(key(number)) }  // ages: 0…9 are the older generation
    #expect(knows(&cache, 3))  // used: moves to the recent generation
    for number in 10..<19 { cache.insert(key(number)) }  // the recent one fills and ages again
    #expect(knows(&cache, 3))
    #expect(!knows(&cache, 4))  // not used since it aged twice
    cache.removeAll()
    #expect(cache.count == 0)
    #expect(!knows(&cache, 3))
  }

  /// The writer's generation fills a set's table to its load limit and never doubles it: the
  /// cache's memory stays that of two tables of 2^17 buckets, however many keys pass through.
  @Test func theWritersCacheNeverOutgrowsTwoGenerationsOfItsSize() {
    var cache = KeyCache(generationLimit: RowWriter.keyCacheGeneration)
    let oneGeneration = Set<DatabaseValue>(minimumCapacity: RowWriter.keyCacheGeneration).capacity
    #expect(oneGeneration == RowWriter.keyCacheGeneration)
    var most = (keys: 0, capacity: 0)
    for number in 0..<(3 * RowWriter.keyCacheGeneration + 17) {
      cache.insert(key(number))
      most = (max(most.keys, cache.count), max(most.capacity, cache.capacity))
    }
    #expect(most.keys == 2 * RowWriter.keyCacheGeneration - 1)
    #expect(most.capacity <= 2 * oneGeneration)
  }
}
