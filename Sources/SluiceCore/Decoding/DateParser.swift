import Foundation

/// Parses dates by an ordered list of formats; the first format that accepts the value wins.
///
/// Records carry dates as JSON strings or numbers, and the pipeline's date strategy decides which
/// formats are accepted, in order. Not thread-safe: it creates one `DateFormatter` per pattern
/// once and reuses it, because formatters are costly to build; each decoding thread owns its own
/// parser. ISO 8601 and epoch values never touch a formatter (see `DateParser+ISO8601.swift`).
package final class DateParser {
  /// The accepted formats, tried in this order.
  public let formats: [DateFormat]
  /// The zone that pattern formats read their wall-clock times in; other formats ignore it.
  public let timeZone: TimeZone
  /// One formatter per entry of `formats`, `nil` except for patterns.
  private let formatters: [DateFormatter?]
  /// For each format, whether it is a pattern made of ASCII only.
  private let asciiPatterns: [Bool]

  /// Seconds from 1970 to 10000-01-01T00:00:00Z: epoch values must stay strictly within this
  /// distance of 1970, which keeps every accepted date inside years that ISO 8601 can print.
  static let epochSecondsLimit = 253_402_300_800

  /// The instants a record may carry: years 1 through 9999 in UTC, after any offset is applied
  /// (`0000-01-01T00:00:00+01:00` is in year 0, outside it). ISO 8601 and SQLite's date
  /// functions only read four-digit years, and year 0 does not exist in the proleptic calendar
  /// that SQLite uses, so anything outside this range is `outOfRange` at its field.
  public static let supportedRange: Range<Date> =
    Date(timeIntervalSince1970: -62_135_596_800)..<Date(timeIntervalSince1970: 253_402_300_800)

  /// Creates a parser for `formats`; pattern formats read times in `timeZone`, UTC by default.
  public init(formats: [DateFormat], timeZone: TimeZone = .gmt) {
    self.formats = formats
    self.timeZone = timeZone
    self.asciiPatterns = formats.map { format in
      guard case .pattern(let pattern) = format else { return false }
      return pattern.utf8.allSatisfy { $0 < 0x80 }
    }
    self.formatters = formats.map { format in
      guard case .pattern(let pattern) = format else { return nil }
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.timeZone = timeZone
      formatter.isLenient = false
      formatter.dateFormat = pattern
      return formatter
    }
  }

  /// Parses the contents of a JSON string, already unescaped and valid UTF-8.
  ///
  /// This is the hot path: ISO 8601 and epoch strings are read straight from the bytes without
  /// allocating; only a pattern format builds a `String`, once per call.
  public func parse(text: UnsafeBufferPointer<UInt8>) -> Date? {
    var string: String?
    for index in formats.indices {
      switch formats[index] {
      case .iso8601:
        if let date = Self.parseISO8601(text) { return date }
      case .epochSeconds:
        if let seconds = Self.parseEpochDigits(text, limit: Self.epochSecondsLimit) {
          return Date(timeIntervalSince1970: Double(seconds))
        }
      case .epochMilliseconds:
        if let milliseconds = Self.parseEpochDigits(text, limit: Self.epochSecondsLimit * 1000) {
          let seconds = Double(milliseconds / 1000) + Double(milliseconds % 1000) / 1000
          return Date(timeIntervalSince1970: seconds)
        }
      case .pattern:
        guard let formatter = formatters[index] else { continue }
        // An ASCII pattern read in en_US_POSIX matches only ASCII text. Skipping the formatter
        // for anything else is also a guard: Foundation's DateFormatter leaks 128 bytes per call
        // on text with a character outside the BMP (found by `Fuzz/run decoder`), which a
        // legacy export full of bad dates would turn into memory growing with the input.
        if asciiPatterns[index] && text.contains(where: { $0 >= 0x80 }) { continue }
        let value = string ?? String(decoding: text, as: UTF8.self)
        string = value
        if let date = Self.parse(value, with: formatter) { return date }
      }
    }
    return nil
  }

  /// Parses the contents of a JSON string given as any collection of UTF-8 bytes.
  ///
  /// Contiguous collections (arrays, slices of them, `Data`) are read in place; others are
  /// copied once.
  @inlinable
  public func parse(text: some Collection<UInt8>) -> Date? {
    if let date = text.withContiguousStorageIfAvailable({ parse(text: $0) }) { return date }
    return Array(text).withUnsafeBufferPointer { parse(text: $0) }
  }

  /// Parses a string, as `parse(text:)` parses its UTF-8 bytes.
  public func parse(_ string: String) -> Date? {
    if let date = string.utf8.withContiguousStorageIfAvailable({ parse(text: $0) }) {
      return date
    }
    var copy = string
    return copy.withUTF8 { parse(text: $0) }
  }

  /// Parses a JSON number by the first epoch format in `formats`.
  ///
  /// Returns `nil` if no epoch format is configured, or if the value is not finite or lies
  /// 10,000 years or more from 1970.
  public func parse(number: Double) -> Date? {
    for format in formats {
      let seconds: Double
      switch format {
      case .epochSeconds: seconds = number
      case .epochMilliseconds: seconds = number / 1000
      case .iso8601, .pattern: continue
      }
      if seconds.isFinite, abs(seconds) < Double(Self.epochSecondsLimit) {
        return Date(timeIntervalSince1970: seconds)
      }
    }
    return nil
  }

  /// What the parser accepts, in one line for error messages:
  /// `ISO 8601 (2023-01-01T00:00:05Z) or yyyy-MM-dd HH:mm:ss`.
  public var expectation: String {
    let summaries = formats.map(\.summary)
    guard let last = summaries.last else { return "no date (no date format is configured)" }
    guard summaries.count > 1 else { return last }
    return summaries.dropLast().joined(separator: ", ") + " or " + last
  }

  /// Reads an epoch value given as text: an optional `-` and then digits only, as legacy
  /// exports write them; `nil` unless the magnitude is below `limit`.
  static func parseEpochDigits(_ text: UnsafeBufferPointer<UInt8>, limit: Int) -> Int? {
    var index = 0
    let isNegative = !text.isEmpty && text[0] == UInt8(ascii: "-")
    if isNegative { index = 1 }
    guard index < text.count else { return nil }
    var magnitude = 0
    while index < text.count {
      let digit = text[index] &- UInt8(ascii: "0")
      guard digit < 10 else { return nil }
      magnitude = magnitude * 10 + Int(digit)
      guard magnitude < limit else { return nil }
      index += 1
    }
    return isNegative ? -magnitude : magnitude
  }

  /// Parses `string` with a pattern formatter, requiring the pattern to cover all of it.
  ///
  /// `DateFormatter` rejects trailing text but skips leading whitespace, so whitespace at
  /// either end is rejected here.
  private static func parse(_ string: String, with formatter: DateFormatter) -> Date? {
    guard let first = string.unicodeScalars.first, let last = string.unicodeScalars.last,
      !first.properties.isWhitespace, !last.properties.isWhitespace
    else { return nil }
    return formatter.date(from: string)
  }
}
