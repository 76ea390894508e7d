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
