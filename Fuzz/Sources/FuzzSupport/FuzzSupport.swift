// Shared by the fuzz targets: an observable sink for results, so the optimizer keeps the work,
// and a check that turns a broken invariant into a crash libFuzzer records as an artifact.
#if canImport(Glibc)
  import Glibc
#endif

/// Everything a target computes is folded into this global, which the process could print:
/// the optimizer cannot prove the work unobservable and delete it.
nonisolated(unsafe) public var fuzzChecksum: UInt64 = 0

@inline(never)
public func observe(_ value: UInt64) {
  fuzzChecksum = (fuzzChecksum ^ value) &* 0x100_0000_01b3
}

@inline(never)
public func observe(_ value: Int) { observe(UInt64(bitPattern: Int64(value))) }

@inline(never)
public func observe(_ value: Int64) { observe(UInt64(bitPattern: value)) }

/// Observes an array through its length and end bytes: enough to keep the work that built it
/// (hashing every byte in instrumented code would cost more than the code under test).
@inline(never)
public func observe(_ bytes: [UInt8]) {
  observe(bytes.count)
  if let first = bytes.first, let last = bytes.last { observe(UInt64(first) << 8 | UInt64(last)) }
}

/// Byte equality through memcmp: a Swift loop in this instrumented code would report every byte
/// comparison to libFuzzer and dominate the run time.
public func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
  guard a.count == b.count else { return false }
  guard let pa = a.baseAddress, let pb = b.baseAddress, a.count > 0 else { return true }
  return memcmp(pa, pb, a.count) == 0
}

public func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
  a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in sameBytes(pa, pb) } }
}

public func sameBytes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
  a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in sameBytes(pa, pb) } }
}

/// How many times `byte` occurs in `bytes[range]`, through memchr.
public func count(_ byte: UInt8, in bytes: [UInt8], _ range: Range<Int>) -> Int {
  bytes.withUnsafeBytes { raw in
    guard var p = raw.baseAddress.map({ $0 + range.lowerBound }) else { return 0 }
    let end = raw.baseAddress! + range.upperBound
    var n = 0
    while p < end, let hit = memchr(p, Int32(byte), end - p) {
      n += 1
      p = UnsafeRawPointer(hit) + 1
    }
    return n
  }
}

@inline(never)
public func observe(_ text: String) { observe(Array(text.utf8)) }

/// A broken invariant: prints why on stderr and aborts, which libFuzzer reports as a crash
/// ("deadly signal") and saves the input as an artifact.
public func fuzzCheck(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
  file: StaticString = #fileID, line: UInt = #line
) {
  if condition() { return }
  let text = "fuzz invariant broken at \(file):\(line): \(message())\n"
  var bytes = Array(text.utf8)
  _ = write(2, &bytes, bytes.count)
  abort()
}

/// The fuzzer's input as an array.
public func fuzzBytes(_ start: UnsafeRawPointer?, _ count: Int) -> [UInt8] {
  guard let start, count > 0 else { return [] }
  return Array(UnsafeRawBufferPointer(start: start, count: count))
}
