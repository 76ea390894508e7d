/// Text from the data — a field path, a key, a file name, a row of a `runs` database — made
/// safe to print on a terminal or into a log.
///
/// A key can hold an escape sequence that recolours or clears a terminal, a newline that forges
/// a log line, or a bidirectional override that shows `txt.exe` as `exe.txt`. Wherever such text
/// is printed for a person, each of those characters is shown as `\u{…}` instead: the C0 and C1
/// controls (tab and newline included) and DEL, the bidirectional formatting characters, and
/// the line and paragraph separators. Everything else, backslashes included, is left as it is,
/// so escaping twice changes nothing.
package enum TerminalText {
  /// `text` with every control, bidirectional and separator character written as `\u{HEX}`.
  package static func escape(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if isUnsafe(scalar) {
        result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Each line escaped on its own, then joined with newlines: for a list of lines whose
  /// pieces came from the data.
  package static func lines(_ lines: [String]) -> String {
    lines.map(escape).joined(separator: "\n")
  }

  static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: true
    // ALM, LRM/RLM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI, line and paragraph separators.
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
    default: false
    }
  }
}
