// Fuzz target `gzip-input`: the gzip input on arbitrary bytes, read to the end, three ways:
//   1. `Input(path:)` on a temporary file holding the bytes (magic detection, FileSource's peek,
//      then GzipSource or the plain file), read in 64 KiB buffers;
//   2. `GzipSource` over a `MemoryByteSource`, default chunk sizes, 64 KiB reads;
//   3. `GzipSource` over a `MemoryByteSource` handing out 1–17 bytes per read (the count picked
//      from the input's length), a 16-byte input chunk and 1–13 byte output reads (for outputs
//      up to 256 KiB).
// No control byte: the input is exactly the file's bytes, so gzip files seed it as they are.
//
// Invariants checked: a plain (non-gzip) file reads back byte for byte; all ways produce the
// same bytes and the same outcome (end, corrupt, truncated): where they fail, each output is a
// prefix of the longest one; `decompressedBytes`/`bytesProduced` match what was handed out on
// success. Output beyond 256 MiB stops the read (a bomb is not a finding by itself).
import FuzzSupport
@_spi(Internals) import SluiceCore

#if canImport(Glibc)
  import Glibc
#endif

private let outputLimit = 256 << 20

private struct Outcome {
  var bytes: [UInt8] = []
  var error: InputError?
  var limited = false
}

private func drain(_ source: any ByteSource, bufferSize: Int) -> Outcome {
  var outcome = Outcome()
  var buffer = [UInt8](repeating: 0, count: bufferSize)
  while true {
    do {
      let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
      fuzzCheck(n >= 0 && n <= bufferSize, "read returned \(n) for a \(bufferSize)-byte buffer")
      if n == 0 { return outcome }
      outcome.bytes += buffer[0..<n]
      if outcome.bytes.count > outputLimit {
        outcome.limited = true
        return outcome
      }
    } catch let error as InputError {
      outcome.error = error
      observe(error.description)
      return outcome
    } catch {
      fuzzCheck(false, "read threw something other than InputError: \(error)")
    }
  }
}

private let temporaryPath: String = {
  let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
  return "\(directory)/sluice-fuzz-gzip-\(getpid()).bin"
}()

private func writeTemporaryFile(_ bytes: [UInt8]) {
  let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  fuzzCheck(fd >= 0, "cannot create \(temporaryPath)")
  var written = 0
  bytes.withUnsafeBytes { raw in
    while written < raw.count {
      let n = write(fd, raw.baseAddress! + written, raw.count - written)
      fuzzCheck(n > 0, "cannot write \(temporaryPath)")
      written += n
    }
  }
  close(fd)
}

/// Same outcome, or a prefix of it when the stream broke (a read that fails discards what it
/// had inflated into the caller's buffer, so how much came out first depends on buffer sizes).
private func compare(_ a: Outcome, _ b: Outcome, _ what: String) {
  if a.limited || b.limited { return }
  fuzzCheck(
    a.error?.code == b.error?.code,
    "\(what): outcomes differ: \(a.error.map { "\($0)" } ?? "end") vs \(b.error.map { "\($0)" } ?? "end")")
  if a.error == nil {
    fuzzCheck(sameBytes(a.bytes, b.bytes), "\(what): \(a.bytes.count) vs \(b.bytes.count) bytes decompressed")
  } else {
    let shorter = min(a.bytes.count, b.bytes.count)
    fuzzCheck(sameBytes(a.bytes[..<shorter], b.bytes[..<shorter]), "\(what): the outputs diverge before the error")
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzipInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let data = fuzzBytes(start, count)
  let isGzip = data.count >= 2 && data[0] == 0x1f && data[1] == 0x8b

  // 1. Through a file, as `sluice run` opens its input.
  writeTemporaryFile(data)
  let viaFile: Outcome
  do {
    let input = try Input(path: temporaryPath)
    fuzzCheck(input.isGzip == isGzip, "isGzip is \(input.isGzip) for magic \(isGzip)")
    viaFile = drain(input, bufferSize: 1 << 16)
    if !isGzip {
      fuzzCheck(viaFile.error == nil && sameBytes(viaFile.bytes, data), "a plain file did not read back as it is")
    }
    if viaFile.error == nil && !viaFile.limited {
      fuzzCheck(
        input.decompressedBytes == Int64(viaFile.bytes.count),
        "decompressedBytes \(input.decompressedBytes) but \(viaFile.bytes.count) bytes read")
      fuzzCheck(
        input.compressedBytes == Int64(data.count),
        "compressedBytes \(input.compressedBytes) but the file has \(data.count) bytes")
    }
    observe(input.compressedBytes)
  } catch {
    fuzzCheck(false, "Input(path:) failed on a readable file: \(error)")
    return 0
  }
  observe(viaFile.bytes)
  guard isGzip else { return 0 }

  // 2. Straight from memory, default sizes.
  let plain: Outcome
  do {
    let gzip = try GzipSource(upstream: MemoryByteSource(data), path: "memory")
    plain = drain(gzip, bufferSize: 1 << 16)
    if plain.error == nil && !plain.limited {
      fuzzCheck(
        gzip.bytesProduced == Int64(plain.bytes.count),
        "bytesProduced \(gzip.bytesProduced) but \(plain.bytes.count) bytes read")
    }
    observe(gzip.membersRead)
    observe(gzip.compressedOffset)
  } catch {
    fuzzCheck(false, "GzipSource.init failed: \(error)")
    return 0
  }
  compare(viaFile, plain, "file vs memory")

  // 3. Tiny chunks everywhere, so every boundary of zlib's input and output is crossed. Only
  // for outputs up to 256 KiB: byte-sized reads of a bomb would only measure the fuzzer's patience.
  guard plain.bytes.count <= 1 << 18 else { return 0 }
  let upstreamChunk = 1 + data.count % 17
  let outputBuffer = 1 + data.count % 13
  do {
    let gzip = try GzipSource(
      upstream: MemoryByteSource(data, chunk: upstreamChunk), path: "memory", chunkSize: 16)
    let tiny = drain(gzip, bufferSize: outputBuffer)
    compare(plain, tiny, "default vs chunks \(upstreamChunk)/16/\(outputBuffer)")
    observe(tiny.bytes.count)
  } catch {
    fuzzCheck(false, "GzipSource.init failed: \(error)")
  }
  return 0
}
