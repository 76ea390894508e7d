/// How a bulk writer backs off after a batch it could not write its fast way (a constraint the
/// bulk statements hit, an orphan, a key the table already has): the next 1, 2, 4 … 64 batches
/// go the slow way before the fast one is tried again, so that a feed that keeps missing does
/// not pay for both; one that goes in resets it. The one back-off of `MultiRowWriter` and of
/// the PostgreSQL bulk writer's three paths (direct copies, batches with references, patches).
package struct BulkBackOff: Sendable {
  /// The most batches one back-off skips.
  package static let longest = 64
  /// Batches that go the slow way before the next try.
  package private(set) var skips = 0
  /// How many that will be after the next miss.
  private var length = 0

  package init() {}

  /// Whether a batch is to go the slow way now.
  package var isBackingOff: Bool { skips > 0 }

  /// Counts a batch off the back-off: true when it goes the slow way (one fewer is left).
  package mutating func skip() -> Bool {
    guard skips > 0 else { return false }
    skips -= 1
    return true
  }

  /// The fast way missed: the back-off doubles, from 1 up to `longest`.
  package mutating func missed() {
    length = min(max(1, length * 2), Self.longest)
    skips = length
  }

  /// The fast way went in: the next miss backs off by one batch again.
  package mutating func wentIn() { length = 0 }
}
