import Foundation

/// An instant with its canonical text — `2023-01-01T00:00:05.000Z`: UTC, milliseconds — which
/// sorts as time sorts and which every store reads (`TimestampText`).
///
/// Mappers build it, on the decoding thread, so that loading — the one stage that cannot run in
/// parallel — only binds the text.
public struct Timestamp: Sendable, Hashable {
  public let date: Date
  public let text: String

  public init(_ date: Date) {
    self.date = date
    text = TimestampText.text(date)
  }
}
