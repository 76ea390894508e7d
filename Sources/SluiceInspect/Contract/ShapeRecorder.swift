// A `Decoder` that decodes nothing: it runs a DTO's `init(from:)` against placeholder values and
// records what the initializer asks for — each key, with the type and whether it used `decode`
// or `decodeIfPresent`, and each nested object and array — so the contract is the DTO's own,
// never written by hand.
//
// Two kinds of branch are explored, because a single walk sees only one path through the code:
// - a single-value container tried as one type and then another (`FlexibleInteger`: a number, or
//   on a type mismatch a string) is walked again with its first attempts failing, one more each
//   time, so every alternative is seen;
// - a string field with declared values (a discriminator such as a message's `type`) is fed each
//   value in turn; when the DTO asks for other fields for another value, the object is recorded
//   as variants keyed by that field.
import Foundation
@_spi(Internals) import SluiceCore

final class ShapeRecorder {
  /// The declared values of string fields, by field path (`type`, `attachments[].type`).
  private(set) var choices: [String: [String]]
  /// The value fed to a field path while its values are explored.
  var overrides: [String: String] = [:]
  /// The field paths with declared values the DTO asked for, in the order asked.
  private(set) var askedChoices: [String] = []
  /// How deep a recursive DTO (a reply with replies) is followed: past it, arrays are empty and
  /// optional values absent.
  let maximumDepth = 24
  /// How many types one single-value container may try in turn.
  let maximumAlternatives = 4

  /// What the DTO's `init(from:)` finds in `decoder.userInfo` (`Dataset.decodingUserInfo`).
  let userInfo: [CodingUserInfoKey: any Sendable]

  init(choices: [String: [String]], userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
    self.choices = choices
    self.userInfo = userInfo
  }

  /// The shape of `type`'s records, its declared discriminators explored.
  static func shape<T: Decodable>(
    of type: T.Type, choices: [String: [String]], userInfo: [CodingUserInfoKey: any Sendable] = [:]
  ) -> RecordShape {
    let recorder = ShapeRecorder(choices: choices, userInfo: userInfo)
    let base: RecordShape
    do {
      base = try recorder.walk(type, path: "", codingPath: [], depth: 0).shape
    } catch {
      return .unwalkable("\(type)'s init(from:) refused every placeholder (\(Swift.type(of: error)))")
    }
    var shape = base
    for path in recorder.askedChoices {
      guard let values = recorder.choices[path], values.count > 1 else { continue }
      var runs: [(value: String, shape: RecordShape)] = [(values[0], base)]
      for value in values.dropFirst() {
        recorder.overrides = [path: value]
        let run = (try? recorder.walk(type, path: "", codingPath: [], depth: 0).shape) ?? .unwalkable(value)
        runs.append((value, run))
      }
      recorder.overrides = [:]
      guard runs.contains(where: { $0.shape != base }) else { continue }
      let (parent, key) = FieldPathSegments.split(path)
      let objects = runs.map { (value: $0.value, object: $0.shape.object(at: parent)) }
      guard objects.allSatisfy({ $0.object != nil }) else { continue }
      let variants = VariantShape(
        discriminator: key, objects: objects.map { (value: $0.value, object: $0.object ?? ObjectShape()) })
      shape = shape.replacingObject(at: parent, with: .variants(variants))
    }
    return shape
  }

  // MARK: - Walking one value

  /// Decodes a placeholder `T` at `path`, recording its shape; a type tried as several types in
  /// turn is walked once per alternative.
  func walk<T: Decodable>(
    _ type: T.Type, path: String, codingPath: [any CodingKey], depth: Int
  ) throws -> (value: T, shape: RecordShape) {
    if let primitive = primitive(type, path: path) { return primitive }
    if let enumeration = enumeration(type, path: path) { return enumeration }
    var value: T?
    var alternatives: [RecordShape] = []
    var firstError: (any Error)?
    for failing in 0..<maximumAlternatives {
      let recording = ValueRecording(failingAttempts: failing)
      let decoder = RecordingDecoder(
        recorder: self, recording: recording, path: path, codingPath: codingPath, depth: depth)
      do {
        let decoded = try T(from: decoder)
        if value == nil { value = decoded }
        alternatives.append(recording.shape(ofAttempt: failing))
      } catch let error as DecodingError where error.isInjected {
        // Every attempt of this round failed on purpose: no alternative here.
      } catch {
        if firstError == nil { firstError = error }
        if recording.attempts > failing { alternatives.append(.refined(recording.shape(ofAttempt: failing))) }
      }
      // Another round only when this one reached its first attempt not failed on purpose:
      // failing that one too shows whether the DTO tries yet another type.
      if recording.attempts <= failing { break }
    }
    guard let value else {
      throw firstError
        ?? DecodingError.dataCorrupted(
          DecodingError.Context(codingPath: codingPath, debugDescription: "no placeholder of \(T.self) decoded"))
    }
    var unique: [RecordShape] = []
    for alternative in alternatives where !unique.contains(alternative) { unique.append(alternative) }
    return (value, unique.count == 1 ? unique[0] : .alternatives(unique))
  }

  /// The placeholder and shape of a type the decoder reads itself, or nil for any other type.
  func primitive<T>(_ type: T.Type, path: String) -> (value: T, shape: RecordShape)? {
    func integer<I: FixedWidthInteger>(_ integer: I.Type) -> (value: T, shape: RecordShape)? {
      guard let zero = I.zero as? T else { return nil }
      return (zero, .integer(minimum: Int64(clamping: I.min), maximum: UInt64(clamping: I.max)))
    }
    switch type {
    case is String.Type: return (string(at: path) as? T).map { ($0, .string) }
    case is Date.Type: return (Date(timeIntervalSince1970: 0) as? T).map { ($0, .date) }
    case is Bool.Type: return (false as? T).map { ($0, .boolean) }
    case is Double.Type: return (Double(0) as? T).map { ($0, .number) }
    case is Float.Type: return (Float(0) as? T).map { ($0, .number) }
    case is Decimal.Type: return (Decimal(0) as? T).map { ($0, .number) }
    case is URL.Type: return (URL(string: "https://example.invalid/") as? T).map { ($0, .string) }
    case is JSONText.Type: return (JSONText(text: "null") as? T).map { ($0, .any) }
    case is Int.Type: return integer(Int.self)
    case is Int8.Type: return integer(Int8.self)
    case is Int16.Type: return integer(Int16.self)
    case is Int32.Type: return integer(Int32.self)
    case is Int64.Type: return integer(Int64.self)
    case is UInt.Type: return integer(UInt.self)
    case is UInt8.Type: return integer(UInt8.self)
    case is UInt16.Type: return integer(UInt16.self)
    case is UInt32.Type: return integer(UInt32.self)
    case is UInt64.Type: return integer(UInt64.self)
    default: return nil
    }
  }

  /// A `CaseIterable` enum with `String` or integer raw values (a lookup enum too): its raw
  /// values, and the case being explored (or the first) as the placeholder. Its values are
  /// explored like a declared field's, so a DTO that switches on the case is seen whole.
  func enumeration<T>(_ type: T.Type, path: String) -> (value: T, shape: RecordShape)? {
    guard let caseIterable = type as? any CaseIterable.Type else { return nil }
    func cases<C: CaseIterable>(_ type: C.Type) -> [Any] { Array(type.allCases) }
    func rawValue<R: RawRepresentable>(_ value: R) -> Any { value.rawValue }
    var values: [(raw: String, value: T)] = []
    var isInteger = false
    for item in cases(caseIterable) {
      guard let value = item as? T, let representable = item as? any RawRepresentable else { return nil }
      switch rawValue(representable) {
      case let text as String: values.append((text, value))
      case let number as any BinaryInteger:
        isInteger = true
        values.append(("\(number)", value))
      default: return nil
      }
    }
    guard let first = values.first else { return nil }
    let raws = values.map(\.raw)
    if choices[path] == nil { choices[path] = raws }
    if !askedChoices.contains(path) { askedChoices.append(path) }
    let chosen = overrides[path].flatMap { raw in values.first { $0.raw == raw } } ?? first
    return (chosen.value, .enumeration(raws, isInteger: isInteger))
  }

  /// The placeholder string of a field: the value being explored, its first declared value, or
  /// empty.
  func string(at path: String) -> String {
    if let value = overrides[path] { return value }
    guard let values = choices[path], let first = values.first else { return "" }
    if !askedChoices.contains(path) { askedChoices.append(path) }
    return first
  }
}

/// What one walk of one value recorded: the containers opened on its decoder.
final class ValueRecording {
  /// Single-value decodes to fail with a type mismatch, to reach the alternatives after them.
  let failingAttempts: Int
  private(set) var attempts = 0
  private var attemptShapes: [Int: RecordShape] = [:]
  var object: ObjectShape?
  var element: RecordShape?
  var isArray = false
  /// `decodeNil()` was asked of the single-value container: null is one of the alternatives.
  var asksNull = false
  /// Containers opened by key or for an element, recorded when this value's shape is read.
  var pendingFields: [(key: String, recording: ValueRecording)] = []
  var pendingElement: ValueRecording?

  init(failingAttempts: Int) {
    self.failingAttempts = failingAttempts
  }

  /// Starts a single-value decode; nil when it is one of the attempts to fail.
  func beginAttempt() -> Int? {
    defer { attempts += 1 }
    return attempts < failingAttempts ? nil : attempts
  }

  func finish(attempt: Int, shape: RecordShape) {
    attemptShapes[attempt] = shape
  }

  func shape(ofAttempt attempt: Int) -> RecordShape {
    if var object {
      for pending in pendingFields { object.record(pending.key, pending.recording.shape(ofAttempt: 0), .required) }
      return .object(object)
    }
    if isArray { return .array(element ?? pendingElement?.shape(ofAttempt: 0) ?? .any) }
    guard let shape = attemptShapes[attempt] else { return asksNull ? .null : .any }
    return asksNull ? .alternatives([.null, shape]) : shape
  }
}

/// Marks the type mismatches the recorder throws on purpose.
struct InjectedMismatch: Error {}

extension DecodingError {
  var isInjected: Bool {
    if case .typeMismatch(_, let context) = self { return context.underlyingError is InjectedMismatch }
    return false
  }
}

struct RecordingDecoder: Decoder {
  let recorder: ShapeRecorder
  let recording: ValueRecording
  let path: String
  let codingPath: [any CodingKey]
  let depth: Int
  var userInfo: [CodingUserInfoKey: Any] { recorder.userInfo }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    if recording.object == nil { recording.object = ObjectShape() }
    return KeyedDecodingContainer(RecordingKeyedContainer<Key>(decoder: self))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    recording.isArray = true
    return RecordingUnkeyedContainer(decoder: self)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    RecordingSingleValueContainer(decoder: self)
  }

  func child(_ key: String, _ codingKey: any CodingKey) -> (path: String, codingPath: [any CodingKey]) {
    (path.isEmpty ? key : "\(path).\(key)", codingPath + [codingKey])
  }

  /// A nested value's recording, in a decoder of its own.
  func nested(path: String, codingPath: [any CodingKey]) -> RecordingDecoder {
    RecordingDecoder(
      recorder: recorder, recording: ValueRecording(failingAttempts: 0), path: path, codingPath: codingPath,
      depth: depth + 1)
  }
}

struct RecordingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: RecordingDecoder
  var codingPath: [any CodingKey] { decoder.codingPath }
  var allKeys: [Key] {
    decoder.recording.object?.anyKey = decoder.recording.object?.anyKey ?? .any
    return []
  }

  func contains(_ key: Key) -> Bool {
    decoder.recording.object?.noteAsked(key.stringValue, contains: true)
    return true
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    decoder.recording.object?.noteAsked(key.stringValue, null: true)
    return false
  }

  private func record<T: Decodable>(_ type: T.Type, _ key: Key, _ presence: FieldShapeRecord.Presence) throws -> T {
    let (path, codingPath) = decoder.child(key.stringValue, key)
    let (value, shape) = try decoder.recorder.walk(type, path: path, codingPath: codingPath, depth: decoder.depth + 1)
    decoder.recording.object?.record(key.stringValue, shape, presence)
    return value
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try record(type, key, .required) }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard decoder.depth < decoder.recorder.maximumDepth else {
      decoder.recording.object?.record(key.stringValue, .any, .optional)
      return nil
    }
    do {
      return try record(type, key, .optional)
    } catch let error as DecodingError where error.isInjected {
      throw error
    } catch {
      // A DTO that refuses every placeholder of an optional field: the field is recorded, the
      // walk goes on without it.
      decoder.recording.object?.record(key.stringValue, .refined(.any), .optional)
      return nil
    }
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try record(type, key, .required) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try record(type, key, .required) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try record(type, key, .required) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try record(type, key, .required) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try record(type, key, .required) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try record(type, key, .required) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try record(type, key, .required) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try record(type, key, .required) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try record(type, key, .required) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try record(type, key, .required) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try record(type, key, .required) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try record(type, key, .required) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try record(type, key, .required) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try record(type, key, .required) }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try record(type, key, .optional) }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try record(type, key, .optional) }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try nestedDecoder(key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try nestedDecoder(key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder { decoder }

  func superDecoder(forKey key: Key) throws -> any Decoder { nestedDecoder(key) }

  /// A decoder for the value at `key`, whose shape is read when this object's is: what the
  /// caller decodes through it later still lands in the record.
  private func nestedDecoder(_ key: Key) -> RecordingDecoder {
    let (path, codingPath) = decoder.child(key.stringValue, key)
    let nested = decoder.nested(path: path, codingPath: codingPath)
    decoder.recording.object?.record(key.stringValue, .any, .required)
    decoder.recording.pendingFields.append((key.stringValue, nested.recording))
    return nested
  }
}

struct RecordingUnkeyedContainer: UnkeyedDecodingContainer {
  let decoder: RecordingDecoder
  var codingPath: [any CodingKey] { decoder.codingPath }
  var count: Int? { isAtEnd ? 0 : 1 }
  var currentIndex = 0
  /// One element is decoded — enough to record its shape — unless the DTO recursed too deep.
  var isAtEnd: Bool { currentIndex > 0 || decoder.depth >= decoder.recorder.maximumDepth }

  private mutating func element<T: Decodable>(_ type: T.Type) throws -> T {
    let path = decoder.path + "[]"
    let index = IndexKey(intValue: currentIndex)
    let (value, shape) = try decoder.recorder.walk(
      type, path: path, codingPath: decoder.codingPath + [index], depth: decoder.depth + 1)
    decoder.recording.element = decoder.recording.element.map { $0 == .any ? shape : $0 } ?? shape
    currentIndex += 1
    return value
  }

  mutating func decodeNil() throws -> Bool { false }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try element(type) }
  mutating func decode(_ type: String.Type) throws -> String { try element(type) }
  mutating func decode(_ type: Bool.Type) throws -> Bool { try element(type) }
  mutating func decode(_ type: Double.Type) throws -> Double { try element(type) }
  mutating func decode(_ type: Float.Type) throws -> Float { try element(type) }
  mutating func decode(_ type: Int.Type) throws -> Int { try element(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try element(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try element(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try element(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try element(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try element(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try element(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try element(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try element(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try element(type) }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let nested = decoder.nested(path: decoder.path + "[]", codingPath: decoder.codingPath)
    decoder.recording.pendingElement = nested.recording
    currentIndex += 1
    return try nested.container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let nested = decoder.nested(path: decoder.path + "[]", codingPath: decoder.codingPath)
    decoder.recording.pendingElement = nested.recording
    currentIndex += 1
    return try nested.unkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder {
    let nested = decoder.nested(path: decoder.path + "[]", codingPath: decoder.codingPath)
    decoder.recording.pendingElement = nested.recording
    currentIndex += 1
    return nested
  }
}

struct RecordingSingleValueContainer: SingleValueDecodingContainer {
  let decoder: RecordingDecoder
  var codingPath: [any CodingKey] { decoder.codingPath }

  func decodeNil() -> Bool {
    decoder.recording.asksNull = true
    return false
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T { try attempt(type) }
  func decode(_ type: String.Type) throws -> String { try attempt(type) }
  func decode(_ type: Bool.Type) throws -> Bool { try attempt(type) }
  func decode(_ type: Double.Type) throws -> Double { try attempt(type) }
  func decode(_ type: Float.Type) throws -> Float { try attempt(type) }
  func decode(_ type: Int.Type) throws -> Int { try attempt(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try attempt(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try attempt(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try attempt(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try attempt(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try attempt(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try attempt(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try attempt(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try attempt(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try attempt(type) }

  /// One single-value decode: failed on purpose while the recorder looks for the types tried
  /// after it, walked otherwise.
  private func attempt<T: Decodable>(_ type: T.Type) throws -> T {
    guard let attempt = decoder.recording.beginAttempt() else {
      throw DecodingError.typeMismatch(
        type,
        DecodingError.Context(
          codingPath: codingPath, debugDescription: "the recorder tries the next type",
          underlyingError: InjectedMismatch()
        ))
    }
    let (value, shape) = try decoder.recorder.walk(
      type, path: decoder.path, codingPath: codingPath, depth: decoder.depth + 1)
    decoder.recording.finish(attempt: attempt, shape: shape)
    return value
  }
}

/// An array index as a coding key.
struct IndexKey: CodingKey {
  var intValue: Int?
  var stringValue: String { "\(intValue ?? 0)" }
  init(intValue: Int) { self.intValue = intValue }
  init?(stringValue: String) { nil }
}
