// Fuzz target `pattern`: a dataset file's `pattern` rule (`DeclaredPattern`, RE2 behind a C face)
// on arbitrary patterns and texts, long texts made by repeating a short one.
//
// Input: a control byte, then the pattern's bytes up to the first NUL, then the text's. The
// control byte's low two bits repeat the text 1, 64, 1,024 or 16,384 times (at most 256 KiB),
// so that the inputs that make a backtracking engine explode — many `a`s and then a `!` — are
// a few bytes for libFuzzer to find. Bytes that are not UTF-8 are repaired (a field's text is a
// Swift string).
//
// Invariants checked: a pattern is compiled or refused with a reason, and within its bounds
// (instructions); compiling takes at most 100 ms of CPU; a match at most 50 ms + 30 ns for each
// byte of text times each instruction — RE2's linear bound, O(text × program), with a constant
// far above what it needs — and never the time a backtracking engine takes (issue 55, finding 3);
// the same text matched twice gives the same answer (no state kept between matches).
import FuzzSupport
@_spi(Internals) import SluiceCore

#if canImport(Glibc)
  import Glibc
#endif

/// The thread's CPU time, not the wall clock: the bounds are about the work a match does, and a
/// shared machine (CI's, or a developer's under a build) stretches wall time many times over —
/// a 30-second run on a machine at load 18 once saw a refusal "take" 144 ms.
private func seconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPattern(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let bytes = fuzzBytes(start, count)
  guard let control = bytes.first else { return 0 }
  let rest = bytes.dropFirst()
  let end = rest.firstIndex(of: 0) ?? rest.endIndex
  let source = String(decoding: rest[..<end], as: UTF8.self)
  let unit = end < rest.endIndex ? String(decoding: rest[(end + 1)...], as: UTF8.self) : ""
  let repeats = [1, 64, 1_024, 16_384][Int(control & 3)]
  let text = String(repeating: unit, count: unit.utf8.isEmpty ? 0 : min(repeats, max(1, (256 << 10) / unit.utf8.count)))

  let compileStart = seconds()
  let pattern: DeclaredPattern
  do {
    pattern = try DeclaredPattern(source)
  } catch {
    fuzzCheck(!error.description.isEmpty, "a pattern was refused without a reason")
    fuzzCheck(seconds() - compileStart < 0.1, "refusing a pattern took \(seconds() - compileStart) s")
    observe(error.description)
    return 0
  }
  fuzzCheck(seconds() - compileStart < 0.1, "compiling a pattern took \(seconds() - compileStart) s")
  fuzzCheck(
    pattern.instructionCount > 0 && pattern.instructionCount <= DeclaredPattern.instructionBound,
    "a pattern of \(pattern.instructionCount) instructions was accepted")

  let matchStart = seconds()
  let matched = pattern.matches(text)
  let elapsed = seconds() - matchStart
  let bound = 0.05 + 30e-9 * Double(text.utf8.count) * Double(pattern.instructionCount)
  fuzzCheck(
    elapsed <= bound,
    "matching \(text.utf8.count) bytes with \(pattern.instructionCount) instructions took \(elapsed) s (bound \(bound) s)"
  )
  fuzzCheck(pattern.matches(text) == matched, "the same text matched twice gave two answers")
  // Observed, so that the optimizer keeps the matches.
  observe(matched ? 1 : 0)
  observe(pattern.matches(unit) ? 2 : 3)
  return 0
}
