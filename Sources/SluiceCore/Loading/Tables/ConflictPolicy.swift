/// What to do when a row's natural key is already in its table; the engine applies it the same
/// way to every table (`RowWriter`).
public enum ConflictPolicy: String, Sendable, Codable, CaseIterable {
  /// Update the row in place and replace its children (the default).
  case upsert
  /// Delete the row and its children and insert the record anew.
  case replace
  /// Keep the existing row and its children; the record is counted as kept.
  case ignore
  /// An existing key is a `constraint` issue.
  case fail
}
