/// One accepted date representation, as a pipeline spec names it.
///
/// A pipeline has one date strategy; a second format is added only where a legacy export needs
/// it, and then by name, so the spec says exactly what each date field may look like.
public enum DateFormat: Sendable, Hashable {
  /// RFC 3339 date-time, such as `2023-01-01T00:00:05Z` or `2023-01-01T00:00:05.25+01:00`.
  case iso8601
  /// Seconds since 1970 as a JSON number, or as a string of digits in legacy exports.
  case epochSeconds
  /// Milliseconds since 1970 as a JSON number, or as a string of digits in legacy exports.
  case epochMilliseconds
  /// A `DateFormatter` pattern for a legacy export, such as `yyyy-MM-dd HH:mm:ss`.
  case pattern(String)

  /// Parses a spec name: `iso8601`, `epochSeconds` or `epochMilliseconds`; anything else is a
  /// pattern.
  public init(specName: String) {
    switch specName {
    case "iso8601": self = .iso8601
    case "epochSeconds": self = .epochSeconds
    case "epochMilliseconds": self = .epochMilliseconds
    default: self = .pattern(specName)
    }
  }

  /// The name a spec uses for this format; a pattern is its own name.
  public var specName: String {
    switch self {
    case .iso8601: "iso8601"
    case .epochSeconds: "epochSeconds"
    case .epochMilliseconds: "epochMilliseconds"
    case .pattern(let pattern): pattern
    }
  }

  /// How the format reads in an error message, with an example where one helps.
  var summary: String {
    switch self {
    case .iso8601: "ISO 8601 (2023-01-01T00:00:05Z)"
    case .epochSeconds: "epoch seconds (1672531205)"
    case .epochMilliseconds: "epoch milliseconds (1672531205000)"
    case .pattern(let pattern): pattern
    }
  }
}
