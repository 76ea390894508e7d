import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// SHA-256 as the input ledger computes it: FIPS 180-4's examples, every way of cutting the
/// input into pieces, the digest so far of a file still being written, and coreutils'
/// `sha256sum` on real files, gzip included.
@Suite("SHA-256 of inputs")
struct SHA256Tests {
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ])
  func theStandardsExamples(message: String, digest: String) {
    #expect(SHA256.hex(of: Array(message.utf8)) == digest)
    let hasher = SHA256()
    Array(message.utf8).withUnsafeBytes { hasher.update($0) }
    #expect(SHA256.hex(hasher.finish()) == digest)
  }

  @Test func aMillionAs() {
    let hasher = SHA256()
    let block = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
    for _ in 0..<1000 { block.withUnsafeBytes { hasher.update($0) } }
    #expect(SHA256.hex(hasher.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    #expect(hasher.byteCount == 1_000_000)
  }

  /// The digest so far, taken after every byte of random input, is the digest of the bytes fed
  /// until then, and taking it changes nothing of what follows.
  @Test func theDigestSoFarIsThatOfThePrefixAndLeavesTheHasherGoing() {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let hasher = SHA256()
    for length in 1...bytes.count {
      hasher.update(bytes[(length - 1)..<length])
      #expect(hasher.digestSoFar() == Self.digest(bytes.prefix(length)), "length \(length)")
    }
    #expect(hasher.byteCount == Int64(bytes.count))
    #expect(hasher.finish() == Self.digest(bytes[...]))
  }

  private static func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    let hasher = SHA256()
    hasher.update(bytes)
    return hasher.finish()
  }

  /// Lengths around the padding's edges (55, 56, 63, 64, 65 bytes), fed whole and in pieces of
  /// every size from 1 to 70: the digest never depends on where the pieces fall.
  @Test func piecesOfAnySizeGiveTheSameDigest() {
    for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
      let whole = SHA256.hex(of: bytes)
      for piece in 1...70 {
        let hasher = SHA256()
        var start = 0
        while start < bytes.count {
          let end = min(start + piece, bytes.count)
          bytes[start..<end].withUnsafeBytes { hasher.update($0) }
          start = end
        }
        #expect(SHA256.hex(hasher.finish()) == whole, "length \(length), pieces of \(piece)")
      }
    }
  }

  /// The digest of an input read through `Input` (gzip detected, inflated, records read in
  /// small pieces, the rest after the last record drained) is `sha256sum`'s of the file: the
  /// compressed bytes for gzip.
  @Test func anInputsDigestIsSha256sumsOfTheFile() throws {
    let directory = try TemporaryDirectory()
    var text = "[\n"
    for index in 0..<20_000 { text += #"{"id": \#(index), "name": "fruit \#(index) — ü"},"# + "\n" }
    text += "{}]\n\n   \n"
    let plain = try directory.write("plain.json", text)
    let gzip = try directory.write("packed.json.gz", Gzip.compress(text))
    for path in [plain, gzip] {
      let input = try Input(path: path, digesting: true)
      var buffer = [UInt8](repeating: 0, count: 1000)
      // Read only part of it, as a reader that stops at the closing bracket would.
      for _ in 0..<50 { _ = try buffer.withUnsafeMutableBytes { try input.read(into: $0) } }
      let digest = try #require(try input.finishDigest())
      let expected = try Self.shell("sha256sum '\(path)' | cut -c1-64")
      #expect(digest.sha256 == expected, "\(path)")
      let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
      #expect(digest.bytes == Int64(size))
      let head = try Self.shell("head -c 65536 '\(path)' | sha256sum | cut -c1-64")
      #expect(digest.headSHA256 == head)
      #expect(try InputDigest.head(of: path) == head)
      #expect(try InputDigest.of(file: path) == digest)
    }
  }

  /// What a shell command prints, trimmed.
  private static func shell(_ script: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func anInputNotDigestingHasNoDigest() throws {
    let directory = try TemporaryDirectory()
    let input = try Input(path: try directory.write("a.json", "[]"))
    #expect(try input.finishDigest() == nil)
  }
}
