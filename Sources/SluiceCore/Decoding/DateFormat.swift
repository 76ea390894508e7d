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

  /// Parses a spec name: `iso8601`, `epochSeconds`, `epochMilliseconds`, or a pattern.
  ///
  /// A pattern must be recognisably one, so that a misspelled name (`iso8061`, `epochSecond`)
  /// is an error rather than a pattern that matches nothing. The grammar, a subset of Unicode
  /// date patterns:
  ///
  /// - fields: `yyyy` `yy` (year), `M` `MM` `MMM` `MMMM` (month), `d` `dd` (day), `E`…`EEEE`
  ///   (weekday), `H` `HH` `h` `hh` (hour), `a` (AM/PM), `mm`, `ss`, `S`…`SSSSSSSSS`
  ///   (fraction), `Z` `ZZZZZ` `X`…`XXXXX` `x`…`xxxxx` (zone offset);
  /// - literals: spaces, digits-free punctuation (`-` `/` `.` `:` `,` `+`), `T`, and any text in
  ///   single quotes (`''` is a quote);
  /// - a year, a month and a day are required.
  public init(specName: String) throws(DateFormatError) {
    switch specName {
    case "iso8601": self = .iso8601
    case "epochSeconds": self = .epochSeconds
    case "epochMilliseconds": self = .epochMilliseconds
    default:
      if let problem = Self.patternProblem(specName) {
        throw DateFormatError(name: specName, problem: problem)
      }
      self = .pattern(specName)
    }
  }

  /// The names that are not patterns, for suggestions.
  static let names = ["iso8601", "epochSeconds", "epochMilliseconds"]

  /// Why `pattern` is not a date pattern of the grammar above, or nil when it is one.
  static func patternProblem(_ pattern: String) -> String? {
    if pattern.isEmpty { return "an empty pattern" }
    let allowed: [Character: ClosedRange<Int>] = [
      "y": 2...4, "M": 1...4, "d": 1...2, "E": 1...4, "H": 1...2, "h": 1...2, "a": 1...1,
      "m": 2...2, "s": 2...2, "S": 1...9, "Z": 1...5, "X": 1...5, "x": 1...5,
    ]
    let literals: Set<Character> = [" ", "-", "/", ".", ":", ",", "+", "T"]
    var seen: Set<Character> = []
    let characters = Array(pattern)
    var index = 0
    while index < characters.count {
      let character = characters[index]
      if character == "'" {
        // Quoted literal text up to the closing quote; `''` is a quote character.
        var closing = index + 1
        while closing < characters.count, characters[closing] != "'" { closing += 1 }
        guard closing < characters.count else { return "an unterminated quote" }
        index = closing + 1
        continue
      }
      if let lengths = allowed[character] {
        var run = 1
        while index + run < characters.count, characters[index + run] == character { run += 1 }
        guard lengths.contains(run) else {
          return "'\(String(repeating: character, count: run))' is not a field of a date pattern"
        }
        seen.insert(character)
        index += run
        continue
      }
      guard literals.contains(character) else {
        return character.isLetter || character.isNumber
          ? "'\(character)' is not a field of a date pattern" : "'\(character)' is not allowed in a date pattern"
      }
      index += 1
    }
    for (field, name) in [("y", "year (yyyy)"), ("M", "month (MM)"), ("d", "day (dd)")]
    where !seen.contains(Character(field)) {
      return "it has no \(name)"
    }
    return nil
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

/// A date format name in a spec that is neither a known name nor a pattern.
public struct DateFormatError: Error, Sendable, CustomStringConvertible {
  public var name: String
  public var problem: String

  public var description: String {
    var text =
      "'\(name)' is not a date format: \(problem). Use iso8601, epochSeconds, epochMilliseconds or a pattern such as yyyy-MM-dd HH:mm:ss"
    if let suggestion {
      text += " (did you mean \(suggestion)?)"
    }
    return text
  }

  /// The known name `name` is closest to, when it looks like a misspelling of one.
  var suggestion: String? {
    let lowered = name.lowercased()
    let scored = DateFormat.names.map { ($0, Self.distance(Array(lowered), Array($0.lowercased()))) }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 3 else { return nil }
    return best.0
  }

  /// Levenshtein distance.
  static func distance(_ a: [Character], _ b: [Character]) -> Int {
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
      var current = [i + 1]
      for (j, y) in b.enumerated() {
        current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
      }
      previous = current
    }
    return previous[b.count]
  }
}
