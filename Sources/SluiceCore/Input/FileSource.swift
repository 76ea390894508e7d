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

  /// Opens `path` for reading; `-` means standard input.
  public init(path: String) throws {
    self.path = path
    if path == "-" {
      descriptor = STDIN_FILENO
      ownsDescriptor = false
      size = nil
      return
    }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
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
    size = (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
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
      bytesRead += Int64(n)
      progress.add(n)
      return n
    }
    let n = try readDescriptor(into: buffer)
    bytesRead += Int64(n)
    progress.add(n)
    return n
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
