/// The rows of a shared table (customers, senders) a run wrote, by key, within a bound in bytes:
/// what spares a statement for a row the run already wrote the same way.
///
/// Bounded by what its rows weigh, not by their number: 65,536 customers' rows took 10 MiB where
/// the budget's base has 2 MiB for them (`MemoryBudget.rowCacheBytes`), and a table of long rows
/// would take more. A row's weight is estimated from its values (`weight`); when the next row
/// would take the cache past its bound it is emptied whole and starts again, keeping its hash
/// table's capacity, which the weights count.
struct RowCache {
  private var rows: [DatabaseValue: [DatabaseValue?]] = [:]
  /// The most the rows may weigh, in bytes.
  let limit: Int
  /// What the rows held weigh, estimated (`weight`); a row removed is not taken off.
  private(set) var bytes = 0

  init(limit: Int) {
    self.limit = limit
  }

  var count: Int { rows.count }
  var isEmpty: Bool { rows.isEmpty }

  subscript(key: DatabaseValue) -> [DatabaseValue?]? { rows[key] }

  /// Remembers `values` as the row of `key`; empties the cache first when it would weigh more
  /// than its limit.
  mutating func insert(_ values: [DatabaseValue?], for key: DatabaseValue) {
    let weight = Self.weight(of: key, values)
    if bytes + weight > limit { removeAll() }
    rows[key] = values
    bytes += weight
  }

  mutating func remove(_ key: DatabaseValue) {
    rows[key] = nil
  }

  mutating func removeAll() {
    rows.removeAll(keepingCapacity: true)
    bytes = 0
  }

  /// What a row takes in the cache, at most: its hash table's slots — a table holds at most
  /// three entries in four of its slots, grows by doubling, and holds its old slots too while it
  /// does, so four slots an entry —, the array of its values, and the storage of each text or
  /// blob value too long to be stored inline (the key's too, though it usually shares its
  /// value's), each allocation rounded up as `malloc` does.
  static func weight(of key: DatabaseValue, _ values: [DatabaseValue?]) -> Int {
    let slot = MemoryLayout<DatabaseValue>.stride + MemoryLayout<[DatabaseValue?]>.stride
    var weight = 4 * slot + allocation(32 + values.count * MemoryLayout<DatabaseValue?>.stride)
    weight += outOfLine(key)
    for case let value? in values { weight += outOfLine(value) }
    return weight
  }

  /// The heap storage a value keeps beyond its inline bytes.
  private static func outOfLine(_ value: DatabaseValue) -> Int {
    switch value {
    case .integer, .real: return 0
    // Up to 15 UTF-8 bytes are stored in the string itself.
    case .text(let text): return text.utf8.count <= 15 ? 0 : allocation(32 + text.utf8.count + 1)
    case .blob(let bytes): return allocation(32 + bytes.count)
    }
  }

  /// A `malloc` block for `bytes`: its 8-byte header, in 16-byte steps, 32 at the least.
  private static func allocation(_ bytes: Int) -> Int { max(32, (bytes + 8 + 15) & ~15) }
}
