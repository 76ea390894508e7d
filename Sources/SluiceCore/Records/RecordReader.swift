/// Something that finds records in an input: call `next()` until it returns `nil`.
///
/// A reader throws `RecordReadError` for malformed input. When the error is `isRecoverable`
/// (a bad NDJSON line), the reader has already skipped past it and `next()` may be called again;
/// otherwise the input cannot be read further.
@_spi(Internals) public protocol RecordReader: AnyObject {
  func next() throws -> RawRecord?
  /// The scalar fields of the document around the records, once `next()` has returned nil:
  /// those before the records and those after them (a JSON document's members that follow its
  /// record array). Empty when the format has none (NDJSON, XML, a top-level array).
  var documentFields: [String: String] { get }
  /// The members of the document around the records that hold no text — null, an object, an
  /// array, a string with an unpaired surrogate escape — by name, for a dataset that reads one
  /// (`MappingContext.text(of:)`) to report it where it is. Empty when the format has none.
  var unreadableDocumentFields: [String: UnreadableField] { get }
}

extension RecordReader {
  public var documentFields: [String: String] { [:] }
  public var unreadableDocumentFields: [String: UnreadableField] { [:] }
}

/// A member of the document around the records that holds no text a dataset can read.
public struct UnreadableField: Sendable, Hashable {
  /// What it holds, as a message says it: `null`, `an object`, `an array`, `a string with an
  /// unpaired surrogate escape`.
  public var holds: String
  /// Where its value starts (ordinal 0: no record's).
  public var location: RecordLocation

  public init(holds: String, location: RecordLocation) {
    self.holds = holds
    self.location = location
  }
}

/// Malformed input found by a record reader: a syntax error, a record over the size limit or
/// nested too deep, or a record path that does not lead to an array.
@_spi(Internals) public struct RecordReadError: Error, Sendable, CustomStringConvertible {
  public var code: IssueCode
  public var message: String
  /// The offending byte's place; `ordinal` is the record it belongs to (0 before the first).
  public var location: RecordLocation
  /// True when the reader skipped the bad record and can go on (NDJSON).
  public var isRecoverable: Bool
  /// The offending value's field path inside the record (an XML element's, from the record's
  /// own), when the reader knows it; empty for the whole record.
  public var path = ""
  /// The bad record's bytes, when the reader could keep them (an NDJSON line), for quarantine.
  public var rawRecord: [UInt8]?
  /// The issue is about the document around the records (a key repeated there), not about a
  /// record: it is no record read, rejected or skipped, though a run counts it as a rejection
  /// (strict fails on it, lenient spends its budget). Always recoverable.
  public var isOutsideRecords = false

  public init(code: IssueCode, message: String, location: RecordLocation, isRecoverable: Bool) {
    self.code = code
    self.message = message
    self.location = location
    self.isRecoverable = isRecoverable
  }

  public var description: String {
    "line \(location.line)\(location.column.map { ", column \($0)" } ?? ""), byte \(location.byteOffset): \(message)"
  }
}
