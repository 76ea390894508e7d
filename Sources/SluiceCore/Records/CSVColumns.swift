import Synchronization

/// A CSV reader's column names, once it has read its header, for whoever outlives the reader
/// on another thread: the rejects file writes them beside each rejected row, so that the row
/// alone can be read again (`sluice replay`).
@_spi(Internals) public final class CSVColumns: Sendable {
  private let names = Mutex<[String]?>(nil)

  public init() {}

  /// Nil until the header is read (or the dialect's columns are taken).
  public var value: [String]? { names.withLock { $0 } }

  func set(_ value: [String]) { names.withLock { $0 = value } }
}
