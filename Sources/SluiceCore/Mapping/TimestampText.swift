import Foundation

/// Formats instants as canonical ISO 8601 text: `2023-01-01T00:00:05.000Z` (UTC, to the nearest
/// millisecond), which sorts as time sorts, which SQLite's date functions read and which
/// PostgreSQL casts to `timestamptz`.
///
/// Written by hand because `ISO8601DateFormatter` costs tens of microseconds per call and a
/// loader formats one per record.
package enum TimestampText {
  /// Reads back what `text` wrote. The canonical form is read by hand: a run of 100,000 files
  /// has as many ledger rows, and `sluice runs` spent 25 s making an `ISO8601DateFormatter`
  /// for each. Anything else (an expanded year) goes through the formatter.
  package static func date(from text: String) -> Date? {
    if let milliseconds = canonicalMilliseconds(text) {
      return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)
  }

  /// Milliseconds since 1970 of exactly the form `text(_:)` writes for years 0…9999
  /// (`2023-01-01T00:00:05.000Z`, a real day of the calendar), or nil.
  static func canonicalMilliseconds(_ text: String) -> Int64? {
    var text = text
    return text.withUTF8 { bytes -> Int64? in
      guard bytes.count == 24 else { return nil }
      let separators: [(Int, Unicode.Scalar)] = [
        (4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z"),
      ]
      for (index, separator) in separators where bytes[index] != UInt8(ascii: separator) {
        return nil
      }
      func number(_ start: Int, _ width: Int) -> Int64? {
        var value: Int64 = 0
        for index in start..<start + width {
          let digit = bytes[index] &- UInt8(ascii: "0")
          guard digit < 10 else { return nil }
          value = value * 10 + Int64(digit)
        }
        return value
      }
      guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
        let minute = number(14, 2), let second = number(17, 2), let millisecond = number(20, 3),
        (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
      else { return nil }
      let days = self.days(fromCivil: year, month, day)
      // February 30th and the like: the day must come back as itself.
      guard civil(fromDays: days) == (year, month, day) else { return nil }
      return days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + millisecond
    }
  }

  public static func text(_ date: Date) -> String {
    // Rounded, not truncated: a `Date` is a binary `Double`, so a parsed `.002` can arrive as
    // 0.001999… seconds, and truncating would store `.001`.
    let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
    // The decoder only lets dates of years 1…9999 through (`DateParser.supportedRange`); a
    // mapper that makes its own dates must not be able to trap here, so anything else is
    // clamped into what Int64 milliseconds hold and printed in the expanded ISO 8601 form.
    let total = milliseconds.isNaN ? 0 : Int64(min(max(milliseconds, -Double(limit)), Double(limit)))
    var days = total / 86_400_000
    var rest = total % 86_400_000
    if rest < 0 {
      rest += 86_400_000
      days -= 1
    }
    let (year, month, day) = civil(fromDays: days)
    let hour = rest / 3_600_000
    let minute = rest / 60_000 % 60
    let second = rest / 1000 % 60
    let millisecond = rest % 1000
    guard (0...9999).contains(year) else {
      let sign = year < 0 ? "-" : "+"
      func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
      }
      return "\(sign)\(pad(abs(year), 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):"
        + "\(pad(second, 2)).\(pad(millisecond, 3))Z"
    }
    return String(unsafeUninitializedCapacity: 24) { buffer in
      var index = 0
      func put(_ value: Int64, _ width: Int) {
        var value = value
        for offset in stride(from: width - 1, through: 0, by: -1) {
          buffer[index + offset] = UInt8(ascii: "0") + UInt8(value % 10)
          value /= 10
        }
        index += width
      }
      func put(_ character: Unicode.Scalar) {
        buffer[index] = UInt8(ascii: character)
        index += 1
      }
      put(year, 4)
      put("-")
      put(month, 2)
      put("-")
      put(day, 2)
      put("T")
      put(hour, 2)
      put(":")
      put(minute, 2)
      put(":")
      put(second, 2)
      put(".")
      put(millisecond, 3)
      put("Z")
      return index
    }
  }

  /// The largest magnitude of milliseconds `text` prints: about 292 million years, far beyond
  /// any date a record can carry, and small enough that the day arithmetic cannot overflow.
  static let limit: Int64 = 9_000_000_000_000_000_000 / 1_000

  /// Days since 1970-01-01 of a year, month and day (proleptic Gregorian calendar), after
  /// Howard Hinnant's `days_from_civil`.
  static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// Year, month and day of a count of days since 1970-01-01 (proleptic Gregorian calendar),
  /// after Howard Hinnant's `civil_from_days`.
  static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
