import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

// Sluice's own decoder, DTO by DTO: what decodes, and for what does not, the issue code, the
// field path and the byte offset of the offending value inside the record (a string's opening
// quote, a number's first byte, the object's '{' for a missing key).

// MARK: - DTOs

private struct Address: Decodable, Equatable {
  var street: String
  var city: String
}

private struct Customer: Decodable, Equatable {
  var name: String
  var address: Address
  var tags: [String]
}

private struct LineItem: Decodable, Equatable {
  var sku: String
  var qty: Int
}

private struct Cart: Decodable, Equatable {
  var items: [LineItem]
}

private struct Contact: Decodable, Equatable {
  var email: String?
  var age: Int?
  var address: Address?
}

private enum Status: String, Decodable {
  case pending, completed, cancelled
}

private enum Priority: Int, Decodable {
  case low = 1
  case high = 2
}

private struct Ticket: Decodable {
  var status: Status
  var priority: Priority
}

/// Seed 002's order DTO: the wire's `orderId` becomes `identifier`, read by a hand-written
/// `init(from:)`.
private struct OrderDTO: Decodable, Equatable {
  let identifier: String
  let amountInCent: Int64
  let status: String
  let createdAt: Date

  enum CodingKeys: String, CodingKey {
    case identifier = "orderId"
    case amountInCent = "amount"
    case status
    case createdAt
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    identifier = try container.decode(String.self, forKey: .identifier)
    amountInCent = try container.decode(Int64.self, forKey: .amountInCent)
    status = try container.decode(String.self, forKey: .status)
    createdAt = try container.decode(Date.self, forKey: .createdAt)
  }
}

/// One field of any type, always at byte 9 of `{"value":…}`.
private struct Box<Value: Decodable>: Decodable {
  var value: Value
}

private struct OptionalBox<Value: Decodable>: Decodable {
  var value: Value?
}

private struct Pair: Decodable {
  var a: Int
  var b: Int
}

/// Seed 002 §5: the discriminator is read through one keyed container, the payload through the
/// same decoder.
private struct TextMessageDTO: Decodable, Equatable {
  let id: String
  let text: String
}

private struct SystemMessageDTO: Decodable, Equatable {
  let id: String
  let event: String
}

private enum MessageDTO: Decodable, Equatable {
  case text(TextMessageDTO)
  case system(SystemMessageDTO)

  private enum CodingKeys: String, CodingKey {
    case type
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let type = try container.decode(String.self, forKey: .type)
    switch type {
    case "text":
      self = .text(try TextMessageDTO(from: decoder))
    case "system":
      self = .system(try SystemMessageDTO(from: decoder))
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .type, in: container, debugDescription: "unsupported message type \(type)")
    }
  }
}

private struct Conversation: Decodable {
  var messages: [MessageDTO]
}

private struct ProfilePatchDTO: Decodable {
  var nickname: Patch<String>
  var introduction: Patch<String>
  var age: Patch<Int>
}

private struct LegacyRow: Decodable {
  var count: Int
  var active: Bool
  var ratio: Double
  var code: String
}

/// Decodes exactly three integers from an array, the way a fixed tuple-like payload would.
private struct Triple: Decodable {
  var x: Int
  var y: Int
  var z: Int

  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    x = try container.decode(Int.self)
    y = try container.decode(Int.self)
    z = try container.decode(Int.self)
  }
}

private struct Shape: Decodable {
  var name: String
  var point: Triple
}

private struct Item: Decodable {
  var sku: String
}

private struct Meta: Decodable {
  var version: Int
}

private struct Envelope: Decodable {
  var items: [Item]
  var meta: Meta
}

private struct Counters: Decodable {
  var counts: [String: Int]
}

// MARK: - Helpers

private func record(_ json: String) -> RawRecord {
  RawRecord(location: RecordLocation(ordinal: 1, byteOffset: 0, line: 1), bytes: Array(json.utf8))
}

private func decode<T: Decodable>(
  _ type: T.Type, _ json: String, options: SluiceDecoder.Options = .init()
) throws(RecordDecodingError) -> T {
  var diagnostics = DecodeDiagnostics()
  return try SluiceDecoder(options: options).decode(type, from: record(json), diagnostics: &diagnostics)
}

private func diagnose<T: Decodable>(
  _ type: T.Type, _ json: String, options: SluiceDecoder.Options = .init()
) throws(RecordDecodingError) -> DecodeDiagnostics {
  var diagnostics = DecodeDiagnostics()
  _ = try SluiceDecoder(options: options).decode(type, from: record(json), diagnostics: &diagnostics)
  return diagnostics
}

/// The UTF-8 offset of the `occurrence`-th `needle` in `json`: where an error should point.
private func offset(of needle: String, in json: String, occurrence: Int = 1) -> Int {
  let haystack = Array(json.utf8)
  let pattern = Array(needle.utf8)
  var seen = 0
  for start in 0...(haystack.count - pattern.count)
  where haystack[start..<start + pattern.count].elementsEqual(pattern) {
    seen += 1
    if seen == occurrence { return start }
  }
  preconditionFailure("\(needle) does not occur \(occurrence) times in \(json)")
}

/// Decodes `json`, expects it to fail, and checks the failure's code, path and byte offset.
@discardableResult
private func expectFailure<T: Decodable>(
  _ type: T.Type, _ json: String, options: SluiceDecoder.Options = .init(),
  code: IssueCode, path: String, at byteOffset: Int?,
  sourceLocation: SourceLocation = #_sourceLocation
) -> RecordDecodingError? {
  do {
    _ = try decode(type, json, options: options)
    Issue.record("decoded \(json) into \(T.self); expected \(code) at \(path)", sourceLocation: sourceLocation)
    return nil
  } catch {
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.path == path, "\(error)", sourceLocation: sourceLocation)
    #expect(error.byteOffset == byteOffset, "\(error)", sourceLocation: sourceLocation)
    return error
  }
}

/// Checks that `T` accepts its exact bounds and rejects one past each as `outOfRange`.
private func expectBounds<T: FixedWidthInteger & Decodable>(
  _ type: T.Type, sourceLocation: SourceLocation = #_sourceLocation
) throws {
  #expect(try decode(Box<T>.self, #"{"value":\#(T.max)}"#).value == T.max, sourceLocation: sourceLocation)
  #expect(try decode(Box<T>.self, #"{"value":\#(T.min)}"#).value == T.min, sourceLocation: sourceLocation)
  #expect(try decode([T].self, "[\(T.max),\(T.min)]") == [T.max, T.min], sourceLocation: sourceLocation)
  for outside in [Int128(T.max) + 1, Int128(T.min) - 1] {
    expectFailure(
      Box<T>.self, #"{"value":\#(outside)}"#, code: .outOfRange, path: "value", at: 9,
      sourceLocation: sourceLocation)
    expectFailure(
      [T].self, "[0,\(outside)]", code: .outOfRange, path: "[1]", at: 3, sourceLocation: sourceLocation)
  }
}

// MARK: - Tests

@Suite("SluiceDecoder: DTOs, scalars, paths and byte offsets")
struct SluiceDecoderTests {
  // MARK: Structure

  @Test func nestedStructsAndArraysDecode() throws {
    let customer = try decode(
      Customer.self, #"{"name":"Ada","address":{"street":"1 Loop","city":"Paris"},"tags":["a","b"]}"#)
    #expect(customer == Customer(name: "Ada", address: Address(street: "1 Loop", city: "Paris"), tags: ["a", "b"]))
  }

  @Test func arraysOfStructsDecodeInOrder() throws {
    let cart = try decode(Cart.self, #"{"items":[{"sku":"A1","qty":2},{"qty":5,"sku":"B2"},{"sku":"C3","qty":0}]}"#)
    #expect(cart.items == [LineItem(sku: "A1", qty: 2), LineItem(sku: "B2", qty: 5), LineItem(sku: "C3", qty: 0)])
    #expect(try decode(Cart.self, #"{"items":[]}"#).items.isEmpty)
  }

  /// Arrays are decoded through the tape's unkeyed container as its own type
  /// (`TapeDecodableArray`), not `Array.init(from:)`: arrays of arrays, empty ones, optional
  /// ones, and an element's error at its place.
  @Test func arraysOfArraysDecodeAndAnElementsErrorKeepsItsPlace() throws {
    #expect(try decode([[Int]].self, "[[1,2],[],[3]]") == [[1, 2], [], [3]])
    let carts = try decode([Cart].self, #"[{"items":[]},{"items":[{"sku":"A","qty":1}]}]"#)
    #expect(carts.map(\.items) == [[], [LineItem(sku: "A", qty: 1)]])
    #expect(try decode(OptionalBox<[String]>.self, #"{"value":null}"#).value == nil)
    #expect(try decode(Box<[String]?>.self, #"{"value":["a"]}"#).value == ["a"])
    let json = #"{"items":[{"sku":"A1","qty":2},{"sku":"B2","qty":"5"}]}"#
    expectFailure(Cart.self, json, code: .typeMismatch, path: "items[1].qty", at: offset(of: #""5""#, in: json))
  }

  /// A declared record reads its fields through Sluice's tape containers as their own types
  /// (`TapeDecoder.tapeContainer`), and through any other decoder's standard containers by the
  /// same code (the contract's shape recorder is one): both read the same values.
  @Test func aDeclaredRecordReadsTheSameThroughAnyDecoder() throws {
    let fields = [
      DeclaredField(name: "id", kind: .text, isOptional: false, isNullable: false),
      DeclaredField(
        name: "items",
        kind: .array(
          DeclaredField(
            name: "",
            kind: .object([
              DeclaredField(name: "qty", kind: .integer, isOptional: false, isNullable: false),
              DeclaredField(
                name: "tags", kind: .array(DeclaredField(name: "", kind: .text, isOptional: false, isNullable: true)),
                isOptional: true, isNullable: false),
            ]), isOptional: false, isNullable: false)), isOptional: false, isNullable: false),
      DeclaredField(name: "note", kind: .text, isOptional: true, isNullable: true),
    ]
    let json = #"{"id":"a1","items":[{"qty":2,"tags":["x",null]},{"qty":3}],"note":null}"#
    let foundation = JSONDecoder()
    foundation.userInfo[DeclaredDecoding.key] = DeclaredDecoding(fields: fields)
    let viaFoundation = try foundation.decode(DeclaredRecord.self, from: Data(json.utf8))
    var diagnostics = DecodeDiagnostics()
    let viaTape = try SluiceDecoder(userInfo: [DeclaredDecoding.key: DeclaredDecoding(fields: fields)]).decode(
      DeclaredRecord.self, from: record(json), diagnostics: &diagnostics)
    #expect("\(viaTape.values)" == "\(viaFoundation.values)")
    #expect(viaTape.values.count == 3)
  }

  @Test func optionalsAreNilWhenMissingOrNull() throws {
    #expect(try decode(Contact.self, "{}") == Contact(email: nil, age: nil, address: nil))
    #expect(
      try decode(Contact.self, #"{"email":null,"age":null,"address":null}"#)
        == Contact(email: nil, age: nil, address: nil))
    #expect(
      try decode(Contact.self, #"{"email":"a@b.c","age":41,"address":{"street":"s","city":"c"}}"#)
        == Contact(email: "a@b.c", age: 41, address: Address(street: "s", city: "c")))
  }

  @Test func presentOptionalOfTheWrongTypeIsStillAnError() {
    let json = #"{"age":"41"}"#
    expectFailure(Contact.self, json, code: .typeMismatch, path: "age", at: offset(of: #""41""#, in: json))
  }

  @Test func customInitFromRenamesWireKeys() throws {
    let json = #"{"orderId":"0042","amount":129900,"status":"pending","createdAt":"2023-01-01T00:00:05Z"}"#
    let order = try decode(OrderDTO.self, json)
    #expect(order.identifier == "0042")
    #expect(order.amountInCent == 129_900)
    #expect(order.status == "pending")
    #expect(order.createdAt == Date(timeIntervalSince1970: 1_672_531_205))
    #expect(try diagnose(OrderDTO.self, json).unknownFields.isEmpty)
  }

  @Test func renamedKeyMissingIsReportedByItsWireName() {
    let json = #"{"identifier":"0042","amount":1,"status":"pending","createdAt":"2023-01-01T00:00:05Z"}"#
    expectFailure(OrderDTO.self, json, code: .missingField, path: "orderId", at: 0)
  }

  // MARK: Enums

  @Test func rawRepresentableEnumsDecode() throws {
    let ticket = try decode(Ticket.self, #"{"status":"completed","priority":2}"#)
    #expect(ticket.status == .completed)
    #expect(ticket.priority == .high)
  }

  @Test func unknownStringEnumValueIsInvalidValueNamingTheTypeNotTheValue() throws {
    let json = #"{"status":"refunded","priority":1}"#
    let error = try #require(
      expectFailure(Ticket.self, json, code: .invalidValue, path: "status", at: offset(of: #""refunded""#, in: json)))
    #expect(error.message.contains("Status"))
    #expect(!error.message.contains("refunded"))
  }

  @Test func unknownIntEnumValueIsInvalidValueNamingTheTypeNotTheValue() throws {
    let json = #"{"status":"pending","priority":7}"#
    let error = try #require(
      expectFailure(Ticket.self, json, code: .invalidValue, path: "priority", at: offset(of: "7", in: json)))
    #expect(error.message.contains("Priority"))
    #expect(!error.message.contains("7"))
  }

  @Test func enumOfTheWrongJSONTypeIsTypeMismatch() {
    let json = #"{"status":"pending","priority":"high"}"#
    expectFailure(Ticket.self, json, code: .typeMismatch, path: "priority", at: offset(of: #""high""#, in: json))
  }

  // MARK: Integers

  @Test func everyIntegerWidthAcceptsItsBoundsAndRejectsOnePastThem() throws {
    try expectBounds(Int8.self)
    try expectBounds(Int16.self)
    try expectBounds(Int32.self)
    try expectBounds(Int64.self)
    try expectBounds(Int.self)
    try expectBounds(UInt8.self)
    try expectBounds(UInt16.self)
    try expectBounds(UInt32.self)
    try expectBounds(UInt64.self)
    try expectBounds(UInt.self)
  }

  @Test func int64ExtremesAreExact() throws {
    #expect(try decode(Box<Int64>.self, #"{"value":9223372036854775807}"#).value == Int64.max)
    #expect(try decode(Box<Int64>.self, #"{"value":-9223372036854775808}"#).value == Int64.min)
    expectFailure(Box<Int64>.self, #"{"value":9223372036854775808}"#, code: .outOfRange, path: "value", at: 9)
    expectFailure(Box<Int64>.self, #"{"value":-9223372036854775809}"#, code: .outOfRange, path: "value", at: 9)
    #expect(try decode(Box<UInt64>.self, #"{"value":9223372036854775808}"#).value == 9_223_372_036_854_775_808)
  }

  @Test func numbersOfTwentyOrMoreDigitsAreOutOfRangeNeverTruncated() {
    for digits in ["100000000000000000000", "18446744073709551616", "123456789012345678901234567890"] {
      expectFailure(Box<Int64>.self, #"{"value":\#(digits)}"#, code: .outOfRange, path: "value", at: 9)
      expectFailure(Box<UInt64>.self, #"{"value":\#(digits)}"#, code: .outOfRange, path: "value", at: 9)
      expectFailure(Box<Int64>.self, #"{"value":-\#(digits)}"#, code: .outOfRange, path: "value", at: 9)
    }
  }

  @Test func negativeZeroIsZeroForEveryInteger() throws {
    #expect(try decode(Box<Int>.self, #"{"value":-0}"#).value == 0)
    #expect(try decode(Box<Int8>.self, #"{"value":-0}"#).value == 0)
    #expect(try decode(Box<UInt8>.self, #"{"value":-0}"#).value == 0)
    #expect(try decode(Box<UInt64>.self, #"{"value":-0}"#).value == 0)
  }

  @Test(arguments: ["1.0", "1.5", "-2.25", "1e2", "1E+2", "10e-1", "0.0", "-0.0"])
  func fractionOrExponentIntoAnIntegerIsTypeMismatch(_ number: String) {
    expectFailure(Box<Int>.self, #"{"value":\#(number)}"#, code: .typeMismatch, path: "value", at: 9)
    expectFailure(Box<UInt8>.self, #"{"value":\#(number)}"#, code: .typeMismatch, path: "value", at: 9)
  }

  @Test func integerFromAStringIsTypeMismatch() {
    expectFailure(Box<Int>.self, #"{"value":"12"}"#, code: .typeMismatch, path: "value", at: 9)
    expectFailure(Box<Int>.self, #"{"value":true}"#, code: .typeMismatch, path: "value", at: 9)
    expectFailure(Box<Int>.self, #"{"value":[1]}"#, code: .typeMismatch, path: "value", at: 9)
  }

  // MARK: Floating point, Decimal, Bool

  @Test func doublesDecodeIncludingUnderflowToZero() throws {
    #expect(try decode(Box<Double>.self, #"{"value":1.5}"#).value == 1.5)
    #expect(try decode(Box<Double>.self, #"{"value":-2E-3}"#).value == -0.002)
    #expect(try decode(Box<Double>.self, #"{"value":42}"#).value == 42)
    #expect(try decode(Box<Double>.self, #"{"value":1e-999}"#).value == 0)
    let negativeZero = try decode(Box<Double>.self, #"{"value":-0.0}"#).value
    #expect(negativeZero == 0 && negativeZero.sign == .minus)
    #expect(try decode(Box<Double>.self, #"{"value":1.7976931348623157e308}"#).value == .greatestFiniteMagnitude)
  }

  @Test func doubleOverflowIsOutOfRange() {
    expectFailure(Box<Double>.self, #"{"value":1e400}"#, code: .outOfRange, path: "value", at: 9)
    expectFailure(Box<Double>.self, #"{"value":-1e400}"#, code: .outOfRange, path: "value", at: 9)
    expectFailure([Double].self, "[1,2e308]", code: .outOfRange, path: "[1]", at: 3)
  }

  @Test func floatOverflowIsOutOfRange() throws {
    #expect(try decode(Box<Float>.self, #"{"value":1.5}"#).value == 1.5)
    #expect(try decode(Box<Float>.self, #"{"value":3.4028234e38}"#).value == .greatestFiniteMagnitude)
    expectFailure(Box<Float>.self, #"{"value":3.5e38}"#, code: .outOfRange, path: "value", at: 9)
    expectFailure(Box<Float>.self, #"{"value":-1e39}"#, code: .outOfRange, path: "value", at: 9)
  }

  @Test func decimalKeepsEveryDigitOfANumber() throws {
    let value = try decode(Box<Decimal>.self, #"{"value":123456789.123456789}"#).value
    #expect(value == Decimal(string: "123456789.123456789"))
    #expect(value.description == "123456789.123456789")
    #expect(try decode(Box<Decimal>.self, #"{"value":-0.01}"#).value == Decimal(string: "-0.01"))
    #expect(try decode(Box<Decimal>.self, #"{"value":1E3}"#).value == 1000)
  }

  @Test func decimalRejectsStringsAndNumbersItCannotHold() {
    expectFailure(Box<Decimal>.self, #"{"value":"1.5"}"#, code: .typeMismatch, path: "value", at: 9)
    expectFailure(Box<Decimal>.self, #"{"value":null}"#, code: .nullValue, path: "value", at: 9)
    expectFailure(Box<Decimal>.self, #"{"value":1e400}"#, code: .outOfRange, path: "value", at: 9)
  }

  @Test func boolsDecodeAndNothingElseIsABool() throws {
    #expect(try decode([Bool].self, "[true,false]") == [true, false])
    expectFailure(Box<Bool>.self, #"{"value":1}"#, code: .typeMismatch, path: "value", at: 9)
    expectFailure(Box<Bool>.self, #"{"value":"true"}"#, code: .typeMismatch, path: "value", at: 9)
  }

  // MARK: Strings

  @Test func everyJSONEscapeIsResolved() throws {
    let json = #"{"value":"q\"b\\s\/b\bf\fn\nr\rt\tu\u0041"}"#
    #expect(try decode(Box<String>.self, json).value == "q\"b\\s/b\u{8}f\u{C}n\nr\rt\tuA")
  }

  @Test func unicodeEscapesAndSurrogatePairsDecode() throws {
    #expect(try decode(Box<String>.self, #"{"value":"caf\u00e9"}"#).value == "café")
    #expect(try decode(Box<String>.self, #"{"value":"\ud83d\ude00"}"#).value == "😀")
    #expect(try decode(Box<String>.self, #"{"value":"\uD834\uDD1E!"}"#).value == "𝄞!")
    #expect(try decode(Box<String>.self, #"{"value":"a\u0000b"}"#).value == "a\u{0}b")
  }

  @Test(arguments: [#""\ud83d""#, #""\ude00""#, #""x\ud83dy""#, #""\ude00\ud83d""#, #""\ud83d\u0041""#])
  func loneSurrogateIsInvalidValue(_ literal: String) {
    let json = #"{"list":["ok",\#(literal)]}"#
    expectFailure(Box<String>.self, #"{"value":\#(literal)}"#, code: .invalidValue, path: "value", at: 9)
    struct Listing: Decodable { var list: [String] }
    expectFailure(Listing.self, json, code: .invalidValue, path: "list[1]", at: offset(of: literal, in: json))
  }

  @Test func rawNonASCIIUTF8IsKept() throws {
    let text = "héllo wörld — 日本語 😀"
    #expect(try decode(Box<String>.self, #"{"value":"\#(text)"}"#).value == text)
    #expect(try decode(Box<String>.self, #"{"value":""}"#).value == "")
  }

  @Test func stringFromANumberIsTypeMismatch() {
    let json = #"{"name":"Ada","address":{"street":12,"city":"Paris"},"tags":[]}"#
    expectFailure(Customer.self, json, code: .typeMismatch, path: "address.street", at: offset(of: "12", in: json))
  }

  // MARK: Dates

  @Test func defaultDatesAreISO8601WithAndWithoutFraction() throws {
    #expect(
      try decode(Box<Date>.self, #"{"value":"2023-01-01T00:00:05Z"}"#).value
        == Date(timeIntervalSince1970: 1_672_531_205))
    #expect(
      try decode(Box<Date>.self, #"{"value":"2023-01-01T00:00:05.25Z"}"#).value
        == Date(timeIntervalSince1970: 1_672_531_205.25))
    #expect(
      try decode(Box<Date>.self, #"{"value":"2023-01-01T01:00:05+01:00"}"#).value
        == Date(timeIntervalSince1970: 1_672_531_205))
    #expect(try decode([Date].self, #"["1970-01-01T00:00:00Z"]"#) == [Date(timeIntervalSince1970: 0)])
  }

  @Test func defaultDatesRejectNumbersAndOtherFormats() {
    expectFailure(Box<Date>.self, #"{"value":1672531205}"#, code: .invalidDate, path: "value", at: 9)
    expectFailure(Box<Date>.self, #"{"value":"2023-01-01 00:00:05"}"#, code: .invalidDate, path: "value", at: 9)
    expectFailure(Box<Date>.self, #"{"value":true}"#, code: .typeMismatch, path: "value", at: 9)
    expectFailure(Box<Date>.self, #"{"value":null}"#, code: .nullValue, path: "value", at: 9)
  }

  @Test func epochSecondsAndMillisecondsAcceptNumbers() throws {
    let seconds = SluiceDecoder.Options(dateFormats: [.epochSeconds])
    let milliseconds = SluiceDecoder.Options(dateFormats: [.epochMilliseconds])
    #expect(
      try decode(Box<Date>.self, #"{"value":1672531205}"#, options: seconds).value
        == Date(timeIntervalSince1970: 1_672_531_205))
    #expect(
      try decode(Box<Date>.self, #"{"value":1672531205.5}"#, options: seconds).value
        == Date(timeIntervalSince1970: 1_672_531_205.5))
    #expect(
      try decode(Box<Date>.self, #"{"value":1672531205250}"#, options: milliseconds).value
        == Date(timeIntervalSince1970: 1_672_531_205.25))
    #expect(
      try decode(Box<Date>.self, #"{"value":-1000}"#, options: milliseconds).value == Date(timeIntervalSince1970: -1))
    expectFailure(
      Box<Date>.self, #"{"value":"2023-01-01T00:00:05Z"}"#, options: seconds, code: .invalidDate, path: "value", at: 9)
    expectFailure(Box<Date>.self, #"{"value":1e300}"#, options: seconds, code: .invalidDate, path: "value", at: 9)
  }

  @Test func legacyPatternIsTriedAfterISO8601() throws {
    let options = SluiceDecoder.Options(dateFormats: [.iso8601, .pattern("yyyy-MM-dd HH:mm:ss")])
    let expected = Date(timeIntervalSince1970: 1_672_531_205)
    #expect(try decode(Box<Date>.self, #"{"value":"2023-01-01 00:00:05"}"#, options: options).value == expected)
    #expect(try decode(Box<Date>.self, #"{"value":"2023-01-01T00:00:05Z"}"#, options: options).value == expected)
    expectFailure(
      Box<Date>.self, #"{"value":"01/01/2023"}"#, options: options, code: .invalidDate, path: "value", at: 9)
  }

  @Test func badDateIsInvalidDateWithItsPath() throws {
    let json = #"{"orderId":"1","amount":1,"status":"pending","createdAt":"2023-02-30T00:00:00Z"}"#
    let error = try #require(
      expectFailure(
        OrderDTO.self, json, code: .invalidDate, path: "createdAt", at: offset(of: #""2023"#, in: json)))
    #expect(error.message.contains("ISO 8601"))
    #expect(!error.message.contains("2023-02-30"))
  }

  // MARK: Unknown fields

  @Test func unknownFieldsAtDepthAreReportedWithTheirPaths() throws {
    let json = #"{"items":[{"sku":"a"},{"sku":"b","extra":1}],"meta":{"version":1,"x":{"deep":true}},"top":0}"#
    let diagnostics = try diagnose(Envelope.self, json)
    let found = diagnostics.unknownFields.map { "\($0.path)@\($0.byteOffset)" }.sorted()
    let expected = [
      "items[1].extra@\(offset(of: #""extra""#, in: json))",
      "meta.x@\(offset(of: #""x""#, in: json))",
      "top@\(offset(of: #""top""#, in: json))",
    ]
    #expect(found == expected)
    #expect(diagnostics.unknownFields.allSatisfy { $0.code == .unknownField })
    #expect(diagnostics.unknownFields.allSatisfy { !$0.message.contains("deep") })
  }

  @Test func noUnknownFieldsWhenTheDTOAsksForEveryKey() throws {
    let json = #"{"items":[{"sku":"a"},{"sku":"b"}],"meta":{"version":1}}"#
    #expect(try diagnose(Envelope.self, json).unknownFields.isEmpty)
  }

  @Test func dictionaryKeysAreNeverUnknown() throws {
    let diagnostics = try diagnose(Counters.self, #"{"counts":{"a":1,"b":2,"\u00e9":3}}"#)
    #expect(diagnostics.unknownFields.isEmpty)
    #expect(try decode(Counters.self, #"{"counts":{"a":1,"b":2,"\u00e9":3}}"#).counts == ["a": 1, "b": 2, "é": 3])
  }

  @Test func unknownFieldsAreNotCollectedWhenTheOptionIsOff() throws {
    let json = #"{"items":[{"sku":"b","extra":1}],"meta":{"version":1,"x":2},"top":0}"#
    #expect(try diagnose(Envelope.self, json, options: .init(reportsUnknownFields: false)).unknownFields.isEmpty)
  }

  @Test func skippedOptionalFieldsAreStillKnown() throws {
    #expect(try diagnose(Contact.self, #"{"email":null}"#).unknownFields.isEmpty)
  }

  // MARK: Polymorphic records

  @Test func polymorphicRecordDispatchesOnItsType() throws {
    #expect(
      try decode(MessageDTO.self, #"{"type":"text","id":"m1","text":"hi"}"#)
        == .text(TextMessageDTO(id: "m1", text: "hi")))
    #expect(
      try decode(MessageDTO.self, #"{"id":"m2","event":"joined","type":"system"}"#)
        == .system(SystemMessageDTO(id: "m2", event: "joined")))
  }

  @Test func keysAskedByTheDiscriminatorOrThePayloadAreKnown() throws {
    #expect(try diagnose(MessageDTO.self, #"{"type":"text","id":"m1","text":"hi"}"#).unknownFields.isEmpty)
    let json = #"{"type":"text","id":"m1","text":"hi","mood":"happy"}"#
    let unknown = try diagnose(MessageDTO.self, json).unknownFields
    #expect(unknown.map(\.path) == ["mood"])
    #expect(unknown.map(\.byteOffset) == [offset(of: #""mood""#, in: json)])
  }

  @Test func unknownPolymorphicTypeIsAnError() throws {
    let json = #"{"messages":[{"type":"text","id":"m1","text":"hi"},{"type":"video","id":"m2"}]}"#
    let error = try #require(
      expectFailure(
        Conversation.self, json, code: .invalidValue, path: "messages[1].type",
        at: offset(of: #""video""#, in: json)))
    #expect(!error.message.contains("video"))
  }

  @Test func polymorphicPayloadErrorsKeepTheirPath() {
    let json = #"{"messages":[{"type":"system","id":"m2"}]}"#
    expectFailure(
      Conversation.self, json, code: .missingField, path: "messages[0].event", at: offset(of: #"{"type""#, in: json))
  }

  // MARK: Duplicate keys

  @Test func duplicateKeyRejectsTheRecord() {
    expectFailure(Pair.self, #"{"a":1,"b":2,"a":3}"#, code: .duplicateKey, path: "a", at: 13)
    expectFailure(Box<Int>.self, #"{"value":1,"value":1}"#, code: .duplicateKey, path: "value", at: 11)
  }

  @Test func duplicateKeyIsFoundHoweverOftenTheDTOAsksForIt() {
    // An optional Int is looked up three times (contains, decodeNil, decode).
    expectFailure(OptionalBox<Int>.self, #"{"value":1,"value":2}"#, code: .duplicateKey, path: "value", at: 11)
    // A dictionary asks for every key, each copy included.
    expectFailure(
      Counters.self, #"{"counts":{"a":1,"b":2,"a":3}}"#, code: .duplicateKey, path: "counts.a", at: 23)
  }

  @Test func duplicateKeyInsideAnArrayElementHasItsPath() {
    let json = #"{"items":[{"sku":"a"},{"sku":"b","sku":"c"}],"meta":{"version":1}}"#
    expectFailure(
      Envelope.self, json, code: .duplicateKey, path: "items[1].sku", at: offset(of: #""sku""#, in: json, occurrence: 3)
    )
  }

  @Test func duplicateKeysAreComparedAfterUnescaping() {
    expectFailure(Counters.self, #"{"counts":{"a":1,"\u0061":2}}"#, code: .duplicateKey, path: "counts.a", at: 17)
    expectFailure(Pair.self, #"{"a":1,"b":2,"\u0062":3}"#, code: .duplicateKey, path: "b", at: 13)
  }

  @Test func duplicateKeyIsFoundInLargeObjects() throws {
    let members = (0..<40).map { #""k\#($0)":\#($0)"# }
    let distinct = "{\"counts\":{" + members.joined(separator: ",") + "}}"
    #expect(try decode(Counters.self, distinct).counts.count == 40)
    let repeated = "{\"counts\":{" + (members + [#""k7":0"#]).joined(separator: ",") + "}}"
    expectFailure(
      Counters.self, repeated, code: .duplicateKey, path: "counts.k7",
      at: offset(of: #""k7""#, in: repeated, occurrence: 2))
  }

  /// Past 32 keys the keys are hashed by their unescaped bytes into a table of node indices:
  /// an escaped spelling of an earlier key is found, and so is a repeat among 100,000 keys.
  @Test func duplicateKeyIsFoundInLargeObjectsAfterUnescapingAndAmongManyKeys() throws {
    let members = (0..<100).map { #""k\#($0)":\#($0)"# }
    let escaped = "{\"counts\":{" + (members + [#""k\u0039\u0039":0"#]).joined(separator: ",") + "}}"
    expectFailure(
      Counters.self, escaped, code: .duplicateKey, path: "counts.k99", at: offset(of: #""k\u0039"#, in: escaped))
    let many = (0..<100_000).map { #""k\#($0)":0"# }
    let distinct = "{\"counts\":{" + many.joined(separator: ",") + "}}"
    #expect(try decode(Counters.self, distinct).counts.count == 100_000)
    let repeated = "{\"counts\":{" + (many + [#""k54321":1"#]).joined(separator: ",") + "}}"
    expectFailure(
      Counters.self, repeated, code: .duplicateKey, path: "counts.k54321",
      at: offset(of: #""k54321""#, in: repeated, occurrence: 2))
  }

  @Test func keyWithAnUnpairedSurrogateIsInvalidValue() {
    expectFailure(Counters.self, #"{"counts":{"a":1,"\ud800":2}}"#, code: .invalidValue, path: "counts", at: 17)
  }

  @Test func sameKeyInDifferentObjectsIsNoDuplicate() throws {
    let cart = try decode(Cart.self, #"{"items":[{"sku":"a","qty":1},{"sku":"a","qty":1}]}"#)
    #expect(cart.items.count == 2)
  }

  /// A DTO's own `DecodingError` carries only a coding path; the offset is found from it.
  @Test func errorsADTOThrowsItselfPointAtTheirValue() {
    struct Coded: Decodable {
      enum CodingKeys: String, CodingKey { case code }
      init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let code = try container.decodeIfPresent(String.self, forKey: .code)
        guard let code, code.count == 3 else {
          throw DecodingError.dataCorruptedError(
            forKey: .code, in: container, debugDescription: "bad code \(code ?? "")")
        }
      }
    }
    let json = #"{"list":[{"code":"abc"},{"code":"abcd"},{}]}"#
    expectFailure(
      [String: [Coded]].self, json, code: .invalidValue, path: "list[1].code", at: offset(of: #""abcd""#, in: json))
    let missing = #"{"list":[{"code":"abc"},{}]}"#
    expectFailure(
      [String: [Coded]].self, missing, code: .invalidValue, path: "list[1].code", at: offset(of: "{}", in: missing))
  }

  // MARK: Null versus missing

  @Test func patchTellsMissingFromNullFromValue() throws {
    let patch = try decode(ProfilePatchDTO.self, #"{"introduction":null,"age":41}"#)
    #expect(patch.nickname == .unchanged)
    #expect(patch.introduction == .cleared)
    #expect(patch.age == .set(41))
    let set = try decode(ProfilePatchDTO.self, #"{"nickname":"ada","introduction":"hi","age":null}"#)
    #expect(set.nickname == .set("ada"))
    #expect(set.introduction == .set("hi"))
    #expect(set.age == .cleared)
  }

  @Test func patchOfTheWrongTypeIsTypeMismatch() {
    let json = #"{"nickname":"ada","age":"41"}"#
    expectFailure(ProfilePatchDTO.self, json, code: .typeMismatch, path: "age", at: offset(of: #""41""#, in: json))
  }

  @Test func nullForARequiredValueIsNullValue() {
    let json = #"{"name":null,"address":{"street":"s","city":"c"},"tags":[]}"#
    expectFailure(Customer.self, json, code: .nullValue, path: "name", at: 8)
    let nested = #"{"name":"n","address":null,"tags":[]}"#
    expectFailure(Customer.self, nested, code: .nullValue, path: "address", at: offset(of: "null", in: nested))
    let deep = #"{"name":"n","address":{"street":"s","city":null},"tags":[]}"#
    expectFailure(Customer.self, deep, code: .nullValue, path: "address.city", at: offset(of: "null", in: deep))
  }

  @Test func nullInANonOptionalArrayElementIsNullValue() {
    struct Listing: Decodable { var list: [String] }
    let json = #"{"list":["a","b",null]}"#
    expectFailure(Listing.self, json, code: .nullValue, path: "list[2]", at: offset(of: "null", in: json))
    struct Numbers: Decodable { var list: [Int] }
    expectFailure(Numbers.self, #"{"list":[1,2,null]}"#, code: .nullValue, path: "list[2]", at: 13)
  }

  @Test func nullsInAnOptionalArrayElementAreNil() throws {
    #expect(try decode([Int?].self, "[1,null,3]") == [1, nil, 3])
  }

  @Test func missingFieldPointsAtItsObject() {
    let json = #"{"items":[{"sku":"a","qty":1},{"qty":2}]}"#
    expectFailure(Cart.self, json, code: .missingField, path: "items[1].sku", at: offset(of: #"{"qty""#, in: json))
    expectFailure(Cart.self, "{}", code: .missingField, path: "items", at: 0)
  }

  @Test func objectWhereAnArrayIsExpectedIsTypeMismatch() {
    let json = #"{"items":{"sku":"a","qty":1}}"#
    expectFailure(Cart.self, json, code: .typeMismatch, path: "items", at: 9)
    expectFailure(Cart.self, "[]", code: .typeMismatch, path: "", at: 0)
  }

  // MARK: Unkeyed containers

  @Test func unkeyedOverReadIsAnErrorNotACrash() {
    let json = #"{"name":"p","point":[1,2]}"#
    expectFailure(Shape.self, json, code: .missingField, path: "point[2]", at: offset(of: "[", in: json))
    expectFailure(Shape.self, #"{"name":"p","point":[]}"#, code: .missingField, path: "point[0]", at: 20)
  }

  @Test func unkeyedContainerReadsExactlyWhatItNeeds() throws {
    let shape = try decode(Shape.self, #"{"name":"p","point":[1,2,3]}"#)
    #expect(shape.point.x == 1 && shape.point.y == 2 && shape.point.z == 3)
  }

  // MARK: Legacy scalars

  @Test func legacyScalarsConvertAndCountEachConversion() throws {
    let json = #"{"count":"12","active":"true","ratio":"1.5","code":42}"#
    var diagnostics = DecodeDiagnostics()
    let row = try SluiceDecoder(options: .init(legacyScalars: true))
      .decode(LegacyRow.self, from: record(json), diagnostics: &diagnostics)
    #expect(row.count == 12)
    #expect(row.active == true)
    #expect(row.ratio == 1.5)
    #expect(row.code == "42")
    #expect(diagnostics.coercions == 4)
  }

  @Test func legacyNumbersIntoStringsKeepTheirDigits() throws {
    let legacy = SluiceDecoder.Options(legacyScalars: true)
    #expect(try decode(Box<String>.self, #"{"value":-12.50e+3}"#, options: legacy).value == "-12.50e+3")
    #expect(
      try decode(Box<String>.self, #"{"value":12345678901234567890123}"#, options: legacy).value
        == "12345678901234567890123")
  }

  @Test func legacyScalarsRejectTextThatIsNotANumber() {
    let legacy = SluiceDecoder.Options(legacyScalars: true)
    for text in ["12abc", "0x10", " 12", "12 ", "", "1.5.5", "+1", "inf", "nan", "1,5"] {
      expectFailure(Box<Int>.self, #"{"value":"\#(text)"}"#, options: legacy, code: .typeMismatch, path: "value", at: 9)
      expectFailure(
        Box<Double>.self, #"{"value":"\#(text)"}"#, options: legacy, code: .typeMismatch, path: "value", at: 9)
      expectFailure(
        Box<Decimal>.self, #"{"value":"\#(text)"}"#, options: legacy, code: .typeMismatch, path: "value", at: 9)
    }
    expectFailure(Box<Bool>.self, #"{"value":"yes"}"#, options: legacy, code: .typeMismatch, path: "value", at: 9)
    expectFailure(Box<Int>.self, #"{"value":"1.5"}"#, options: legacy, code: .typeMismatch, path: "value", at: 9)
    expectFailure(Box<UInt8>.self, #"{"value":"256"}"#, options: legacy, code: .outOfRange, path: "value", at: 9)
  }

  @Test func legacyDecimalFromAStringIsCounted() throws {
    var diagnostics = DecodeDiagnostics()
    let value = try SluiceDecoder(options: .init(legacyScalars: true))
      .decode(Box<Decimal>.self, from: record(#"{"value":"19.99"}"#), diagnostics: &diagnostics).value
    #expect(value == Decimal(string: "19.99"))
    #expect(diagnostics.coercions == 1)
  }

  @Test func withoutLegacyScalarsTheSameInputsAreTypeMismatches() throws {
    let json = #"{"count":"12","active":"true","ratio":"1.5","code":42}"#
    expectFailure(LegacyRow.self, json, code: .typeMismatch, path: "count", at: offset(of: #""12""#, in: json))
    expectFailure(Box<Bool>.self, #"{"value":"true"}"#, code: .typeMismatch, path: "value", at: 9)
    expectFailure(Box<Double>.self, #"{"value":"1.5"}"#, code: .typeMismatch, path: "value", at: 9)
    expectFailure(Box<String>.self, #"{"value":42}"#, code: .typeMismatch, path: "value", at: 9)
    #expect(try diagnose(Box<Int>.self, #"{"value":12}"#, options: .init(legacyScalars: true)).coercions == 0)
  }

  // MARK: Reuse

  @Test func decoderIsReusableAfterAFailingRecord() throws {
    let decoder = SluiceDecoder(options: .init(legacyScalars: true))
    var diagnostics = DecodeDiagnostics()
    let bad = #"{"items":[{"sku":"a","qty":"1","extra":true},{"qty":2,"more":1}],"junk":[1,2,3,4,5,6,7,8]}"#
    #expect(throws: RecordDecodingError.self) {
      try decoder.decode(Cart.self, from: record(bad), diagnostics: &diagnostics)
    }
    diagnostics.reset()
    let good = #"{"items":[{"sku":"b","qty":"7"}],"x":1}"#
    let cart = try decoder.decode(Cart.self, from: record(good), diagnostics: &diagnostics)
    #expect(cart.items == [LineItem(sku: "b", qty: 7)])
    #expect(diagnostics.coercions == 1)
    #expect(diagnostics.unknownFields.map(\.path) == ["x"])

    diagnostics.reset()
    let error = #expect(throws: RecordDecodingError.self) {
      try decoder.decode(Cart.self, from: record(#"{"items":[{"sku":"c"}]}"#), diagnostics: &diagnostics)
    }
    #expect(error?.path == "items[0].qty")
    #expect(error.flatMap(\.byteOffset) == 10)

    diagnostics.reset()
    let again = try decoder.decode(Cart.self, from: record(good), diagnostics: &diagnostics)
    #expect(again == cart)
    #expect(diagnostics.coercions == 1)
    #expect(diagnostics.unknownFields.map(\.path) == ["x"])
  }

  @Test func decoderIsReusableAfterMalformedBytes() throws {
    let decoder = SluiceDecoder()
    var diagnostics = DecodeDiagnostics()
    let error = #expect(throws: RecordDecodingError.self) {
      try decoder.decode(Box<Int>.self, from: record(#"{"value":1"#), diagnostics: &diagnostics)
    }
    #expect(error?.code == .syntax)
    #expect(try decoder.decode(Box<Int>.self, from: record(#"{"value":2}"#), diagnostics: &diagnostics).value == 2)
  }

  /// The readers validate every record, but the decoder must not trap when handed bytes that
  /// are not JSON: a value without a key, a key without a value, a mismatched bracket.
  @Test(arguments: [
    (#"{"a":"a" 123}"#, 9), (#"{"a"}"#, 4), (#"{"a":1 "b":2}"#, 7), ("[1}", 2), (#"{"a":1]"#, 6),
    ("1 2", 2), (#"{[1]:2}"#, 1), (#"["a" "#, 5), ("", 0), ("{", 1), ("}", 0),
  ])
  func malformedBytesAreASyntaxErrorNotACrash(_ json: String, _ byteOffset: Int) {
    expectFailure(JSONValue.self, json, code: .syntax, path: "", at: byteOffset)
  }

  @Test func scalarRecordsDecodeAtTheTopLevel() throws {
    #expect(try decode(Int.self, "42") == 42)
    #expect(try decode(String.self, #""top""#) == "top")
    #expect(try decode(Bool?.self, "null") == nil)
    expectFailure(Int.self, #""42""#, code: .typeMismatch, path: "", at: 0)
  }
}
