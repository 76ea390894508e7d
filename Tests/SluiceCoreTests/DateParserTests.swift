import Foundation
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

@Suite("Dates: ISO 8601, epoch values and legacy patterns")
struct DateParserTests {
  /// Foundation's own RFC 3339 reader, the reference the hand-written one must agree with.
  private func reference(fractional: Bool = false) -> ISO8601DateFormatter {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions =
      fractional ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
    return formatter
  }

  private let iso = DateParser(formats: [.iso8601])

  // MARK: ISO 8601

  @Test(arguments: [
    "2023-01-01T00:00:05Z",
    "2024-02-29T12:34:56Z",
    "2000-02-29T00:00:00Z",
    "2023-12-31T23:59:59Z",
    "2024-12-31T23:59:59Z",
    "2023-03-01T00:00:00Z",
    "1999-12-31T23:59:59+01:00",
    "2023-06-15T08:30:00-07:00",
    "2023-06-15T08:30:00+05:30",
    "2023-06-15T08:30:00+0530",
    "2023-06-15T08:30:00-0945",
    "2100-02-28T23:59:59-23:59",
    "1970-01-01T00:00:00+23:59",
    "1970-01-01T00:00:00-00:00",
    "1969-12-31T23:59:59Z",
    "1969-07-20T20:17:40Z",
    "1900-01-01T00:00:00Z",
    "1900-02-28T12:00:00Z",
    "1600-03-01T00:00:00Z",
    "2038-01-19T03:14:08Z",
    "9999-12-31T23:59:59Z",
  ])
  func wholeSecondsMatchFoundation(_ text: String) throws {
    let expected = try #require(reference().date(from: text))
    #expect(iso.parse(text) == expected)
  }

  @Test(arguments: [
    "2023-01-01T00:00:05.5Z",
    "2023-01-01T00:00:05.25+02:00",
    "2023-01-01T00:00:05.123Z",
    "2024-02-29T23:59:59.999-05:00",
    "1969-12-31T23:59:59.001Z",
    "1955-11-05T06:15:00.100+0100",
  ])
  func fractionalSecondsMatchFoundation(_ text: String) throws {
    let expected = try #require(reference(fractional: true).date(from: text))
    let parsed = try #require(iso.parse(text))
    #expect(abs(parsed.timeIntervalSince(expected)) < 1e-6)
  }

  @Test func unixEpochIsZero() {
    #expect(iso.parse("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
  }

  @Test func firstAndLastYearsAreAccepted() {
    #expect(iso.parse("0000-01-01T00:00:00Z") == Date(timeIntervalSince1970: -62_167_219_200))
    #expect(iso.parse("9999-12-31T23:59:59Z") == Date(timeIntervalSince1970: 253_402_300_799))
  }

  @Test func offsetIsSubtractedFromLocalTime() {
    let utc = iso.parse("2023-01-01T00:00:00Z")
    #expect(iso.parse("2023-01-01T01:30:00+01:30") == utc)
    #expect(iso.parse("2023-01-01T01:30:00+0130") == utc)
    #expect(iso.parse("2022-12-31T22:00:00-02:00") == utc)
  }

  @Test func lowercaseSeparatorAndZoneAreAccepted() {
    #expect(iso.parse("2023-01-01t00:00:05z") == iso.parse("2023-01-01T00:00:05Z"))
    #expect(iso.parse("2023-01-01t00:00:05Z") == Date(timeIntervalSince1970: 1_672_531_205))
  }

  @Test(arguments: [
    ("2023-01-01T00:00:05.1Z", 0.1),
    ("2023-01-01T00:00:05.123Z", 0.123),
    ("2023-01-01T00:00:05.123456Z", 0.123456),
    ("2023-01-01T00:00:05.123456789Z", 0.123456789),
    ("2023-01-01T00:00:05.123456789999Z", 0.123456789),
    ("2023-01-01T00:00:05.000000000001Z", 0),
    ("2023-01-01T00:00:05.999999+01:00", -3600 + 0.999999),
  ])
  func fractionsOfAnyLengthKeepNanoseconds(_ text: String, fraction: Double) throws {
    let parsed = try #require(iso.parse(text))
    let expected = Date(timeIntervalSince1970: 1_672_531_205 + fraction)
    #expect(abs(parsed.timeIntervalSince(expected)) < 1e-6)
  }

  @Test func fractionBeforeEpochCountsForward() throws {
    let parsed = try #require(iso.parse("1969-12-31T23:59:59.75Z"))
    #expect(abs(parsed.timeIntervalSince1970 - -0.25) < 1e-6)
  }

  @Test(arguments: [
    "2023-02-29T00:00:00Z",  // not a leap year
    "1900-02-29T00:00:00Z",  // century, not a leap year
    "2023-13-01T00:00:00Z",
    "2023-00-01T00:00:00Z",
    "2023-01-00T00:00:00Z",
    "2023-04-31T00:00:00Z",
    "2023-01-32T00:00:00Z",
    "2023-01-01T24:00:00Z",
    "2023-01-01T00:60:00Z",
    "2023-01-01T00:00:60Z",  // no leap seconds
    "2023-01-01T00:00:05+24:00",
    "2023-01-01T00:00:05+01:60",
    "2023-01-01T00:00:05",  // missing zone
    "2023-01-01T00:00:05+01",
    "2023-01-01T00:00:05+01:",
    "2023-01-01T00:00:05+1:30",
    "2023-01-01T00:00:05+01:30:00",
    "2023-01-01T00:00:05.Z",
    "2023-01-01T00:00:05,5Z",
    "2023-01-01T00:00:05ZZ",
    "2023-01-01T00:00Z",
    "2023-01-01",
    "2023-01-01T00:00:05Z ",
    " 2023-01-01T00:00:05Z",
    "2023-01-01 00:00:05Z",
    "2023-01-01_00:00:05Z",
    "2023/01/01T00:00:05Z",
    "2023-1-1T00:00:00Z",
    "+2023-01-01T00:00:00Z",
    "-2023-01-01T00:00:00Z",
    "12023-01-01T00:00:00Z",
    "",
    "Z",
    "٢٠٢٣-01-01T00:00:00Z",  // Arabic-Indic digits
    "２０２３-01-01T00:00:00Z",  // fullwidth digits
    "2023-01-01T00:00:0５Z",
  ])
  func malformedISO8601IsRejected(_ text: String) {
    #expect(iso.parse(text) == nil)
  }

  @Test func daysFromCivilCountsEveryYearFrom0000To9999() {
    #expect(DateParser.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
    var days = DateParser.daysFromCivil(year: 0, month: 1, day: 1)
    #expect(days == -719_528)
    for year in 0...9999 {
      #expect(DateParser.daysFromCivil(year: year, month: 1, day: 1) == days)
      for month in 1...12 { days += DateParser.daysInMonth(month, year: year) }
    }
    #expect(DateParser.daysFromCivil(year: 10000, month: 1, day: 1) == days)
  }

  // MARK: Input shapes

  @Test func everyTextInputShapeParsesAlike() {
    let text = "2023-01-01T00:00:05Z"
    let bytes = Array(text.utf8)
    let expected = Date(timeIntervalSince1970: 1_672_531_205)
    #expect(iso.parse(text) == expected)
    #expect(iso.parse(text: bytes) == expected)
    #expect(iso.parse(text: ([0x22] + bytes + [0x22])[1...bytes.count]) == expected)
    #expect(iso.parse(text: Data(bytes)) == expected)
    #expect(iso.parse(text: AnyCollection(bytes)) == expected)
    #expect(iso.parse(text: text.utf8) == expected)
    #expect(bytes.withUnsafeBufferPointer { iso.parse(text: $0) } == expected)
  }

  // MARK: Epoch values

  @Test func epochSecondsAreReadFromNumbersAndDigitStrings() {
    let parser = DateParser(formats: [.epochSeconds])
    #expect(parser.parse(number: 1_672_531_205) == Date(timeIntervalSince1970: 1_672_531_205))
    #expect(parser.parse(number: 1.5) == Date(timeIntervalSince1970: 1.5))
    #expect(parser.parse(number: -86_400) == Date(timeIntervalSince1970: -86_400))
    #expect(parser.parse(number: 253_402_300_799) == Date(timeIntervalSince1970: 253_402_300_799))
    #expect(parser.parse("1672531205") == Date(timeIntervalSince1970: 1_672_531_205))
    #expect(parser.parse("-86400") == Date(timeIntervalSince1970: -86_400))
    #expect(parser.parse("0") == Date(timeIntervalSince1970: 0))
  }

  @Test func epochMillisecondsAreDividedByAThousand() {
    let parser = DateParser(formats: [.epochMilliseconds])
    let expected = Date(timeIntervalSince1970: 1_672_531_205.123)
    #expect(parser.parse(number: 1_672_531_205_123) == expected)
    #expect(parser.parse("1672531205123") == expected)
    #expect(parser.parse("-1500") == Date(timeIntervalSince1970: -1.5))
  }

  @Test(arguments: [Double.nan, .infinity, -.infinity, 253_402_300_800, -1e300])
  func nonFiniteOrFarEpochNumbersAreRejected(_ number: Double) {
    #expect(DateParser(formats: [.epochSeconds]).parse(number: number) == nil)
    #expect(DateParser(formats: [.epochMilliseconds]).parse(number: number * 1000) == nil)
  }

  @Test(arguments: [
    "", "-", "--1", "+12", "12a", " 12", "12 ", "1.5", "1e3", "0x10", "٣",
    "99999999999999999999999999",
  ])
  func malformedEpochStringsAreRejected(_ text: String) {
    #expect(DateParser(formats: [.epochSeconds]).parse(text) == nil)
    #expect(DateParser(formats: [.epochMilliseconds]).parse(text) == nil)
  }

  @Test func epochStringsReachingYear10000AreRejected() {
    #expect(DateParser(formats: [.epochSeconds]).parse("253402300800") == nil)
    #expect(DateParser(formats: [.epochSeconds]).parse("-253402300800") == nil)
    #expect(DateParser(formats: [.epochMilliseconds]).parse("253402300800000") == nil)
    #expect(DateParser(formats: [.epochMilliseconds]).parse("253402300799999") != nil)
  }

  @Test func numbersNeedAnEpochFormat() {
    #expect(iso.parse(number: 0) == nil)
    #expect(DateParser(formats: [.pattern("yyyy")]).parse(number: 2023) == nil)
    let mixed = DateParser(formats: [.iso8601, .epochMilliseconds])
    #expect(mixed.parse(number: 1500) == Date(timeIntervalSince1970: 1.5))
  }

  // MARK: Patterns and order

  @Test func legacyPatternsReadInTheParserTimeZone() throws {
    let dateTime = DateParser(formats: [.pattern("yyyy-MM-dd HH:mm:ss")])
    #expect(dateTime.parse("2023-01-01 00:00:05") == Date(timeIntervalSince1970: 1_672_531_205))

    let dayFirst = DateParser(formats: [.pattern("dd/MM/yyyy")])
    #expect(dayFirst.parse("01/02/2023") == Date(timeIntervalSince1970: 1_675_209_600))

    let paris = try #require(TimeZone(secondsFromGMT: 3600))
    let local = DateParser(formats: [.pattern("yyyy-MM-dd HH:mm:ss")], timeZone: paris)
    #expect(local.parse("2023-01-01 01:00:05") == Date(timeIntervalSince1970: 1_672_531_205))
  }

  @Test(arguments: [
    "2023-02-29 00:00:00",
    "2023-01-01 00:00:05 junk",
    " 2023-01-01 00:00:05",
    "2023-01-01 00:00:05 ",
    "2023-01-01T00:00:05Z",
    "2023-01-01",
    "",
  ])
  func patternMustMatchTheWholeString(_ text: String) {
    #expect(DateParser(formats: [.pattern("yyyy-MM-dd HH:mm:ss")]).parse(text) == nil)
  }

  @Test func orderedFormatsAcceptEachKind() {
    let parser = DateParser(formats: [.iso8601, .pattern("yyyy-MM-dd HH:mm:ss")])
    let expected = Date(timeIntervalSince1970: 1_672_531_205)
    #expect(parser.parse("2023-01-01T00:00:05Z") == expected)
    #expect(parser.parse("2023-01-01 00:00:05") == expected)
    #expect(parser.parse("01/01/2023") == nil)
    #expect(iso.parse("2023-01-01 00:00:05") == nil)
  }

  @Test func firstAcceptingFormatWins() {
    let newYear = Date(timeIntervalSince1970: 1_672_531_200)
    let day = DateParser(formats: [.pattern("yyyyMMdd"), .epochSeconds])
    #expect(day.parse("20230101") == newYear)
    let seconds = DateParser(formats: [.epochSeconds, .pattern("yyyyMMdd")])
    #expect(seconds.parse("20230101") == Date(timeIntervalSince1970: 20_230_101))

    #expect(
      DateParser(formats: [.epochSeconds, .epochMilliseconds]).parse("1500")
        == Date(timeIntervalSince1970: 1500))
    #expect(
      DateParser(formats: [.epochMilliseconds, .epochSeconds]).parse("1500")
        == Date(timeIntervalSince1970: 1.5))
  }

  // MARK: Descriptions and names

  @Test func expectationNamesEveryFormat() {
    let two = DateParser(formats: [.iso8601, .pattern("yyyy-MM-dd HH:mm:ss")])
    #expect(two.expectation == "ISO 8601 (2023-01-01T00:00:05Z) or yyyy-MM-dd HH:mm:ss")
    #expect(iso.expectation == "ISO 8601 (2023-01-01T00:00:05Z)")

    let all = DateParser(
      formats: [.iso8601, .epochSeconds, .epochMilliseconds, .pattern("dd/MM/yyyy")])
    for part in ["ISO 8601", "epoch seconds", "epoch milliseconds", "dd/MM/yyyy"] {
      #expect(all.expectation.contains(part))
    }
    #expect(!DateParser(formats: []).expectation.isEmpty)
  }

  /// `Fuzz/findings/decoder-dateformatter-leak-non-bmp.bin`: non-ASCII text never reaches the
  /// formatter of an ASCII pattern (Foundation leaks on characters outside the BMP); a pattern
  /// with non-ASCII literal text still reads non-ASCII values.
  @Test func nonASCIITextOnlyReachesPatternsThatCouldMatchIt() {
    let ascii = DateParser(formats: [.pattern("yyyy-MM-dd HH:mm:ss")])
    for text in ["𝄞", "2023-01-01 00:00:0𝄞", "２０２３-01-01 00:00:00", "é"] {
      #expect(ascii.parse(text) == nil)
    }
    #expect(ascii.parse("2023-01-01 00:00:05") == Date(timeIntervalSince1970: 1_672_531_205))
    let japanese = DateParser(formats: [.pattern("yyyy'年'MM'月'dd'日'")])
    #expect(japanese.parse("2023年01月02日") == Date(timeIntervalSince1970: 1_672_617_600))
  }

  @Test(arguments: [
    DateFormat.iso8601, .epochSeconds, .epochMilliseconds,
    .pattern("yyyy-MM-dd HH:mm:ss"), .pattern("dd/MM/yyyy"),
  ])
  func specNameRoundTrips(_ format: DateFormat) throws {
    #expect(try DateFormat(specName: format.specName) == format)
  }

  @Test func specNamesParseToFormats() throws {
    #expect(try DateFormat(specName: "iso8601") == .iso8601)
    #expect(try DateFormat(specName: "epochSeconds") == .epochSeconds)
    #expect(try DateFormat(specName: "epochMilliseconds") == .epochMilliseconds)
    #expect(try DateFormat(specName: "dd/MM/yyyy") == .pattern("dd/MM/yyyy"))
    #expect(try DateFormat(specName: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX") == .pattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX"))
    #expect(try DateFormat(specName: "EEE, d MMM yyyy HH:mm:ss Z") == .pattern("EEE, d MMM yyyy HH:mm:ss Z"))
    #expect(try DateFormat(specName: "MM/dd/yy h:mm a") == .pattern("MM/dd/yy h:mm a"))
  }

  /// Issue 8, finding 8: misspelled names were taken as patterns that match nothing.
  @Test(arguments: [
    ("iso8061", "did you mean iso8601?"), ("epochSecond", "did you mean epochSeconds?"),
    ("", "an empty pattern"), ("ISO8601", "did you mean iso8601?"), ("HH:mm", "it has no year"),
    ("yyyy-MM-dd 'at", "an unterminated quote"), ("yyyy-MM-dd%", "'%' is not allowed"),
    ("yyyyy-MM-dd", "'yyyyy' is not a field"),
  ])
  func misspelledOrMalformedFormatsAreErrors(_ name: String, _ expected: String) {
    #expect {
      _ = try DateFormat(specName: name)
    } throws: { error in
      "\(error)".contains(expected) && "\(error)".contains("'\(name)' is not a date format")
    }
  }
}
