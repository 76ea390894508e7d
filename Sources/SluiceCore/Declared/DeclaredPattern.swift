internal import CRE2

/// A rule's regular expression, in RE2's syntax. Like JSON Schema's `pattern`, it matches
/// anywhere in the text unless anchored (`^…$`).
///
/// RE2 (Debian's libre2-dev, through the `CRE2` target's C face) matches in time linear in the
/// text, whatever the pattern: a backtracking engine — Swift's `Regex`, glibc's `regexec`, PCRE2
/// — takes exponential or quadratic time on patterns like `^(a+)+$` or `[0-9]+x`, and a field
/// may hold 16 MiB, so one record could hold a run for hours. The price is RE2's syntax: no
/// look-arounds and no back-references, which a dataset file is refused for when it is read.
/// ECMA-262's `\uHHHH` and `\u{H…}` escapes, which RE2 writes `\x{H…}`, are translated first.
/// A compiled pattern is bounded too: its program and DFA caches share `memoryBound` bytes, and
/// a pattern of more than `instructionBound` instructions (`^(a{0,200}){0,200}$`) is refused
/// when read, in microseconds.
@_spi(Internals) public final class DeclaredPattern: @unchecked Sendable {
  // RE2 documents a compiled expression as safe to match from several threads at once; the
  // handle is never mutated after init.
  private let handle: OpaquePointer
  public let source: String
  /// The compiled program's size, in RE2 instructions.
  public let instructionCount: Int

  /// The memory RE2 may use for one pattern: its compiled program and its DFA state caches.
  /// When a text needs more DFA states than fit, RE2 falls back to its NFA: slower, still linear.
  public static let memoryBound = 2 << 20
  /// The largest program a pattern may compile to. `\p{L}` alone is about 1,200 instructions;
  /// the currency and URL patterns of the examples 7 and 41. The NFA's time per byte grows with
  /// the program, so this bounds the worst case to ~10,000 steps a byte.
  public static let instructionBound = 10_000

  /// A pattern Sluice cannot compile, with RE2's reason (or the bound it exceeds).
  public struct Unreadable: Error, CustomStringConvertible {
    public let description: String
  }

  public init(_ source: String) throws(Unreadable) {
    self.source = source
    let translated = try Self.translatingUnicodeEscapes(source)
    let capacity = 256
    var error = [CChar](repeating: 0, count: capacity)
    var instructions: Int32 = 0
    let compiled = translated.withCString { pattern in
      sluice_re2_compile(pattern, translated.utf8.count, Int64(Self.memoryBound), &error, capacity, &instructions)
    }
    guard let compiled else {
      let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw Unreadable(description: message.isEmpty ? "RE2 could not compile it" : message)
    }
    guard instructions <= Self.instructionBound else {
      sluice_re2_free(compiled)
      throw Unreadable(
        description: "it compiles to \(instructions) instructions, more than the \(Self.instructionBound) a pattern may"
      )
    }
    handle = compiled
    instructionCount = Int(instructions)
  }

  deinit {
    sluice_re2_free(handle)
  }

  /// Whether the pattern matches somewhere in `text`. RE2 answers in time linear in the text;
  /// it fails only when memory cannot be had, and a text it cannot check fails the rule.
  public func matches(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { characters in
        sluice_re2_partial_match(handle, characters.baseAddress, characters.count) == 1
      }
    }
  }

  /// ECMA-262's `\uHHHH` (a surrogate pair of them as one code point) and `\u{H…}` as RE2's
  /// `\x{H…}`, inside classes and out; every other escape is left as it is, for RE2 to read.
  /// A lone surrogate matches no UTF-8 text: it is refused.
  static func translatingUnicodeEscapes(_ source: String) throws(Unreadable) -> String {
    guard source.contains("\\u") else { return source }
    let scalars = Array(source.unicodeScalars)
    var output = String.UnicodeScalarView()
    var index = 0
    func hex(_ start: Int, count: Int) -> UInt32? {
      guard start + count <= scalars.count else { return nil }
      var value: UInt32 = 0
      for scalar in scalars[start..<start + count] {
        guard scalar.isASCII, let digit = UInt32(String(scalar), radix: 16) else { return nil }
        value = value * 16 + digit
      }
      return value
    }
    while index < scalars.count {
      let scalar = scalars[index]
      guard scalar == "\\", index + 1 < scalars.count else {
        output.append(scalar)
        index += 1
        continue
      }
      guard scalars[index + 1] == "u" else {
        output.append(scalar)
        output.append(scalars[index + 1])
        index += 2
        continue
      }
      var codePoint: UInt32
      if index + 2 < scalars.count, scalars[index + 2] == "{" {
        guard let close = scalars[(index + 3)...].firstIndex(of: "}"), close > index + 3, close - index - 3 <= 6,
          let value = hex(index + 3, count: close - index - 3)
        else { throw Unreadable(description: "\\u{…} needs one to six hexadecimal digits") }
        codePoint = value
        index = close + 1
      } else {
        guard let value = hex(index + 2, count: 4) else {
          throw Unreadable(description: "\\u needs four hexadecimal digits (or \\u{…})")
        }
        codePoint = value
        index += 6
        // A high surrogate followed by a low one is one code point, as in ECMA-262.
        if (0xD800...0xDBFF).contains(codePoint), index + 1 < scalars.count, scalars[index] == "\\",
          scalars[index + 1] == "u", let low = hex(index + 2, count: 4), (0xDC00...0xDFFF).contains(low)
        {
          codePoint = 0x10000 + ((codePoint - 0xD800) << 10) + (low - 0xDC00)
          index += 6
        }
      }
      guard Unicode.Scalar(codePoint) != nil else {
        throw Unreadable(
          description: "\\u escapes U+\(String(codePoint, radix: 16, uppercase: true)), which is no Unicode scalar")
      }
      output.append(contentsOf: "\\x{\(String(codePoint, radix: 16, uppercase: true))}".unicodeScalars)
    }
    return String(output)
  }
}
