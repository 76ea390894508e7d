/// A cheap check that a string is an absolute http(s) URL: scheme, `://`, a host of letters,
/// digits, dots and hyphens, an optional port, and a path without spaces or control characters.
///
/// Foundation's `URL(string:)` costs microseconds and accepts more than a video link should be;
/// this runs on every recipe of every import.
public enum WebURL {
  public static func isWellFormed(_ text: String) -> Bool {
    var utf8 = Substring(text).utf8
    func dropPrefix(_ prefix: String) -> Bool {
      guard utf8.count >= prefix.utf8.count else { return false }
      let head = utf8.prefix(prefix.utf8.count)
      guard head.elementsEqual(prefix.utf8, by: { lowercase($0) == $1 }) else { return false }
      utf8 = utf8.dropFirst(prefix.utf8.count)
      return true
    }
    guard dropPrefix("https://") || dropPrefix("http://") else { return false }
    var hostLength = 0
    var inPort = false
    var portLength = 0
    var rest = utf8[...]
    for byte in utf8 {
      if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
      rest = rest.dropFirst()
      if inPort {
        guard isDigit(byte) else { return false }
        portLength += 1
      } else if byte == UInt8(ascii: ":") {
        inPort = true
      } else {
        guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        else { return false }
        hostLength += 1
      }
    }
    guard hostLength > 0, !inPort || (1...5).contains(portLength) else { return false }
    return rest.allSatisfy { $0 > 0x20 && $0 != 0x7F }
  }

  private static func lowercase(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
  }
  private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
  private static func isLetter(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
  }
}
