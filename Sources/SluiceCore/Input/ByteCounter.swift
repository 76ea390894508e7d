import Synchronization

/// A count of bytes one thread adds to while another reads it: how far the record reader, on
/// the decoding thread, has read an input, for the progress line the loading thread draws.
package final class ByteCounter: Sendable {
  private let bytes = Atomic<Int64>(0)

  public init() {}

  @inline(__always)
  func add(_ count: Int) { bytes.add(Int64(count), ordering: .relaxed) }

  /// The bytes added so far.
  public var value: Int64 { bytes.load(ordering: .relaxed) }
}
