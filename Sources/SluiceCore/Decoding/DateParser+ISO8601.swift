// A hand-written RFC 3339 reader. It runs for every date of multi-million-record imports, so it
// reads digits straight from the UTF-8 bytes, validates every field, and computes the instant
// arithmetically (days from the proleptic Gregorian civil date), with no formatter, no calendar
// and no allocation.
import Foundation

extension DateParser {
  /// Parses an RFC 3339 date-time: `YYYY-MM-DDThh:mm:ss[.fraction](Z|+hh:mm|-hh:mm|+hhmm)`.
  ///
  /// Strict on purpose: years 0000–9999, real calendar days, no leap second (`:60`), `T` or `t`
  /// between date and time (not a space), `Z` or `z` or a numeric offset, and nothing else
  /// around it. The fraction may have any number of digits; nanoseconds are kept.
  static func parseISO8601(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
    // The fixed part, YYYY-MM-DDThh:mm:ss, is 19 bytes; at least a `Z` must follow.
    guard text.count >= 20,
      let year = digits(text, at: 0, count: 4), text[4] == UInt8(ascii: "-"),
      let month = digits(text, at: 5, count: 2), text[7] == UInt8(ascii: "-"),
      let day = digits(text, at: 8, count: 2),
      text[10] == UInt8(ascii: "T") || text[10] == UInt8(ascii: "t"),
      let hour = digits(text, at: 11, count: 2), text[13] == UInt8(ascii: ":"),
      let minute = digits(text, at: 14, count: 2), text[16] == UInt8(ascii: ":"),
      let second = digits(text, at: 17, count: 2),
      (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day),
      hour <= 23, minute <= 59, second <= 59
    else { return nil }

    var index = 19
    var nanoseconds = 0
    if text[index] == UInt8(ascii: ".") {
      index += 1
      let fractionStart = index
      var scale = 100_000_000
      while index < text.count {
        let digit = text[index] &- UInt8(ascii: "0")
        guard digit < 10 else { break }
        nanoseconds += Int(digit) * scale
        scale /= 10
        index += 1
      }
      guard index > fractionStart else { return nil }
    }

    guard index < text.count else { return nil }
    let offsetSeconds: Int
    switch text[index] {
    case UInt8(ascii: "Z"), UInt8(ascii: "z"):
      offsetSeconds = 0
      index += 1
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      let sign = text[index] == UInt8(ascii: "-") ? -1 : 1
      guard let offsetHours = digits(text, at: index + 1, count: 2) else { return nil }
      index += 3
      if index < text.count, text[index] == UInt8(ascii: ":") { index += 1 }
      guard let offsetMinutes = digits(text, at: index, count: 2),
        offsetHours <= 23, offsetMinutes <= 59
      else { return nil }
      index += 2
      offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
    default:
      return nil
    }
    guard index == text.count else { return nil }

    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
    // Date counts from 2001; subtracting in integers first keeps the whole seconds exact.
    let sinceReference = Double(seconds - 978_307_200) + Double(nanoseconds) / 1_000_000_000
    return Date(timeIntervalSinceReferenceDate: sinceReference)
  }

  /// Days from 1970-01-01 to a proleptic Gregorian date, negative before it.
  ///
  /// Counts in 400-year eras of 146,097 days whose years start on 1 March, so the leap day falls
  /// at the end of each year and every month before it has a fixed length.
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let marchYear = month <= 2 ? year - 1 : year
    let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
    let yearOfEra = marchYear - era * 400  // 0...399
    let marchMonth = month > 2 ? month - 3 : month + 9  // March is 0, February is 11
    let dayOfYear = (153 * marchMonth + 2) / 5 + day - 1  // 0...365
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear  // 0...146096
    return era * 146_097 + dayOfEra - 719_468  // 719,468 days from 0000-03-01 to 1970-01-01
  }

  /// The number of days in `month` (1–12) of the proleptic Gregorian `year`.
  static func daysInMonth(_ month: Int, year: Int) -> Int {
    switch month {
    case 2:
      let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
      return isLeap ? 29 : 28
    case 4, 6, 9, 11:
      return 30
    default:
      return 31
    }
  }

  /// The value of `count` ASCII digits at `start`, or `nil` if any byte there is not one.
  @inline(__always)
  private static func digits(
    _ text: UnsafeBufferPointer<UInt8>, at start: Int, count: Int
  ) -> Int? {
    guard start + count <= text.count else { return nil }
    var value = 0
    for index in start..<start + count {
      let digit = text[index] &- UInt8(ascii: "0")
      guard digit < 10 else { return nil }
      value = value * 10 + Int(digit)
    }
    return value
  }
}
