@_spi(Internals) import SluiceCore

/// PostgreSQL `COPY`'s text format, one value at a time: tab-separated columns, `\N` for NULL,
/// backslash escapes, bytea in hex.
enum COPYText {
  @inline(__always)
  static func append(_ value: DatabaseValue?, to buffer: inout [UInt8]) -> Bool {
    guard let value else {
      buffer.append(UInt8(ascii: "\\"))
      buffer.append(UInt8(ascii: "N"))
      return true
    }
    switch value {
    case .integer(let number):
      appendInteger(number, to: &buffer)
    case .real(let number):
      // The shortest text that reads back as the same double; PostgreSQL reads inf and nan too.
      buffer.append(contentsOf: number.description.utf8)
    case .text(let text):
      var text = text
      return text.withUTF8 { bytes in
        for byte in bytes {
          switch byte {
          case 0: return false
          case UInt8(ascii: "\\"):
            buffer.append(UInt8(ascii: "\\"))
            buffer.append(UInt8(ascii: "\\"))
          case 0x09:
            buffer.append(UInt8(ascii: "\\"))
            buffer.append(UInt8(ascii: "t"))
          case 0x0A:
            buffer.append(UInt8(ascii: "\\"))
            buffer.append(UInt8(ascii: "n"))
          case 0x0D:
            buffer.append(UInt8(ascii: "\\"))
            buffer.append(UInt8(ascii: "r"))
          default: buffer.append(byte)
          }
        }
        return true
      }
    case .blob(let blob):
      // bytea's hex input `\x…`, its backslash doubled for COPY.
      buffer.append(UInt8(ascii: "\\"))
      buffer.append(UInt8(ascii: "\\"))
      buffer.append(UInt8(ascii: "x"))
      for byte in blob {
        buffer.append(hexDigits[Int(byte >> 4)])
        buffer.append(hexDigits[Int(byte & 0x0F)])
      }
    }
    return true
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  @inline(__always)
  static func appendInteger(_ number: Int64, to buffer: inout [UInt8]) {
    if number < 0 { buffer.append(UInt8(ascii: "-")) }
    var magnitude = number.magnitude
    if magnitude < 10 {
      buffer.append(UInt8(ascii: "0") + UInt8(magnitude))
      return
    }
    var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 20 digits at most, as bytes
    var count = 0
    withUnsafeMutableBytes(of: &digits) { scratch in
      while magnitude > 0 {
        scratch[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
        count += 1
      }
      for index in stride(from: count - 1, through: 0, by: -1) { buffer.append(scratch[index]) }
    }
  }
}
