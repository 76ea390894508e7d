import Foundation

/// A bounded, blocking hand-off of batches from one producer thread to one consumer thread.
///
/// The decoding thread puts batches of finished records; the loading thread takes them. At most
/// `capacity` batches wait, so memory stays flat however fast either side is. The consumer can
/// cancel (a strict failure): the producer's next `put` returns false and it stops.
final class HandOff<Element>: @unchecked Sendable {
  private let condition = NSCondition()
  private var batches: [[Element]] = []
  private let capacity: Int
  private var finished = false
  private var cancelled = false

  init(capacity: Int) {
    self.capacity = max(capacity, 1)
  }

  /// Waits for room and adds a batch; false when the consumer has cancelled.
  func put(_ batch: [Element]) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while batches.count >= capacity && !cancelled { condition.wait() }
    if cancelled { return false }
    batches.append(batch)
    condition.broadcast()
    return true
  }

  /// The producer has put its last batch.
  func finish() {
    condition.lock()
    finished = true
    condition.broadcast()
    condition.unlock()
  }

  /// Waits for a batch; nil once the producer has finished and every batch was taken.
  func take() -> [Element]? {
    condition.lock()
    defer { condition.unlock() }
    while batches.isEmpty && !finished { condition.wait() }
    if batches.isEmpty { return nil }
    let batch = batches.removeFirst()
    condition.broadcast()
    return batch
  }

  /// The consumer stops: waiting and future puts return false, queued batches are dropped.
  func cancel() {
    condition.lock()
    cancelled = true
    batches.removeAll()
    condition.broadcast()
    condition.unlock()
  }
}
