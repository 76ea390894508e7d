/// A place in a document that holds records: an array of objects (JSON) or a repeated element
/// (XML), named the way `--record-path` and a pipeline spec's `recordPath` take it.
public struct RecordPathCandidate: Sendable, Hashable {
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

  public init(
    keys: [String], records: Int, longest: Int, otherElements: Int = 0, missingInElements: Int = 0, isExact: Bool
  ) {
    self.keys = keys
    self.records = records
    self.longest = longest
    self.otherElements = otherElements
    self.missingInElements = missingInElements
    self.isExact = isExact
  }

  /// The path as `--record-path` takes it: dotted, `''` for a top-level JSON array.
  public var text: String { Self.text(keys) }

  static func text(_ keys: [String]) -> String {
    keys.isEmpty ? "''" : keys.joined(separator: ".")
  }

  /// The best of `candidates` the reader can read: the longest single array (the records a dump
  /// is made of outnumber any list nested in them: orders, not one order's items), then the
  /// path through fewer arrays, the shorter path (a repeated element's own repeated children
  /// come after it), the most records, the first in the document.
  public static func best(of candidates: [RecordPathCandidate]) -> RecordPathCandidate? {
    let readable = candidates.filter(\.isReadable)
    var best: RecordPathCandidate?
    for candidate in readable.isEmpty ? candidates : readable {
      guard let current = best else {
        best = candidate
        continue
      }
      if (candidate.longest, -candidate.arraySteps, -candidate.keys.count, candidate.records)
        > (current.longest, -current.arraySteps, -current.keys.count, current.records)
      {
        best = candidate
      }
    }
    return best
  }

  /// Arrays the path steps through (`chats.list[].messages`: one).
  public var arraySteps: Int { keys.filter { $0.hasSuffix("[]") }.count }

  /// Whether `sluice run` can read the path to its end: a path through arrays needs the rest of
  /// the path in every element it steps through.
  public var isReadable: Bool { missingInElements == 0 }
}
