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

  /// How many of a record's unknown fields are listed, each with its path and offset; the rest
  /// are only counted (`unlistedUnknownFields`), so that a record of a million unknown keys
  /// costs what one of a hundred does (issue 55: a 1M-column header peaked at 741 MiB).
  public static let listedUnknownFields = 100

  /// Keys the DTO never asked for, with their paths (`recipes[2].calories`): the record's first
  /// `listedUnknownFields`.
  public var unknownFields: [Finding] = []
  /// The record's unknown fields past those listed: counted, not kept.
  public var unlistedUnknownFields = 0
  /// Scalars converted under `legacyScalars` (`"12"` → 12).
  public var coercions = 0

  public init() {}

  public mutating func reset() {
    unknownFields.removeAll(keepingCapacity: true)
    unlistedUnknownFields = 0
    coercions = 0
  }

  /// Notes a key the DTO never asked for: listed while fewer than `listedUnknownFields` are,
  /// else counted; `finding` (its path rendered) is made only when it is listed.
  @inline(__always)
  mutating func noteUnknownField(_ finding: () -> Finding) {
    if unknownFields.count < Self.listedUnknownFields {
      unknownFields.append(finding())
    } else {
      unlistedUnknownFields += 1
    }
  }
}
