@_spi(Internals) import SluiceCore

/// The type of a CSV or TSV column, inferred from its text values so that the strict decoder reads
/// every one of them: what `inspect` shows and `init` declares.
///
/// - `integer`: `-`? digits fitting `Int64`, no leading zero (`007` stays text: an id whose zeros
///   matter); a lone `0` is an integer.
/// - `decimal(scale)`: the same with a fractional part in at least one value (`12.30`, scale the
///   most digits after the point), the longest integer part and the scale at most 18 digits
///   together, so that every value's minor units fit 64 bits.
/// - `boolean`: only `true`/`false` and `True`/`False`, the spellings the decoder reads as a
///   boolean besides `1`/`0` — a column of `1` and `0` is an integer, `yes`/`no` an enum.
/// - `timestamp(format)`: every value a date the decoder's `DateParser` reads under one format
///   (RFC 3339 date-times as `iso8601`, or one of `candidatePatterns`); a column that reads both
///   as `dd/MM/yyyy` and `MM/dd/yyyy` (no day above 12) is ambiguous, so text.
/// - `enumeration(values)`: text with few distinct values, each repeated, on strong evidence:
///   at least `minimumEnumRows` rows, `minimumRowsPerEnumValue` per value (`TextColumnProfile`).
/// - `text`: anything else, and any column holding an empty quoted field (`""`), which no
///   other type reads.
package enum TextColumnType: Sendable, Hashable {
  case integer
  case decimal(scale: Int)
  case boolean
  case timestamp(DateFormat)
  case enumeration([String])
  case text

  /// `integer`, `decimal(2)`, `timestamp(dd/MM/yyyy)`, `enum(3)`, `text`: the name `inspect` shows.
  package var summary: String {
    switch self {
    case .integer: "integer"
    case .decimal(let scale): "decimal(\(scale))"
    case .boolean: "boolean"
    case .timestamp(let format): "timestamp(\(format.specName))"
    case .enumeration(let values): "enum(\(values.count))"
    case .text: "text"
    }
  }

  /// The date patterns a column is tried under, besides RFC 3339 (`iso8601`): ISO dates and
  /// the common legacy ones. Each is the decoder's own pattern syntax (`DateFormat`).
  package static let candidatePatterns = [
    "yyyy-MM-dd", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm:ss.SSS",
    "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy/MM/dd",
    "dd/MM/yyyy", "MM/dd/yyyy", "dd/MM/yyyy HH:mm:ss", "MM/dd/yyyy HH:mm:ss", "dd/MM/yyyy HH:mm",
    "MM/dd/yyyy HH:mm", "dd.MM.yyyy", "dd.MM.yyyy HH:mm:ss",
  ]
}

/// What one column's text values looked like so far: counts and flags only, plus up to
/// `maxEnumValues` distinct short values (for an enum), so memory is bounded whatever the input.
package struct TextColumnProfile: Sendable, Hashable {
  /// Most distinct values an enum-like column may have.
  package static let maxEnumValues = 10
  /// Longest value kept as an enum candidate, in bytes.
  static let maxEnumValueBytes = 40
  /// The evidence an enum needs: values in at least this many rows, and this many rows per
  /// distinct value on average (30 rows of 3 statuses; 100 of 10). A few rows of a few short
  /// texts (names, cities) are text: as an enum, the next value would be rejected, and a
  /// dataset's declared values are the data's own.
  package static let minimumEnumRows = 30
  package static let minimumRowsPerEnumValue = 10

  /// Values seen that are not empty.
  package private(set) var nonEmpty = 0
  /// Empty text values (`""` quoted, or any empty field when empty fields are text).
  package private(set) var empty = 0
  private var allIntegers = true
  private var allDecimals = true
  package private(set) var hasLeadingZeros = false
  private var allBooleans = true
  /// Most digits after a decimal point, and before it.
  private var scale = 0
  private var integerDigits = 0
  /// Bit i: every value so far is a date under `TextColumnClassifier.formats[i]`.
  private var dates: UInt32 = .max
  /// Distinct values, while they are few and short; nil once they are not.
  private var distinct: [String]? = []

  package init() {}

  /// The type every value seen reads as; `isKeyLike` (an id-like name) keeps it from being an
  /// enum.
  package func inferred(isKeyLike: Bool = false) -> TextColumnType {
    guard nonEmpty > 0, empty == 0 else { return .text }
    if allIntegers { return .integer }
    // Minor units within 64 bits: the longest integer part at the largest scale.
    if allDecimals && integerDigits + scale <= 18 { return .decimal(scale: scale) }
    if allBooleans { return .boolean }
    let formats = TextColumnClassifier.formats
    let matching = formats.indices.filter { dates & (1 << UInt32($0)) != 0 }
    if matching.count == 1 { return .timestamp(formats[matching[0]]) }
    if let values = distinct, !isKeyLike, !values.isEmpty, nonEmpty >= Self.minimumEnumRows,
      nonEmpty >= Self.minimumRowsPerEnumValue * values.count
    {
      return .enumeration(values.sorted())
    }
    return .text
  }

  /// Why a column that looks like dates is text: read the same under two day-month orders.
  package var isAmbiguousDate: Bool {
    guard nonEmpty > 0, empty == 0, !allDecimals, !allBooleans else { return false }
    return dates != 0 && dates.nonzeroBitCount > 1
  }

  mutating func add(_ text: UnsafeBufferPointer<UInt8>, classifier: TextColumnClassifier) {
    guard !text.isEmpty else {
      empty += 1
      return
    }
    nonEmpty += 1
    if allIntegers || allDecimals {
      let number = Self.number(text)
      if number.leadingZero { hasLeadingZeros = true }
      allIntegers = allIntegers && number.isNumber && !number.leadingZero && number.scale == nil
      allDecimals = allDecimals && number.isNumber && !number.leadingZero && number.digits <= 18
      if let fraction = number.scale { scale = max(scale, fraction) }
      integerDigits = max(integerDigits, number.digits - (number.scale ?? 0))
    }
    if allBooleans {
      allBooleans =
        text.elementsEqual("true".utf8) || text.elementsEqual("false".utf8) || text.elementsEqual("True".utf8)
        || text.elementsEqual("False".utf8)
    }
    if dates != 0 { dates &= classifier.dateFormats(text, among: dates) }
    if var values = distinct {
      distinct = nil
      if text.count <= Self.maxEnumValueBytes {
        let value = String(decoding: text, as: UTF8.self)
        if !values.contains(value) { values.append(value) }
        if values.count <= Self.maxEnumValues { distinct = values }
      }
    }
  }

  /// Whether `text` is `-`? digits (`.` digits)?, its digits, its fraction's digits and whether
  /// its integer part has a leading zero (`007`, `00.5`; not `0` or `0.5`).
  static func number(_ text: UnsafeBufferPointer<UInt8>) -> (
    isNumber: Bool, leadingZero: Bool, digits: Int, scale: Int?
  ) {
    var index = 0
    if text[0] == UInt8(ascii: "-") { index = 1 }
    let start = index
    while index < text.count, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") { index += 1 }
    let integerDigits = index - start
    let leadingZero = integerDigits > 1 && text[start] == UInt8(ascii: "0")
    guard integerDigits > 0 else { return (false, false, 0, nil) }
    if index == text.count {
      // Within Int64: at most 18 digits always fit; 19 are checked.
      let fits = integerDigits < 19 || (integerDigits == 19 && ShapeCollector.fitsInt64(text))
      return (fits, leadingZero, integerDigits, nil)
    }
    guard text[index] == UInt8(ascii: ".") else { return (false, false, 0, nil) }
    index += 1
    let fractionStart = index
    while index < text.count, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") { index += 1 }
    let fraction = index - fractionStart
    guard fraction > 0, index == text.count else { return (false, false, 0, nil) }
    return (true, leadingZero, integerDigits + fraction, fraction)
  }
}

/// The date parsers a `TextColumnProfile` tries values with: one `DateParser` per candidate
/// format, the decoder's own, so that a format inferred is one the decoder reads every value
/// under. A value's shape (digits and separators) is checked first, so that a formatter only
/// sees text of its pattern's shape.
package final class TextColumnClassifier {
  /// `iso8601`, then `TextColumnType.candidatePatterns`.
  package static let formats: [DateFormat] =
    [.iso8601] + TextColumnType.candidatePatterns.map { DateFormat.pattern($0) }

  private let parsers: [DateParser]
  /// Per pattern, its shape: `9` for each digit of a field, literals as written (nil for iso8601).
  private let shapes: [[UInt8]?]

  package init() {
    parsers = Self.formats.map { DateParser(formats: [$0]) }
    shapes = Self.formats.map { format in
      guard case .pattern(let pattern) = format else { return nil }
      var shape: [UInt8] = []
      var quoted = false
      for byte in pattern.utf8 {
        if byte == UInt8(ascii: "'") {
          quoted.toggle()
        } else if !quoted && (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "z")) {
          shape.append(UInt8(ascii: "9"))
        } else {
          shape.append(byte)
        }
      }
      return shape
    }
  }

  /// The formats among `candidates` (bits of `formats`) under which `text` is a supported date.
  func dateFormats(_ text: UnsafeBufferPointer<UInt8>, among candidates: UInt32) -> UInt32 {
    guard text.count >= 8, text.count <= 64, text[0] >= UInt8(ascii: "0"), text[0] <= UInt8(ascii: "9") else {
      return 0
    }
    // The patterns whose shape the text has; a formatter is costly, so their verdict on a text
    // is remembered (exports repeat their dates), up to `maxRemembered` texts at a time.
    var shaped: UInt32 = 0
    for index in Self.formats.indices where candidates & (1 << UInt32(index)) != 0 {
      guard let shape = shapes[index] else { continue }
      guard shape.count == text.count else { continue }
      let fits = zip(shape, text).allSatisfy { expected, byte in
        expected == UInt8(ascii: "9") ? byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") : expected == byte
      }
      if fits { shaped |= 1 << UInt32(index) }
    }
    var result: UInt32 = 0
    if candidates & 1 != 0, let date = parsers[0].parse(text: text), DateParser.supportedRange.contains(date) {
      result |= 1
    }
    guard shaped != 0 else { return result }
    let key = Array(text)
    if let known = remembered[key], known.tried & shaped == shaped { return result | (known.dates & shaped) }
    var dates: UInt32 = 0
    for index in Self.formats.indices where shaped & (1 << UInt32(index)) != 0 {
      if let date = parsers[index].parse(text: text), DateParser.supportedRange.contains(date) {
        dates |= 1 << UInt32(index)
      }
    }
    if remembered.count >= Self.maxRemembered { remembered.removeAll(keepingCapacity: true) }
    remembered[key] = (shaped, dates)
    return result | dates
  }

  /// Texts whose verdicts are remembered at most.
  static let maxRemembered = 4_096
  /// Per text: the patterns tried on it, and those it is a date under.
  private var remembered: [[UInt8]: (tried: UInt32, dates: UInt32)] = [:]
}
