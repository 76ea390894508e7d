import Foundation

/// Chooses, batch by batch, whether a bulk writer writes a batch in bulk or hands it back to go
/// record by record, by what each way has cost the loading thread per record so far.
///
/// Both ways leave the same tables, counts and outcomes (`BulkWriter`); which one is cheaper
/// depends on the database. SQLite's bulk writer (`MultiRowWriter`) writes a batch inside a
/// savepoint, with statements of many rows: each page the batch changes that existed when the
/// savepoint began is copied to the statement journal, a temporary file, once for the savepoint
/// and once for each statement that changes it. While the tables written at random places (the
/// customers, the index of orders by customer) are a few hundred pages, a batch changes each of
/// them several times, and the statements it saves are worth more than the copies: 1M orders
/// took 0.83× the loading thread's CPU of a statement per row. Past a few million orders, a batch
/// of 1,024 changes about a thousand pages once each, 16 KiB a copy: 10M orders copied hundreds
/// of gigabytes and took 1.24× the time of record by record (`Benchmarks/RESULTS.md`).
///
/// So it measures rather than guesses: the loading thread's CPU time (user and system — the
/// copies are system time) per record of each batch, as a moving average per way. It takes the
/// cheaper way and tries the other every `probeInterval` batches, and switches when two tries in
/// a row each cost less than `switchRatio` of its own way's average: one noisy try on a shared
/// machine tipped a 1M-order run, where both ways cost about the same, into record by record. A
/// batch that failed in bulk and went record by record is no sample of either. The choice changes
/// only the time a run takes.
package struct WritePathChooser: Sendable {
  package enum Path: Sendable, Equatable { case bulk, rowByRow }

  /// Batches between two tries of the way not taken: a try of the dearer way costs a batch's
  /// difference, so 1/32 of it at most.
  package let probeInterval: Int
  /// How much cheaper the other way must look before the writer switches: a margin, so that
  /// noise between two nearly equal ways does not flip it back and forth.
  package static var switchRatio: Double { 0.9 }
  /// The weight of a new sample in its way's moving average: a way's average follows the
  /// database as it grows within a few samples.
  package static var sampleWeight: Double { 0.25 }

  package private(set) var current: Path
  private var bulkCost: Double?
  private var rowByRowCost: Double?
  private var sinceProbe = 0
  /// Tries in a row after which the other way looked cheaper by the margin.
  private var confirmations = 0
  /// Tries in a row that must find the other way cheaper before the chooser switches.
  package static var confirmationsToSwitch: Int { 2 }

  package init(start: Path = .bulk, probeInterval: Int = 32) {
    current = start
    self.probeInterval = max(probeInterval, 1)
  }

  /// The way the next batch goes.
  package mutating func next() -> Path {
    sinceProbe += 1
    guard sinceProbe >= probeInterval else { return current }
    sinceProbe = 0
    return current == .bulk ? .rowByRow : .bulk
  }

  /// A batch of `records` records went `path` and cost the loading thread `nanoseconds` of CPU.
  package mutating func record(_ path: Path, records: Int, nanoseconds: UInt64) {
    guard records > 0 else { return }
    let sample = Double(nanoseconds) / Double(records)
    func averaged(_ old: Double?) -> Double {
      guard let old else { return sample }
      return old + Self.sampleWeight * (sample - old)
    }
    switch path {
    case .bulk: bulkCost = averaged(bulkCost)
    case .rowByRow: rowByRowCost = averaged(rowByRowCost)
    }
    // Only a try of the other way decides, by its own cost: the current way's samples move its
    // average.
    guard path != current, let mine = current == .bulk ? bulkCost : rowByRowCost else { return }
    guard sample < mine * Self.switchRatio else {
      confirmations = 0
      return
    }
    confirmations += 1
    guard confirmations >= Self.confirmationsToSwitch else { return }
    current = path
    confirmations = 0
    sinceProbe = 0
  }

  /// The calling thread's CPU time so far, user and system, in nanoseconds.
  package static func threadCPUTime() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
  }
}
