/// Decodes a record's bytes into a `Decodable` DTO — the decode stage's one interface.
///
/// Failures come back as `RecordDecodingError`, already classified into an issue code and a
/// field path, so the pipeline never sees a particular decoder's error types.
public protocol RecordDecoding {
  func decode<T: Decodable>(_ type: T.Type, from record: RawRecord) throws(RecordDecodingError) -> T
}

/// Why a record did not decode: an issue code, the field path, and a message without values.
public struct RecordDecodingError: Error, Sendable, Hashable {
  public var code: IssueCode
  public var path: String
  public var message: String

  public init(code: IssueCode, path: String, message: String) {
    self.code = code
    self.path = path
    self.message = message
  }
}
