/// A glob over object keys: `*` and `?` within one path component, `**` across components
/// (`drops/**/*.json.gz`), as for files. Matched against each key under the pattern's literal
/// prefix, which is all a listing is asked for.
struct KeyPattern {
  let pattern: [UInt8]

  init(_ pattern: String) { self.pattern = Array(pattern.utf8) }

  /// Whether `text` has a glob character.
  static func isPattern(_ text: String) -> Bool { text.contains { $0 == "*" || $0 == "?" } }

  /// The pattern's part before its first glob character: the listing's prefix.
  var literalPrefix: String {
    let end = pattern.firstIndex { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") } ?? pattern.endIndex
    return String(decoding: pattern[..<end], as: UTF8.self)
  }

  func matches(_ key: String) -> Bool { Self.match(pattern[...], Array(key.utf8)[...]) }

  private static func match(_ pattern: ArraySlice<UInt8>, _ key: ArraySlice<UInt8>) -> Bool {
    var pattern = pattern
    var key = key
    while let first = pattern.first {
      switch first {
      case UInt8(ascii: "*"):
        if pattern.dropFirst().first == UInt8(ascii: "*") {
          var rest = pattern.dropFirst(2)
          // `**/` also matches no folder at all: `a/**/b` matches `a/b`.
          if rest.first == UInt8(ascii: "/"), match(rest.dropFirst(), key) { return true }
          rest = pattern.dropFirst(2)
          var tail = key
          while true {
            if match(rest, tail) { return true }
            guard !tail.isEmpty else { return false }
            tail = tail.dropFirst()
          }
        }
        let rest = pattern.dropFirst()
        var tail = key
        while true {
          if match(rest, tail) { return true }
          guard let next = tail.first, next != UInt8(ascii: "/") else { return false }
          tail = tail.dropFirst()
        }
      case UInt8(ascii: "?"):
        guard let next = key.first, next != UInt8(ascii: "/") else { return false }
        pattern = pattern.dropFirst()
        key = key.dropFirst()
      default:
        guard key.first == first else { return false }
        pattern = pattern.dropFirst()
        key = key.dropFirst()
      }
    }
    return key.isEmpty
  }
}
