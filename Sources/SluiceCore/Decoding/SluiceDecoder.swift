/// The decode stage: Sluice's own `Decoder`, which decodes any `Decodable` DTO from a record's
/// tape — JSON or XML — noticing unknown and duplicate keys, applying the lenient
/// `legacyScalars` coercions, and failing with an issue code, a field path and the byte offset
/// of the offending value.
///
/// One instance per decoding thread: it reuses its tape and date formatters across records, and
/// lets go of each record's bytes, and of any storage a huge record grew, once it is decoded.
@_spi(Internals) public final class SluiceDecoder {
  public struct Options: Sendable {
    /// Convert `"12"` → 12, `"true"` → true and numbers → strings, counting each conversion.
    public var legacyScalars: Bool
    /// Accepted date representations, tried in order.
    public var dateFormats: [DateFormat]
    /// Collect keys the DTO never asked for (the pipeline decides their severity).
    public var reportsUnknownFields: Bool
    /// Dates are numbers of seconds since `Date`'s reference date (2001), as Sluice's own state
    /// writes them (`StateJSONEncoder`), read exactly; `dateFormats` apply to no number then.
    package var datesAsReferenceSeconds = false

    public init(
      legacyScalars: Bool = false, dateFormats: [DateFormat] = [.iso8601],
      reportsUnknownFields: Bool = true
    ) {
      self.legacyScalars = legacyScalars
      self.dateFormats = dateFormats
      self.reportsUnknownFields = reportsUnknownFields
    }
  }

  public let options: Options
  let state: DecodingState

  /// `userInfo` is what a DTO's `init(from:)` finds in `decoder.userInfo`: a dataset's
  /// `decodingUserInfo`.
  public init(options: Options = Options(), userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
    self.options = options
    state = DecodingState(options: options)
    state.userInfo = userInfo
  }

  public func decode<T: Decodable>(
    _ type: T.Type, from record: RawRecord, diagnostics: inout DecodeDiagnostics
  ) throws(RecordDecodingError) -> T {
    defer { state.releaseRecord() }
    if let tape = record.tape {
      state.tape = tape
    } else if let nodes = record.tapeNodes {
      state.tape.loadJSON(record.bytes, nodes: nodes)
    } else {
      try state.tape.loadJSON(record.bytes)
    }
    return try decodeLoadedTape(type, diagnostics: &diagnostics)
  }

  /// Decodes the tape already in `state.tape` (the JSON path above, or another format's reader).
  func decodeLoadedTape<T: Decodable>(
    _ type: T.Type, diagnostics: inout DecodeDiagnostics
  ) throws(RecordDecodingError) -> T {
    state.coercions = 0
    state.resetCursors()
    state.xml.reset()
    let value: T
    do {
      value = try state.decode(T.self, at: 0)
    } catch let error as DecodingError {
      throw state.classify(error)
    } catch {
      throw RecordDecodingError(
        code: .invalidValue, path: "", message: "the DTO rejected the record (\(Swift.type(of: error)))")
    }
    try state.sweepKeys(into: &diagnostics, reportUnknown: options.reportsUnknownFields)
    diagnostics.coercions += state.coercions
    return value
  }
}
