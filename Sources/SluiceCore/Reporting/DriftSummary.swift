/// How the input's shape drifted from the contract over a whole run: unknown fields and
/// unsupported enum values, counted per path with array indices folded (`recipes[].calories`).
///
/// Paths are bounded (`limit` distinct paths per kind) so a dump with dynamic keys cannot grow
/// the summary without end; what is past the limit is still counted in `otherCount`.
public struct DriftSummary: Sendable, Codable, Hashable {
  public struct Entry: Sendable, Codable, Hashable {
    public var path: String
    /// Unsupported enum values: the value itself (`poll`), when the dataset named it.
    public var value: String?
    public var count: Int
    /// The first record where it was seen.
    public var firstRecord: Int

    public init(path: String, value: String? = nil, count: Int, firstRecord: Int) {
      self.path = path
      self.value = value
      self.count = count
      self.firstRecord = firstRecord
    }
  }

  public var unknownFields: [Entry] = []
  public var unsupportedEnumValues: [Entry] = []
  /// Occurrences at paths beyond the limit, and a record's unknown fields past those it lists
  /// (`DecodeDiagnostics.listedUnknownFields`).
  public var otherCount = 0

  public init() {}
}

/// Accumulates a `DriftSummary` during a run.
struct DriftCounter: Codable {
  let limit: Int
  private var unknown: [String: DriftSummary.Entry] = [:]
  private var enums: [String: DriftSummary.Entry] = [:]
  private var other = 0

  init(limit: Int = 1_000) { self.limit = limit }

  mutating func add(_ issue: Issue) {
    switch issue.code {
    case .unknownField: Self.add(issue, to: &unknown, limit: limit, other: &other)
    case .unsupportedEnumValue: Self.add(issue, to: &enums, limit: limit, other: &other)
    default: break
    }
  }

  /// Counts `times` issues of `code` that are kept nowhere (`UnlistedIssues`): with no path to
  /// count them under, they are occurrences at paths beyond the summary's.
  mutating func addUnlisted(_ code: IssueCode, times: Int) {
    if code == .unknownField || code == .unsupportedEnumValue { other += times }
  }

  private static func add(_ issue: Issue, to table: inout [String: DriftSummary.Entry], limit: Int, other: inout Int) {
    let path = folded(issue.path)
    // Values are bounded like paths: `limit` distinct (path, value) pairs.
    let key = issue.value.map { path + "\u{0}" + $0 } ?? path
    if table[key] != nil {
      table[key]?.count += 1
    } else if table.count < limit {
      table[key] = .init(path: path, value: issue.value, count: 1, firstRecord: issue.location?.ordinal ?? 0)
    } else {
      other += 1
    }
  }

  /// `items[3].sku` → `items[].sku`: only an index — digits between brackets — is folded; any
  /// other bracket is part of a key (`]]><x>`) and stays as it is.
  static func folded(_ path: String) -> String {
    let bytes = Array(path.utf8)
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "[") {
        var end = index + 1
        while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
        if end > index + 1, end < bytes.count, bytes[end] == UInt8(ascii: "]") {
          result += [UInt8(ascii: "["), UInt8(ascii: "]")]
          index = end + 1
          continue
        }
      }
      result.append(bytes[index])
      index += 1
    }
    return String(decoding: result, as: UTF8.self)
  }

  var summary: DriftSummary {
    var summary = DriftSummary()
    let order: (DriftSummary.Entry, DriftSummary.Entry) -> Bool = {
      $0.count != $1.count ? $0.count > $1.count : ($0.path, $0.value ?? "") < ($1.path, $1.value ?? "")
    }
    summary.unknownFields = unknown.values.sorted(by: order)
    summary.unsupportedEnumValues = enums.values.sorted(by: order)
    summary.otherCount = other
    return summary
  }
}

extension DriftCounter {
  /// Adds another counter's entries (a lane of a parallel run), as if its issues came after these.
  mutating func absorb(_ other: DriftCounter) {
    Self.absorb(other.unknown, into: &unknown, limit: limit, other: &self.other)
    Self.absorb(other.enums, into: &enums, limit: limit, other: &self.other)
    self.other += other.other
  }

  private static func absorb(
    _ entries: [String: DriftSummary.Entry], into table: inout [String: DriftSummary.Entry], limit: Int,
    other: inout Int
  ) {
    for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
      if table[key] != nil {
        table[key]?.count += entry.count
      } else if table.count < limit {
        table[key] = entry
      } else {
        other += entry.count
      }
    }
  }
}
