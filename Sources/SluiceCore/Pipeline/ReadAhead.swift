import Foundation
import Synchronization

/// A record reader that runs another on a thread of its own, ahead of its caller: the read stage
/// — inflating, hashing the input for the ledger, tokenizing JSON or parsing XML with libxml2 —
/// overlaps with the decoding thread's decode, validate and map, as those overlap with the
/// loading thread's writes.
///
/// On two cores the decoding thread was the longer of the two a run had (an XML import spent
/// half of its time in libxml2 and the assembler on it, a gzip JSON import a fifth in inflate,
/// SHA-256 and the tokenizer); with the read stage on a third thread the operating system
/// shares both cores among three, and the longest thread is shorter.
///
/// Nothing changes but the thread: results come in the inner reader's order, records and
/// errors alike, and a reader's error that ends it (a syntax error in a JSON array, an input
/// error) ends this one after the results before it. Memory stays bounded: at most
/// `maxBatches` batches wait, whose records weigh at most `maxBytes` together (`HandOff`).
///
/// The inner reader belongs to the reading thread from `init` on; `close()` (or the end of the
/// input) stops that thread, and returns once it has: the input is then no longer read, and its
/// counters and digest are final.
final class ReadAhead: RecordReader {
  /// One result of the inner reader, as it changes threads.
  private enum Result: Sendable {
    case record(RawRecord)
    case error(any Error & Sendable)
  }

  /// Records per batch handed over, and the weight that hands a batch over sooner.
  static var batchRecords: Int { 64 }
  static var batchBytes: Int { 128 << 10 }
  /// What may be in flight between the threads.
  static var maxBatches: Int { 4 }
  static var maxBytes: Int { 512 << 10 }

  private let handOff = HandOff<Result>(maxBatches: ReadAhead.maxBatches, maxBytes: ReadAhead.maxBytes)
  private let stopped = DispatchSemaphore(value: 0)
  /// The reading thread's busy time, which it sets once it ends.
  private final class Clock: Sendable { let seconds = Mutex<Double>(0) }
  private let clock = Clock()
  private var batch: [Result] = []
  private var index = 0
  private var closed = false

  /// Starts reading `reader` on a thread of its own; the caller never touches `reader` again.
  init(_ reader: any RecordReader) {
    nonisolated(unsafe) let reader = reader
    let handOff = handOff
    let stopped = stopped
    let clock = clock
    let thread = Thread {
      let seconds = Self.read(reader, into: handOff)
      clock.seconds.withLock { $0 = seconds }
      handOff.finish()
      stopped.signal()
    }
    thread.name = "sluice-read"
    thread.stackSize = 8 << 20  // as the decoding thread's: libxml2 and the JSON reader nest
    thread.start()
  }

  deinit { close() }

  /// The seconds the reading thread spent reading (not waiting for room); final after `close()`.
  var seconds: Double { clock.seconds.withLock { $0 } }

  func next() throws -> RawRecord? {
    while index == batch.count {
      if !batch.isEmpty {
        // Freed on the reading thread, whose allocations they are (`HandOff.recycle`).
        handOff.recycle(batch)
        batch = []
        index = 0
      }
      guard let next = handOff.take() else { return nil }
      batch = next
    }
    let result = batch[index]
    index += 1
    switch result {
    case .record(let record): return record
    case .error(let error): throw error
    }
  }

  /// Stops the reading thread — at once if it waits for room, after the record it is reading
  /// otherwise — and waits until it has. Idempotent.
  func close() {
    guard !closed else { return }
    closed = true
    handOff.cancel()
    stopped.wait()
    batch = []
  }

  /// The reading thread: `reader`'s results in batches until it ends, fails or the consumer
  /// cancels; returns the seconds spent in `reader`.
  private static func read(_ reader: any RecordReader, into handOff: HandOff<Result>) -> Double {
    var seconds = 0.0
    var batch: [Result] = []
    batch.reserveCapacity(batchRecords)
    var weight = 0
    var mark = Stopwatch.now()
    var ended = false
    while !ended {
      do {
        guard let record = try reader.next() else { break }
        // Its bytes, and about as much again for a tape's nodes (XML).
        weight += (record.tape == nil ? 1 : 2) * record.bytes.count + 64
        batch.append(.record(record))
      } catch let error as RecordReadError {
        batch.append(.error(error))
        ended = !error.isRecoverable
      } catch let error as InputError {
        batch.append(.error(error))
        ended = true
      } catch {
        batch.append(.error(ReadFailure(description: "\(error)")))
        ended = true
      }
      if batch.count >= batchRecords || weight >= batchBytes {
        seconds += Double(Stopwatch.now() - mark) / 1e9
        guard handOff.put(batch, weight: weight) else { return seconds }
        mark = Stopwatch.now()
        batch = []
        batch.reserveCapacity(batchRecords)
        weight = 0
      }
    }
    seconds += Double(Stopwatch.now() - mark) / 1e9
    if !batch.isEmpty { _ = handOff.put(batch, weight: weight) }
    return seconds
  }
}
