@_spi(Internals) import SluiceCore

/// The text tests `ShapeCollector` counts text values with: what the decoder reads text as.
extension ShapeCollector {
  /// `-`? digits whose value fits `Int64`: what the decoder reads as an `Int64`.
  static func fitsInt64(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    guard text.count <= 20 else { return false }
    var magnitude: UInt64 = 0
    var negative = false
    var digits = 0
    for offset in 0..<text.count {
      let byte = text[offset]
      if offset == 0 && byte == UInt8(ascii: "-") {
        negative = true
        continue
      }
      guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return false }
      let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
      if o1 || o2 { return false }
      magnitude = sum
      digits += 1
    }
    guard digits > 0 else { return false }
    return negative ? magnitude <= UInt64(Int64.max) + 1 : magnitude <= UInt64(Int64.max)
  }

  /// A JSON number's grammar (what the decoder accepts as XML text for a `Double`), finite.
  static func isNumberText(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    func digits() -> Bool {
      let first = i
      while i < text.count, text[i] >= UInt8(ascii: "0"), text[i] <= UInt8(ascii: "9") { i += 1 }
      return i > first
    }
    if i < text.count, text[i] == UInt8(ascii: "-") { i += 1 }
    guard digits() else { return false }
    if i < text.count, text[i] == UInt8(ascii: ".") {
      i += 1
      guard digits() else { return false }
    }
    if i < text.count, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
      i += 1
      if i < text.count, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") { i += 1 }
      guard digits() else { return false }
    }
    guard i == text.count, text.count < 1_024 else { return false }
    return Double(String(decoding: text, as: UTF8.self))?.isFinite ?? false
  }

  /// The texts the decoder reads as a boolean in XML.
  static func isBooleanText(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    switch text.count {
    case 1: return text[0] == UInt8(ascii: "1") || text[0] == UInt8(ascii: "0")
    case 4: return text.elementsEqual("true".utf8) || text.elementsEqual("True".utf8)
    case 5: return text.elementsEqual("false".utf8) || text.elementsEqual("False".utf8)
    default: return false
    }
  }
}
