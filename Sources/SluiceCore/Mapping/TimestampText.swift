import Foundation

/// Formats instants as canonical ISO 8601 text: `2023-01-01T00:00:05.000Z` (UTC, to the nearest
/// millisecond), which sorts as time sorts, which SQLite's date functions read and which
/// PostgreSQL casts to `timestamptz`.
///
/// Written by hand because `ISO8601DateFormatter` costs tens of microseconds per call and a
/// loader formats one per record.
package enum TimestampText {
  /// Reads back what `text` wrote (for history, not for records: it is slow).
  package static func date(from text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)
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
