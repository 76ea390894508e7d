/// Where a record (or a byte inside it) sits in the decompressed input.
public struct RecordLocation: Sendable, Hashable, Codable {
  /// 1-based position of the record among the records of the input.
  public var ordinal: Int
  /// 0-based byte offset in the decompressed stream.
  public var byteOffset: Int64
  /// 1-based line number in the decompressed stream.
  public var line: Int
  /// For a row of a CSV or TSV input, the 1-based number of the column (field) the issue is in,
  /// as a spreadsheet numbers them; nil for other formats and for an issue about a whole row.
  public var column: Int?

  public init(ordinal: Int, byteOffset: Int64, line: Int, column: Int? = nil) {
    self.ordinal = ordinal
    self.byteOffset = byteOffset
    self.line = line
    self.column = column
  }
}
