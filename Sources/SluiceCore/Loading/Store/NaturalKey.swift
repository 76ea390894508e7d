import Foundation

// The vocabulary a `KeySpill` (the driver interface) trades in, declared here in the store's layer
// so that the interface names nothing above it: `KeyRegistry` (Loading/Keys) names these types
// `Key`, `Entry` and `Occurrence`.

/// A natural key of a run's row, as a `KeyRegistry` holds it and a `KeySpill` keeps it: the
/// registry's number for its table, and its value (several columns' values encoded
/// together as a blob), with its hash computed once — for the Bloom filter, and so that the
/// dictionaries compare hashes before values (Swift's probe every occupied bucket they pass
/// with `==`).
package struct NaturalKey: Hashable {
  package let table: Int32
  package let value: DatabaseValue
  package let hash: UInt64

  package init(table: Int32, value: DatabaseValue) {
    self.table = table
    self.value = value
    var hasher = Hasher()
    hasher.combine(table)
    hasher.combine(value)
    hash = UInt64(bitPattern: Int64(hasher.finalize()))
  }

  package static func == (a: NaturalKey, b: NaturalKey) -> Bool {
    a.hash == b.hash && a.table == b.table && a.value == b.value
  }

  package func hash(into hasher: inout Hasher) { hasher.combine(hash) }

  /// Key order, SQLite's where it is cheap to match: by table, then integers by value before
  /// texts byte by byte; reals and blobs after them, in no particular order.
  package static func precedes(_ a: NaturalKey, _ b: NaturalKey) -> Bool {
    if a.table != b.table { return a.table < b.table }
    switch (a.value, b.value) {
    case (.integer(let x), .integer(let y)):
      return x < y
    case (.text(var x), .text(var y)):
      // memcmp, not `lexicographicallyPrecedes`, which goes a byte at a time through the
      // generic sequence code (1.7 % of a JSON import's decoding thread, callgrind): every new
      // key past the first spill is compared with its table's greatest spilled key.
      return x.withUTF8 { x in
        y.withUTF8 { y in
          let common = min(x.count, y.count)
          let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
          return order != 0 ? order < 0 : x.count < y.count
        }
      }
    default:
      return rank(a.value) < rank(b.value)
    }
  }

  private static func rank(_ value: DatabaseValue) -> Int {
    switch value {
    case .integer: 0
    case .text: 1
    case .real: 2
    case .blob: 3
    }
  }
}

/// What a registry knows of a key: the record that wrote it first, and whether that record was
/// rejected.
package struct KeyEntry: Equatable {
  package var first: KeyOccurrence
  /// The first record was rejected at the load stage: the key was never written.
  package var isVoid: Bool

  package init(first: KeyOccurrence, isVoid: Bool) {
    self.first = first
    self.isVoid = isVoid
  }
}

/// The record that wrote a key: its input's place in the pipeline and its ordinal there.
package struct KeyOccurrence: Hashable, Sendable {
  package var input: Int32
  package var ordinal: Int64

  package init(input: Int32, ordinal: Int64) {
    self.input = input
    self.ordinal = ordinal
  }
}
