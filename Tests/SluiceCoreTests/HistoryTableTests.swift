import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// A table declared `"history": "scd2"` keeps every version of its rows in
/// `sluice_history_<table>` (`HistoryTable`), on SQLite; `PostgreSQLHistoryTableTests` runs the
/// same nights on PostgreSQL.
@Suite("History tables (SCD type 2) on SQLite")
struct HistoryTableTests {
  let nights = HistoryNights()

  private func open(_ directory: TemporaryDirectory) throws -> SQLiteConnection {
    try SQLiteConnection(path: directory.file("members.sqlite"), options: .init(readOnly: true))
  }

  @Test func thirtyNightlySnapshotsAnswerAsOfEachNightWithThatNightsDump() throws {
    let directory = try TemporaryDirectory()
    let dataset = try HistoryNights.dataset(in: directory)
    let starts = try nights.loadEveryNight(dataset, in: directory, aim: { $0 }, open: { try open(directory) })
    let store = try open(directory)
    for n in [12] + Array(nights.nights.indices) {
      let query = HistoryNights.asOf("'\(starts[n])'")
      let expected = nights.rows(n)
      #expect(try store.lines(query.members, columns: 3) == expected.members, "night \(n)")
      #expect(try store.lines(query.addresses, columns: 3) == expected.addresses, "night \(n)")
    }
    // The current versions are the table; every version names the run that made it.
    #expect(
      try store.lines("SELECT id, name, tier FROM sluice_history_members WHERE sluice_valid_to IS NULL", columns: 3)
        == store.lines("SELECT id, name, tier FROM members", columns: 3))
    #expect(
      try store.lines(
        "SELECT count(*) FROM sluice_history_members h JOIN sluice_runs r ON r.run_id = h.sluice_run_id AND r.started_at = h.sluice_valid_from",
        columns: 1) == store.lines("SELECT count(*) FROM sluice_history_members", columns: 1))
    // Members left and came back, so some have more than one version and a closed one.
    #expect(
      try store.lines("SELECT count(*) FROM sluice_history_members WHERE sluice_valid_to IS NOT NULL", columns: 1)
        != ["0"])
  }

  @Test func reImportingTheSameNightMakesNoVersion() throws {
    let directory = try TemporaryDirectory()
    let dataset = try HistoryNights.dataset(in: directory)
    let versions =
      "SELECT (SELECT count(*) FROM sluice_history_members), (SELECT count(*) FROM sluice_history_member_addresses), (SELECT count(*) FROM sluice_history_members WHERE sluice_valid_to IS NULL)"
    for n in 0..<3 {
      let report = try dataset.run(nights.configuration(n, in: directory, aim: { $0 }))
      #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    }
    let before = try open(directory).lines(versions, columns: 3)
    let again = try dataset.run(nights.configuration(2, in: directory, aim: { $0 }))
    #expect(again.status == .succeeded, "\(again.failure?.message ?? "")")
    #expect(try open(directory).lines(versions, columns: 3) == before)
    #expect(try open(directory).lines("SELECT count(*) FROM sluice_runs", columns: 1) == ["4"])
  }

  @Test func aChangedMemberClosesItsVersionAndOpensOneAndALeaverIsClosedNotDeleted() throws {
    let directory = try TemporaryDirectory()
    let dataset = try HistoryNights.dataset(in: directory)
    func night(_ name: String, _ lines: [String]) throws {
      let input = try directory.write(name, lines.joined(separator: "\n") + "\n")
      var configuration = PipelineConfiguration(
        name: "members", input: input, format: .ndjson, database: .sqlite(directory.file("members.sqlite")))
      configuration.inputs[0].isSnapshot = true
      configuration.snapshot.maxDeleteRate = 0.5
      let report = try dataset.run(configuration)
      #expect(report.status == .succeeded, "\(name): \(report.failure?.message ?? "")")
    }
    let a = #"{"id":"a","name":"Ann","tier":1,"addresses":[{"city":"Oslo"}]}"#
    let b = #"{"id":"b","name":"Bo","tier":null,"addresses":[]}"#
    let c = #"{"id":"c","name":"Cy","tier":2,"addresses":[]}"#
    try night("1.ndjson", [a, b, c])
    try night("2.ndjson", [a.replacingOccurrences(of: "Oslo", with: "Bergen"), b, c])
    try night("3.ndjson", [a.replacingOccurrences(of: "Oslo", with: "Bergen"), c])
    try night("4.ndjson", [a.replacingOccurrences(of: "Oslo", with: "Bergen"), b, c])
    let store = try open(directory)
    // a's address changed on night 2: its member row did not, so only the address has a
    // second version; b left on night 3 (closed, its row deleted) and came back on night 4.
    #expect(
      try store.lines(
        "SELECT h.id, h.sluice_run_id, CASE WHEN h.sluice_valid_to IS NULL THEN 'open' ELSE 'closed by ' || (SELECT run_id FROM sluice_runs WHERE started_at = h.sluice_valid_to) END FROM sluice_history_members h",
        columns: 3) == ["a|1|open", "b|1|closed by 3", "b|4|open", "c|1|open"])
    #expect(
      try store.lines(
        "SELECT h.id, h.position, h.city, h.sluice_run_id, h.sluice_valid_to IS NULL FROM sluice_history_member_addresses h",
        columns: 5) == ["a|0|Bergen|2|1", "a|0|Oslo|1|0"])
    #expect(try store.lines("SELECT id FROM members", columns: 1) == ["a", "b", "c"])
  }

  @Test func theSnapshotGuardCountsClosuresAndARefusedNightLeavesTheHistoryAsItWas() throws {
    let directory = try TemporaryDirectory()
    let dataset = try HistoryNights.dataset(in: directory)
    let first = try dataset.run(nights.configuration(0, in: directory, aim: { $0 }))
    #expect(first.status == .succeeded, "\(first.failure?.message ?? "")")
    let versions = "SELECT id, sluice_valid_to FROM sluice_history_members"
    let before = try open(directory).lines(versions, columns: 2)
    let count = nights.nights[0].count
    var configuration = try nights.configuration(0, in: directory, aim: { $0 })
    let input = try directory.write(
      "truncated.ndjson", nights.dump(0).split(separator: "\n").prefix(10).joined(separator: "\n") + "\n")
    configuration.inputs[0].path = input
    let report = try dataset.run(configuration)
    #expect(report.status == .failed)
    #expect(report.failure?.kind == .data)
    let share = String(format: "%.2f%%", Double(count - 10) / Double(count) * 100)
    #expect(
      report.failure?.message
        == "snapshot: this run would delete \(count - 10) of the \(count) rows members held before it (\(share) > maxDeleteRate 20%), more than an incomplete dump should; nothing was written (raise maxDeleteRate if the dump is right)"
    )
    #expect(try open(directory).lines(versions, columns: 2) == before)
  }

  @Test func aStrictRunThatFailsLeavesNoVersion() throws {
    let directory = try TemporaryDirectory()
    let dataset = try HistoryNights.dataset(in: directory)
    _ = try dataset.run(nights.configuration(0, in: directory, aim: { $0 }))
    let before = try open(directory).lines("SELECT id, name, sluice_valid_to FROM sluice_history_members", columns: 3)
    var configuration = try nights.configuration(1, in: directory, aim: { $0 })
    let broken = nights.dump(1) + #"{"id":"zz","name":5,"tier":null,"addresses":[]}"# + "\n"
    configuration.inputs[0].path = try directory.write("broken.ndjson", broken)
    let report = try dataset.run(configuration)
    #expect(report.status == .failed)
    #expect(
      try open(directory).lines("SELECT id, name, sluice_valid_to FROM sluice_history_members", columns: 3) == before)
  }

  @Test func aLenientRunVersionsWhatItLoadedAndClosesNothingItSkipped() throws {
    let directory = try TemporaryDirectory()
    let dataset = try HistoryNights.dataset(in: directory)
    func night(_ name: String, _ lines: [String], policy: Policy) throws -> RunReport {
      let input = try directory.write(name, lines.joined(separator: "\n") + "\n")
      var configuration = PipelineConfiguration(
        name: "members", input: input, format: .ndjson, policy: policy,
        database: .sqlite(directory.file("members.sqlite")))
      configuration.inputs[0].isSnapshot = true
      configuration.snapshot.maxDeleteRate = 1
      return try dataset.run(configuration)
    }
    let a = #"{"id":"a","name":"Ann","tier":1,"addresses":[]}"#
    let b = #"{"id":"b","name":"Bo","tier":2,"addresses":[]}"#
    #expect(try night("1.ndjson", [a, b], policy: .strict).status == .succeeded)
    // b is skipped (its name is a number): its key is unknown, so the snapshot holds its deletes
    // and b keeps its row and its open version; a's change is versioned.
    let lenient = try night(
      "2.ndjson", [a.replacingOccurrences(of: "Ann", with: "Anna"), #"{"id":"b","name":5,"tier":2,"addresses":[]}"#],
      policy: Policy(preset: .lenient))
    #expect(lenient.status == .succeeded, "\(lenient.failure?.message ?? "")")
    #expect(lenient.issues.map(\.code).contains(.snapshotHeld))
    let versions = try open(directory).lines(
      "SELECT id, name, sluice_run_id, sluice_valid_to IS NULL FROM sluice_history_members", columns: 4)
    #expect(versions == ["a|Anna|2|1", "a|Ann|1|0", "b|Bo|1|1"], "\(versions)")
  }

  @Test func aCheckpointedOrParallelRunOfAHistoryTableIsRefused() throws {
    let directory = try TemporaryDirectory()
    let dataset = try HistoryNights.dataset(in: directory)
    var configuration = try nights.configuration(0, in: directory, aim: { $0 })
    configuration.inputs[0].isSnapshot = false
    configuration.checkpointing = .init(recordsPerChunk: 10)
    let error = #expect(throws: PipelineError.self) {
      try PipelineRunner(configuration: configuration, datasets: [dataset])
    }
    #expect(
      error?.message
        == "--checkpoint-every and the history table members do not go together: a history table's versions are made at the end of a run that loads in one transaction, and this run commits in chunks; drop --checkpoint-every"
    )
    configuration.checkpointing = nil
    configuration.parallelism.jobs = 2
    #expect(
      (#expect(throws: PipelineError.self) { try PipelineRunner(configuration: configuration, datasets: [dataset]) })?
        .message
        == "--jobs 2 and the history table members do not go together: a history table's versions are made at the end of a run that loads in one transaction; drop --jobs"
    )
  }

  @Test func aDatasetFileNamesTheHistoryItKeepsOrIsRefusedAtItsPath() throws {
    let directory = try TemporaryDirectory()
    func refusal(_ text: String) throws -> String? {
      let path = try directory.write("members.dataset.json", text)
      do {
        _ = try DatasetFile.load(path)
        return nil
      } catch {
        return error.message
      }
    }
    #expect(
      try refusal(HistoryNights.datasetFile.replacingOccurrences(of: #""scd2""#, with: #""scd3""#))
        == "'tables[0].history': 'scd3' is not scd2")
    let onChild = HistoryNights.datasetFile.replacingOccurrences(
      of: #""parent": "members","#, with: #""parent": "members", "history": "scd2","#)
    #expect(try refusal(onChild) == "'tables[1].history': a child table's versions follow its parent's")
    let dataset = try HistoryNights.dataset(in: directory)
    #expect(dataset.schema.tables.map(\.history) == [.scd2, .scd2])
    #expect(
      dataset.schema.migrations(dialect: SQLiteDialect()).map(\.identifier) == [
        "create table members", "create table member_addresses", "create table sluice_history_members",
        "create table sluice_history_member_addresses",
      ])
  }
}
