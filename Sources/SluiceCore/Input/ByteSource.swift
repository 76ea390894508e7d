/// A stream of bytes read in caller-sized chunks, so memory never depends on the input's size.
@_spi(Internals) public protocol ByteSource: AnyObject {
  /// Fills the front of `buffer` and returns how many bytes were written; 0 means end of input.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}
