/// Writes domain values of one dataset into SQLite: the load stage's interface.
///
/// A loader prepares its statements once, in `Dataset.makeLoader`, and reuses them for every
/// record of the run; the pipeline owns the transaction around it.
public protocol RecordLoader<Record>: AnyObject {
  associatedtype Record
  /// Writes one record and its children. Throws `SQLiteError`; a constraint violation becomes a
  /// record issue, anything else fails the run.
  func load(_ record: Record) throws -> LoadOutcome
  /// Rows written so far, per table.
  var rowsWritten: [String: Int] { get }
}

public enum LoadOutcome: Sendable {
  /// The record's rows were inserted or replaced.
  case written
  /// The conflict policy kept the existing row (`ignore`).
  case keptExisting
}

/// What to do when a record's natural key is already in the table.
public enum ConflictPolicy: String, Sendable, Codable, CaseIterable {
  /// Update the parent row in place and replace its children (the default).
  case upsert
  /// Delete the parent row (its children cascade) and insert the record anew.
  case replace
  /// Keep the existing row and its children; the record is counted as kept.
  case ignore
  /// An existing key is a `constraint` issue.
  case fail
}
