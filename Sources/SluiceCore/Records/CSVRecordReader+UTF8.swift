extension CSVRecordReader {
  /// The index of the first byte that does not belong to valid UTF-8 (RFC 3629: no overlong
  /// forms, no surrogates, nothing past U+10FFFF), or nil.
  static func firstInvalidUTF8(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int? {
    var i = 0
    while i < count {
      let lead = bytes[i]
      if lead < 0x80 {
        i += 1
        continue
      }
      let length: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0: (length, low) = (3, 0xA0)
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED: (length, high) = (3, 0x9F)
      case 0xF0: (length, low) = (4, 0x90)
      case 0xF1...0xF3: length = 4
      case 0xF4: (length, high) = (4, 0x8F)
      default: return i
      }
      guard i + length <= count, (low...high).contains(bytes[i + 1]) else { return i }
      for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return i }
      i += length
    }
    return nil
  }
}
