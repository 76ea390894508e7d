/// Why a record did not decode: an issue code, the field path, and a message without values.
@_spi(Internals) public struct RecordDecodingError: Error, Sendable, Hashable {
  public var code: IssueCode
  public var path: String
  public var message: String
  /// Offset of the offending value inside the record's bytes, when known.
  public var byteOffset: Int?

  public init(code: IssueCode, path: String, message: String, byteOffset: Int? = nil) {
    self.code = code
    self.path = path
    self.message = message
    self.byteOffset = byteOffset
  }
}

/// What decoding one record noticed without rejecting it.
@_spi(Internals) public struct DecodeDiagnostics: Sendable {
  public struct Finding: Sendable, Hashable {
    public var code: IssueCode
    public var path: String
    public var message: String
    public var byteOffset: Int
  }

  /// Keys the DTO never asked for, with their paths (`recipes[2].calories`).
  public var unknownFields: [Finding] = []
  /// Scalars converted under `legacyScalars` (`"12"` → 12).
  public var coercions = 0

  public init() {}

  public mutating func reset() {
    unknownFields.removeAll(keepingCapacity: true)
    coercions = 0
  }
}
