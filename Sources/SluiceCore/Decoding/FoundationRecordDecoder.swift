import Foundation

/// Decodes JSON records with Foundation's `JSONDecoder`.
///
/// The first decoder of the pipeline, kept behind `RecordDecoding`: it sees no unknown fields
/// and is slow (~88k records/s here), which is why Sluice is getting a decoder of its own.
/// Foundation's debug descriptions can quote values ("1e400 does not fit in Int"), so messages
/// are rebuilt from the error's structure, never copied.
public struct FoundationRecordDecoder: RecordDecoding {
  private let decoder: JSONDecoder

  public init() {
    decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
  }

  public func decode<T: Decodable>(
    _ type: T.Type, from record: RawRecord, diagnostics: inout DecodeDiagnostics
  ) throws(RecordDecodingError) -> T {
    do {
      return try decoder.decode(T.self, from: Data(record.bytes))
    } catch let error as DecodingError {
      throw Self.classify(error)
    } catch {
      throw RecordDecodingError(code: .invalidValue, path: "", message: "record did not decode")
    }
  }

  static func classify(_ error: DecodingError) -> RecordDecodingError {
    switch error {
    case .typeMismatch(let type, let context):
      return RecordDecodingError(
        code: .typeMismatch, path: FieldPath.render(context.codingPath),
        message: "expected \(describe(type)), found \(foundKind(context.debugDescription))")
    case .valueNotFound(let type, let context):
      return RecordDecodingError(
        code: .nullValue, path: FieldPath.render(context.codingPath),
        message: "expected \(describe(type)), found null")
    case .keyNotFound(let key, let context):
      return RecordDecodingError(
        code: .missingField, path: FieldPath.render(context.codingPath + [key]),
        message: "required field is missing")
    case .dataCorrupted(let context):
      let outOfRange = context.debugDescription.contains("does not fit")
        || context.debugDescription.contains("not representable")
      return RecordDecodingError(
        code: outOfRange ? .outOfRange : .invalidValue, path: FieldPath.render(context.codingPath),
        message: outOfRange ? "number does not fit the field's type" : "invalid value")
    @unknown default:
      return RecordDecodingError(code: .invalidValue, path: "", message: "record did not decode")
    }
  }

  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: return "a string"
    case is Bool.Type: return "a boolean"
    case is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type, is UInt.Type,
      is UInt64.Type, is UInt32.Type, is UInt16.Type, is UInt8.Type:
      return "an integer"
    case is Double.Type, is Float.Type: return "a number"
    default:
      let name = String(describing: type)
      if name.hasPrefix("Array") { return "an array" }
      if name.hasPrefix("Dictionary") { return "an object" }
      return "an object"
    }
  }

  /// Foundation's message says "… but found a string instead."; keep only the kind.
  private static func foundKind(_ debugDescription: String) -> String {
    let text = debugDescription.lowercased()
    let kinds = [
      ("string", "a string"), ("number", "a number"), ("array", "an array"),
      ("dictionary", "an object"), ("object", "an object"), ("bool", "a boolean"), ("null", "null"),
    ]
    for (word, kind) in kinds where text.contains("found \(word)") || text.contains("found a \(word)")
      || text.contains("found an \(word)")
    {
      return kind
    }
    return "another type"
  }
}
