/// A remote object's stream read as an input's upstream: what `FileSource` is for a file.
///
/// It counts and hashes every byte it hands out (the ledger's SHA-256 is of the object's bytes,
/// compressed for gzip, as for a file) and can look at the first bytes without consuming them,
/// which is how gzip is detected by its magic number. The transport's stream bounds its own
/// buffer; nothing here grows with the object.
final class RemoteSource: InputUpstream {
  let url: String
  let object: RemoteObject
  private let stream: any ByteSource
  private var lookahead: [UInt8] = []
  private(set) var bytesRead: Int64 = 0
  let progress = ByteCounter()
  private let digest: SHA256?
  private let headDigest: SHA256?

  init(url: String, stream: RemoteStream, digesting: Bool) {
    self.url = url
    self.stream = stream.source
    object = stream.object
    digest = digesting ? SHA256() : nil
    headDigest = digesting ? SHA256() : nil
  }

  var size: Int64? { object.size }
  var fingerprint: FileFingerprint? { nil }

  func peek(_ count: Int) throws -> [UInt8] {
    while lookahead.count < count {
      var chunk = [UInt8](repeating: 0, count: count - lookahead.count)
      let n = try chunk.withUnsafeMutableBytes { try stream.read(into: $0) }
      if n == 0 { break }
      lookahead += chunk[0..<n]
    }
    return Array(lookahead.prefix(count))
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard buffer.count > 0 else { return 0 }
    let n: Int
    if !lookahead.isEmpty {
      n = min(buffer.count, lookahead.count)
      lookahead.withUnsafeBytes { source in
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<n]))
      }
      lookahead.removeFirst(n)
    } else {
      n = try stream.read(into: buffer)
    }
    let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
    if let digest, !bytes.isEmpty {
      digest.update(bytes)
      if let headDigest, bytesRead < InputDigest.headSize {
        headDigest.update(UnsafeRawBufferPointer(rebasing: bytes.prefix(Int(InputDigest.headSize - bytesRead))))
      }
    }
    bytesRead += Int64(n)
    progress.add(n)
    return n
  }

  func finishDigest() throws -> InputDigest? {
    guard let digest, let headDigest else { return nil }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    defer { buffer.deallocate() }
    while try read(into: buffer) > 0 {}
    return InputDigest(
      sha256: SHA256.hex(digest.finish()), headSHA256: SHA256.hex(headDigest.finish()), bytes: bytesRead)
  }
}

/// What `Input` reads from under its gzip detection: a file (`FileSource`) or a remote object
/// (`RemoteSource`).
protocol InputUpstream: ByteSource {
  func peek(_ count: Int) throws -> [UInt8]
  var bytesRead: Int64 { get }
  var progress: ByteCounter { get }
  var size: Int64? { get }
  var fingerprint: FileFingerprint? { get }
  func finishDigest() throws -> InputDigest?
}

extension FileSource: InputUpstream {}
