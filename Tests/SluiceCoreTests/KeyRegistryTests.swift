import Foundation
import SluiceKeySpill
import Testing

@testable import SluiceCore

/// The registry of natural keys a run's records own (`KeyRegistry`), on its own: which rows
/// count, and exact answers whichever tier a key sits in — the recent keys in memory, blocks of
/// ascending keys and single rows in the temporary database, behind the greatest-key rule and
/// the Bloom filter. Tiny limits make a few thousand keys go through every tier.
@Suite("Key registry")
struct KeyRegistryTests {
  static let customers = Table(
    "customers", key: ["customer_id"], columns: [.integer("customer_id"), .text("name")], onConflict: .upsert)
  static let orders = Table(
    "orders", key: ["order_id"],
    columns: [.text("order_id", field: "orderId"), .reference("customer_id", to: customers, field: "customer.id")])
  static let items = Table("order_items", childOf: orders, position: "line", field: "items", columns: [.text("sku")])
  static let profiles = Table(
    "profiles", key: ["profile_id"], columns: [.integer("profile_id"), .text("nickname", nullable: true)])
  static let pairs = Table("pairs", key: ["left", "right"], columns: [.text("left"), .integer("right")])
  static let schema = Schema([customers, orders, items, profiles, pairs])

  /// Limits that spill every few dozen keys into a filter of a few hundred bytes.
  static let tiny = KeyRegistry.Limits(recentBytes: 4 << 10, filterBytes: 256)
  /// The drivers' spill (SluiceKeySpill): a private temporary SQLite file.
  static let spill: KeyRegistry.MakeSpill = { () throws(KeyRegistryError) -> any KeySpill in try SQLiteKeySpill() }

  private func record(_ ordinal: Int, input: Int32 = 0) -> KeyRegistry.Occurrence {
    KeyRegistry.Occurrence(input: input, ordinal: Int64(ordinal))
  }

  private func order(_ id: String, customer: Int64 = 1, items: Int = 1) -> RecordRows {
    var rows = RecordRows()
    rows.add(Self.customers, customer, "name")
    rows.add(Self.orders, id, customer)
    for line in 0..<items { rows.add(Self.items, "sku \(line)") }
    return rows
  }

  private func profile(_ id: Int64) -> RecordRows {
    var rows = RecordRows()
    rows.add(Self.profiles, id, "nick")
    return rows
  }

  /// Texts are ordered by their UTF-8 bytes (SQLite's BINARY collation, which the temporary
  /// database sorts by), a prefix first; integers by value, before texts; tables first of all.
  @Test func keysAreOrderedByTableThenIntegersThenTextBytes() {
    let texts = [
      "", "a", "A", "ab", "abc", "abd", "b", "Z", "é", "e\u{301}", "ÿ", "\u{1F600}", "ORD-0000009", "ORD-0000010",
      "ORD-00000100", String(repeating: "x", count: 40), String(repeating: "x", count: 41),
    ]
    for x in texts {
      for y in texts {
        let a = KeyRegistry.Key(table: 0, value: .text(x))
        let b = KeyRegistry.Key(table: 0, value: .text(y))
        #expect(
          KeyRegistry.Key.precedes(a, b) == Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)),
          "\(x.debugDescription) before \(y.debugDescription)")
      }
    }
    let text = KeyRegistry.Key(table: 0, value: .text(""))
    let integer = KeyRegistry.Key(table: 0, value: .integer(.max))
    #expect(KeyRegistry.Key.precedes(integer, text) && !KeyRegistry.Key.precedes(text, integer))
    #expect(KeyRegistry.Key.precedes(.init(table: 0, value: .integer(-1)), .init(table: 0, value: .integer(0))))
    #expect(KeyRegistry.Key.precedes(.init(table: 0, value: .text("z")), .init(table: 1, value: .text("a"))))
  }

  @Test func onlyTheRowsARecordOwnsCountNotSharedRowsChildrenOrPatches() throws {
    let registry = KeyRegistry(makeSpill: Self.spill)
    let owned = registry.ownedTables(in: Self.schema)
    // Every order names customer 1 and has items numbered from 0: shared rows and child rows.
    #expect(try registry.register(order("A", items: 3), owned: owned, by: record(1)) == [])
    #expect(try registry.register(order("B", items: 3), owned: owned, by: record(2)) == [])
    // The same order again: its own row (entry 1), not the customer (0) or the items.
    #expect(try registry.register(order("A", items: 2), owned: owned, by: record(3)) == [1])
    var patch = RecordRows()
    patch.patch(Self.profiles, Int64(7), Patch<String>.set("new"))
    #expect(try registry.register(patch, owned: owned, by: record(4)) == [])
    #expect(try registry.register(patch, owned: owned, by: record(5)) == [])
    #expect(try registry.register(profile(7), owned: owned, by: record(6)) == [])
    #expect(try registry.register(profile(7), owned: owned, by: record(7)) == [0])
  }

  @Test func theFirstWriterOfARepeatedKeyIsTheFirstRecordThatRegisteredIt() throws {
    let registry = KeyRegistry(makeSpill: Self.spill)
    let owned = registry.ownedTables(in: Self.schema)
    _ = try registry.register(order("A"), owned: owned, by: record(1, input: 0))
    let again = order("A")
    #expect(try registry.register(again, owned: owned, by: record(9, input: 1)) == [1])
    #expect(
      try registry.firstWriter(of: 1, in: again, owned: owned, record: record(9, input: 1)) == record(1, input: 0))
    // A record that writes one key twice repeats itself.
    var twice = RecordRows()
    twice.add(Self.profiles, Int64(3), "a")
    twice.add(Self.profiles, Int64(3), "b")
    #expect(try registry.register(twice, owned: owned, by: record(10)) == [1])
    #expect(try registry.firstWriter(of: 1, in: twice, owned: owned, record: record(10)) == record(10))
  }

  @Test func aKeyWhoseFirstRecordWasRejectedIsFirstWrittenByTheNext() throws {
    let registry = KeyRegistry(limits: Self.tiny, makeSpill: Self.spill)
    let owned = registry.ownedTables(in: Self.schema)
    // Key "K" registered by record 1 — then many more keys, so that it spills.
    _ = try registry.register(order("K"), owned: owned, by: record(1))
    for ordinal in 2...500 {
      _ = try registry.register(order(String(format: "x%05d", ordinal)), owned: owned, by: record(ordinal))
    }
    let second = order("K")
    let third = order("K")
    #expect(try registry.register(second, owned: owned, by: record(501)) == [1])
    #expect(try registry.register(third, owned: owned, by: record(502)) == [1])
    // The loading thread rejected record 1 at the load stage: record 501 writes "K" first,
    // record 502 repeats it.
    try registry.void(order("K"), owned: owned, record: record(1))
    #expect(try registry.firstWriter(of: 1, in: second, owned: owned, record: record(501)) == nil)
    #expect(try registry.firstWriter(of: 1, in: third, owned: owned, record: record(502)) == record(501))
    // Voiding a record that was not a key's first changes nothing.
    try registry.void(third, owned: owned, record: record(502))
    #expect(try registry.firstWriter(of: 1, in: third, owned: owned, record: record(503)) == record(501))
  }

  /// Keys in several orders — ascending (blocks), descending and shuffled (single rows behind
  /// the filter), ascending with some out of order, integers and texts, keys of two columns —
  /// each seen once or more: every answer is the one a dictionary of every key gives.
  @Test(arguments: ["ascending", "descending", "shuffled", "mostly ascending"])
  func answersAreExactWhateverTheTierAndTheOrder(order: String) throws {
    var generator = SplitMix64(seed: 23)
    var ids = Array(0..<3000)
    switch order {
    case "descending": ids.reverse()
    case "shuffled": ids.shuffle(using: &generator)
    case "mostly ascending":
      for index in stride(from: 0, to: ids.count - 10, by: 97) { ids.swapAt(index, index + 7) }
    default: break
    }
    // Every fifth record repeats an id seen before (or, early on, a new one).
    var records: [Int] = []
    for (index, id) in ids.enumerated() {
      records.append(id)
      if index % 5 == 4 { records.append(ids[Int.random(in: 0...index, using: &generator)]) }
    }
    let registry = KeyRegistry(limits: Self.tiny, makeSpill: Self.spill)
    let owned = registry.ownedTables(in: Self.schema)
    var firsts: [Int: Int] = [:]
    for (position, id) in records.enumerated() {
      let ordinal = position + 1
      var rows = RecordRows()
      rows.add(Self.profiles, Int64(id), "nick")
      rows.add(Self.pairs, String(format: "p%06d", id), Int64(id % 7))
      let expected: [Int32] = firsts[id] == nil ? [] : [0, 1]
      let repeats = try registry.register(rows, owned: owned, by: record(ordinal))
      #expect(repeats == expected, "record \(ordinal), id \(id)")
      if let first = firsts[id] {
        #expect(try registry.firstWriter(of: 0, in: rows, owned: owned, record: record(ordinal)) == record(first))
        #expect(try registry.firstWriter(of: 1, in: rows, owned: owned, record: record(ordinal)) == record(first))
      } else {
        firsts[id] = ordinal
      }
    }
    // Texts of one table, too: order ids, the same repeats.
    let texts = KeyRegistry(limits: Self.tiny, makeSpill: Self.spill)
    let textTables = texts.ownedTables(in: Self.schema)
    var seen = Set<Int>()
    for (position, id) in records.enumerated() {
      let rows = self.order(String(format: "o-%05d", id))
      let repeats = try texts.register(rows, owned: textTables, by: record(position + 1))
      #expect(repeats == (seen.insert(id).inserted ? [] : [1]), "record \(position + 1)")
    }
  }

  /// A driver that offers no spill (`KeySpillingDriver`): the registry keeps every key in memory,
  /// past its limit, and still answers exactly — spilling while idle does nothing.
  @Test func withoutASpillEveryKeyStaysInMemoryAndIsFound() throws {
    let registry = KeyRegistry(limits: Self.tiny)
    let owned = registry.ownedTables(in: Self.schema)
    var generator = SplitMix64(seed: 5)
    let ids = Array(0..<2000).shuffled(using: &generator)
    for (position, id) in ids.enumerated() {
      _ = try registry.register(order(String(format: "k%05d", id)), owned: owned, by: record(position + 1))
      if position % 500 == 0 { try registry.spillWhileIdle() }
    }
    for (position, id) in ids.enumerated() where position % 37 == 0 {
      let again = order(String(format: "k%05d", id))
      #expect(try registry.register(again, owned: owned, by: record(5000 + position)) == [1])
      #expect(
        try registry.firstWriter(of: 1, in: again, owned: owned, record: record(5000 + position))
          == record(position + 1))
    }
  }

  @Test func keysMovedToTheTemporaryDatabaseWhileIdleAreStillFound() throws {
    let registry = KeyRegistry(limits: Self.tiny, makeSpill: Self.spill)
    let owned = registry.ownedTables(in: Self.schema)
    for id in 0..<(KeyRegistry.idleSpillKeys + 10) {
      _ = try registry.register(profile(Int64(id)), owned: owned, by: record(id + 1))
      try registry.spillWhileIdle()
    }
    #expect(try registry.register(profile(5), owned: owned, by: record(9999)) == [0])
    #expect(try registry.firstWriter(of: 0, in: profile(5), owned: owned, record: record(9999)) == record(6))
  }
}

/// A deterministic random number generator (SplitMix64), so a test's shuffles are the same on
/// every run.
private struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
