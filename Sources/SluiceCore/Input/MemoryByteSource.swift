/// Bytes already in memory, read like a file: for small inputs such as pipeline specs, and for
/// tests, which can cap each read at `chunk` bytes to exercise every buffer boundary.
@_spi(Internals) public final class MemoryByteSource: ByteSource {
  private let bytes: [UInt8]
  private let chunk: Int
  private var offset = 0

  public init(_ bytes: [UInt8], chunk: Int = .max) {
    self.bytes = bytes
    self.chunk = max(chunk, 1)
  }

  public convenience init(_ text: String, chunk: Int = .max) {
    self.init(Array(text.utf8), chunk: chunk)
  }

  public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let n = min(buffer.count, chunk, bytes.count - offset)
    guard n > 0 else { return 0 }
    bytes.withUnsafeBytes { source in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + n]))
    }
    offset += n
    return n
  }
}
