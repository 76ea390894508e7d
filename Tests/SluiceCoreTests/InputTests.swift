import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

@Suite("Input: files, stdin, gzip by magic")
struct InputTests {
  static let document = #"[{"a":1},{"a":2}]"# + "\n"

  private func readAll(_ input: Input) throws -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 7)
    while true {
      let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
      if n == 0 { return result }
      result += buffer[0..<n]
    }
  }

  @Test func plainFileReadsAsIs() throws {
    let directory = try TemporaryDirectory()
    let input = try Input(path: try directory.write("plain.json", Self.document))
    #expect(!input.isGzip)
    #expect(try readAll(input) == Array(Self.document.utf8))
    #expect(input.compressedBytes == Int64(Self.document.utf8.count))
    #expect(input.decompressedBytes == Int64(Self.document.utf8.count))
  }

  @Test func gzipIsDetectedByMagicNotByName() throws {
    let directory = try TemporaryDirectory()
    let compressed = Gzip.compress(Self.document)
    let input = try Input(path: try directory.write("looks-plain.json", compressed))
    #expect(input.isGzip)
    #expect(try readAll(input) == Array(Self.document.utf8))
    #expect(input.compressedBytes == Int64(compressed.count))
    #expect(input.decompressedBytes == Int64(Self.document.utf8.count))

    let fake = try Input(path: try directory.write("not-really.gz", Self.document))
    #expect(!fake.isGzip)
    #expect(try readAll(fake) == Array(Self.document.utf8))
  }

  @Test func multiMemberGzipReadsAsOneStream() throws {
    let directory = try TemporaryDirectory()
    let parts = ["[{\"a\":1},", "{\"a\":2},", "{\"a\":3}]"]
    let bytes = parts.flatMap { Gzip.compress($0) }
    let input = try Input(path: try directory.write("members.json.gz", bytes))
    #expect(String(decoding: try readAll(input), as: UTF8.self) == parts.joined())
  }

  @Test func truncatedGzipIsAnErrorWithItsOffset() throws {
    let directory = try TemporaryDirectory()
    let payload = String(repeating: #"{"fruitID":"F1","name":"Kiwi"},"#, count: 2000)
    let compressed = Gzip.compress(payload)
    let cut = compressed.count / 2
    let input = try Input(path: try directory.write("cut.json.gz", Array(compressed[0..<cut])))
    let error = try #require(throws: InputError.self) { try readAll(input) }
    #expect(error.code == .truncatedStream)
    #expect(error.compressedOffset == Int64(cut))
    #expect((error.decompressedOffset ?? 0) > 0)
    #expect(error.description.contains("truncated"))
  }

  @Test func streamCutInsideTheTrailerIsTruncated() throws {
    let directory = try TemporaryDirectory()
    let compressed = Gzip.compress(Self.document)
    let input = try Input(path: try directory.write("trailer.gz", Array(compressed.dropLast(3))))
    let error = try #require(throws: InputError.self) { try readAll(input) }
    #expect(error.code == .truncatedStream)
  }

  @Test func corruptGzipIsAnErrorWithItsOffset() throws {
    let directory = try TemporaryDirectory()
    let payload = (0..<3000).map { #"{"id":\#($0),"name":"fruit \#($0 * 7919 % 1000)"}"# }.joined(separator: ",")
    var compressed = Gzip.compress(payload)
    let damaged = compressed.count / 2
    for index in damaged..<damaged + 8 { compressed[index] ^= 0x5A }
    let input = try Input(path: try directory.write("bad.json.gz", compressed))
    let error = try #require(throws: InputError.self) { try readAll(input) }
    #expect(error.code == .corruptStream)
    let offset = try #require(error.compressedOffset)
    #expect(offset >= Int64(damaged) && offset <= Int64(compressed.count))
  }

  @Test func checksumMismatchIsCorruption() throws {
    let directory = try TemporaryDirectory()
    var compressed = Gzip.compress(Self.document)
    compressed[compressed.count - 8] ^= 0xFF  // first byte of the CRC-32 in the trailer
    let input = try Input(path: try directory.write("crc.gz", compressed))
    let error = try #require(throws: InputError.self) { try readAll(input) }
    #expect(error.code == .corruptStream)
    #expect(error.message.contains("check"))
  }

  @Test func garbageAfterAMemberIsCorruption() throws {
    let directory = try TemporaryDirectory()
    let bytes = Gzip.compress(Self.document) + Array("trailing text".utf8)
    let input = try Input(path: try directory.write("garbage.gz", bytes))
    let error = try #require(throws: InputError.self) { try readAll(input) }
    #expect(error.code == .corruptStream)
  }

  /// Issue 8, finding 10: `gzip -t` accepts zero padding after the last member (tapes, block
  /// devices), so Sluice does too — but only zeros, to the end.
  @Test func zeroPaddingAfterTheLastMemberEndsTheStream() throws {
    let directory = try TemporaryDirectory()
    let padded = Gzip.compress(Self.document) + [UInt8](repeating: 0, count: 70_000)
    let input = try Input(path: try directory.write("padded.gz", padded))
    #expect(try readAll(input) == Array(Self.document.utf8))

    let dirty =
      Gzip.compress(Self.document) + [UInt8](repeating: 0, count: 100) + [1] + [UInt8](repeating: 0, count: 10)
    let broken = try Input(path: try directory.write("dirty.gz", dirty))
    #expect {
      _ = try readAll(broken)
    } throws: { error in
      (error as? InputError)?.code == .corruptStream
        && "\(error)".contains("non-zero bytes after the zero padding that follows member 1")
    }
  }

  /// Issue 8, finding 10: window bits 15 + 32 also accepted a zlib stream after a gzip member
  /// and read it as data.
  @Test func aZlibStreamAfterAGzipMemberIsCorruption() throws {
    let directory = try TemporaryDirectory()
    // "[3]\n" as a zlib stream (RFC 1950: header 78 9C, deflate data, Adler-32).
    let zlib: [UInt8] = [0x78, 0x9C, 0x8B, 0x36, 0x8E, 0xE5, 0x02, 0x00, 0x02, 0xCD, 0x00, 0xF6]
    let input = try Input(path: try directory.write("mixed.gz", Gzip.compress(Self.document) + zlib))
    #expect {
      _ = try readAll(input)
    } throws: { error in
      (error as? InputError)?.code == .corruptStream
    }
  }

  /// Found by `Fuzz/run gzip-input` (Fuzz/findings/gzip-input-corrupt-reported-as-truncated.bin):
  /// the input ended while zlib still held output it had no room for, and whether the stream was
  /// called truncated or corrupt depended on the size of the reader's buffer.
  @Test(arguments: [1, 7, 4096, 1 << 16])
  func theVerdictOnABrokenStreamDoesNotDependOnTheBufferSize(_ size: Int) throws {
    let directory = try TemporaryDirectory()
    let bytes: [UInt8] = [
      0x1f, 0x8b, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x03, 0x8b, 0xff, 0xff, 0xff, 0x4f, 0x70,
      0x74, 0x69, 0x6f, 0xff, 0xff, 0xff, 0x69, 0x70, 0xff, 0xff,
    ]
    let input = try Input(path: try directory.write("finding.gz", bytes))
    var buffer = [UInt8](repeating: 0, count: size)
    let error = try #require(throws: InputError.self) {
      while try buffer.withUnsafeMutableBytes({ try input.read(into: $0) }) > 0 {}
    }
    #expect(error.code == .corruptStream)
    #expect(error.message.contains("invalid distance too far back"))
  }

  @Test func emptyFileReadsAsEmpty() throws {
    let directory = try TemporaryDirectory()
    let input = try Input(path: try directory.write("empty.json", ""))
    #expect(!input.isGzip)
    #expect(try readAll(input).isEmpty)
  }

  @Test func missingFileIsNotFound() throws {
    let error = try #require(throws: InputError.self) {
      try Input(path: "/nonexistent/sluice/input.json")
    }
    #expect(error.code == .notFound)
  }

  @Test func directoryIsUnreadable() throws {
    let directory = try TemporaryDirectory()
    let error = try #require(throws: InputError.self) { try Input(path: directory.path) }
    #expect(error.code == .unreadable)
  }

  @Test func largeGzipStreamsInFixedChunks() throws {
    // 4 MB of records through a 64 KiB inflate window and a 7-byte read buffer would be slow;
    // a 64 KiB buffer checks that output arrives in bounded pieces and adds up exactly.
    let directory = try TemporaryDirectory()
    let line = #"{"fruitID":"F0000001","name":"Äpfelchen","color":"red","recipes":[]}"# + "\n"
    let payload = String(repeating: line, count: 60_000)
    let input = try Input(path: try directory.write("big.ndjson.gz", Gzip.compress(payload)))
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var total = 0
    while true {
      let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
      if n == 0 { break }
      #expect(n <= buffer.count)
      total += n
    }
    #expect(total == payload.utf8.count)
    #expect(input.decompressedBytes == Int64(payload.utf8.count))
  }
}
