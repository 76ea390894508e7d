import Foundation
import Testing

@testable import SluiceCore

/// The keys a checkpoint keeps per chunk: every kind of key value and record comes back as it
/// went in, in order, and text that is not a checkpoint's is refused rather than misread.
@Suite("Checkpoint keys: encoded per chunk, read back exactly")
struct CheckpointKeysTests {
  @Test func everyKindOfKeyComesBackInOrderWithItsRecord() throws {
    let registry = KeyRegistry()
    let orders = registry.ownedTablesID("orders")
    let posts = registry.ownedTablesID("posts")
    let written: [(Int32, DatabaseValue, KeyRegistry.Occurrence)] = [
      (orders, .integer(-7), .init(input: 0, ordinal: 1)),
      (orders, .text("é\u{0}ß long enough to pass the inline size"), .init(input: 0, ordinal: 2)),
      (posts, .real(2.5), .init(input: 3, ordinal: Int64(Int32.max) + 9)),
      (posts, .blob([0, 255, 1]), .init(input: Int32.max, ordinal: 4)),
      (orders, .text(""), .init(input: 1, ordinal: 5)),
    ]
    var keys = CheckpointKeys()
    for (table, value, first) in written {
      keys.append(.init(table: table, value: value), first: first, registry: registry)
    }
    #expect(keys.count == written.count)
    var read: [(String, DatabaseValue, KeyRegistry.Occurrence)] = []
    try CheckpointKeys.decode(keys.encoded, pipeline: "p") { read.append(($0, $1, $2)) }
    #expect(read.map(\.0) == ["orders", "orders", "posts", "posts", "orders"])
    #expect(read.map(\.1) == written.map(\.1))
    #expect(read.map(\.2) == written.map(\.2))
  }

  @Test func bytesThatAreNotACheckpointsKeysAreRefused() throws {
    var keys = CheckpointKeys()
    let registry = KeyRegistry()
    keys.append(
      .init(table: registry.ownedTablesID("orders"), value: .text("abc")), first: .init(input: 0, ordinal: 1),
      registry: registry)
    keys.append(
      .init(table: registry.ownedTablesID("orders"), value: .text("abd")), first: .init(input: 0, ordinal: 2),
      registry: registry)
    let whole = keys.encoded
    // Cut short; a varint that never ends; a second key sharing more bytes than the first has.
    var overshared = whole
    let second = (0..<(whole.count - 3)).first { Array(whole[$0..<($0 + 4)]) == [0, 2, 2, 1] }
    #expect(second != nil)
    if let second { overshared[second + 2] = 9 }
    for broken in [Array(whole.dropLast(3)), [0xFF, 0xFF, 0xFF], overshared] {
      #expect(throws: RunAbort.self) {
        try CheckpointKeys.decode(broken, pipeline: "p") { _, _, _ in }
      }
    }
  }

  /// Ids that grow share most of their bytes with the previous one: the chunk's keys take a few
  /// bytes each, not the tens a fixed-width, base64 form took.
  @Test func growingTextKeysTakeAFewBytesEach() throws {
    var keys = CheckpointKeys()
    let registry = KeyRegistry()
    let orders = registry.ownedTablesID("orders")
    for ordinal in 1...8_192 {
      let id = "ORD-" + String(repeating: "0", count: 8 - String(ordinal).count) + String(ordinal)
      keys.append(
        .init(table: orders, value: .text(id)), first: .init(input: 0, ordinal: Int64(ordinal)), registry: registry)
    }
    #expect(keys.encoded.count < 8 * 8_192)
    var read = 0
    try CheckpointKeys.decode(keys.encoded, pipeline: "p") { _, value, first in
      read += 1
      #expect(value == .text("ORD-" + String(repeating: "0", count: 8 - String(read).count) + String(read)))
      #expect(first == .init(input: 0, ordinal: Int64(read)))
    }
    #expect(read == 8_192)
  }

  /// A resumed run's registry: the keys the chunks before the checkpoint wrote, restored, make
  /// a later record with one of them a repeat of the record that wrote it first.
  @Test func restoredKeysMakeLaterRecordsRepeatsOfTheirFirstRecord() throws {
    let orders = Table("orders", key: ["order_id"], columns: [.text("order_id", field: "orderId")])
    let schema = Schema([orders])
    let registry = KeyRegistry()
    try registry.restore(table: "orders", value: .text("A"), first: .init(input: 0, ordinal: 5))
    try registry.restore(table: "orders", value: .text("A"), first: .init(input: 0, ordinal: 9))
    let owned = registry.ownedTables(in: schema)
    var again = RecordRows()
    again.add(orders, "A")
    var new = RecordRows()
    new.add(orders, "B")
    #expect(try registry.register(new, owned: owned, by: .init(input: 0, ordinal: 20)) == [])
    #expect(try registry.register(again, owned: owned, by: .init(input: 0, ordinal: 21)) == [0])
    #expect(
      try registry.firstWriter(of: 0, in: again, owned: owned, record: .init(input: 0, ordinal: 21))
        == .init(input: 0, ordinal: 5))
  }
}

extension KeyRegistry {
  /// The registry's number for `table`, as `ownedTables(in:)` assigns it.
  fileprivate func ownedTablesID(_ table: String) -> Int32 {
    var found: Int32 = -1
    for id in Int32(0)..<64 where tableName(of: id) == table { found = id }
    if found >= 0 { return found }
    try? restore(table: table, value: .integer(Int64.min), first: .init(input: -1, ordinal: -1))
    for id in Int32(0)..<64 where tableName(of: id) == table { found = id }
    return found
  }
}
