import CZlib
import Foundation

/// A file written through a buffer, optionally gzip-compressed with zlib (level 6, gzip header).
public final class OutputFile {
  private let handle: FileHandle
  private var buffer: [UInt8] = []
  private let stream: UnsafeMutablePointer<z_stream>?
  private var compressed = [UInt8](repeating: 0, count: 1 << 18)

  public init(_ path: String, gzip: Bool) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
    }
    handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    if gzip {
      let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
      stream.initialize(to: z_stream())
      guard sluice_deflateInit2(stream, 6, 15 + 16) == Z_OK else { throw CocoaError(.fileWriteUnknown) }
      self.stream = stream
    } else {
      stream = nil
    }
    buffer.reserveCapacity(1 << 20)
  }

  public func write(_ text: String) throws {
    buffer.append(contentsOf: text.utf8)
    if buffer.count >= 1 << 20 { try flush(finish: false) }
  }

  private func flush(finish: Bool) throws {
    guard let stream else {
      try handle.write(contentsOf: buffer)
      buffer.removeAll(keepingCapacity: true)
      return
    }
    let capacity = compressed.count
    try buffer.withUnsafeMutableBufferPointer { input in
      stream.pointee.next_in = input.baseAddress
      stream.pointee.avail_in = uInt(input.count)
      while true {
        let produced = compressed.withUnsafeMutableBufferPointer { output -> Int in
          stream.pointee.next_out = output.baseAddress
          stream.pointee.avail_out = uInt(capacity)
          deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
          return capacity - Int(stream.pointee.avail_out)
        }
        try handle.write(contentsOf: compressed[0..<produced])
        if finish ? produced < capacity : stream.pointee.avail_in == 0 { break }
      }
    }
    buffer.removeAll(keepingCapacity: true)
  }

  public func close() throws {
    try flush(finish: true)
    if let stream {
      deflateEnd(stream)
      stream.deallocate()
    }
    try handle.close()
  }
}
