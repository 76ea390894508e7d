/// Where a record (or a byte inside it) sits in the decompressed input.
public struct RecordLocation: Sendable, Hashable, Codable {
  /// 1-based position of the record among the records of the input.
  public var ordinal: Int
  /// 0-based byte offset in the decompressed stream.
  public var byteOffset: Int64
  /// 1-based line number in the decompressed stream.
  public var line: Int

  public init(ordinal: Int, byteOffset: Int64, line: Int) {
    self.ordinal = ordinal
    self.byteOffset = byteOffset
    self.line = line
  }
}
