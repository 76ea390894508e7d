import Foundation
import Testing

@testable import SluiceCore

/// How SQLite's bulk writer chooses between bulk and record by record (`WritePathChooser`), fed
/// made-up costs: it keeps the cheaper way, tries the other every `probeInterval` batches,
/// follows a change of which is cheaper, and does not flip between two ways within its margin.
@Suite("Write path chooser")
struct WritePathChooserTests {
  typealias Path = WritePathChooser.Path

  /// Runs `batches` batches of 1,000 records, each costing what `cost` says for its way and
  /// index; returns the ways taken.
  static func run(_ chooser: inout WritePathChooser, batches: Int, cost: (Path, Int) -> Double) -> [Path] {
    (0..<batches).map { index in
      let path = chooser.next()
      chooser.record(path, records: 1_000, nanoseconds: UInt64(cost(path, index) * 1_000))
      return path
    }
  }

  @Test func bulkWhileCheaperTryingRecordByRecordEveryInterval() {
    var chooser = WritePathChooser(probeInterval: 32)
    let paths = Self.run(&chooser, batches: 320, cost: { path, _ in path == .bulk ? 1_000 : 1_250 })
    #expect(paths.filter { $0 == .rowByRow }.count == 10)
    for (index, path) in paths.enumerated() { #expect(path == (index % 32 == 31 ? .rowByRow : .bulk)) }
    #expect(chooser.current == .bulk)
  }

  @Test func switchesToRecordByRecordAtTheFirstTryThatCostsLess() {
    var chooser = WritePathChooser(probeInterval: 32)
    let paths = Self.run(&chooser, batches: 100, cost: { path, _ in path == .bulk ? 1_500 : 1_000 })
    // The tries at batches 32 and 64 both find record by record cheaper: from then on it is the
    // way, and bulk is tried every 32 batches.
    #expect(paths[..<64].filter { $0 == .rowByRow }.count == 2)
    #expect(paths[31] == .rowByRow && paths[63] == .rowByRow)
    #expect(chooser.current == .rowByRow)
    #expect(paths[64...].allSatisfy { $0 == .rowByRow } == false)
    #expect(paths[64...].filter { $0 == .bulk }.count == 1)
  }

  @Test func followsTheDatabaseWhenBulkBecomesDearer() {
    // Bulk is cheaper while the tables are small, then its cost grows past record by record's
    // (a savepoint's copies of more and more pages).
    var chooser = WritePathChooser(probeInterval: 32)
    let paths = Self.run(
      &chooser, batches: 2_000,
      cost: { path, index in path == .rowByRow ? 1_200 : 800 + Double(index) })
    let switched = paths.indices.first(where: { index in
      index + 2 < paths.count && paths[index...(index + 2)].allSatisfy { $0 == .rowByRow }
    })
    // Bulk reaches 1,200 / 0.9 ≈ 1,333 at batch 533; a moving average lags by a few samples.
    #expect(switched.map { $0 > 500 && $0 < 700 } == true)
    #expect(chooser.current == .rowByRow)
    // And back when bulk gets cheaper again.
    let back = Self.run(&chooser, batches: 400, cost: { path, _ in path == .bulk ? 500 : 1_200 })
    #expect(chooser.current == .bulk)
    #expect(back.suffix(100).filter { $0 == .bulk }.count >= 96)
  }

  @Test func doesNotFlipBetweenTwoWaysWithinItsMargin() {
    // Costs 5 % apart with ±4 % noise: within the 10 % margin, it keeps the way it has.
    var chooser = WritePathChooser(probeInterval: 32)
    var state: UInt64 = 42
    let paths = Self.run(
      &chooser, batches: 3_200,
      cost: { path, _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let noise = Double((state >> 33) % 81) / 1_000 - 0.04
        return (path == .bulk ? 1_050 : 1_000) * (1 + noise)
      })
    #expect(chooser.current == .bulk)
    #expect(paths.filter { $0 == .rowByRow }.count == 100)
  }

  @Test func aBatchOfNoRecordsIsNoSample() {
    var chooser = WritePathChooser(start: .rowByRow, probeInterval: 2)
    chooser.record(.bulk, records: 0, nanoseconds: 1)
    chooser.record(.rowByRow, records: 10, nanoseconds: 10_000)
    #expect(chooser.current == .rowByRow)
    chooser.record(.bulk, records: 10, nanoseconds: 1_000)
    // One try is not enough; a second in a row is.
    #expect(chooser.current == .rowByRow)
    chooser.record(.bulk, records: 10, nanoseconds: 1_000)
    #expect(chooser.current == .bulk)
  }

  @Test func oneNoisyTryDoesNotSwitch() {
    // Bulk costs 1,000 a record; one try of record by record comes out at 500, the next at its
    // true 1,100: no switch.
    var chooser = WritePathChooser(probeInterval: 32)
    var tries = 0
    let paths = Self.run(
      &chooser, batches: 320,
      cost: { path, _ in
        guard path == .rowByRow else { return 1_000 }
        tries += 1
        return tries == 1 ? 500 : 1_100
      })
    #expect(chooser.current == .bulk)
    #expect(paths.filter { $0 == .rowByRow }.count == 10)
  }

  @Test func theThreadsCPUTimeGrowsWithWorkNotWithWaiting() {
    let start = WritePathChooser.threadCPUTime()
    var sum: UInt64 = 0
    for index in 0..<5_000_000 { sum &+= UInt64(index) &* 2_654_435_761 }
    #expect(sum != 1)
    let worked = WritePathChooser.threadCPUTime()
    #expect(worked > start)
    Thread.sleep(forTimeInterval: 0.2)
    // Asleep, the thread takes no CPU: far less than the 200 ms it waited.
    #expect(WritePathChooser.threadCPUTime() - worked < 50_000_000)
  }
}
