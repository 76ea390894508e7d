/// The stages of a pipeline, in the order records flow through them.
public enum Stage: String, Sendable, Hashable, Codable, CaseIterable {
  case read, decode, validate, map, load

  /// The stage's place in `allCases`.
  package var ordinal: Int {
    switch self {
    case .read: 0
    case .decode: 1
    case .validate: 2
    case .map: 3
    case .load: 4
    }
  }
}

/// How much an issue weighs: an error rejects its record (or fails a strict run), a warning is
/// counted and reported and the record goes on.
public enum Severity: String, Sendable, Hashable, Codable {
  case error, warning
}
