/// What the decoding thread hands to the loading thread for one record, in input order.
struct PipelineItem: Sendable {
  enum Verdict: Sendable {
    /// The record passed reading, decoding, validation and mapping; these are its rows.
    case load(RecordRows)
    /// The record was rejected at `stage` for `issues`.
    case rejected(Stage, [Issue])
    /// The dataset skipped the record by design, for this reason (`MappingError.skipped`).
    case skipped(String)
    /// The input cannot be read further; nothing follows.
    case failure(any Error & Sendable)
  }

  var verdict: Verdict
  /// The record's own place; nil when the reader could not tell (a malformed record's issue
  /// then carries the place of the offending byte).
  var location: RecordLocation?
  /// The record's raw bytes, when a rejects file wants them.
  var raw: [UInt8]?
  /// Warning-level issues (unknown fields) of a record that was not rejected for them.
  var warnings: [Issue] = []
  /// The record's issues past those it lists (unknown fields past
  /// `DecodeDiagnostics.listedUnknownFields`): counted by the loading side, kept nowhere.
  var unlisted: UnlistedIssues?
  /// Scalars converted under `legacyScalars`.
  var coercions = 0
  /// The rows (entries) of a `.load` record whose natural key an earlier record of the run — or
  /// an earlier row of this one — registered (`KeyRegistry`): the loading thread decides whether
  /// each is a repeat.
  var repeatedKeys: [Int32] = []
  /// The rows of a `.load` item, moved out (the item is left `.skipped`): the only reference
  /// to them when the loading thread has let go of the item, so they can be reused in place.
  mutating func takeRows() -> RecordRows? {
    guard case .load(let rows) = verdict else { return nil }
    verdict = .skipped("")
    return rows
  }

  /// No record: the rows an input adds after its records (`Dataset.rowsAfterRecords`), loaded
  /// like a record's, or an issue about the objects around the records (a key repeated there)
  /// — rejected as a record would be, but not counted among the records, and not a result a
  /// checkpoint counts.
  var isAfterRecords = false
}

/// Issues of one code that a record raised past those it lists, and how many: counted in the
/// run's totals, its stage's warnings and the drift summary's other count, like the listed ones.
struct UnlistedIssues: Sendable {
  var stage: Stage
  var severity: Severity
  var code: IssueCode
  var count: Int
}
