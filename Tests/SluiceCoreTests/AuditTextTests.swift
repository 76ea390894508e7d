import Foundation
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

/// What the audit tables keep of an issue's text: always storable, on every store.
@Suite("Audit text")
struct AuditTextTests {
  @Test func aNulIsWrittenAsTheJSONReportWritesIt() {
    #expect(AuditText.storable("bad\u{0}key", limit: 100) == #"bad\u0000key"#)
    #expect(AuditText.storable("items[2].qty", limit: 100) == "items[2].qty")
  }

  @Test func overLongTextIsCutOnACharacterBoundaryWithAMarker() {
    let path = String(repeating: "é", count: 1_000)  // 2,000 bytes
    let stored = AuditText.storable(path, limit: AuditText.pathLimit)
    #expect(stored.utf8.count <= AuditText.pathLimit)
    #expect(stored.hasSuffix("…[cut: 2000 bytes]"))
    #expect(stored.hasPrefix("éé"))
    #expect(stored.dropLast("…[cut: 2000 bytes]".count).allSatisfy { $0 == "é" })
  }

  @Test func aRejectRowCarriesTheStorableTextOfItsIssue() {
    var issue = Issue(stage: .decode, code: .unknownField, location: nil, path: "a\u{0}b", message: "x\u{0}y")
    issue.path += String(repeating: "k", count: 5_000)
    let entry = AuditEntry(
      pipeline: "p", dataset: "d", mode: "run", input: "in.json", policy: "strict", status: "failed",
      failure: nil, startedAt: Date(), finishedAt: Date(), durationSeconds: 0, recordsRead: 0, recordsLoaded: 0,
      recordsRejected: 0, warnings: 0, stagesJSON: "[]", issueCountsJSON: "{}", rowsWrittenJSON: "{}", inputsJSON: "[]",
      issues: [issue])
    let row = entry.rejectRow(issue, sequence: 1, runID: 7)
    guard case .text(let path)? = row[9], case .text(let message)? = row[10] else {
      Issue.record("no text in the path and message columns: \(row)")
      return
    }
    #expect(path.hasPrefix(#"a\u0000bkkk"#))
    #expect(path.utf8.count <= AuditText.pathLimit)
    #expect(message == #"x\u0000y"#)
  }
}
