import Foundation

/// A field of a dataset file's records: its key, its type, whether it may be missing or null.
///
/// A dataset file's DTO has no Swift type of its own: `DeclaredRecord` decodes each record
/// through these, asking the decoder for the same types a Swift DTO's properties would, so a
/// wrong value is the same issue at the same field path.
final class DeclaredField: Sendable {
  enum Kind: Sendable {
    case text, integer, number, boolean
    /// Any JSON value, kept as its JSON text (`JSONText`).
    case json
    /// Exact minor units: `12.30` with scale 2 is 1230.
    case decimal(scale: Int)
    /// With its own formats, or the policy's (nil).
    case timestamp([DateFormat]?)
    /// Text whose values the map stage checks (the file's `values`, or its lookup's).
    case enumeration([String])
    case object([DeclaredField])
    case array(DeclaredField)
  }

  let name: String
  let key: DeclaredKey
  let kind: Kind
  /// The field may be missing.
  let isOptional: Bool
  /// The field may be null.
  let isNullable: Bool

  init(name: String, kind: Kind, isOptional: Bool, isNullable: Bool) {
    self.name = name
    self.key = DeclaredKey(stringValue: name)
    self.kind = kind
    self.isOptional = isOptional
    self.isNullable = isNullable
  }

  var fields: [DeclaredField] {
    if case .object(let fields) = kind { fields } else { [] }
  }

  /// The column type a value of this field is stored as; nil for objects and arrays.
  var columnType: ColumnType? {
    switch kind {
    case .text, .enumeration, .json: .text
    case .integer, .decimal: .integer
    case .number: .real
    case .boolean: .boolean
    case .timestamp: .timestamp
    case .object, .array: nil
    }
  }
}

/// A record key of a dataset file, as a `CodingKey`.
struct DeclaredKey: CodingKey, Sendable {
  let stringValue: String
  init(stringValue: String) { self.stringValue = stringValue }
  var intValue: Int? { nil }
  init?(intValue: Int) { nil }
}

/// One value of a declared record. `absent` is a missing field, `null` a null one: both are NULL
/// in a column, but a rule (`present`) can tell them apart.
enum DeclaredValue: Sendable {
  case absent
  case null
  case text(String)
  case integer(Int64)
  case real(Double)
  case boolean(Bool)
  case timestamp(Timestamp)
  /// An object's values, one per declared field in order.
  case object([DeclaredValue])
  case array([DeclaredValue])

  var isMissing: Bool {
    switch self {
    case .absent, .null: true
    default: false
    }
  }

  var databaseValue: DatabaseValue? {
    switch self {
    case .text(let text): .text(text)
    case .integer(let value): .integer(value)
    case .real(let value): .real(value)
    case .boolean(let value): .integer(value ? 1 : 0)
    case .timestamp(let value): .text(value.text)
    case .absent, .null, .object, .array: nil
    }
  }
}
