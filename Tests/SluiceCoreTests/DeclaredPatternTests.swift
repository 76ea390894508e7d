import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// A dataset file's patterns are RE2's: they match as Swift's `Regex` does on the syntax both
/// read (checked differentially on random texts), they refuse what RE2 cannot promise linear
/// time for, and no pattern and text hold a run — the ones that took a backtracking engine
/// minutes (issue 55, finding 3) are answered here, where the old engines never returned.
@Suite("dataset file patterns")
struct DeclaredPatternTests {
  /// Patterns in the syntax RE2 and ECMA-262 share (none that makes `Regex`, the reference,
  /// backtrack for long on these short texts).
  static let common = [
    "^[A-Z]{3}$", "\\d+", "^\\d{2,4}-\\d+$", "^(?:ab|c)*?d$", "[^\\x00-\\x20\\x7F]", "a.c", "^[\\]\\-^]+$",
    "^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$", "x{2,}", "^\\s*$", "\\S\\W", "^(a|b)+?c?$", "[\\^]",
    "^[Hh][Tt][Tt][Pp]([Ss])?://[A-Za-z0-9.-]+(:[0-9]{1,5})?([/?#][^\\x00-\\x20\\x7F]*)?$", "\\$\\.\\*", "[a-]",
    "^[^a-c]{0,2}$", "\\t|\\n", "(?:)", "[\\d\\s]x", "^-?\\d+(\\.\\d{1,2})?$", "[/]\\/", "\\bword\\b", "é", "^.{3}$",
    "^[^é]+$", "\\p{L}{2}", "^(a|ab)+$", "(xy?)+z",
  ]
  /// No newline: `$` before a final newline differs between engines' defaults (RE2's `$` is the
  /// text's end, as ECMA-262's; see `lineEndsAreECMAScripts`).
  static let alphabet = Array("aAbBcCdDxXyZz0129 -_.@:/?#[]^$*\\|\thtpsHTPS\u{7F}\u{1}éword")

  @Test(arguments: common)
  func aPatternMatchesAsRegexDoes(_ source: String) throws {
    let pattern = try DeclaredPattern(source)
    // Unicode scalars, not characters, and ASCII \d \w \s \b: ECMA-262's reading, and RE2's.
    let regex = try Regex(source).matchingSemantics(.unicodeScalar).asciiOnlyCharacterClasses()
      .wordBoundaryKind(.simple)
    var generator = SystemRandomNumberGenerator()
    var texts = ["", "EUR", "eur", "EURO", "12-345", "d", "abcd", "ab@cd.io", "xx", "https://a.b/c", "http://x:8080"]
    texts += ["a word é", "héé", "hééé", "aaaay", "xxxxxz"]
    for _ in 0..<1_000 {
      let length = Int.random(in: 0...10, using: &generator)
      texts.append(String((0..<length).map { _ in Self.alphabet.randomElement(using: &generator)! }))
    }
    for text in texts {
      let expected = (try regex.firstMatch(in: text)) != nil
      #expect(pattern.matches(text) == expected, "\(source) on \(text.debugDescription)")
    }
  }

  @Test func lineEndsAreECMAScripts() throws {
    #expect(try !DeclaredPattern("^a$").matches("a\n"))
    #expect(try !DeclaredPattern("^a.b$").matches("a\nb"))
    #expect(try DeclaredPattern("^a.b$").matches("a\u{0}b"))  // a NUL is a character like any other
    #expect(try DeclaredPattern("^$").matches(""))
  }

  @Test func unicodeEscapesAreReadAsECMAScriptWritesThem() throws {
    #expect(try DeclaredPattern("^\\u00e9$").matches("é"))
    #expect(try DeclaredPattern("^[\\u0041-\\u005A]+$").matches("ABC"))
    #expect(try DeclaredPattern("^\\u{1F600}$").matches("😀"))
    #expect(try DeclaredPattern("^\\uD83D\\uDE00$").matches("😀"))
    // An escaped backslash before `u` is a backslash and a `u`.
    #expect(try DeclaredPattern("^\\\\u0041$").matches("\\u0041"))
    #expect(throws: DeclaredPattern.Unreadable.self) { try DeclaredPattern("\\uD800") }
    #expect(throws: DeclaredPattern.Unreadable.self) { try DeclaredPattern("\\u12") }
    #expect(throws: DeclaredPattern.Unreadable.self) { try DeclaredPattern("\\u{110000}") }
  }

  /// Each took a backtracking engine from 20 s to more than 20 minutes (Swift's `Regex` for a
  /// non-ASCII text, glibc's `regexec` for ASCII); RE2 answers in linear time. The time limit
  /// only keeps a regression from hanging the suite.
  @Test(.timeLimit(.minutes(1)))
  func hostilePatternsAnswerOnHostileTexts() throws {
    #expect(try !DeclaredPattern("^(a+)+$").matches(String(repeating: "a", count: 24) + "é"))
    #expect(try !DeclaredPattern("^(a+)+$").matches(String(repeating: "a", count: 4_096) + "!"))
    #expect(try !DeclaredPattern("^(\\w+\\s?)*$").matches(String(repeating: "a", count: 46) + "é"))
    #expect(try !DeclaredPattern("[0-9]+x").matches(String(repeating: "1", count: 120_000)))
    #expect(try DeclaredPattern("[0-9]+y|x").matches(String(repeating: "1", count: 120_000) + "x"))
    // A field's largest value, 16 MiB, through a pattern with a group repeated.
    let words = String(repeating: "hello world ", count: (16 << 20) / 12)
    #expect(try DeclaredPattern("^(\\w+\\s?)*$").matches(words))
    #expect(try !DeclaredPattern("(x+x+)+y").matches(words))
  }

  @Test func aPatternRE2CannotPromiseLinearTimeForIsRefused() throws {
    for source in ["(?=a)a", "a(?!b)", "(a)\\1", "(?<=a)b"] {
      #expect(throws: DeclaredPattern.Unreadable.self, "\(source)") { try DeclaredPattern(source) }
    }
  }

  /// `^(a{0,200}){0,200}$` took Swift's `Regex` 30 s and 5.4 GiB to compile.
  @Test(.timeLimit(.minutes(1)))
  func aPatternTooLargeIsRefusedWhenRead() throws {
    for source in ["^(a{0,200}){0,200}$", "^(a{0,100}){0,100}$", String(repeating: "\\p{L}", count: 20)] {
      do {
        let pattern = try DeclaredPattern(source)
        Issue.record("\(source) compiled to \(pattern.instructionCount) instructions")
      } catch {
        #expect(!error.description.isEmpty)
      }
    }
    #expect(try DeclaredPattern("^(a{0,100}){0,10}$").instructionCount <= DeclaredPattern.instructionBound)
  }

  /// In a dataset file, a pattern RE2 cannot read is refused at its JSON path, naming RE2's syntax.
  @Test(arguments: ["(?=[A-Z])[A-Z]{3}", "^(a{0,200}){0,200}$", "([A-Z]", "\\uD800"])
  func aDatasetFilesUnreadablePatternIsRefusedAtItsPath(_ source: String) throws {
    let scratch = try TemporaryDirectory()
    let example = Repository.path("Examples/datasets/orders.dataset.json")
    var document = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: example))) as? [String: Any])
    var rules = try #require(document["rules"] as? [[String: Any]])
    rules[1]["pattern"] = source
    document["rules"] = rules
    let path = try scratch.write("orders.dataset.json", [UInt8](try JSONSerialization.data(withJSONObject: document)))
    do {
      _ = try DatasetFile.load(path)
      Issue.record("\(source) was accepted")
    } catch {
      #expect(error.subject == "dataset file")
      #expect(error.message.contains("'rules[1].pattern'"), "\(error.message)")
      #expect(error.message.contains("RE2"), "\(error.message)")
    }
  }
}
