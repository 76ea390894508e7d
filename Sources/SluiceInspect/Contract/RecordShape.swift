@_spi(Internals) import SluiceCore

/// The shape of a DTO's records as its `init(from:)` asks for them: what `ShapeRecorder`
/// learns by decoding placeholders, and what `JSONSchemaWriter` turns into a JSON Schema.
///
/// It is the DTO's view, not a dump's: keys the DTO asks for, with the type it asks for and
/// whether it asks with `decode` (required) or `decodeIfPresent` (optional).
indirect enum RecordShape: Sendable, Hashable {
  /// Nothing was asked of the value (`Unmapped`): any JSON value.
  case any
  case string
  /// An integer of a fixed-width type, with the type's bounds.
  case integer(minimum: Int64, maximum: UInt64)
  case number
  case boolean
  /// A `Date`: the pipeline's date formats decide what it looks like.
  case date
  /// A `CaseIterable` enum's raw values (strings, or integers).
  case enumeration([String], isInteger: Bool)
  /// `null` itself, asked for with a single-value container's `decodeNil()`.
  case null
  case object(ObjectShape)
  /// An array; its elements have this shape.
  case array(RecordShape)
  /// A value the DTO tries as one type, then another (`FlexibleInteger`: a number or a string).
  case alternatives([RecordShape])
  /// A value of this shape that the DTO's own `init(from:)` checks further (it refused the
  /// placeholder): what more it requires is not known.
  case refined(RecordShape)
  /// An object whose fields depend on one of its string fields (`type`).
  case variants(VariantShape)
  /// The DTO could not be walked at all; why.
  case unwalkable(String)
}

/// The fields an object's DTO asks for, in the order it first asks.
struct ObjectShape: Sendable, Hashable {
  var fields: [FieldShapeRecord] = []
  /// The DTO asked for all the keys (`[String: V]`): any key is allowed, with this shape.
  var anyKey: RecordShape?

  subscript(key: String) -> FieldShapeRecord? {
    fields.first { $0.key == key }
  }

  mutating func record(_ key: String, _ shape: RecordShape, _ presence: FieldShapeRecord.Presence) {
    if let index = fields.firstIndex(where: { $0.key == key }) {
      fields[index].merge(shape, presence)
    } else {
      fields.append(FieldShapeRecord(key: key, shape: shape, presence: presence))
    }
  }

  mutating func noteAsked(_ key: String, contains: Bool = false, null: Bool = false) {
    if fields.firstIndex(where: { $0.key == key }) == nil {
      fields.append(FieldShapeRecord(key: key, shape: .any, presence: .optional))
      fields[fields.count - 1].asked = false
    }
    guard let index = fields.firstIndex(where: { $0.key == key }) else { return }
    if contains { fields[index].containsAsked = true }
    if null { fields[index].nullAsked = true }
  }
}

/// One key of an object and how the DTO asks for it.
struct FieldShapeRecord: Sendable, Hashable {
  enum Presence: Sendable, Hashable {
    /// `decode`: there and not null.
    case required
    /// `decodeIfPresent`: missing or null is none.
    case optional
  }

  var key: String
  var shape: RecordShape
  var presence: Presence
  /// The DTO asked whether the key is there (`contains`) and whether it is null (`decodeNil`)
  /// before decoding it: a `Patch` field, where missing and null mean different things.
  var containsAsked = false
  var nullAsked = false
  /// False while only `contains` or `decodeNil` were asked.
  var asked = true

  /// A `Patch` field: missing leaves the value unchanged, null clears it, a value sets it.
  var isPatch: Bool { containsAsked && nullAsked }
  var isRequired: Bool { presence == .required && !containsAsked }
  var allowsNull: Bool { presence == .optional || nullAsked }

  mutating func merge(_ shape: RecordShape, _ presence: Presence) {
    if !asked || self.shape == .any { self.shape = shape }
    if !asked { self.presence = presence } else if presence == .required { self.presence = .required }
    asked = true
  }
}

/// An object whose fields depend on its discriminator's value: the fields every kind has,
/// then each kind's own.
struct VariantShape: Sendable, Hashable {
  var discriminator: String
  var common: ObjectShape
  var cases: [(value: String, fields: ObjectShape)]

  static func == (lhs: VariantShape, rhs: VariantShape) -> Bool {
    lhs.discriminator == rhs.discriminator && lhs.common == rhs.common
      && lhs.cases.map(\.value) == rhs.cases.map(\.value) && lhs.cases.map(\.fields) == rhs.cases.map(\.fields)
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(discriminator)
    hasher.combine(common)
    for item in cases {
      hasher.combine(item.value)
      hasher.combine(item.fields)
    }
  }
}
