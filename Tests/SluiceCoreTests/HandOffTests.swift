import Foundation
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

/// Runs `body` on a thread of its own and returns a semaphore signalled when it has returned.
private func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    body()
    done.signal()
  }
  thread.start()
  return done
}

/// The hand-off between the decoding and the loading thread. Every check here holds whatever
/// the threads' timing: what is in flight is read while the consumer holds a batch, and a batch
/// the consumer holds keeps its weight until the consumer asks for the next one.
@Suite("Hand-off bounded in batches and bytes")
struct HandOffTests {
  @Test func weightInFlightNeverExceedsTheByteBudget() {
    let handOff = HandOff<Int>(maxBatches: 8, maxBytes: 1_000)
    // Weights up to the whole budget, in an order that makes the producer wait often.
    let weights = (0..<200).map { [1_000, 10, 600, 400, 999, 1, 300][$0 % 7] }
    let producer = onThread {
      for (index, weight) in weights.enumerated() {
        guard handOff.put([index], weight: weight) else { return }
      }
      handOff.finish()
    }
    var received: [Int] = []
    var taken = 0
    while let batch = handOff.take() {
      received += batch
      let inFlight = handOff.inFlight
      #expect(inFlight.weight <= 1_000)
      #expect(inFlight.batches <= 9)
      taken += 1
      if taken == 2 {
        // Hold the second batch (weight 10) until the producer has put the third (600) beside
        // it, so a shared peak is measured whatever the threads' timing on a busy host.
        let deadline = Date().addingTimeInterval(30)
        while handOff.inFlight.batches < 2 && Date() < deadline { usleep(1_000) }
      }
    }
    producer.wait()
    #expect(received == Array(weights.indices))
    #expect(handOff.inFlight.sharedPeak <= 1_000)
    #expect(handOff.inFlight.sharedPeak > 0)
  }

  /// A consumer taking up to N elements joins the batches waiting, in order, never past N but
  /// always at least one batch, and holds their weight as one until it asks again.
  @Test func takingUpToJoinsTheWaitingBatchesInOrder() {
    let handOff = HandOff<Int>(maxBatches: 8, maxBytes: 1_000)
    #expect(handOff.put([1, 2], weight: 100))
    #expect(handOff.put([3, 4], weight: 100))
    #expect(handOff.put([5, 6, 7], weight: 100))
    #expect(handOff.put([8, 9, 10, 11, 12, 13], weight: 100))
    handOff.finish()
    #expect(handOff.take(upTo: 5) == [1, 2, 3, 4])
    #expect(handOff.inFlight.batches == 3)
    #expect(handOff.inFlight.weight == 400)
    #expect(handOff.take(upTo: 5) == [5, 6, 7])
    #expect(handOff.inFlight.weight == 200)
    #expect(handOff.take(upTo: 5) == [8, 9, 10, 11, 12, 13])
    #expect(handOff.take(upTo: 5) == nil)
    #expect(handOff.inFlight.weight == 0)
  }

  /// Joined batches are still bound by the byte budget: a producer waits while the consumer
  /// holds them, and every element arrives once, in order.
  @Test func joinedBatchesKeepTheByteBudget() {
    let handOff = HandOff<Int>(maxBatches: 4, maxBytes: 1_000)
    let producer = onThread {
      for index in 0..<500 {
        guard handOff.put([index], weight: 90 + index % 50) else { return }
      }
      handOff.finish()
    }
    var received: [Int] = []
    while let batch = handOff.take(upTo: 64) {
      received += batch
      #expect(batch.count <= 64)
      #expect(handOff.inFlight.weight <= 1_000)
    }
    producer.wait()
    #expect(received == Array(0..<500))
  }

  @Test func oversizedBatchEntersOnlyWhenNothingElseIsInFlight() {
    let handOff = HandOff<String>(maxBatches: 8, maxBytes: 100)
    let producer = onThread {
      _ = handOff.put(["small"], weight: 10)
      _ = handOff.put(["huge"], weight: 5_000)
      _ = handOff.put(["after"], weight: 10)
      handOff.finish()
    }
    #expect(handOff.take() == ["small"])
    // While the consumer holds "small", "huge" cannot join it.
    #expect(handOff.inFlight.batches == 1)
    #expect(handOff.inFlight.weight == 10)
    #expect(handOff.take() == ["huge"])
    // And nothing joins "huge" while the consumer holds it.
    #expect(handOff.inFlight.batches == 1)
    #expect(handOff.inFlight.weight == 5_000)
    #expect(handOff.take() == ["after"])
    #expect(handOff.take() == nil)
    producer.wait()
    #expect(handOff.inFlight.sharedPeak <= 100)
  }

  @Test func batchCountIsBoundedToo() {
    let handOff = HandOff<Int>(maxBatches: 2, maxBytes: 1 << 30)
    let producer = onThread {
      for index in 0..<50 { _ = handOff.put([index], weight: 1) }
      handOff.finish()
    }
    var received: [Int] = []
    while let batch = handOff.take() {
      received += batch
      // Two waiting and the one held.
      #expect(handOff.inFlight.batches <= 3)
    }
    producer.wait()
    #expect(received == Array(0..<50))
  }

  @Test func cancellingReleasesAProducerWaitingForRoom() {
    let handOff = HandOff<Int>(maxBatches: 8, maxBytes: 100)
    let started = DispatchSemaphore(value: 0)
    let results = ResultBox()
    let producer = onThread {
      results.append(handOff.put([1], weight: 90))
      started.signal()
      // No room while the consumer holds the first batch: waits until cancelled.
      results.append(handOff.put([2], weight: 90))
    }
    started.wait()
    #expect(handOff.take() == [1])
    handOff.cancel()
    producer.wait()
    #expect(results.values == [true, false])
  }

  /// A batch the consumer recycles is freed by the producer — at its next `put`, on its own
  /// thread — and not before; a cancelled hand-off lets go of what was recycled.
  @Test func recycledBatchesAreFreedOnTheProducersThreadAtItsNextPut() {
    let handOff = HandOff<Tracked>(maxBatches: 4, maxBytes: 1_000)
    let freed = FreedLog()
    let producerThread = ThreadName()
    let firstTaken = DispatchSemaphore(value: 0)
    let recycled = DispatchSemaphore(value: 0)
    let producer = onThread {
      producerThread.set()
      _ = handOff.put([Tracked(1, freed), Tracked(2, freed)], weight: 10)
      firstTaken.wait()
      recycled.wait()
      #expect(freed.values.isEmpty, "a recycled batch was freed before the producer's next put")
      _ = handOff.put([Tracked(3, freed)], weight: 10)
      #expect(freed.values.map(\.id) == [1, 2])
      handOff.finish()
    }
    // The consumer keeps no reference to a batch it recycles (the record loop consumes it).
    var first = handOff.take(upTo: 1)
    #expect(first?.map(\.id) == [1, 2])
    firstTaken.signal()
    handOff.recycle(first.take() ?? [])
    recycled.signal()
    var second = handOff.take(upTo: 1)
    producer.wait()
    #expect(freed.values.allSatisfy { $0.thread == producerThread.value })
    #expect(second?.map(\.id) == [3])
    handOff.recycle(second.take() ?? [])
    handOff.cancel()
    #expect(freed.values.map(\.id) == [1, 2, 3])
  }
}

/// An element that logs its own deinitialization, with the thread it happened on.
private final class Tracked: Sendable {
  let id: Int
  let log: FreedLog
  init(_ id: Int, _ log: FreedLog) {
    self.id = id
    self.log = log
  }
  deinit { log.append(id) }
}

private final class FreedLog: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [(id: Int, thread: String)] = []
  func append(_ id: Int) {
    let thread = "\(Unmanaged.passUnretained(Thread.current).toOpaque())"
    lock.withLock { storage.append((id, thread)) }
  }
  var values: [(id: Int, thread: String)] { lock.withLock { storage } }
}

/// The identity of the thread that called `set`.
private final class ThreadName: @unchecked Sendable {
  private let lock = NSLock()
  private var name = ""
  func set() { lock.withLock { name = "\(Unmanaged.passUnretained(Thread.current).toOpaque())" } }
  var value: String { lock.withLock { name } }
}

/// Collects values from another thread; read only after that thread has finished.
private final class ResultBox: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [Bool] = []
  func append(_ value: Bool) { lock.withLock { storage.append(value) } }
  var values: [Bool] { lock.withLock { storage } }
}
