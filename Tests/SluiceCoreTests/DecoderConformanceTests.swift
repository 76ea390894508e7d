import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// Any object key.
private struct MemberKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

/// Any JSON value, decoded only through the standard containers, the way a DTO would: whatever
/// the corpus holds must come through `Decoder` as one of these, or fail with an issue.
///
/// Only type mismatches are treated as "try the next shape"; any other error (a number out of
/// range, an unpaired surrogate) is the value's real failure and propagates.
enum JSONValue: Decodable, Equatable {
  case object([String: JSONValue])
  case array([JSONValue])
  case string(String)
  case number(Double)
  case bool(Bool)
  case null

  init(from decoder: any Decoder) throws {
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let object = try Self.unlessMismatched({ try decoder.container(keyedBy: MemberKey.self) }) {
      var members: [String: JSONValue] = [:]
      for key in object.allKeys {
        members[key.stringValue] = try object.decode(JSONValue.self, forKey: key)
      }
      self = .object(members)
    } else if var array = try Self.unlessMismatched({ try decoder.unkeyedContainer() }) {
      var elements: [JSONValue] = []
      while !array.isAtEnd {
        elements.append(try array.decode(JSONValue.self))
      }
      self = .array(elements)
    } else if let bool = try Self.unlessMismatched({ try single.decode(Bool.self) }) {
      self = .bool(bool)
    } else if let string = try Self.unlessMismatched({ try single.decode(String.self) }) {
      self = .string(string)
    } else {
      self = .number(try single.decode(Double.self))
    }
  }

  private static func unlessMismatched<T>(_ body: () throws -> T) throws -> T? {
    do {
      return try body()
    } catch DecodingError.typeMismatch(_, _) {
      return nil
    }
  }
}

/// What became of one corpus file.
enum CorpusOutcome: Equatable, CustomStringConvertible {
  case accepted
  case rejectedByReader(IssueCode)
  case rejectedByDecoder(IssueCode)

  var description: String {
    switch self {
    case .accepted: "accepted"
    case .rejectedByReader(let code): "rejected by the reader (\(code))"
    case .rejectedByDecoder(let code): "rejected by the decoder (\(code))"
    }
  }
}

/// Runs JSONTestSuite's files through the JSON reader (one document per file) and then
/// `SluiceDecoder` into `JSONValue`: every `y_` file decodes, every `i_` and `test_transform`
/// file has the outcome pinned in a table below, and nothing crashes or hangs.
@Suite(
  "SluiceDecoder conformance: JSONTestSuite through the reader and the decoder", .timeLimit(.minutes(1)), .tags(.slow))
struct SluiceDecoderConformanceTests {
  static let parsing = Corpus.files(in: "jsontestsuite/test_parsing")
  static let transform = Corpus.files(in: "jsontestsuite/test_transform")

  static func named(_ prefix: String) -> [String] {
    parsing.filter { name($0).hasPrefix(prefix) }
  }

  static func name(_ path: String) -> String { (path as NSString).lastPathComponent }

  /// Reads `path` as one document and decodes it as `T`.
  static func run<T: Decodable>(
    _ path: String, as type: T.Type = JSONValue.self
  ) -> (outcome: CorpusOutcome, value: T?, error: RecordDecodingError?, diagnostics: DecodeDiagnostics) {
    let records: [RawRecord]
    do {
      let reader = JSONRecordReader(source: try FileSource(path: path), layout: .document)
      records = try reader.readAll()
    } catch let error as RecordReadError {
      return (.rejectedByReader(error.code), nil, nil, DecodeDiagnostics())
    } catch {
      Issue.record("\(name(path)): unexpected error \(error)")
      return (.rejectedByReader("unexpected"), nil, nil, DecodeDiagnostics())
    }
    guard records.count == 1, let record = records.first else {
      Issue.record("\(name(path)): \(records.count) records from one document")
      return (.rejectedByReader("unexpected"), nil, nil, DecodeDiagnostics())
    }
    var diagnostics = DecodeDiagnostics()
    do {
      let value = try SluiceDecoder().decode(T.self, from: record, diagnostics: &diagnostics)
      return (.accepted, value, nil, diagnostics)
    } catch {
      return (.rejectedByDecoder(error.code), nil, error, diagnostics)
    }
  }

  // MARK: Presence

  @Test func corpusIsPresent() {
    #expect(Self.named("y_").count == 95)
    #expect(Self.named("i_").count == 35)
    #expect(Self.transform.count == 22)
  }

  // MARK: y_ files

  /// `y_` files that do not decode, and why. No `y_` number exceeds a Double, so none fails
  /// with `outOfRange`; the two duplicated-key objects are valid JSON that Sluice rejects on
  /// purpose (which copy a DTO reads would be arbitrary).
  static let validExceptions: [String: CorpusOutcome] = [
    "y_object_duplicated_key.json": .rejectedByDecoder(.duplicateKey),
    "y_object_duplicated_key_and_value.json": .rejectedByDecoder(.duplicateKey),
  ]

  /// Valid files that Foundation's `JSONDecoder` rejects here, with the value they hold.
  static let foundationRejects: [String: JSONValue] = [
    "y_number_0e1.json": .array([.number(0)])
  ]

  @Test(arguments: named("y_"))
  func validDocumentDecodesLikeFoundation(path: String) throws {
    let name = Self.name(path)
    let (outcome, value, _, diagnostics) = Self.run(path)
    #expect(outcome == Self.validExceptions[name] ?? .accepted, "\(name)")
    #expect(diagnostics.unknownFields.isEmpty, "\(name)")
    guard let value else { return }
    // Foundation's JSONDecoder, through the same Decodable type, is the reference.
    let reference =
      try Self.foundationRejects[name]
      ?? JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(value == reference, "\(name)")
  }

  @Test func validExceptionsAreCorpusFiles() {
    let names = Set(Self.named("y_").map(Self.name))
    #expect(Set(Self.validExceptions.keys).isSubset(of: names))
  }

  @Test func validDocumentsDecodeToTheirValues() throws {
    func value(_ name: String) -> JSONValue? {
      Self.run(Corpus.root + "/jsontestsuite/test_parsing/" + name).value
    }
    #expect(value("y_string_accepted_surrogate_pair.json") == .array([.string("\u{10437}")]))
    #expect(value("y_string_unicode_escaped_double_quote.json") == .array([.string("\"")]))
    #expect(value("y_number_minus_zero.json") == .array([.number(-0.0)]))
    #expect(value("y_number_real_capital_e.json") == .array([.number(1e22)]))
    #expect(value("y_structure_lonely_null.json") == .null)
    #expect(value("y_object_empty_key.json") == .object(["": .number(0)]))
    #expect(value("y_object_escaped_null_in_key.json") == .object(["foo\u{0}bar": .number(42)]))
    #expect(value("y_array_heterogeneous.json") == .array([.null, .number(1), .string("1"), .object([:])]))
  }

  /// The same files handed to the decoder without the reader: the valid ones decode to the
  /// same values, and nothing else traps (the tape builder only tokenizes, but checks the shape
  /// it indexes by; what it lets through is the reader's to reject).
  @Test(arguments: parsing)
  func rawBytesWithoutTheReaderNeverTrap(path: String) throws {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    let record = RawRecord(location: RecordLocation(ordinal: 1, byteOffset: 0, line: 1), bytes: bytes)
    var diagnostics = DecodeDiagnostics()
    let raw = try? SluiceDecoder().decode(JSONValue.self, from: record, diagnostics: &diagnostics)
    let name = Self.name(path)
    if name.hasPrefix("y_") && Self.validExceptions[name] == nil {
      #expect(raw != nil && raw == Self.run(path).value, "\(name)")
    }
  }

  // MARK: i_ files

  /// Every implementation-defined file and what Sluice does with it. Numbers: the reader takes
  /// any well-formed number, the decoder turns it into a Double, so overflow is `outOfRange`
  /// and underflow is zero. Escaped unpaired surrogates pass the reader (it checks only the four
  /// hex digits) and are `invalidValue` when decoded, in a value or in a key. Invalid UTF-8 and
  /// UTF-16 text fail in the reader; the UTF-8 BOM is skipped; 500 nested arrays are deeper than
  /// the reader's default limit of 256.
  static let implementationDefined: [String: CorpusOutcome] = [
    "i_number_double_huge_neg_exp.json": .accepted,
    "i_number_huge_exp.json": .rejectedByDecoder(.outOfRange),
    "i_number_neg_int_huge_exp.json": .rejectedByDecoder(.outOfRange),
    "i_number_pos_double_huge_exp.json": .rejectedByDecoder(.outOfRange),
    "i_number_real_neg_overflow.json": .rejectedByDecoder(.outOfRange),
    "i_number_real_pos_overflow.json": .rejectedByDecoder(.outOfRange),
    "i_number_real_underflow.json": .accepted,
    "i_number_too_big_neg_int.json": .accepted,
    "i_number_too_big_pos_int.json": .accepted,
    "i_number_very_big_negative_int.json": .accepted,
    "i_object_key_lone_2nd_surrogate.json": .rejectedByDecoder(.invalidValue),
    "i_string_1st_surrogate_but_2nd_missing.json": .rejectedByDecoder(.invalidValue),
    "i_string_1st_valid_surrogate_2nd_invalid.json": .rejectedByDecoder(.invalidValue),
    "i_string_UTF-16LE_with_BOM.json": .rejectedByReader(.syntax),
    "i_string_UTF-8_invalid_sequence.json": .rejectedByReader(.syntax),
    "i_string_UTF8_surrogate_U+D800.json": .rejectedByReader(.syntax),
    "i_string_incomplete_surrogate_and_escape_valid.json": .rejectedByDecoder(.invalidValue),
    "i_string_incomplete_surrogate_pair.json": .rejectedByDecoder(.invalidValue),
    "i_string_incomplete_surrogates_escape_valid.json": .rejectedByDecoder(.invalidValue),
    "i_string_invalid_lonely_surrogate.json": .rejectedByDecoder(.invalidValue),
    "i_string_invalid_surrogate.json": .rejectedByDecoder(.invalidValue),
    "i_string_invalid_utf-8.json": .rejectedByReader(.syntax),
    "i_string_inverted_surrogates_U+1D11E.json": .rejectedByDecoder(.invalidValue),
    "i_string_iso_latin_1.json": .rejectedByReader(.syntax),
    "i_string_lone_second_surrogate.json": .rejectedByDecoder(.invalidValue),
    "i_string_lone_utf8_continuation_byte.json": .rejectedByReader(.syntax),
    "i_string_not_in_unicode_range.json": .rejectedByReader(.syntax),
    "i_string_overlong_sequence_2_bytes.json": .rejectedByReader(.syntax),
    "i_string_overlong_sequence_6_bytes.json": .rejectedByReader(.syntax),
    "i_string_overlong_sequence_6_bytes_null.json": .rejectedByReader(.syntax),
    "i_string_truncated-utf-8.json": .rejectedByReader(.syntax),
    "i_string_utf16BE_no_BOM.json": .rejectedByReader(.syntax),
    "i_string_utf16LE_no_BOM.json": .rejectedByReader(.syntax),
    "i_structure_500_nested_arrays.json": .rejectedByReader(.nestingTooDeep),
    "i_structure_UTF-8_BOM_empty_object.json": .accepted,
  ]

  @Test(arguments: named("i_"))
  func implementationDefinedDocumentHasItsPinnedOutcome(path: String) throws {
    let name = Self.name(path)
    let expected = try #require(Self.implementationDefined[name], "\(name) is missing from the table")
    #expect(Self.run(path).outcome == expected, "\(name)")
  }

  @Test func implementationDefinedTableCoversExactlyTheCorpus() {
    #expect(Set(Self.implementationDefined.keys) == Set(Self.named("i_").map(Self.name)))
  }

  @Test func implementationDefinedFailuresPointAtTheValue() throws {
    let surrogate = Self.run(Corpus.root + "/jsontestsuite/test_parsing/i_string_lone_second_surrogate.json")
    #expect(surrogate.error?.path == "[0]")
    #expect(surrogate.error?.byteOffset == 1)
    let key = Self.run(Corpus.root + "/jsontestsuite/test_parsing/i_object_key_lone_2nd_surrogate.json")
    #expect(key.error?.path == "")
    #expect(key.error?.byteOffset == 1)
    let overflow = Self.run(Corpus.root + "/jsontestsuite/test_parsing/i_number_real_pos_overflow.json")
    #expect(overflow.error?.path == "[0]")
    #expect(overflow.error?.byteOffset == 1)
    let underflow = Self.run(Corpus.root + "/jsontestsuite/test_parsing/i_number_real_underflow.json")
    #expect(underflow.value == .array([.number(0)]))
  }

  // MARK: test_transform files

  /// What each transform file becomes as a `JSONValue`. Numbers are Doubles (the 64-bit
  /// limits round; `1e-999` is zero); a key present twice is rejected whatever its values;
  /// NFC and NFD spellings are two keys to the decoder (a Swift dictionary then merges them,
  /// its `String` keys comparing by canonical equivalence); escaped unpaired surrogates are
  /// `invalidValue`, raw ones fail in the reader; an escaped NUL is kept.
  static let transformOutcomes: [String: CorpusOutcome] = [
    "number_-9223372036854775808.json": .accepted,
    "number_-9223372036854775809.json": .accepted,
    "number_1.0.json": .accepted,
    "number_1.000000000000000005.json": .accepted,
    "number_1000000000000000.json": .accepted,
    "number_10000000000000000999.json": .accepted,
    "number_1e-999.json": .accepted,
    "number_1e6.json": .accepted,
    "number_9223372036854775807.json": .accepted,
    "number_9223372036854775808.json": .accepted,
    "object_key_nfc_nfd.json": .accepted,
    "object_key_nfd_nfc.json": .accepted,
    "object_same_key_different_values.json": .rejectedByDecoder(.duplicateKey),
    "object_same_key_same_value.json": .rejectedByDecoder(.duplicateKey),
    "object_same_key_unclear_values.json": .rejectedByDecoder(.duplicateKey),
    "string_1_escaped_invalid_codepoint.json": .rejectedByDecoder(.invalidValue),
    "string_1_invalid_codepoint.json": .rejectedByReader(.syntax),
    "string_2_escaped_invalid_codepoints.json": .rejectedByDecoder(.invalidValue),
    "string_2_invalid_codepoints.json": .rejectedByReader(.syntax),
    "string_3_escaped_invalid_codepoints.json": .rejectedByDecoder(.invalidValue),
    "string_3_invalid_codepoints.json": .rejectedByReader(.syntax),
    "string_with_escaped_NULL.json": .accepted,
  ]

  @Test(arguments: transform)
  func transformDocumentHasItsPinnedOutcome(path: String) throws {
    let name = Self.name(path)
    let expected = try #require(Self.transformOutcomes[name], "\(name) is missing from the table")
    #expect(Self.run(path).outcome == expected, "\(name)")
  }

  @Test func transformTableCoversExactlyTheCorpus() {
    #expect(Set(Self.transformOutcomes.keys) == Set(Self.transform.map(Self.name)))
  }

  private func transformFile(_ name: String) -> String {
    Corpus.root + "/jsontestsuite/test_transform/" + name
  }

  @Test func transformNumbersAsIntegersAreExactOrRejected() {
    #expect(Self.run(transformFile("number_-9223372036854775808.json"), as: [Int64].self).value == [Int64.min])
    #expect(Self.run(transformFile("number_9223372036854775807.json"), as: [Int64].self).value == [Int64.max])
    #expect(Self.run(transformFile("number_1000000000000000.json"), as: [Int64].self).value == [1_000_000_000_000_000])
    #expect(
      Self.run(transformFile("number_9223372036854775808.json"), as: [UInt64].self).value
        == [9_223_372_036_854_775_808])
    #expect(
      Self.run(transformFile("number_10000000000000000999.json"), as: [UInt64].self).value
        == [10_000_000_000_000_000_999])

    let outOfRange = [
      Self.run(transformFile("number_-9223372036854775809.json"), as: [Int64].self).error,
      Self.run(transformFile("number_9223372036854775808.json"), as: [Int64].self).error,
      Self.run(transformFile("number_10000000000000000999.json"), as: [Int64].self).error,
    ]
    for error in outOfRange {
      #expect(error?.code == .outOfRange)
      #expect(error?.path == "[0]")
      #expect(error?.byteOffset == 1)
    }
    for file in ["number_1.0.json", "number_1e6.json", "number_1e-999.json", "number_1.000000000000000005.json"] {
      let error = Self.run(transformFile(file), as: [Int].self).error
      #expect(error?.code == .typeMismatch, "\(file)")
      #expect(error?.path == "[0]", "\(file)")
      #expect(error?.byteOffset == 1, "\(file)")
    }
  }

  @Test func transformNumbersAsDoublesAndDecimals() {
    #expect(Self.run(transformFile("number_1e-999.json")).value == .array([.number(0)]))
    #expect(Self.run(transformFile("number_1e6.json")).value == .array([.number(1_000_000)]))
    #expect(Self.run(transformFile("number_1.000000000000000005.json")).value == .array([.number(1)]))
    #expect(
      Self.run(transformFile("number_10000000000000000999.json")).value == .array([.number(1e19)]))
    #expect(
      Self.run(transformFile("number_1.000000000000000005.json"), as: [Decimal].self).value
        .map { $0.map(\.description) } == ["1.000000000000000005"])
    #expect(
      Self.run(transformFile("number_10000000000000000999.json"), as: [Decimal].self).value
        .map { $0.map(\.description) } == ["10000000000000000999"])
    let tiny = Self.run(transformFile("number_1e-999.json"), as: [Decimal].self).error
    #expect(tiny?.code == .outOfRange)
    #expect(tiny?.path == "[0]")
    #expect(tiny?.byteOffset == 1)
  }

  @Test func transformDuplicateKeysPointAtTheSecondCopy() {
    for file in [
      "object_same_key_different_values.json", "object_same_key_same_value.json",
      "object_same_key_unclear_values.json",
    ] {
      let error = Self.run(transformFile(file)).error
      let bytes = Array((try? Data(contentsOf: URL(fileURLWithPath: transformFile(file)))) ?? Data())
      let secondKey = bytes.indices.filter { bytes[$0...].starts(with: Array(#""a""#.utf8)) }.dropFirst().first
      #expect(error?.code == .duplicateKey, "\(file)")
      #expect(error?.path == "a", "\(file)")
      #expect(secondKey != nil && error?.byteOffset == secondKey, "\(file)")
    }
  }

  /// Reads an object's keys without decoding their values, as the decoder sees them.
  struct KeyList: Decodable {
    var keys: [String]

    init(from decoder: any Decoder) throws {
      keys = try decoder.container(keyedBy: MemberKey.self).allKeys.map(\.stringValue)
    }
  }

  @Test func transformNormalizationFormsAreDifferentKeys() {
    for file in ["object_key_nfc_nfd.json", "object_key_nfd_nfc.json"] {
      let (_, value, _, diagnostics) = Self.run(transformFile(file), as: KeyList.self)
      let keys = value?.keys ?? []
      // The DTO asked for no key, so both are unknown, and neither is a duplicate of the other.
      #expect(diagnostics.unknownFields.count == 2, "\(file)")
      #expect(keys.count == 2, "\(file)")
      #expect(Set(keys.map { Array($0.utf8) }) == [Array("\u{E9}".utf8), Array("e\u{301}".utf8)], "\(file)")
    }
  }

  @Test func transformStringsKeepNULAndRejectEscapedSurrogates() {
    #expect(Self.run(transformFile("string_with_escaped_NULL.json")).value == .array([.string("A\u{0}B")]))
    let error = Self.run(transformFile("string_2_escaped_invalid_codepoints.json")).error
    #expect(error?.code == .invalidValue)
    #expect(error?.path == "[0]")
    #expect(error?.byteOffset == 1)
  }
}
