import Glibc

/// Reads a file, or standard input for the path `-`, through a file descriptor.
///
/// It can look at the first bytes without consuming them (`peek`), which is how gzip is detected
/// by its magic number on inputs that cannot seek, such as a pipe on stdin.
@_spi(Internals) public final class FileSource: ByteSource {
  public let path: String
  private let descriptor: Int32
  private let ownsDescriptor: Bool
  private var lookahead: [UInt8] = []
  /// Bytes handed out so far (the compressed size, when the file is gzip).
  public private(set) var bytesRead: Int64 = 0
  /// `bytesRead`, readable from another thread (the progress line).
  package let progress = ByteCounter()
  /// The file's size, for a regular file; nil for standard input, a pipe or a device.
  public let size: Int64?
  /// Who the file was when it was opened (device, inode, size, times), for a regular file.
  package let fingerprint: FileFingerprint?
  /// The SHA-256 of every byte handed out, when asked for (`digesting`), and of the first
  /// `InputDigest.headSize` of them.
  private let digest: SHA256?
  private let headDigest: SHA256?

  /// Opens `path` for reading; `-` means standard input. With `digesting`, every byte read is
  /// hashed on the way (`finishDigest`). A FIFO is waited for up to `writerWait` seconds for a
  /// process to open it for writing (`openFIFO`); then the input fails rather than hang.
  public init(path: String, digesting: Bool = false, writerWait: Double = 5) throws {
    self.path = path
    digest = digesting ? SHA256() : nil
    headDigest = digesting ? SHA256() : nil
    if path == "-" {
      descriptor = STDIN_FILENO
      ownsDescriptor = false
      size = nil
      fingerprint = nil
      return
    }
    var found = stat()
    let isFIFO = stat(path, &found) == 0 && found.st_mode & S_IFMT == S_IFIFO
    let fd = isFIFO ? try Self.openFIFO(path, writerWait: writerWait) : open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      let code = errno
      throw InputError(
        code: code == ENOENT ? .notFound : .unreadable, path: path,
        message: code == ENOENT ? "no such file" : "cannot open: \(Self.describe(errno: code))")
    }
    var info = stat()
    if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
      close(fd)
      throw InputError(code: .unreadable, path: path, message: "is a directory")
    }
    descriptor = fd
    ownsDescriptor = true
    let isRegular = (info.st_mode & S_IFMT) == S_IFREG
    size = isRegular ? Int64(info.st_size) : nil
    fingerprint = isRegular ? FileFingerprint(info) : nil
  }

  deinit {
    if ownsDescriptor { close(descriptor) }
  }

  /// Returns up to `count` bytes from the front of the stream without consuming them.
  public func peek(_ count: Int) throws -> [UInt8] {
    while lookahead.count < count {
      var chunk = [UInt8](repeating: 0, count: count - lookahead.count)
      let n = try chunk.withUnsafeMutableBytes { try readDescriptor(into: $0) }
      if n == 0 { break }
      lookahead += chunk[0..<n]
    }
    return Array(lookahead.prefix(count))
  }

  public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard buffer.count > 0 else { return 0 }
    if !lookahead.isEmpty {
      let n = min(buffer.count, lookahead.count)
      lookahead.withUnsafeBytes { source in
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<n]))
      }
      lookahead.removeFirst(n)
      handedOut(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
      return n
    }
    let n = try readDescriptor(into: buffer)
    handedOut(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
    return n
  }

  @inline(__always)
  private func handedOut(_ bytes: UnsafeRawBufferPointer) {
    if let digest, !bytes.isEmpty {
      digest.update(bytes)
      if let headDigest, bytesRead < InputDigest.headSize {
        headDigest.update(UnsafeRawBufferPointer(rebasing: bytes.prefix(Int(InputDigest.headSize - bytesRead))))
      }
    }
    bytesRead += Int64(bytes.count)
    progress.add(bytes.count)
  }

  /// Reads what the reader left of the file (its records may end before the file does) into
  /// the digest and returns it; nil when the source was not opened `digesting`.
  package func finishDigest() throws -> InputDigest? {
    guard let digest, let headDigest else { return nil }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    defer { buffer.deallocate() }
    while try read(into: buffer) > 0 {}
    return InputDigest(
      sha256: SHA256.hex(digest.finish()), headSHA256: SHA256.hex(headDigest.finish()), bytes: bytesRead)
  }

  private func readDescriptor(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    while true {
      let n = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
      if n >= 0 { return n }
      let code = errno
      if code == EINTR { continue }
      throw InputError(
        code: .unreadable, path: path,
        message: "read failed: \(Self.describe(errno: code))",
        compressedOffset: bytesRead)
    }
  }

  static func describe(errno code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
  }
}
