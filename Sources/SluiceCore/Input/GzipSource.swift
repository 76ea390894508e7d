internal import CZlib

/// Inflates a gzip stream read from another source, member after member.
///
/// zlib's `inflate` with window bits 15 + 16 reads only gzip (not zlib) headers and checks each
/// member's CRC-32 and length. At the end of a member the stream is reset, so concatenated
/// members (the output of `cat a.gz b.gz`, or of parallel compressors) read as one stream. Zero
/// bytes after the last member (tape and block-device padding) end the stream, as `gzip -t`
/// accepts them; anything else after a member must be another gzip member — a raw zlib stream
/// or other trailing bytes are corruption. A stream that ends inside a member is truncated; any
/// other zlib complaint is corruption. Both are reported with the compressed offset where they
/// were found.
@_spi(Internals) public final class GzipSource: ByteSource {
  private let upstream: any ByteSource
  private let path: String
  /// zlib ≥ 1.2.12 checks that the stream has not moved since `inflateInit`, so it lives on the heap.
  private let stream: UnsafeMutablePointer<z_stream>
  private let input: UnsafeMutableRawBufferPointer
  private var upstreamEnded = false
  private var memberEnded = false
  private var compressedFed: Int64 = 0
  public private(set) var bytesProduced: Int64 = 0
  public private(set) var membersRead = 0

  public init(upstream: any ByteSource, path: String, chunkSize: Int = 1 << 16) throws {
    self.upstream = upstream
    self.path = path
    stream = .allocate(capacity: 1)
    stream.initialize(to: z_stream())
    input = .allocate(byteCount: max(chunkSize, 16), alignment: 16)
    let status = sluice_inflateInit2(stream, 15 + 16)
    guard status == Z_OK else {
      stream.deallocate()
      input.deallocate()
      throw InputError(
        code: .unreadable, path: path, message: "cannot start zlib (status \(status))")
    }
  }

  deinit {
    inflateEnd(stream)
    stream.deinitialize(count: 1)
    stream.deallocate()
    input.deallocate()
  }

  /// How far into the compressed input inflate has read.
  public var compressedOffset: Int64 { compressedFed - Int64(stream.pointee.avail_in) }

  public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard let output = buffer.baseAddress, buffer.count > 0 else { return 0 }
    stream.pointee.next_out = output.assumingMemoryBound(to: Bytef.self)
    stream.pointee.avail_out = uInt(min(buffer.count, Int(UInt32.max)))
    let capacity = Int(stream.pointee.avail_out)

    while Int(stream.pointee.avail_out) == capacity {
      if stream.pointee.avail_in == 0 && !upstreamEnded { try refill() }
      if memberEnded {
        // "inflateReset ... is equivalent to inflateEnd followed by inflateInit, but does not
        // free and reallocate the internal decompression state."
        if stream.pointee.avail_in == 0 && upstreamEnded { return 0 }
        if stream.pointee.next_in.pointee == 0 {
          try skipZeroPadding()
          return 0
        }
        inflateReset(stream)
        memberEnded = false
      }
      if stream.pointee.avail_in == 0 && upstreamEnded && membersRead == 0 && compressedFed == 0 { return 0 }
      // Called even when the input has ended: zlib may still hold output it had no room for, or
      // bits that prove the data corrupt. Only when it can make no progress is the stream
      // truncated — so the verdict does not depend on where buffer boundaries fell.
      let before = Int(stream.pointee.avail_out)
      let status = inflate(stream, Z_NO_FLUSH)
      let produced = before - Int(stream.pointee.avail_out)
      bytesProduced += Int64(produced)
      switch status {
      case Z_OK, Z_BUF_ERROR:
        if produced == 0 && stream.pointee.avail_in == 0 && upstreamEnded {
          throw InputError(
            code: .truncatedStream, path: path,
            message: "gzip stream is truncated: it ends inside member \(membersRead + 1)",
            compressedOffset: compressedOffset, decompressedOffset: bytesProduced)
        }
        continue
      case Z_STREAM_END:
        memberEnded = true
        membersRead += 1
      case Z_MEM_ERROR:
        throw InputError(code: .unreadable, path: path, message: "zlib ran out of memory")
      default:
        let reason = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
        throw InputError(
          code: .corruptStream, path: path,
          message: "gzip stream is corrupt: \(reason)",
          compressedOffset: compressedOffset, decompressedOffset: bytesProduced)
      }
    }
    return capacity - Int(stream.pointee.avail_out)
  }

  /// Reads the rest of the input after a member, which must be zero bytes only.
  private func skipZeroPadding() throws {
    while true {
      while stream.pointee.avail_in > 0 {
        guard stream.pointee.next_in.pointee == 0 else {
          throw InputError(
            code: .corruptStream, path: path,
            message: "gzip stream is corrupt: non-zero bytes after the zero padding that follows member \(membersRead)",
            compressedOffset: compressedOffset, decompressedOffset: bytesProduced)
        }
        stream.pointee.next_in += 1
        stream.pointee.avail_in -= 1
      }
      if upstreamEnded { return }
      try refill()
    }
  }

  private func refill() throws {
    let n = try upstream.read(into: input)
    if n == 0 {
      upstreamEnded = true
      return
    }
    compressedFed += Int64(n)
    stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
    stream.pointee.avail_in = uInt(n)
  }
}
