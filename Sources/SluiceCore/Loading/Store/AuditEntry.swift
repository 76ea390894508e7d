import Foundation

/// One run as the audit tables keep it (`sluice_runs`, `sluice_rejects`): what it was, how it
/// ended, its counts, and its sampled issues — never record values.
public struct AuditEntry: Sendable {
  public var pipeline: String
  public var dataset: String
  public var mode: String
  public var input: String
  public var policy: String
  public var status: String
  public var failure: String?
  public var startedAt: Date
  public var finishedAt: Date
  public var durationSeconds: Double
  public var recordsRead: Int
  public var recordsLoaded: Int
  public var recordsRejected: Int
  public var warnings: Int
  public var stagesJSON: String
  public var issueCountsJSON: String
  public var rowsWrittenJSON: String
  /// The report's input sections (path, dataset, format, bytes, per-stage counts of each input).
  public var inputsJSON: String
  /// Each issue names its input when the run read several; otherwise it is `input`'s.
  public var issues: [Issue]
  /// The input ledger's rows of a committed run (`sluice_inputs`): every input it read or, being
  /// incremental, skipped. Empty for a failed run: nothing it read is in the tables.
  public var inputLedger: [InputLedgerEntry] = []
  /// A snapshot run's deletions per table, as JSON (`sluice_runs.rows_deleted`); nil otherwise.
  public var rowsDeletedJSON: String? = nil

  /// The `sluice_rejects` row of one of the run's issues, numbered from 1, in the columns' order:
  /// run_id, sequence, stage, severity, code, rule, record_ordinal, byte_offset, line, path,
  /// message, input. Every store writes the same row, its text made storable (`AuditText`).
  package func rejectRow(_ issue: Issue, sequence: Int, runID: Int64) -> [DatabaseValue?] {
    func text(_ value: String, _ limit: Int = AuditText.messageLimit) -> DatabaseValue {
      .text(AuditText.storable(value, limit: limit))
    }
    return [
      .integer(runID), .integer(Int64(sequence)), .text(issue.stage.rawValue), .text(issue.severity.rawValue),
      text(issue.code.rawValue), issue.rule.map { text($0) }, issue.location.map { .integer(Int64($0.ordinal)) },
      issue.location.map { .integer($0.byteOffset) }, issue.location.map { .integer(Int64($0.line)) },
      text(issue.path, AuditText.pathLimit), text(issue.message), text(issue.input ?? input),
    ]
  }
}

extension RunReport {
  /// The report's row in the audit tables.
  public var auditEntry: AuditEntry {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    func json(_ value: some Encodable) -> String {
      (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
    return AuditEntry(
      pipeline: pipeline, dataset: dataset, mode: mode, input: input.path, policy: policy, status: status.rawValue,
      failure: failure.map { AuditText.storable($0.message, limit: AuditText.failureLimit) }, startedAt: startedAt,
      finishedAt: finishedAt, durationSeconds: durationSeconds,
      recordsRead: statistics(for: .read).recordsIn, recordsLoaded: statistics(for: .load).recordsOut,
      recordsRejected: stages.map(\.rejected).reduce(0, +), warnings: stages.map(\.warnings).reduce(0, +),
      stagesJSON: json(stages), issueCountsJSON: json(issueCounts), rowsWrittenJSON: json(rowsWritten),
      inputsJSON: json(inputs), issues: issues, rowsDeletedJSON: rowsDeleted.map(json))
  }
}
