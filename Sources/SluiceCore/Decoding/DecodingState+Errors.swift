import Foundation

/// How the decoder's failures become issues: a `DecodingError` carrying Sluice's own
/// `DecodeFailure` (code, message, byte offset), and the classification of errors a DTO threw.
extension DecodingState {

  /// A `DecodingError.Context` carrying Sluice's issue code and the value's byte offset.
  func context(_ node: Int, code: IssueCode, _ message: String) -> DecodingError.Context {
    DecodingError.Context(
      codingPath: codingPath(to: node), debugDescription: message,
      underlyingError: DecodeFailure(code: code, message: message, byteOffset: offset(of: node)))
  }

  /// The offset of the value at a coding path, or of its nearest enclosing value that exists.
  fileprivate func offset(at codingPath: [any CodingKey]) -> Int? {
    tape.nodes.isEmpty ? nil : offset(of: tape.node(along: codingPath))
  }

  /// The coding path of a node, as the DTO sees it.
  func codingPath(to node: Int) -> [any CodingKey] {
    isXML ? xmlCodingPath(to: node) : jsonCodingPath(to: node)
  }

  /// Where a node is, for locations: its source offset in the record (XML), or its place in
  /// the record's JSON text.
  func offset(of node: Int) -> Int {
    if let position = tape.sourcePosition(of: node) { return position.offset }
    // A string's start is after its opening quote; point at the quote.
    return tape.nodes[node].kind == .string ? tape.start(of: node) - 1 : tape.start(of: node)
  }

  func mismatch(_ node: Int, _ type: Any.Type, expected: String) -> DecodingError {
    let found = describe(node)
    if kind(node) == .null {
      return .valueNotFound(type, context(node, code: .nullValue, "expected \(expected), found null"))
    }
    return .typeMismatch(type, context(node, code: .typeMismatch, "expected \(expected), found \(found)"))
  }

  func describe(_ node: Int) -> String {
    switch kind(node) {
    case .object: return isXML ? "an element with attributes or children" : "an object"
    case .array: return "an array"
    case .string where isXML: return range(node).isEmpty ? "an empty element" : "text"
    case .string: return "a string"
    case .number: return "a number"
    case .true, .false: return "a boolean"
    case .null: return "null"
    }
  }

  func keyNotFound(_ key: some CodingKey, in object: Int) -> DecodingError {
    let path = codingPath(to: object)
    let offset = offset(of: object)
    return .keyNotFound(
      key,
      DecodingError.Context(
        codingPath: path, debugDescription: "required field is missing",
        underlyingError: DecodeFailure(code: .missingField, message: "required field is missing", byteOffset: offset)))
  }

  /// Turns any `DecodingError` — ours, or one a DTO's own `init(from:)` threw — into an issue.
  /// DTO messages are not copied: Foundation's and the standard library's can quote values.
  /// A DTO's own error carries only a coding path; its byte offset is found by walking the path.
  /// A failure's error at its path; a failure thrown outside the decoder (a declared record's
  /// own checks) knows no offset, and is placed at its value's.
  private func issue(_ failure: DecodeFailure, at codingPath: [any CodingKey]) -> RecordDecodingError {
    guard failure.byteOffset < 0 else { return failure.error(path: codingPath) }
    return RecordDecodingError(
      code: failure.code, path: FieldPath.render(codingPath), message: failure.message,
      byteOffset: offset(at: codingPath))
  }

  func classify(_ error: DecodingError) -> RecordDecodingError {
    switch error {
    case .keyNotFound(let key, let context):
      let failure = context.underlyingError as? DecodeFailure
      return RecordDecodingError(
        code: .missingField, path: FieldPath.render(context.codingPath + [key]),
        message: "required field is missing", byteOffset: failure?.byteOffset ?? offset(at: context.codingPath))
    case .typeMismatch(let type, let context):
      if let failure = context.underlyingError as? DecodeFailure {
        return issue(failure, at: context.codingPath)
      }
      return RecordDecodingError(
        code: .typeMismatch, path: FieldPath.render(context.codingPath), message: "expected \(type)",
        byteOffset: offset(at: context.codingPath))
    case .valueNotFound(let type, let context):
      if let failure = context.underlyingError as? DecodeFailure {
        return issue(failure, at: context.codingPath)
      }
      return RecordDecodingError(
        code: .nullValue, path: FieldPath.render(context.codingPath), message: "expected \(type), found null",
        byteOffset: offset(at: context.codingPath))
    case .dataCorrupted(let context):
      if let failure = context.underlyingError as? DecodeFailure {
        return issue(failure, at: context.codingPath)
      }
      // `decode` names the type that refused a value; only an error thrown outside it (a
      // DTO's own container code after decoding) gets here.
      return RecordDecodingError(
        code: .invalidValue, path: FieldPath.render(context.codingPath), message: "invalid value",
        byteOffset: offset(at: context.codingPath))
    @unknown default:
      return RecordDecodingError(code: .invalidValue, path: "", message: "invalid value")
    }
  }
}
