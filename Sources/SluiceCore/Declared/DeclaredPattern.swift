import Foundation

/// A rule's regular expression. Like JSON Schema's `pattern` (ECMA-262), it matches anywhere in
/// the text unless anchored (`^…$`).
///
/// Swift's `Regex` reads the whole syntax and is the reference, but costs microseconds a match:
/// a dataset file's currency pattern on every order took the validate stage from 1 to 13 s per
/// million orders. So a pattern also gets glibc's POSIX engine (`regcomp`/`regexec`, REG_EXTENDED)
/// when it is in the regular subset both engines read alike (`PosixPattern`), and a text of ASCII
/// without NUL — most texts a pattern checks, codes and ids — is matched there. Whether a text
/// matches at all is the same under POSIX's leftmost-longest and ECMA's leftmost-first rules: the
/// two differ only in which match they report. Any other text, or pattern, goes to `Regex`.
final class DeclaredPattern: @unchecked Sendable {
  // A compiled Regex is immutable; glibc's regexec locks its own cache, and a run matches on
  // its decoding thread.
  private let regex: Regex<AnyRegexOutput>
  private let posix: UnsafeMutablePointer<regex_t>?
  let source: String

  init(_ source: String) throws {
    self.source = source
    regex = try Regex(source)
    guard let translated = PosixPattern.translate(source) else {
      posix = nil
      return
    }
    let compiled = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
    if regcomp(compiled, translated, REG_EXTENDED | REG_NOSUB) == 0 {
      posix = compiled
    } else {
      compiled.deallocate()
      posix = nil
    }
  }

  deinit {
    if let posix {
      regfree(posix)
      posix.deallocate()
    }
  }

  func matches(_ text: String) -> Bool {
    if let posix, Self.isPlainASCII(text) {
      return text.withCString { regexec(posix, $0, 0, nil, 0) == 0 }
    }
    return (try? regex.firstMatch(in: text)) != nil
  }

  /// Whether the POSIX engine gives the same answer as `Regex` for `text`: ASCII (byte-wise
  /// classes and `.` are character-wise), without NUL (the end of a C string).
  static func isPlainASCII(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in bytes.allSatisfy { $0 != 0 && $0 < 0x80 } }
  }

  /// Whether the pattern is matched by the POSIX engine for ASCII texts (for tests).
  var hasPosixPath: Bool { posix != nil }
}

/// An ECMA-262 pattern in POSIX extended syntax, for ASCII texts: literals, `.`, classes with
/// ranges and `\d\w\s` (and their negations), `\xHH`, groups (`(?:…)` too), alternation, anchors
/// and the quantifiers (a lazy one matches where the greedy one does). Nil for anything else —
/// look-arounds, back-references, word boundaries, `\u`, `\p`, a non-ASCII pattern — which only
/// `Regex` reads.
enum PosixPattern {
  static func translate(_ pattern: String) -> String? {
    let characters = Array(pattern.unicodeScalars)
    guard characters.allSatisfy({ $0.isASCII && $0.value != 0 }) else { return nil }
    var output = ""
    var index = 0
    /// Whether the last thing written can take a quantifier.
    var quantifiable = false
    while index < characters.count {
      let character = characters[index]
      index += 1
      switch character {
      case "\\":
        guard index < characters.count else { return nil }
        let escaped = characters[index]
        index += 1
        if let set = classEscape(escaped) {
          guard let bracket = bracket(set) else { return nil }
          output += bracket
        } else if escaped == "x" {
          guard let value = hexByte(characters, at: &index), value != 0, value < 0x80 else { return nil }
          output += literal(UInt8(value))
        } else if let control = controlEscape(escaped) {
          output += literal(control)
        } else if escaped.properties.isPatternSyntax || escaped == "/" {
          output += literal(UInt8(escaped.value))
        } else {
          return nil  // \b, \B, a back-reference, \u, \p, \k, \c…: Regex only
        }
        quantifiable = true
      case ".":
        output += "[^\n\r]"
        quantifiable = true
      case "[":
        guard let (set, next) = parseClass(characters, from: index), let bracket = bracket(set) else { return nil }
        index = next
        output += bracket
        quantifiable = true
      case "(":
        if index < characters.count, characters[index] == "?" {
          guard index + 1 < characters.count, characters[index + 1] == ":" else { return nil }
          index += 2
        }
        output += "("
        quantifiable = false
      case ")":
        output += ")"
        quantifiable = true
      case "|", "^", "$":
        output.unicodeScalars.append(character)
        quantifiable = false
      case "*", "+", "?":
        guard quantifiable else { return nil }
        output.unicodeScalars.append(character)
        skipLazy(characters, &index)
        quantifiable = false
      case "{":
        guard quantifiable, let (bounds, next) = quantifierBounds(characters, from: index) else { return nil }
        index = next
        output += bounds
        skipLazy(characters, &index)
        quantifiable = false
      default:
        output += literal(UInt8(character.value))
        quantifiable = true
      }
    }
    return output
  }

  /// ASCII code points as a set of bits.
  typealias CharacterSet128 = (low: UInt64, high: UInt64)

  private static func contains(_ set: CharacterSet128, _ byte: UInt8) -> Bool {
    byte < 64 ? set.low & (1 << UInt64(byte)) != 0 : set.high & (1 << UInt64(byte - 64)) != 0
  }

  private static func insert(_ byte: UInt8, into set: inout CharacterSet128) {
    if byte < 64 { set.low |= 1 << UInt64(byte) } else { set.high |= 1 << UInt64(byte - 64) }
  }

  private static func set(_ ranges: [ClosedRange<UInt8>]) -> CharacterSet128 {
    var set: CharacterSet128 = (0, 0)
    for range in ranges { for byte in range { insert(byte, into: &set) } }
    return set
  }

  private static func inverted(_ set: CharacterSet128) -> CharacterSet128 {
    // Code point 0 is never in a text the POSIX engine sees.
    (~set.low & ~1, ~set.high)
  }

  private static let digits = set([48...57])
  private static let word = set([48...57, 65...90, 97...122, 95...95])
  private static let space = set([9...13, 32...32])

  private static func classEscape(_ character: Unicode.Scalar) -> CharacterSet128? {
    switch character {
    case "d": digits
    case "D": inverted(digits)
    case "w": word
    case "W": inverted(word)
    case "s": space
    case "S": inverted(space)
    default: nil
    }
  }

  private static func controlEscape(_ character: Unicode.Scalar) -> UInt8? {
    switch character {
    case "t": 9
    case "n": 10
    case "v": 11
    case "f": 12
    case "r": 13
    default: nil
    }
  }

  private static func hexByte(_ characters: [Unicode.Scalar], at index: inout Int) -> UInt32? {
    guard index + 1 < characters.count,
      let high = characters[index].properties.numericType != nil || characters[index].isASCII
        ? Int(String(characters[index]), radix: 16) : nil,
      let low = Int(String(characters[index + 1]), radix: 16)
    else { return nil }
    index += 2
    return UInt32(high * 16 + low)
  }

  /// A class's members from after its `[` to its `]`, and the index after it.
  private static func parseClass(_ characters: [Unicode.Scalar], from start: Int) -> (CharacterSet128, Int)? {
    var index = start
    var negated = false
    if index < characters.count, characters[index] == "^" {
      negated = true
      index += 1
    }
    var set: CharacterSet128 = (0, 0)
    /// One member: a byte, or a class escape's set (which cannot bound a range).
    func member() -> (byte: UInt8?, set: CharacterSet128?)? {
      guard index < characters.count else { return nil }
      let character = characters[index]
      index += 1
      guard character == "\\" else { return (UInt8(character.value), nil) }
      guard index < characters.count else { return nil }
      let escaped = characters[index]
      index += 1
      if let escapeSet = classEscape(escaped) { return (nil, escapeSet) }
      if escaped == "x" { return hexByte(characters, at: &index).flatMap { $0 < 0x80 ? (UInt8($0), nil) : nil } }
      if let control = controlEscape(escaped) { return (control, nil) }
      if escaped.properties.isPatternSyntax || escaped == "/" { return (UInt8(escaped.value), nil) }
      return nil  // \b (backspace in a class), \u, \p…: Regex only
    }
    while true {
      guard index < characters.count else { return nil }
      if characters[index] == "]" {
        index += 1
        break
      }
      // Swift's Regex nests classes (`[a[bc]]`), reads POSIX classes (`[[:alpha:]]`) and set
      // operations (`&&`, `--`, `~~`) where ECMA-262 sees characters: both engines must agree.
      if characters[index] == "[" { return nil }
      if index + 1 < characters.count, characters[index] == characters[index + 1],
        ["&", "-", "~"].contains(characters[index])
      {
        return nil
      }
      guard let first = member() else { return nil }
      if let escapeSet = first.set {
        set = (set.low | escapeSet.low, set.high | escapeSet.high)
        continue
      }
      guard let low = first.byte else { return nil }
      if index + 1 < characters.count, characters[index] == "-", characters[index + 1] != "]" {
        index += 1
        guard let last = member(), let high = last.byte, last.set == nil, low <= high else { return nil }
        for byte in low...high { insert(byte, into: &set) }
      } else {
        insert(low, into: &set)
      }
    }
    set.low &= ~1  // NUL: never in a text the POSIX engine sees
    return (negated ? inverted(set) : set, index)
  }

  /// A set as a POSIX bracket expression: `]` first, `^` not first, `-` last, `[` before it (so
  /// that no `[:`, `[.` or `[=` opens), runs of letters and digits as ranges, every other byte
  /// as itself. Nil for an empty set.
  private static func bracket(_ set: CharacterSet128) -> String? {
    guard set.low != 0 || set.high != 0 else { return nil }
    var text = contains(set, UInt8(ascii: "]")) ? "]" : ""
    var byte: UInt8 = 1
    while byte < 128 {
      defer { byte += 1 }
      guard contains(set, byte), !"]^-[".utf8.contains(byte) else { continue }
      if isAlphanumeric(byte) {
        var end = byte
        while end + 1 < 128, contains(set, end + 1), isAlphanumeric(end + 1), sameRun(byte, end + 1) { end += 1 }
        text += end > byte + 1 ? "\(scalar(byte))-\(scalar(end))" : (byte...end).map(scalar).joined()
        byte = end
      } else {
        text += scalar(byte)
      }
    }
    if contains(set, UInt8(ascii: "^")) { text += "^" }
    if contains(set, UInt8(ascii: "[")) { text += "[" }
    if contains(set, UInt8(ascii: "-")) { text += "-" }
    // A lone `^` would negate: put it after something, or use an equivalent class.
    if text == "^" { return "\\^" }
    return "[" + text + "]"
  }

  private static func isAlphanumeric(_ byte: UInt8) -> Bool {
    (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
  }

  /// Whether two bytes are in the same run of digits, upper- or lower-case letters.
  private static func sameRun(_ a: UInt8, _ b: UInt8) -> Bool {
    let runs: [ClosedRange<UInt8>] = [48...57, 65...90, 97...122]
    return runs.contains { $0.contains(a) && $0.contains(b) }
  }

  private static func scalar(_ byte: UInt8) -> String { String(Unicode.Scalar(byte)) }

  /// A literal byte outside brackets, escaped where POSIX gives it a meaning.
  private static func literal(_ byte: UInt8) -> String {
    "\\^$.[]|()?*+{}".utf8.contains(byte)
      ? "\\" + scalar(byte) : (byte == 0x7F || byte < 0x20 ? "[\(scalar(byte))]" : scalar(byte))
  }

  /// `{m}`, `{m,}` or `{m,n}` after the `{`, as POSIX writes it, and the index after the `}`.
  private static func quantifierBounds(_ characters: [Unicode.Scalar], from start: Int) -> (String, Int)? {
    var index = start
    var text = "{"
    var digits = 0
    var comma = false
    while index < characters.count, characters[index] != "}" {
      let character = characters[index]
      if character == "," && !comma && digits > 0 {
        comma = true
      } else if ("0"..."9").contains(character) {
        digits += 1
      } else {
        return nil
      }
      text.unicodeScalars.append(character)
      index += 1
    }
    guard index < characters.count, digits > 0, digits <= 6 else { return nil }
    return (text + "}", index + 1)
  }

  private static func skipLazy(_ characters: [Unicode.Scalar], _ index: inout Int) {
    if index < characters.count, characters[index] == "?" { index += 1 }
  }
}
