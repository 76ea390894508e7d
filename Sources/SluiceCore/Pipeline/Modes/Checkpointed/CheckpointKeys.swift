import Foundation

/// The natural keys of the records one chunk wrote, with the record that wrote each, as a BLOB:
/// what a resumed run checks later records' keys against.
///
/// Compact, because a run writes one per record it loads and deletes them all at its end: the
/// table names once, then per key its table's number, its type, its value — an integer as a
/// zigzag varint, text and blobs by the bytes they share with the previous such key (ids
/// mostly grow, and share most of theirs) and the rest — and its record, the ordinal as the
/// varint of its difference from the previous key's. About 8 bytes for an order's key where
/// base64 text of fixed-width fields took 41.
struct CheckpointKeys {
  private var tables: [String] = []
  private var tableIndex: [Int32: Int] = [:]
  private var bytes: [UInt8] = []
  /// The previous text or blob key's bytes, and the previous key's record.
  private var previousBytes: [UInt8] = []
  private var previousInput: Int32 = 0
  private var previousOrdinal: Int64 = 0
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  mutating func append(_ key: KeyRegistry.Key, first: KeyRegistry.Occurrence, registry: KeyRegistry) {
    let index: Int
    if let known = tableIndex[key.table] {
      index = known
    } else {
      index = tables.count
      tables.append(registry.tableName(of: key.table))
      tableIndex[key.table] = index
    }
    Self.putVarint(UInt64(index), into: &bytes)
    switch key.value {
    case .integer(let value):
      bytes.append(0)
      Self.putVarint(Self.zigzag(value), into: &bytes)
    case .real(let value):
      bytes.append(1)
      for shift in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value.bitPattern >> (8 * shift))) }
    case .text(let value):
      bytes.append(2)
      putSharingPrefix(Array(value.utf8))
    case .blob(let value):
      bytes.append(3)
      putSharingPrefix(value)
    }
    Self.putVarint(Self.zigzag(Int64(first.input) &- Int64(previousInput)), into: &bytes)
    Self.putVarint(Self.zigzag(first.ordinal &- previousOrdinal), into: &bytes)
    previousInput = first.input
    previousOrdinal = first.ordinal
    count += 1
  }

  /// `value` as the count of bytes it shares with the previous text or blob key, then the rest.
  private mutating func putSharingPrefix(_ value: [UInt8]) {
    var shared = 0
    let limit = min(value.count, previousBytes.count)
    while shared < limit, value[shared] == previousBytes[shared] { shared += 1 }
    Self.putVarint(UInt64(shared), into: &bytes)
    Self.putVarint(UInt64(value.count - shared), into: &bytes)
    bytes.append(contentsOf: value[shared...])
    previousBytes = value
  }

  private static func putVarint(_ value: UInt64, into bytes: inout [UInt8]) {
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  private static func zigzag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
  }

  private static func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
  }

  /// The BLOB `sluice_checkpoint_keys` stores: the table names, then the keys.
  var encoded: [UInt8] {
    var header: [UInt8] = []
    Self.putVarint(UInt64(tables.count), into: &header)
    for name in tables {
      Self.putVarint(UInt64(name.utf8.count), into: &header)
      header.append(contentsOf: name.utf8)
    }
    return header + bytes
  }

  /// Reads `bytes` back, handing each key to `body` in the order they were written.
  static func decode(
    _ bytes: [UInt8], pipeline: String, _ body: (String, DatabaseValue, KeyRegistry.Occurrence) throws -> Void
  ) throws {
    var at = 0
    func short() -> RunAbort { CheckpointTable.corrupt(pipeline, "keys end too early") }
    func takeVarint() throws -> UInt64 {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        guard at < bytes.count, shift < 64 else { throw short() }
        let byte = bytes[at]
        at += 1
        value |= UInt64(byte & 0x7F) << shift
        if byte < 0x80 { return value }
        shift += 7
      }
    }
    func takeCount() throws -> Int {
      let value = try takeVarint()
      guard value <= UInt64(bytes.count - at) else { throw short() }
      return Int(value)
    }
    func takeBytes(_ count: Int) throws -> ArraySlice<UInt8> {
      guard at + count <= bytes.count else { throw short() }
      defer { at += count }
      return bytes[at..<(at + count)]
    }
    var tables: [String] = []
    for _ in 0..<(try takeCount()) {
      tables.append(String(decoding: try takeBytes(try takeCount()), as: UTF8.self))
    }
    var previousBytes: [UInt8] = []
    var input: Int64 = 0
    var ordinal: Int64 = 0
    func takeSharingPrefix() throws -> [UInt8] {
      let shared = try takeVarint()
      guard shared <= UInt64(previousBytes.count) else {
        throw CheckpointTable.corrupt(pipeline, "a key shares more than the previous one has")
      }
      let value = Array(previousBytes[..<Int(shared)]) + (try takeBytes(try takeCount()))
      previousBytes = value
      return value
    }
    while at < bytes.count {
      let table = try takeVarint()
      guard table < UInt64(tables.count) else { throw CheckpointTable.corrupt(pipeline, "a key names no table") }
      let value: DatabaseValue
      switch try takeBytes(1).first ?? 0xFF {
      case 0: value = .integer(unzigzag(try takeVarint()))
      case 1:
        var pattern: UInt64 = 0
        for (shift, byte) in try takeBytes(8).enumerated() { pattern |= UInt64(byte) << (8 * UInt64(shift)) }
        value = .real(Double(bitPattern: pattern))
      case 2: value = .text(String(decoding: try takeSharingPrefix(), as: UTF8.self))
      case 3: value = .blob(try takeSharingPrefix())
      default: throw CheckpointTable.corrupt(pipeline, "a key has no known type")
      }
      input &+= unzigzag(try takeVarint())
      ordinal &+= unzigzag(try takeVarint())
      guard let recordInput = Int32(exactly: input) else {
        throw CheckpointTable.corrupt(pipeline, "a key's record names no input")
      }
      try body(tables[Int(table)], value, .init(input: recordInput, ordinal: ordinal))
    }
  }
}
