@_spi(Internals) import SluiceCore

/// A place in a document that holds records: an array of objects (JSON) or a repeated element
/// (XML), named the way `--record-path` and a pipeline spec's `recordPath` take it.
package struct RecordPathCandidate: Sendable, Hashable {
  /// The record path's components, as `RecordReaders.make` takes them (`["chats", "list[]",
  /// "messages"]`); empty for a top-level JSON array.
  public var keys: [String]
  /// Records found there: objects in the array(s), or elements at the element path.
  public var records: Int
  /// The most records in one array (one parent element, for XML): how the best candidate is
  /// chosen.
  public var longest: Int
  /// Array elements that are not objects (JSON), which would not decode as records.
  public var otherElements: Int
  /// Elements of the arrays the path steps through that lack the rest of the path (or are not
  /// objects): the JSON reader stops at the first. 0 for paths through no array.
  public var missingInElements: Int
  /// `records` is the final count, not a lower bound: the scan reached the end of the input, or
  /// (for a path through no array) the array had closed when the scan stopped.
  public var isExact: Bool
  /// Repeated things the path steps through: arrays (`chats.list[].messages`: one), or for XML
  /// ancestors that repeat (`osm.way.nd`: `way`). Records nested in other records have some.
  public var nesting: Int

  /// `nesting` defaults to the arrays a JSON path steps through.
  public init(
    keys: [String], records: Int, longest: Int, otherElements: Int = 0, missingInElements: Int = 0, isExact: Bool,
    nesting: Int? = nil
  ) {
    self.keys = keys
    self.records = records
    self.longest = longest
    self.otherElements = otherElements
    self.missingInElements = missingInElements
    self.isExact = isExact
    self.nesting = nesting ?? keys.filter { $0.hasSuffix("[]") }.count
  }

  /// The path as `--record-path` takes it: dotted, `''` for a top-level JSON array.
  public var text: String { Self.text(keys) }

  static func text(_ keys: [String]) -> String {
    keys.isEmpty ? "''" : keys.joined(separator: ".")
  }

  /// The best of `candidates` the reader can read: the longest single array (the records a dump
  /// is made of outnumber any list nested in them: orders, not one order's items), then the
  /// path nested in fewer repeated things, the shorter path, the most records, the first in the
  /// document. With a sample, lengths count up to the sample size: a structure pass stopped at
  /// it has seen that many of the records but maybe fewer of the arrays around a nested list.
  public static func best(of candidates: [RecordPathCandidate], sampleSize: Int? = nil) -> RecordPathCandidate? {
    let readable = candidates.filter(\.isReadable)
    let cap = sampleSize ?? Int.max
    var best: RecordPathCandidate?
    for candidate in readable.isEmpty ? candidates : readable {
      guard let current = best else {
        best = candidate
        continue
      }
      if (min(candidate.longest, cap), -candidate.nesting, -candidate.keys.count, candidate.records)
        > (min(current.longest, cap), -current.nesting, -current.keys.count, current.records)
      {
        best = candidate
      }
    }
    return best
  }

  /// The outermost collection of records: among the readable candidates nested in the fewest
  /// repeated things, those whose records hold records of their own (`holds`), then the `best`
  /// (the longest array, …). A dump of one order with two line items gives `orders`, where
  /// `best` gives `orders[].line_items`; the items become a child table of the orders. A
  /// Telegram account export gives its chats (which hold the messages), not its longer flat list
  /// of contacts; a Trello board its cards (labels) over its log of actions; a WordPress export
  /// its posts (comments, categories) over its list of categories.
  public static func outermost(of candidates: [RecordPathCandidate], sampleSize: Int? = nil) -> RecordPathCandidate? {
    let readable = candidates.filter(\.isReadable)
    let pool = readable.isEmpty ? candidates : readable
    guard let least = pool.map(\.nesting).min() else { return nil }
    let outer = pool.filter { $0.nesting == least }
    let holders = outer.filter { candidate in candidates.contains { candidate.holds($0) } }
    return best(of: holders.isEmpty ? outer : holders, sampleSize: sampleSize)
  }

  /// Whether `other` is a collection inside this one's records (`chats.list[].messages` inside
  /// `chats.list`, `rss.channel.item.category` inside `rss.channel.item`), with a record in it.
  public func holds(_ other: RecordPathCandidate) -> Bool {
    guard other.records > 0, other.keys.count > keys.count else { return false }
    guard let last = keys.last else { return other.keys.first?.hasPrefix("[]") == true }
    let stem = keys.count - 1
    guard Array(other.keys[..<stem]) == Array(keys[..<stem]) else { return false }
    // JSON steps through the array (`list[]`) or the collection (`recipes{id}`); XML repeats
    // the element's name.
    return [last, last + "[]", last + "{id}"].contains(other.keys[stem]) && other.nesting > nesting
  }

  /// Whether `sluice run` can read the path to its end: a path through arrays needs the rest of
  /// the path in every element it steps through.
  public var isReadable: Bool { missingInElements == 0 }
}
