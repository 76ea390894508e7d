/// Streams the records of a JSON document — the elements of an array at a key path — or the
/// lines of an NDJSON input, validating every byte and never holding more than one record.
///
/// The entry point: it hands `next()` to the reader of its layout (`JSONArrayReader`,
/// `NDJSONReader`, `JSONDocumentReader`), which all read through one `JSONScanner` — the
/// buffer, the byte accounting and the validating scan, where the time goes.
///
/// What it accepts is RFC 8259, plus a UTF-8 byte order mark at the very start (JSONTestSuite
/// leaves that implementation-defined). Strings must be valid UTF-8; `\u` escapes are checked for
/// four hex digits here and for surrogate pairing by the decoder.
@_spi(Internals) public final class JSONRecordReader: RecordReader {
  public enum Layout: Sendable, Hashable {
    /// The elements of an array: the top-level value (empty path) or the value under a key path
    /// of nested objects (`["data", "fruits"]` for `{"data": {"fruits": [...]}}`).
    case array(path: [String])
    /// One JSON value per line; blank lines are skipped.
    case lines
    /// The whole input is one JSON value, one record (a settings file, a conformance test).
    case document
  }

  public struct Limits: Sendable {
    /// Deepest nesting of arrays and objects inside a record.
    public var maxDepth: Int
    /// Largest record, in bytes.
    public var maxRecordBytes: Int
    /// Longest string, in bytes (escapes counted as written).
    public var maxStringBytes: Int

    public init(maxDepth: Int = 256, maxRecordBytes: Int = 64 << 20, maxStringBytes: Int = 16 << 20) {
      self.maxDepth = maxDepth
      self.maxRecordBytes = maxRecordBytes
      self.maxStringBytes = maxStringBytes
    }
  }

  public let layout: Layout
  public let limits: Limits
  /// Records found so far, bad NDJSON lines included.
  public var recordCount: Int { scanner.recordCount }

  private let scanner: JSONScanner
  // The layout's reader: only the one of `layout` is set. `next()` switches on `layout` and calls
  // it through optional chaining: a direct call, no retain. (Held as `any RecordReader` it is an
  // indirect call; an enum of the readers, or `if let`, costs a retain and a release per record.)
  private let arrayReader: JSONArrayReader?
  private let lineReader: NDJSONReader?
  private let documentReader: JSONDocumentReader?

  public init(
    source: any ByteSource, layout: Layout, limits: Limits = Limits(), bufferSize: Int = 1 << 18
  ) {
    self.layout = layout
    self.limits = limits
    scanner = JSONScanner(source: source, limits: limits, bufferSize: bufferSize)
    switch layout {
    case .array(let path):
      (arrayReader, lineReader, documentReader) = (JSONArrayReader(scanner: scanner, path: path), nil, nil)
    case .lines:
      (arrayReader, lineReader, documentReader) = (nil, NDJSONReader(scanner: scanner), nil)
    case .document:
      (arrayReader, lineReader, documentReader) = (nil, nil, JSONDocumentReader(scanner: scanner))
    }
  }

  /// Offset of the next unread byte in the decompressed stream.
  public var byteOffset: Int64 { scanner.byteOffset }

  /// The scalar fields around the record array (`JSONArrayReader.documentFields`); empty for
  /// the other layouts.
  public var documentFields: [String: String] { arrayReader?.documentFields ?? [:] }

  /// The top-level members around the record array that hold no text
  /// (`JSONArrayReader.unreadableDocumentFields`); empty for the other layouts.
  public var unreadableDocumentFields: [String: UnreadableField] { arrayReader?.unreadableDocumentFields ?? [:] }

  public func next() throws -> RawRecord? {
    switch layout {
    case .array: try arrayReader?.next()
    case .lines: try lineReader?.next()
    case .document: try documentReader?.next()
    }
  }
}
