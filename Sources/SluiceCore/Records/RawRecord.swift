/// One record's bytes as the reader found them, with its location.
///
/// The bytes are exactly the record's text in the decompressed input (a JSON value, for the
/// JSON readers), already checked to be well-formed and valid UTF-8.
public struct RawRecord: Sendable {
  public var location: RecordLocation
  public var bytes: [UInt8]

  public init(location: RecordLocation, bytes: [UInt8]) {
    self.location = location
    self.bytes = bytes
  }
}

extension RawRecord {
  /// The location of a byte inside the record: its absolute offset, and its line counted from
  /// the record's first line (only computed when an issue needs it).
  public func location(at offset: Int?) -> RecordLocation {
    guard let offset, offset >= 0, offset <= bytes.count else { return location }
    var line = location.line
    for byte in bytes[..<offset] where byte == UInt8(ascii: "\n") { line += 1 }
    return RecordLocation(
      ordinal: location.ordinal, byteOffset: location.byteOffset + Int64(offset), line: line)
  }
}
