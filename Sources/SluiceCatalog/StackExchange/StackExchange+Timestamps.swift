import Foundation
@_spi(Internals) import SluiceCore

extension StackExchange {
  /// Reads a dump timestamp — `yyyy-MM-ddTHH:mm:ss` with an optional fraction of any length,
  /// and no zone — as UTC; nil for anything else.
  ///
  /// The dump writes SQL Server `datetime` values in UTC without saying so. Read here rather than
  /// through the pipeline's date formats because those take zoned ISO 8601 or a `DateFormatter`
  /// pattern, and a pattern with `.SSS` refuses the same time written without a fraction; this
  /// reads both, computes the instant arithmetically (no formatter per row), and stays strict:
  /// real calendar days, years 0001–9999, no zone, nothing around it.
  public static func timestamp(from text: String) -> Timestamp? {
    var text = text
    return text.withUTF8 { bytes in parseTimestamp(bytes).map { Timestamp($0) } }
  }

  private static func parseTimestamp(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
    func digits(_ start: Int, _ count: Int) -> Int? {
      guard start + count <= text.count else { return nil }
      var value = 0
      for index in start..<start + count {
        let digit = text[index] &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        value = value * 10 + Int(digit)
      }
      return value
    }
    func byte(_ index: Int, is character: Unicode.Scalar) -> Bool {
      index < text.count && text[index] == UInt8(ascii: character)
    }
    guard let year = digits(0, 4), byte(4, is: "-"), let month = digits(5, 2), byte(7, is: "-"),
      let day = digits(8, 2), byte(10, is: "T"), let hour = digits(11, 2), byte(13, is: ":"),
      let minute = digits(14, 2), byte(16, is: ":"), let second = digits(17, 2),
      year >= 1, (1...12).contains(month), (1...daysIn(month, of: year)).contains(day),
      hour <= 23, minute <= 59, second <= 59
    else { return nil }
    var nanoseconds = 0
    if text.count > 19 {
      // A fraction: a dot and at least one digit, to the end. Digits past nanoseconds are read
      // and dropped.
      guard byte(19, is: "."), text.count > 20 else { return nil }
      var scale = 100_000_000
      for index in 20..<text.count {
        let digit = text[index] &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        nanoseconds += Int(digit) * scale
        scale /= 10
      }
    }
    let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    // `Date` counts from 2001: subtracting whole seconds first keeps them exact.
    return Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + Double(nanoseconds) / 1e9)
  }

  /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
  private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
    let marchYear = month <= 2 ? year - 1 : year
    let era = marchYear / 400  // years are 1…9999 here: never negative
    let yearOfEra = marchYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  private static func daysIn(_ month: Int, of year: Int) -> Int {
    switch month {
    case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// The layout `timestamp(from:)` reads, as a pattern; whether the day exists is not in it.
  static let timestampLayout =
    "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?$"

  /// What the mapping requires of timestamp attributes, for `sluice contract`: the layout, and
  /// the calendar, which a pattern cannot state.
  static func timestampConstraints(at paths: String...) -> [FieldConstraint] {
    paths.flatMap { path -> [FieldConstraint] in
      [.pattern(timestampLayout, at: path), .unexpressed("\(path) is a real calendar day in years 1…9999", at: path)]
    }
  }

  /// The ids of a lookup enum, as the dump's integer attribute carries them.
  static func typeIDs<E: LookupEnum>(_ type: E.Type, at path: String) -> FieldConstraint {
    .oneOf(E.allCases.map { String($0.lookupID) }, at: path)
  }

  /// A required timestamp attribute, or the mapping error that names it.
  static func timestamp(_ text: String, at path: String) throws(MappingError) -> Timestamp {
    guard let timestamp = timestamp(from: text) else { throw invalidTimestamp(at: path) }
    return timestamp
  }

  /// An optional timestamp attribute: nil when it is missing, an error when it is malformed.
  static func optionalTimestamp(_ text: String?, at path: String) throws(MappingError) -> Timestamp? {
    guard let text else { return nil }
    return try timestamp(text, at: path)
  }

  private static func invalidTimestamp(at path: String) -> MappingError {
    MappingError(
      code: .invalidDate, path: path,
      message: "expected a dump timestamp without a zone, such as 2018-02-06T20:19:50.957 (read as UTC)")
  }
}
