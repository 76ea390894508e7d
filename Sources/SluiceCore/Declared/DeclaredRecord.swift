import Foundation

/// A record of a dataset file: the DTO of `DeclaredDataset`, one value per declared field.
///
/// Its shape is data, so its `init(from:)` finds the fields in `decoder.userInfo`
/// (`DeclaredDecoding`, which the dataset hands every decoder through `decodingUserInfo`) and
/// asks the decoder for each field as a Swift DTO's property of that type would: `decode` for a
/// required field, a check for presence or null for an optional or nullable one. The decoder's
/// own errors, paths, coercions and unknown-field sweep apply unchanged.
struct DeclaredRecord: Decodable, Sendable {
  var values: [DeclaredValue]
  /// The record's 0-based place among its input's records (`MappingContext.position`), set by
  /// the map stage: a column `"field": "$position"` holds it.
  var position = 0
  /// The input's name (`MappingContext.inputName`), set by the map stage: a column
  /// `"field": "$input"` holds it, which scopes a `$position` key by its input.
  var inputName = ""

  init(values: [DeclaredValue]) { self.values = values }

  init(from decoder: any Decoder) throws {
    guard let decoding = decoder.userInfo[DeclaredDecoding.key] as? DeclaredDecoding else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "a declared record needs its dataset's fields"))
    }
    // Sluice's decoder's containers, called as their own types, cost a direct call per value
    // (`TapeDecoder.tapeContainer`); any other decoder (the contract's shape recorder) is read
    // through the standard containers, by the same code.
    if let decoder = decoder as? TapeDecoder {
      values = try decoding.object(decoding.fields, in: decoder.tapeContainer(keyedBy: DeclaredKey.self))
    } else {
      values = try decoding.object(decoding.fields, in: decoder.container(keyedBy: DeclaredKey.self))
    }
  }
}

/// What a declared record's decoding needs: the fields, and a date parser per field with
/// formats of its own. One per decoder (a parser is not thread-safe): `decodingUserInfo` makes a
/// new one each time it is asked.
final class DeclaredDecoding: @unchecked Sendable {
  static let key = CodingUserInfoKey(rawValue: "sluice.declaredRecord")!

  let fields: [DeclaredField]
  private var parsers: [ObjectIdentifier: DateParser] = [:]

  init(fields: [DeclaredField]) {
    self.fields = fields
    func collect(_ field: DeclaredField) {
      switch field.kind {
      case .timestamp(let formats?): parsers[ObjectIdentifier(field)] = DateParser(formats: formats)
      case .object(let fields): fields.forEach(collect)
      case .array(let element): collect(element)
      default: break
      }
    }
    fields.forEach(collect)
  }

  func object(_ fields: [DeclaredField], in container: some DeclaredObjectContainer) throws
    -> [DeclaredValue]
  {
    var values: [DeclaredValue] = []
    values.reserveCapacity(fields.count)
    for field in fields {
      let key = field.key
      if field.isOptional && !container.contains(key) {
        values.append(.absent)
      } else if field.isNullable, try container.decodeNil(forKey: key) {
        values.append(.null)
      } else {
        values.append(try value(field, forKey: key, in: container))
      }
    }
    return values
  }

  private func value(_ field: DeclaredField, forKey key: DeclaredKey, in container: some DeclaredObjectContainer)
    throws -> DeclaredValue
  {
    switch field.kind {
    case .text, .enumeration: return .text(try container.decode(String.self, forKey: key))
    case .json: return .text(try container.decode(JSONText.self, forKey: key).text)
    case .integer: return .integer(try container.decode(Int64.self, forKey: key))
    case .number: return .real(try container.decode(Double.self, forKey: key))
    case .boolean: return .boolean(try container.decode(Bool.self, forKey: key))
    case .decimal(let scale):
      let number = try container.decode(DecimalText.self, forKey: key).value
      return .integer(try Self.minorUnits(number, scale: scale, codingPath: container.codingPath + [key]))
    case .timestamp(nil): return .timestamp(Timestamp(try container.decode(Date.self, forKey: key)))
    case .timestamp:
      let text = try container.decode(String.self, forKey: key)
      return .timestamp(try parse(text, field, codingPath: container.codingPath + [key]))
    case .object(let fields):
      return .object(try object(fields, in: container.declaredObject(forKey: key)))
    case .array(let element):
      var elements = try container.declaredElements(forKey: key)
      return .array(try array(element, in: &elements))
    }
  }

  private func array(_ element: DeclaredField, in container: inout some DeclaredElementsContainer) throws
    -> [DeclaredValue]
  {
    var values: [DeclaredValue] = []
    if let count = container.count { values.reserveCapacity(count) }
    while !container.isAtEnd {
      if element.isNullable, try container.decodeNil() {
        values.append(.null)
        continue
      }
      switch element.kind {
      case .text, .enumeration: values.append(.text(try container.decode(String.self)))
      case .json: values.append(.text(try container.decode(JSONText.self).text))
      case .integer: values.append(.integer(try container.decode(Int64.self)))
      case .number: values.append(.real(try container.decode(Double.self)))
      case .boolean: values.append(.boolean(try container.decode(Bool.self)))
      case .decimal(let scale):
        let codingPath = container.codingPath + [ElementKey(intValue: container.currentIndex)]
        let number = try container.decode(DecimalText.self).value
        values.append(.integer(try Self.minorUnits(number, scale: scale, codingPath: codingPath)))
      case .timestamp(nil): values.append(.timestamp(Timestamp(try container.decode(Date.self))))
      case .timestamp:
        let codingPath = container.codingPath + [ElementKey(intValue: container.currentIndex)]
        values.append(.timestamp(try parse(container.decode(String.self), element, codingPath: codingPath)))
      case .object(let fields):
        values.append(.object(try object(fields, in: container.declaredObject())))
      case .array(let inner):
        var elements = try container.declaredElements()
        values.append(.array(try array(inner, in: &elements)))
      }
    }
    return values
  }

  private func parse(_ text: String, _ field: DeclaredField, codingPath: [any CodingKey]) throws -> Timestamp {
    guard let parser = parsers[ObjectIdentifier(field)] else {
      preconditionFailure("a field with formats has its parser")
    }
    guard let date = parser.parse(text), DateParser.supportedRange.contains(date) else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: codingPath, debugDescription: "not a date",
          underlyingError: DecodeFailure(
            code: .invalidDate, message: "expected a date as \(parser.expectation)", byteOffset: -1)))
    }
    return Timestamp(date)
  }

  /// `number` in units of 10^-scale, exactly: more decimals than the scale, or a value beyond 64
  /// bits, is an issue at the field (the value is never rounded).
  static func minorUnits(_ number: Decimal, scale: Int, codingPath: [any CodingKey]) throws -> Int64 {
    var scaled = number
    var power = Decimal(1)
    for _ in 0..<scale { power *= 10 }
    scaled *= power
    var rounded = Decimal()
    NSDecimalRound(&rounded, &scaled, 0, .plain)
    func failure(_ code: IssueCode, _ message: String) -> DecodingError {
      .dataCorrupted(
        .init(
          codingPath: codingPath, debugDescription: message,
          underlyingError: DecodeFailure(code: code, message: message, byteOffset: -1)))
    }
    guard rounded == scaled else {
      throw failure(.invalidValue, "has more than \(scale) decimal place\(scale == 1 ? "" : "s")")
    }
    guard rounded >= Decimal(Int64.min), rounded <= Decimal(Int64.max) else {
      throw failure(.outOfRange, "does not fit 64 bits in units of 10^-\(scale)")
    }
    return NSDecimalNumber(decimal: rounded).int64Value
  }
}

/// A decimal as a number (`12.30`) or as text (`"12.30"`): money in exports is often quoted to
/// keep its digits. The text must be a plain decimal numeral, nothing before or after it.
struct DecimalText: Decodable {
  let value: Decimal

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    do {
      value = try container.decode(Decimal.self)
    } catch DecodingError.typeMismatch(let type, let context) {
      guard let text = try? container.decode(String.self) else { throw DecodingError.typeMismatch(type, context) }
      guard let parsed = Self.parse(text) else {
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: decoder.codingPath, debugDescription: "not a decimal",
            underlyingError: DecodeFailure(
              code: .invalidValue, message: "expected a decimal number (12.30)", byteOffset: -1)))
      }
      value = parsed
    }
  }

  /// `-12.30`, `12`, `.5`: an optional sign, digits with at most one point, at least one digit.
  static func parse(_ text: String) -> Decimal? {
    var digits = 0
    var points = 0
    for (index, byte) in text.utf8.enumerated() {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
      case UInt8(ascii: "."): points += 1
      case UInt8(ascii: "-") where index == 0, UInt8(ascii: "+") where index == 0: continue
      default: return nil
      }
    }
    guard digits > 0, points <= 1, digits <= 38 else { return nil }
    return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
  }
}

/// An array element's place in a coding path.
struct ElementKey: CodingKey {
  var stringValue: String { "\(intValue ?? 0)" }
  let intValue: Int?
  init(intValue: Int) { self.intValue = intValue }
  init?(stringValue: String) { nil }
}

// MARK: - The containers a declared record is read through

/// An object of a declared record: Sluice's tape container as its own type (statically
/// dispatched, nothing boxed), or any decoder's standard container.
protocol DeclaredObjectContainer: KeyedDecodingContainerProtocol where Key == DeclaredKey {
  associatedtype Elements: DeclaredElementsContainer
  func declaredObject(forKey key: DeclaredKey) throws -> Self
  func declaredElements(forKey key: DeclaredKey) throws -> Elements
}

/// An array of a declared record: what `DeclaredDecoding` asks of an unkeyed container.
protocol DeclaredElementsContainer {
  associatedtype Object: DeclaredObjectContainer
  var codingPath: [any CodingKey] { get }
  var count: Int? { get }
  var isAtEnd: Bool { get }
  var currentIndex: Int { get }
  mutating func decodeNil() throws -> Bool
  mutating func decode(_ type: String.Type) throws -> String
  mutating func decode(_ type: Int64.Type) throws -> Int64
  mutating func decode(_ type: Double.Type) throws -> Double
  mutating func decode(_ type: Bool.Type) throws -> Bool
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T
  mutating func declaredObject() throws -> Object
  mutating func declaredElements() throws -> Self
}

extension KeyedTapeContainer: DeclaredObjectContainer where Key == DeclaredKey {
  func declaredObject(forKey key: DeclaredKey) throws -> Self {
    try nestedTapeContainer(keyedBy: DeclaredKey.self, forKey: key)
  }
  func declaredElements(forKey key: DeclaredKey) throws -> UnkeyedTapeContainer {
    try nestedTapeUnkeyedContainer(forKey: key)
  }
}

extension UnkeyedTapeContainer: DeclaredElementsContainer {
  mutating func declaredObject() throws -> KeyedTapeContainer<DeclaredKey> {
    try nestedTapeContainer(keyedBy: DeclaredKey.self)
  }
  mutating func declaredElements() throws -> Self { try nestedTapeUnkeyedContainer() }
}

extension KeyedDecodingContainer: DeclaredObjectContainer where K == DeclaredKey {
  func declaredObject(forKey key: DeclaredKey) throws -> Self {
    try nestedContainer(keyedBy: DeclaredKey.self, forKey: key)
  }
  func declaredElements(forKey key: DeclaredKey) throws -> AnyDeclaredElements {
    AnyDeclaredElements(base: try nestedUnkeyedContainer(forKey: key))
  }
}

/// Any decoder's unkeyed container, for `DeclaredDecoding`.
struct AnyDeclaredElements: DeclaredElementsContainer {
  var base: any UnkeyedDecodingContainer

  var codingPath: [any CodingKey] { base.codingPath }
  var count: Int? { base.count }
  var isAtEnd: Bool { base.isAtEnd }
  var currentIndex: Int { base.currentIndex }
  mutating func decodeNil() throws -> Bool { try base.decodeNil() }
  mutating func decode(_ type: String.Type) throws -> String { try base.decode(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
  mutating func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
  mutating func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try base.decode(type) }
  mutating func declaredObject() throws -> KeyedDecodingContainer<DeclaredKey> {
    try base.nestedContainer(keyedBy: DeclaredKey.self)
  }
  mutating func declaredElements() throws -> Self { Self(base: try base.nestedUnkeyedContainer()) }
}
