/// An opened input: a file, stdin or a remote object (`RemoteInputs`), decompressed on the fly
/// when it starts with gzip's magic.
///
/// Detection looks at the bytes, never the file name, so `dump.json` that is really gzip and
/// `dump.gz` that is really plain text both read correctly.
@_spi(Internals) public final class Input: ByteSource {
  public let path: String
  public let isGzip: Bool
  private let file: any InputUpstream
  private let gzip: GzipSource?

  /// The first two bytes of every gzip member (RFC 1952, ID1 and ID2).
  static let gzipMagic: [UInt8] = [0x1f, 0x8b]

  /// Opens `path`; with `digesting`, the file's bytes (compressed, for gzip) are hashed as they
  /// are read, for the input ledger (`finishDigest`). A FIFO nobody opens for writing within
  /// `writerWait` seconds fails the open. A URL (`https://…`, `s3://…`) is opened through
  /// `remote`'s transport for its scheme, and `path` is then the URL as shown (`RemoteURL.redacted`).
  public init(path: String, digesting: Bool = false, writerWait: Double = 5, remote: RemoteAccess = .none) throws {
    if RemoteURL.isURL(path) {
      let stream = try remote.transport(for: path).open(path, options: remote.options)
      self.path = RemoteURL.redacted(path)
      file = RemoteSource(url: self.path, stream: stream, digesting: digesting)
    } else {
      self.path = path
      file = try FileSource(path: path, digesting: digesting, writerWait: writerWait)
    }
    if try file.peek(2) == Self.gzipMagic {
      gzip = try GzipSource(upstream: file, path: self.path)
      isGzip = true
    } else {
      gzip = nil
      isGzip = false
    }
  }

  public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    if let gzip { return try gzip.read(into: buffer) }
    return try file.read(into: buffer)
  }

  /// Bytes read from the file (compressed, for gzip).
  public var compressedBytes: Int64 { file.bytesRead }
  /// `compressedBytes`, readable from another thread while the input is read.
  package var progress: ByteCounter { file.progress }
  /// The file's size (compressed, for gzip), when it is a regular file.
  public var size: Int64? { file.size }
  /// What the server said of a remote object when it was opened; nil for a file.
  public var remoteObject: RemoteObject? { (file as? RemoteSource)?.object }
  /// Who the file was when it was opened; nil for standard input, a pipe, a device or a URL.
  package var fingerprint: FileFingerprint? { file.fingerprint }
  /// Reads the rest of the file (after the last record, or after a gzip stream's end) and returns
  /// the digest of all of it; nil when the input was not opened `digesting`.
  package func finishDigest() throws -> InputDigest? { try file.finishDigest() }
  /// Bytes handed to the record reader.
  public var decompressedBytes: Int64 { gzip?.bytesProduced ?? file.bytesRead }
}

extension Input {
  /// Reads the input to its end, returning the stream error that stopped it, if any: a syntax
  /// error in damaged gzip input may be a symptom of the damage, which zlib reports later.
  package func drain() -> InputError? {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    defer { buffer.deallocate() }
    do {
      while try read(into: buffer) > 0 {}
      return nil
    } catch let error as InputError {
      return error
    } catch {
      return nil
    }
  }
}
