/// An input that cannot be opened or read to its end.
@_spi(Internals) public struct InputError: Error, Sendable, CustomStringConvertible {
  public enum Code: String, Sendable {
    /// The file does not exist.
    case notFound
    /// The file exists but cannot be opened or read (permissions, a directory, an I/O error).
    case unreadable
    /// The compressed stream is damaged: bad header, bad data, or a checksum mismatch.
    case corruptStream
    /// The compressed stream ends before its last member is complete.
    case truncatedStream
    /// A remote input's server refused the credentials, or gave none access (401, 403).
    case denied
    /// A remote object was replaced while it was read (its ETag or size changed, or a resumed
    /// range was refused with 412): its bytes would be a splice of two objects.
    case changed
    /// A remote input's server could not be reached or kept failing after every retry
    /// (connection refused, DNS, TLS, 5xx, a stall), or it answered what no reader can take.
    case unreachable
  }

  public var code: Code
  public var path: String
  public var message: String
  /// For compressed inputs: how far into the compressed file the stream broke.
  public var compressedOffset: Int64?
  /// For compressed inputs: how many bytes had been decompressed when it broke.
  public var decompressedOffset: Int64?

  public init(
    code: Code, path: String, message: String,
    compressedOffset: Int64? = nil, decompressedOffset: Int64? = nil
  ) {
    self.code = code
    self.path = path
    self.message = message
    self.compressedOffset = compressedOffset
    self.decompressedOffset = decompressedOffset
  }

  public var description: String {
    var text = "\(path): \(message)"
    if let compressedOffset {
      text += " (at compressed byte \(compressedOffset)"
      if let decompressedOffset { text += ", decompressed byte \(decompressedOffset)" }
      text += ")"
    }
    return text
  }
}
