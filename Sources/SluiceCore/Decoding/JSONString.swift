/// Turns the bytes between a JSON string's quotes into a Swift `String`, resolving escapes, and
/// a `String` into a JSON string's body.
package enum JSONString {
  /// `text` as the body of a JSON string: quotes, backslashes and control characters escaped
  /// (`\n`, `\r`, `\t`, otherwise `\u00XX`), everything else as it is, in UTF-8.
  package static func escaped(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
      return text
    }
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Returns nil for a malformed escape or a lone surrogate; the bytes are otherwise assumed to
  /// be valid UTF-8, as the record readers guarantee.
  public static func decode<C: Collection<UInt8>>(_ body: C) -> String? {
    guard body.contains(UInt8(ascii: "\\")) else { return String(decoding: body, as: UTF8.self) }
    var utf8: [UInt8] = []
    utf8.reserveCapacity(body.count)
    var index = body.startIndex
    func hexValue(_ count: Int) -> UInt32? {
      var value: UInt32 = 0
      for _ in 0..<count {
        guard index != body.endIndex else { return nil }
        let b = body[index]
        let digit: UInt32
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
        value = value << 4 | digit
        index = body.index(after: index)
      }
      return value
    }
    while index != body.endIndex {
      let b = body[index]
      index = body.index(after: index)
      guard b == UInt8(ascii: "\\") else {
        utf8.append(b)
        continue
      }
      guard index != body.endIndex else { return nil }
      let e = body[index]
      index = body.index(after: index)
      switch e {
      case UInt8(ascii: "\""): utf8.append(UInt8(ascii: "\""))
      case UInt8(ascii: "\\"): utf8.append(UInt8(ascii: "\\"))
      case UInt8(ascii: "/"): utf8.append(UInt8(ascii: "/"))
      case UInt8(ascii: "b"): utf8.append(0x08)
      case UInt8(ascii: "f"): utf8.append(0x0C)
      case UInt8(ascii: "n"): utf8.append(0x0A)
      case UInt8(ascii: "r"): utf8.append(0x0D)
      case UInt8(ascii: "t"): utf8.append(0x09)
      case UInt8(ascii: "u"):
        guard var code = hexValue(4) else { return nil }
        if (0xD800...0xDBFF).contains(code) {
          guard index != body.endIndex, body[index] == UInt8(ascii: "\\") else { return nil }
          index = body.index(after: index)
          guard index != body.endIndex, body[index] == UInt8(ascii: "u") else { return nil }
          index = body.index(after: index)
          guard let low = hexValue(4), (0xDC00...0xDFFF).contains(low) else { return nil }
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(code) {
          return nil
        }
        guard let scalar = Unicode.Scalar(code) else { return nil }
        utf8.append(contentsOf: String(Character(scalar)).utf8)
      default:
        return nil
      }
    }
    return String(decoding: utf8, as: UTF8.self)
  }

  /// `bytes` as the body of a JSON string, like `escaped(_:)`, where each byte that is not
  /// part of valid UTF-8 is written as the escape of the lone low surrogate U+DC00 + byte
  /// (`\udc81` for 0x81), as Python's `surrogateescape` writes it: `decodeKeepingBytes` gives
  /// the same bytes back. Only for a rejects file's record, whose bytes must survive as read.
  package static func escapedKeepingBytes(_ bytes: [UInt8]) -> String {
    var out = ""
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var index = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        out += escaped(String(Character(Unicode.UTF8.decode(encoded))))
        index += encoded.count
      case .error(let length):
        for byte in bytes[index..<(index + length)] {
          let hex = String(byte, radix: 16)
          out += "\\udc" + (hex.count == 1 ? "0" : "") + hex
        }
        index += length
      case .emptyInput:
        return out
      }
    }
  }

  /// The bytes of a JSON string's body, escapes resolved, an escaped lone low surrogate
  /// U+DC80…U+DCFF giving back the byte it stands for (`escapedKeepingBytes`); nil for a
  /// malformed escape or another unpaired surrogate. The result is UTF-8 but for those bytes.
  package static func decodeKeepingBytes<C: Collection<UInt8>>(_ body: C) -> [UInt8]? {
    guard body.contains(UInt8(ascii: "\\")) else { return Array(body) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(body.count)
    var start = body.startIndex
    var index = body.startIndex
    // Just after a high surrogate's escape, a low one is its pair, not a byte.
    var afterHighSurrogate = false
    while index != body.endIndex {
      guard body[index] == UInt8(ascii: "\\") else {
        index = body.index(after: index)
        afterHighSurrogate = false
        continue
      }
      // `\uXXXX`'s value, when the escape is one.
      let escape = Array(body[index...].prefix(6))
      var unit: UInt32?
      if escape.count == 6, escape[1] == UInt8(ascii: "u") {
        unit = escape[2...].reduce(UInt32(0)) { value, digit in
          guard let value, let digit = hexDigit(digit) else { return nil }
          return value << 4 | UInt32(digit)
        }
      }
      if let unit, (0xDC80...0xDCFF).contains(unit), !afterHighSurrogate {
        // A byte: what precedes it as `decode` resolves it, then the byte.
        guard let before = decode(body[start..<index]) else { return nil }
        bytes += before.utf8
        bytes.append(UInt8(unit & 0xFF))
        index = body.index(index, offsetBy: 6)
        start = index
        continue
      }
      afterHighSurrogate = unit.map { (0xD800...0xDBFF).contains($0) } ?? false
      // Past the escape: `\\` and `\"` must not be read as starting another.
      index = body.index(index, offsetBy: unit == nil ? min(2, body.distance(from: index, to: body.endIndex)) : 6)
    }
    guard let rest = decode(body[start..<body.endIndex]) else { return nil }
    bytes += rest.utf8
    return bytes
  }

  private static func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
