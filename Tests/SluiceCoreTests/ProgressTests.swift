import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Synchronization
import Testing

@_spi(Internals) @testable import SluiceCore

/// The run's progress as the loading thread reports it, and the line the command line draws.
@Suite("Progress")
struct ProgressTests {
  static func progress(
    mode: RunMode = .run, input: Int = 1, inputs: Int = 1, read bytes: Int64, of total: Int64?,
    records: Int = 1_234_567,
    done: Int = 1_234_000, rejected: Int = 12, elapsed: Double = 30
  ) -> RunProgress {
    RunProgress(
      mode: mode, input: input, inputCount: inputs, bytesRead: bytes, totalBytes: total, recordsRead: records,
      recordsDone: done, recordsRejected: rejected, elapsedSeconds: elapsed)
  }

  @Test func theLineShowsShareSizesCountsRateElapsedAndETA() {
    let line = ProgressLine.render(Self.progress(read: 120 << 20, of: 267 << 20))
    #expect(
      line == "44% 120.0/267.0 MiB · 1,234,567 read · 1,234,000 loaded · 41,152 rec/s · 12 rejected · 0:30 · ETA 0:37")
  }

  @Test func withoutATotalThereIsNoShareAndNoETA() {
    let line = ProgressLine.render(Self.progress(read: 5 << 20, of: nil, elapsed: 3725))
    #expect(line == "5.0 MiB · 1,234,567 read · 1,234,000 loaded · 331 rec/s · 12 rejected · 1:02:05")
  }

  @Test func severalInputsAndADryRunSayWhichAndChecked() {
    let line = ProgressLine.render(Self.progress(mode: .validate, input: 2, inputs: 3, read: 0, of: 0, elapsed: 0))
    #expect(line.hasPrefix("input 2/3 · 100% 0.0/0.0 MiB · "))
    #expect(line.contains("1,234,000 checked"))
    #expect(line.contains(" 0 rec/s"))
    #expect(!line.contains("ETA"))
  }

  @Test func aNarrowTerminalGetsTheLineCutShortOfItsLastColumn() {
    let line = ProgressLine.render(Self.progress(read: 1, of: 100), width: 40)
    #expect(line.count == 39)
    #expect(line.hasSuffix("…"))
    #expect(ProgressLine.draw("x") == "\r" + "x" + "\u{1B}[K")
  }

  @Test func groupingAndDurations() {
    #expect(ProgressLine.grouped(0) == "0")
    #expect(ProgressLine.grouped(999) == "999")
    #expect(ProgressLine.grouped(1000) == "1,000")
    #expect(ProgressLine.grouped(-1_000_000) == "-1,000,000")
    #expect(ProgressLine.duration(59.4) == "0:59")
    #expect(ProgressLine.duration(60) == "1:00")
    #expect(ProgressLine.mebibytes(1_572_864) == "1.5")
  }

  /// Every tick the handler saw, in order.
  final class Ticks: Sendable {
    let seen = Mutex<[RunProgress]>([])
    func append(_ progress: RunProgress) { seen.withLock { $0.append(progress) } }
    var all: [RunProgress] { seen.withLock { $0 } }
  }

  @Test(arguments: [RunMode.run, .validate])
  func aRunReportsGrowingCountsAndBytesUpToItsTotals(mode: RunMode) throws {
    let db = try ProjectsDatabase()
    let lines = (0..<3_000).map { number in
      #"{"id":"p\#(number)","title":"T","state":"open","owner":"o","people":[{"id":"o","name":"O"}],"tasks":[]}"#
    }
    let input = try db.directory.write("projects.ndjson", lines.joined(separator: "\n") + "\n")
    let size = try #require(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int)
    let ticks = Ticks()
    var configuration = PipelineConfiguration(
      name: "projects", input: input, format: .ndjson, database: .sqlite(db.path))
    configuration.mode = mode
    configuration.progressInterval = 0
    configuration.progress = { ticks.append($0) }
    let report = try Pipeline(dataset: ProjectsDataset(), configuration: configuration).run()
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")

    let all = ticks.all
    // A tick per batch of at most 256 records.
    #expect(all.count >= 3_000 / 256)
    #expect(all.allSatisfy { $0.totalBytes == Int64(size) && $0.mode == mode && $0.inputCount == 1 })
    for (earlier, later) in zip(all, all.dropFirst()) {
      #expect(earlier.recordsRead <= later.recordsRead)
      #expect(earlier.recordsDone <= later.recordsDone)
      #expect(earlier.bytesRead <= later.bytesRead)
      #expect(earlier.elapsedSeconds <= later.elapsedSeconds)
    }
    let last = try #require(all.last)
    #expect(last.recordsRead == 3_000)
    #expect(last.recordsDone == 3_000)
    #expect(last.bytesRead == Int64(size))
    #expect(last.fraction == 1)
  }

  @Test func theIntervalLimitsTheTicks() throws {
    let db = try ProjectsDatabase()
    let lines = (0..<3_000).map {
      #"{"id":"p\#($0)","title":"T","state":"open","owner":"o","people":[{"id":"o","name":"O"}],"tasks":[]}"#
    }
    let input = try db.directory.write("projects.ndjson", lines.joined(separator: "\n") + "\n")
    let ticks = Ticks()
    var configuration = PipelineConfiguration(
      name: "projects", input: input, format: .ndjson, database: .sqlite(db.path))
    configuration.progressInterval = 3_600
    configuration.progress = { ticks.append($0) }
    #expect(try Pipeline(dataset: ProjectsDataset(), configuration: configuration).run().status == .succeeded)
    // The first batch draws at once; the next would be due in an hour.
    #expect(ticks.all.count == 1)
  }
}
