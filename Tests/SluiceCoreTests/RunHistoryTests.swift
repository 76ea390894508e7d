import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// `SQLiteRunHistory` on audit rows written by `AuditTables`: what `sluice runs` reads.
@Suite("Run history read back from the audit tables")
struct RunHistoryTests {
  /// A fresh directory per test: Swift Testing makes a suite value for each.
  let directory: TemporaryDirectory

  init() throws {
    directory = try TemporaryDirectory()
  }

  private func entry(_ pipeline: String, status: String = "succeeded", issues: [SluiceCore.Issue] = []) -> AuditEntry {
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    return AuditEntry(
      pipeline: pipeline, dataset: "fruits", mode: "run", input: "/in/\(pipeline).json", policy: "lenient",
      status: status, failure: status == "failed" ? "strict policy: nothing was written" : nil, startedAt: start,
      finishedAt: start.addingTimeInterval(1.5), durationSeconds: 1.5, recordsRead: 10, recordsLoaded: 3,
      recordsRejected: issues.count, warnings: 1,
      stagesJSON: #"[{"stage":"read","recordsIn":10,"recordsOut":10,"rejected":0,"warnings":0,"seconds":0.5}]"#,
      issueCountsJSON: #"{"typeMismatch":3}"#, rowsWrittenJSON: #"{"fruits":3}"#, inputsJSON: "[]", issues: issues)
  }

  private func issue(_ stage: Stage, _ code: IssueCode, _ path: String, severity: Severity = .error) -> SluiceCore.Issue
  {
    SluiceCore.Issue(stage: stage, severity: severity, code: code, location: nil, path: path, message: "m")
  }

  private func database(_ entries: [AuditEntry]) throws -> String {
    let path = directory.file("audit.sqlite")
    let connection = try SQLiteConnection(path: path)
    for entry in entries { try connection.withTransaction { try connection.recordAudit(entry) } }
    return path
  }

  @Test func recentRunsComeNewestFirstWithTheirStoredValues() throws {
    let path = try database([entry("first"), entry("second", status: "failed"), entry("third")])
    let history = try SQLiteRunHistory(path: path)
    let runs = try history.recentRuns(limit: 2)
    #expect(runs.map(\.runID) == [3, 2])
    let failed = runs[1]
    #expect(failed.pipeline == "second")
    #expect(failed.status == "failed")
    #expect(failed.failure == "strict policy: nothing was written")
    #expect(failed.startedAt == "2023-11-14T22:13:20.000Z")
    #expect(failed.finishedAt == "2023-11-14T22:13:21.500Z")
    #expect(failed.durationSeconds == 1.5)
    #expect([failed.recordsRead, failed.recordsLoaded, failed.warnings] == [Int]([10, 3, 1]))
    #expect(failed.stages.map(\.stage) == [.read])
    #expect(failed.issueCounts == ["typeMismatch": 3])
    #expect(failed.rowsWritten == ["fruits": 3])
    #expect(try history.recentRuns(limit: 20).count == 3)
  }

  @Test func issueGroupsFollowTheStagesThenTheLargestCount() throws {
    let issues = [
      issue(.load, .constraint, "x"),
      issue(.decode, .missingField, "b"),
      issue(.decode, .typeMismatch, "a"), issue(.decode, .typeMismatch, "a"), issue(.decode, .typeMismatch, "a"),
      issue(.read, .syntax, ""), issue(.read, .syntax, ""),
      issue(.decode, .unknownField, "extra", severity: .warning),
    ]
    let path = try database([entry("one"), entry("two", issues: issues)])
    let groups = try SQLiteRunHistory(path: path).issueGroups(ofRun: 2)
    #expect(
      groups == [
        IssueGroup(stage: .read, severity: .error, code: "syntax", path: "", count: 2),
        IssueGroup(stage: .decode, severity: .error, code: "typeMismatch", path: "a", count: 3),
        IssueGroup(stage: .decode, severity: .error, code: "missingField", path: "b", count: 1),
        IssueGroup(stage: .decode, severity: .warning, code: "unknownField", path: "extra", count: 1),
        IssueGroup(stage: .load, severity: .error, code: "constraint", path: "x", count: 1),
      ])
    #expect(try SQLiteRunHistory(path: path).issueGroups(ofRun: 1).isEmpty)
  }

  @Test func anUnknownRunNamesTheRangeThereIs() throws {
    let path = try database([entry("one"), entry("two")])
    let error = #expect(throws: RunHistoryError.self) { try SQLiteRunHistory(path: path).run(id: 5) }
    #expect(error?.code == .unknownRun)
    #expect(error?.description == "\(path): no run 5 (its runs are 1…2)")
    #expect(try SQLiteRunHistory(path: path).run(id: 2).pipeline == "two")
  }

  @Test func aDatabaseWithoutAuditTablesHasNoHistory() throws {
    let path = directory.file("plain.sqlite")
    try SQLiteConnection(path: path).execute("CREATE TABLE t (x)")
    let error = #expect(throws: RunHistoryError.self) { try SQLiteRunHistory(path: path) }
    #expect(error?.code == .noHistory)
  }

  @Test func aMissingFileIsNotCreated() throws {
    let path = directory.file("absent.sqlite")
    let error = #expect(throws: RunHistoryError.self) { try SQLiteRunHistory(path: path) }
    #expect(error?.code == .databaseMissing)
    #expect(!FileManager.default.fileExists(atPath: path))
  }
}
