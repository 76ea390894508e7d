import Foundation

/// A bounded, blocking hand-off of batches from one producer thread to one consumer thread,
/// bounded in batches and in bytes.
///
/// The decoding thread puts batches of finished records; the loading thread takes them. Memory
/// stays flat however fast either side is because both bounds hold for everything in flight —
/// the batches waiting and the one the consumer took last, which it works on until it asks for
/// the next: at most `maxBatches` wait, and their weights (about their bytes, as the producer
/// reckons them) add up to at most `maxBytes`. A batch heavier than `maxBytes` on its own (one
/// huge record) enters only when nothing else is in flight, so it cannot deadlock and nothing
/// else shares memory with it. The consumer can cancel (a strict failure): the producer's next
/// `put` returns false and it stops.
///
/// Elements must be `Sendable`: they change threads here. The hand-off itself is shared by both
/// threads and guards every property with its condition's lock, which the compiler cannot see —
/// hence `@unchecked`.
final class HandOff<Element: Sendable>: @unchecked Sendable {
  private let condition = NSCondition()
  private var batches: [(elements: [Element], weight: Int)] = []
  let maxBatches: Int
  let maxBytes: Int
  /// The weight of the waiting batches.
  private var queuedWeight = 0
  /// The weight of the batch the consumer took last, until it asks for the next one.
  private var heldWeight: Int?
  private var finished = false
  private var cancelled = false
  /// The highest weight in flight while more than one batch was: never above `maxBytes`.
  private var sharedPeak = 0
  /// Batches the consumer is done with, which the producer frees (`recycle`).
  private var spent: [[Element]] = []

  init(maxBatches: Int, maxBytes: Int) {
    self.maxBatches = max(maxBatches, 1)
    self.maxBytes = max(maxBytes, 1)
  }

  /// Waits for room and adds a batch of `weight` bytes; false when the consumer has cancelled.
  /// `reclaim` sees the batches the consumer is done with before they are freed, to take what
  /// it would allocate again.
  func put(_ batch: [Element], weight: Int, reclaim: (inout [Element]) -> Void = { _ in }) -> Bool {
    var spentBatches: [[Element]] = []
    let accepted = { () -> Bool in
      condition.lock()
      defer { condition.unlock() }
      while !cancelled && !hasRoom(for: weight) { condition.wait() }
      if cancelled { return false }
      batches.append((batch, weight))
      queuedWeight += weight
      if batches.count + (heldWeight == nil ? 0 : 1) > 1 {
        sharedPeak = max(sharedPeak, queuedWeight + (heldWeight ?? 0))
      }
      swap(&spentBatches, &spent)
      condition.broadcast()
      return true
    }()
    // The consumer's spent batches are freed here, on the thread that allocated them, outside
    // the lock (`recycle`).
    for index in spentBatches.indices { reclaim(&spentBatches[index]) }
    spentBatches.removeAll()
    return accepted
  }

  /// Gives a batch the consumer is done with back to the producer's thread, which frees it at
  /// its next `put`: memory freed by the thread whose malloc arena it came from takes no lock,
  /// while the consumer freeing the producer's allocations contended with the producer for its
  /// arena at every free (measured: a few per cent of a load in futex waits). At most the
  /// batches taken between two puts wait here, each no bigger than when it was queued.
  func recycle(_ batch: consuming [Element]) {
    condition.lock()
    spent.append(batch)
    condition.unlock()
  }

  /// Whether a batch of `weight` bytes would go in now, without waiting: when it would not, the
  /// producer has time for work it may do whenever it likes (`KeyRegistry.spillWhileIdle`).
  func hasRoomNow(for weight: Int) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    return cancelled || hasRoom(for: weight)
  }

  private func hasRoom(for weight: Int) -> Bool {
    if batches.isEmpty && heldWeight == nil { return true }
    return batches.count < maxBatches && queuedWeight + (heldWeight ?? 0) + weight <= maxBytes
  }

  /// The producer has put its last batch.
  func finish() {
    condition.lock()
    finished = true
    condition.broadcast()
    condition.unlock()
  }

  /// Waits for a batch; nil once the producer has finished and every batch was taken. Asking
  /// for a batch means the consumer is done with the one it took before, whose weight is freed.
  func take() -> [Element]? {
    take(upTo: 1)
  }

  /// Waits for a batch, then joins to it the batches waiting behind it while the elements add
  /// up to at most `maxElements` — one batch at least, however big. A consumer that works
  /// faster per element on bigger batches takes what the producer got ahead by; the joined
  /// batches' weight is held as one, so the byte bound still covers everything in flight.
  func take(upTo maxElements: Int) -> [Element]? {
    condition.lock()
    defer { condition.unlock() }
    if heldWeight != nil {
      heldWeight = nil
      condition.broadcast()
    }
    while batches.isEmpty && !finished { condition.wait() }
    if batches.isEmpty { return nil }
    var batch = batches.removeFirst()
    while let next = batches.first, batch.elements.count + next.elements.count <= maxElements {
      batch.elements += next.elements
      batch.weight += next.weight
      batches.removeFirst()
    }
    queuedWeight -= batch.weight
    heldWeight = batch.weight
    condition.broadcast()
    return batch.elements
  }

  /// The consumer stops: waiting and future puts return false, queued batches are dropped.
  func cancel() {
    condition.lock()
    cancelled = true
    batches.removeAll()
    spent.removeAll()
    queuedWeight = 0
    heldWeight = nil
    condition.broadcast()
    condition.unlock()
  }

  /// What is in flight now — waiting batches plus the one the consumer holds — and the highest
  /// weight ever in flight alongside another batch; for tests.
  var inFlight: (batches: Int, weight: Int, sharedPeak: Int) {
    condition.lock()
    defer { condition.unlock() }
    let held = heldWeight == nil ? 0 : 1
    return (batches.count + held, queuedWeight + (heldWeight ?? 0), sharedPeak)
  }
}
