import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// What the engine asks of a store in each way a run commits, asserted on the recording store
/// (no database file): through `Pipeline.run`, whichever strategy carries the mode out.
@Suite("Engine calls on a recording store")
struct EngineStoreCallsTests {
  static func shipment(_ id: Int, mode: String = "air") -> String {
    #"{"id": "s\#(id)", "mode": "\#(mode)", "parcels": [\#(id)]}"#
  }

  /// Runs `lines` of shipments into a recording store; returns the report and the store's calls.
  func run(
    _ lines: [String], policy: Policy, _ adjust: (inout PipelineConfiguration) -> Void = { _ in }
  ) throws -> (report: RunReport, log: StoreCallLog) {
    let directory = try TemporaryDirectory()
    let input = try directory.write("shipments.ndjson", lines.joined(separator: "\n") + "\n")
    let driver = RecordingDriver()
    var configuration = PipelineConfiguration(
      name: "shipments", input: input, format: .ndjson, policy: policy, database: driver.target)
    adjust(&configuration)
    let report = try Pipeline(dataset: ShipmentsDataset(), configuration: configuration).run()
    return (report, driver.log)
  }

  @Test func aStrictRunRollsBackAtItsFirstRejectBeforeCommittingAnything() throws {
    let (report, log) = try run([Self.shipment(1), Self.shipment(2, mode: "rail"), Self.shipment(3)], policy: .strict)
    #expect(report.status == .failed)
    let calls = log.calls
    let rollback = try #require(calls.firstIndex(of: .rollback))
    // The first record's rows went in, then the second record's reject rolled the transaction
    // back: the third record was never written, and nothing was committed before the rollback.
    #expect(calls[..<rollback].contains(.insert("shipments", rows: 1)))
    #expect(!calls[..<rollback].contains(.commit))
    #expect(!calls[..<rollback].contains(.commitAndBegin))
    #expect(log.rowsWritten(into: "shipments") == 1)
    #expect(log.transactions.prefix(2) == [.begin, .rollback])
  }

  @Test func aLenientRunWithinItsBudgetCommitsOnce() throws {
    var policy = Policy.lenient
    policy.maxRejects = 1
    let (report, log) = try run([Self.shipment(1), Self.shipment(2, mode: "rail"), Self.shipment(3)], policy: policy)
    #expect(report.status == .succeeded)
    #expect(report.issues.count == 1)
    #expect(log.transactions == [.begin, .commit])
    #expect(log.calls.filter { $0 == .audit }.count == 1)
    #expect(log.rowsWritten(into: "shipments") == 2)
    #expect(log.rowsWritten(into: "parcels") == 2)
  }

  @Test func aLenientRunOverItsBudgetRollsBackWhatItWrote() throws {
    var policy = Policy.lenient
    policy.maxRejects = 1
    let lines = [Self.shipment(1), Self.shipment(2, mode: "rail"), Self.shipment(3, mode: "rail"), Self.shipment(4)]
    let (report, log) = try run(lines, policy: policy)
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    let rollback = try #require(log.calls.firstIndex(of: .rollback))
    #expect(log.calls[..<rollback].contains(.insert("shipments", rows: 1)))
    #expect(!log.calls[..<rollback].contains(.commit))
  }

  @Test func aValidateRunOpensNoStore() throws {
    let (report, log) = try run([Self.shipment(1), Self.shipment(2, mode: "rail")], policy: .lenient) {
      $0.mode = .validate
    }
    #expect(report.issues.map(\.code) == [.unsupportedEnumValue])
    #expect(log.calls.isEmpty)
  }

  @Test func aCheckpointedRunCommitsEachChunk() throws {
    let (report, log) = try run((1...600).map { Self.shipment($0) }, policy: .strict) {
      $0.checkpointing = .init(recordsPerChunk: 100)
    }
    #expect(report.status == .succeeded)
    // A chunk ends at the end of the batch that fills it: 600 records come in batches of 256,
    // 256 and 88, which the loading side may join, so the run commits one to three chunks with a
    // commit that begins the next, each of 100 records or more, and the run's transaction
    // commits the last.
    let transactions = log.transactions
    #expect(transactions.first == .begin && transactions.last == .commit)
    let chunkCommits = transactions.dropFirst().dropLast()
    #expect((1...3).contains(chunkCommits.count) && chunkCommits.allSatisfy { $0 == .commitAndBegin })
    var rowsInChunk = 0
    for call in log.calls {
      if case .insert("shipments", let rows) = call { rowsInChunk += rows }
      if call == .commitAndBegin {
        #expect(rowsInChunk >= 100)
        rowsInChunk = 0
      }
    }
    #expect(log.rowsWritten(into: "shipments") == 600)
  }

  @Test func aPlanNeverCommits() throws {
    let (report, log) = try run([Self.shipment(1), Self.shipment(2)], policy: .strict) { $0.mode = .plan }
    #expect(report.status == .succeeded)
    #expect(log.calls.contains(.prepareForPlan))
    #expect(log.rowsWritten(into: "shipments") == 2)
    #expect(!log.calls.contains(.commit))
    #expect(!log.calls.contains(.commitAndBegin))
    #expect(!log.calls.contains(.audit))
    #expect(log.transactions == [.begin, .rollback])
  }
}
