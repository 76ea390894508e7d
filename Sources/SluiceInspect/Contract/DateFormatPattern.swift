@_spi(Internals) import SluiceCore

/// Regular expressions (ECMA-262, for JSON Schema's `pattern`) for the date formats a pipeline
/// accepts, so a contract says what a date field must look like.
enum DateFormatPattern {
  /// What `DateParser.parseISO8601` accepts: RFC 3339 with real calendar days (leap years
  /// included), `T` or `t`, any fraction, `Z`, `z` or an offset with or without its colon.
  static let iso8601: String = {
    let day31 = "(?:0[1-9]|[12][0-9]|3[01])"
    let day30 = "(?:0[1-9]|[12][0-9]|30)"
    let day28 = "(?:0[1-9]|1[0-9]|2[0-8])"
    let leapYear = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
    let date =
      "(?:[0-9]{4}-(?:(?:0[13578]|1[02])-\(day31)|(?:0[469]|11)-\(day30)|02-\(day28))|\(leapYear)-02-29)"
    let time = "[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?"
    let zone = "(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9])"
    return "^\(date)\(time)\(zone)$"
  }()

  /// The layout of a `DateFormatter` pattern of `DateFormat`'s grammar: digits where its fields
  /// are, its literals as they are. Whether the day exists is not checked.
  static func expression(for pattern: String) -> String {
    let fields: [Character: (Int) -> String] = [
      "y": { $0 == 2 ? "[0-9]{2}" : "[0-9]{4}" },
      "M": { $0 <= 2 ? ($0 == 1 ? "(?:1[0-2]|0?[1-9])" : "(?:0[1-9]|1[0-2])") : "[A-Za-z]+\\.?" },
      "d": { $0 == 1 ? "(?:[12][0-9]|3[01]|0?[1-9])" : "(?:0[1-9]|[12][0-9]|3[01])" },
      "E": { _ in "[A-Za-z]+\\.?" },
      "H": { $0 == 1 ? "(?:1[0-9]|2[0-3]|0?[0-9])" : "(?:[01][0-9]|2[0-3])" },
      "h": { $0 == 1 ? "(?:1[0-2]|0?[1-9])" : "(?:0[1-9]|1[0-2])" },
      "a": { _ in "(?:AM|PM|am|pm)" },
      "m": { _ in "[0-5][0-9]" },
      "s": { _ in "[0-5][0-9]" },
      "S": { "[0-9]{\($0)}" },
      "Z": { _ in "(?:Z|[+-][0-9]{2}:?[0-9]{2})" },
      "X": { _ in "(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)" },
      "x": { _ in "[+-][0-9]{2}(?::?[0-9]{2})?" },
    ]
    var result = "^"
    let characters = Array(pattern)
    var index = 0
    while index < characters.count {
      let character = characters[index]
      if character == "'" {
        var closing = index + 1
        var literal = ""
        while closing < characters.count, characters[closing] != "'" {
          literal.append(characters[closing])
          closing += 1
        }
        result += literal.isEmpty ? "'" : escaped(literal)
        index = closing + 1
        continue
      }
      if let field = fields[character] {
        var run = 1
        while index + run < characters.count, characters[index + run] == character { run += 1 }
        result += field(run)
        index += run
        continue
      }
      result += escaped(String(character))
      index += 1
    }
    return result + "$"
  }

  private static func escaped(_ literal: String) -> String {
    var result = ""
    for character in literal {
      if "\\^$.|?*+()[]{}/-".contains(character) { result += "\\" }
      result.append(character)
    }
    return result
  }
}
