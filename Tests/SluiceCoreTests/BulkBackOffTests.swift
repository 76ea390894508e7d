import Testing

@_spi(Internals) @testable import SluiceCore

/// The one back-off of the bulk writers: after each miss the next 1, 2, 4 … 64 batches go the
/// slow way; a batch that goes in makes the next miss back off by one batch again.
@Suite("bulk writers' back-off")
struct BulkBackOffTests {
  /// How many batches in a row `skip()` sends the slow way.
  private func skipped(_ backOff: inout BulkBackOff) -> Int {
    var count = 0
    while backOff.skip() { count += 1 }
    return count
  }

  @Test func eachMissDoublesTheBatchesSkippedUpToSixtyFour() {
    var backOff = BulkBackOff()
    #expect(!backOff.isBackingOff)
    #expect(skipped(&backOff) == 0)
    var lengths: [Int] = []
    for _ in 0..<9 {
      backOff.missed()
      #expect(backOff.isBackingOff)
      lengths.append(skipped(&backOff))
      #expect(!backOff.isBackingOff)
    }
    #expect(lengths == [1, 2, 4, 8, 16, 32, 64, 64, 64])
  }

  @Test func aBatchThatGoesInMakesTheNextMissSkipOneBatch() {
    var backOff = BulkBackOff()
    backOff.missed()
    backOff.missed()
    #expect(skipped(&backOff) == 2)
    backOff.wentIn()
    backOff.missed()
    #expect(skipped(&backOff) == 1)
  }
}
