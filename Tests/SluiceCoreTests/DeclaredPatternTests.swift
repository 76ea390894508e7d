import Foundation
import Testing

@_spi(Internals) @testable import SluiceCore

/// A dataset file's patterns match as Swift's `Regex` (the ECMA-262 reading) says, whichever
/// engine answers: glibc's POSIX engine for ASCII texts when the pattern translates, `Regex`
/// otherwise. Checked differentially on random texts over an alphabet of the characters the
/// patterns name, and on the cases each construct is about.
@Suite("dataset file patterns")
struct DeclaredPatternTests {
  static let translated = [
    "^[A-Z]{3}$", "\\d+", "^\\d{2,4}-\\d+$", "^(?:ab|c)*?d$", "[^\\x00-\\x20\\x7F]", "a.c", "^[\\]\\-^]+$",
    "^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$", "x{2,}", "^\\s*$", "\\S\\W", "^(a|b)+?c?$", "[\\^]",
    "^[Hh][Tt][Tt][Pp]([Ss])?://[A-Za-z0-9.-]+(:[0-9]{1,5})?([/?#][^\\x00-\\x20\\x7F]*)?$", "\\$\\.\\*", "[a-]",
    "^[^a-c]{0,2}$", "\\t|\\n", "(?:)", "[\\d\\s]x", "^-?\\d+(\\.\\d{1,2})?$", "[/]\\/",
  ]
  static let regexOnly = [
    "[[:alpha:]]", "[a[bc]]", "[a-z&&[^x]]", "[a--b]", "(?=a)a", "\\bword\\b", "(a)\\1", "\\u0041", "\\p{L}", "é",
    "a(?!b)",
  ]
  static let alphabet = Array("aAbBcCdDxXZz0129 -_.@:/?#[]^$*\\|\t\nhtpsHTPS\u{7F}\u{1}é")

  @Test(arguments: translated)
  func aTranslatedPatternMatchesAsRegexDoes(_ source: String) throws {
    let pattern = try DeclaredPattern(source)
    #expect(pattern.hasPosixPath, "\(source) should take the POSIX path")
    let regex = try Regex(source)
    var generator = SystemRandomNumberGenerator()
    var texts = ["", "EUR", "eur", "EURO", "12-345", "d", "abcd", "ab@cd.io", "xx", "https://a.b/c", "http://x:8080"]
    for _ in 0..<3_000 {
      let length = Int.random(in: 0...10, using: &generator)
      texts.append(String((0..<length).map { _ in Self.alphabet.randomElement(using: &generator)! }))
    }
    for text in texts {
      let expected = (try regex.firstMatch(in: text)) != nil
      #expect(pattern.matches(text) == expected, "\(source) on \(text.debugDescription)")
    }
  }

  @Test(arguments: regexOnly)
  func aPatternBeyondTheSubsetIsRegexs(_ source: String) throws {
    let pattern = try DeclaredPattern(source)
    #expect(!pattern.hasPosixPath)
    #expect(pattern.matches("a word é A1") == ((try Regex(source).firstMatch(in: "a word é A1")) != nil))
  }

  @Test func textTheByteEngineWouldReadOtherwiseGoesToRegex() throws {
    let pattern = try DeclaredPattern("^.{3}$")
    #expect(pattern.hasPosixPath)
    #expect(pattern.matches("héé"))  // three characters in five bytes: Regex's answer
    #expect(!pattern.matches("hééé"))
    #expect(pattern.matches("abc"))
    // A NUL would end the C string: such a text is Regex's too.
    let nul = "a\u{0}b"
    #expect(try DeclaredPattern("^a.b$").matches(nul) == ((try Regex("^a.b$").firstMatch(in: nul)) != nil))
    #expect(!DeclaredPattern.isPlainASCII(nul))
    #expect(!DeclaredPattern.isPlainASCII("é"))
    #expect(DeclaredPattern.isPlainASCII("EUR"))
  }
}
