@_spi(Internals) import SluiceCore

/// Up to a few hundred ascending keys of one table and one kind (integers, or texts), with their
/// entries, as one blob: how `SQLiteKeySpill` stores keys that come in order, a row per block instead
/// of per key.
///
/// Layout: a kind byte (0 integers, 2 texts), the key count (UInt32), then one UInt32 offset per
/// key, then per key its value — 8 bytes for an integer, a UInt32 length and the UTF-8 bytes for
/// a text — and its entry: the first record's input (negative, `-1 - input`, when the key is void)
/// and ordinal, 8 bytes each. Little-endian throughout. The offsets make a look-up a binary search
/// that decodes a dozen keys, and an entry a fixed-size field that can be changed in place.
enum KeyBlock {
  static let integerKind: UInt8 = 0
  static let textKind: UInt8 = 2
  private static let headerSize = 5

  /// The kind of block `value` can go in; nil for a real or a blob.
  static func kind(of value: DatabaseValue) -> UInt8? {
    switch value {
    case .integer: integerKind
    case .text: textKind
    case .real, .blob: nil
    }
  }

  /// Encodes keys of one kind, in ascending order.
  static func encode(_ keys: ArraySlice<(key: NaturalKey, entry: KeyEntry)>, kind: UInt8) -> [UInt8] {
    var bytes: [UInt8] = [kind]
    append(UInt32(keys.count), to: &bytes)
    let offsets = bytes.count
    bytes += repeatElement(0, count: 4 * keys.count)
    for (index, (key, entry)) in keys.enumerated() {
      store(UInt32(bytes.count), at: offsets + 4 * index, in: &bytes)
      switch key.value {
      case .integer(let number):
        append(UInt64(bitPattern: number), to: &bytes)
      case .text(let text):
        append(UInt32(text.utf8.count), to: &bytes)
        bytes += text.utf8
      case .real, .blob:
        preconditionFailure("a key block holds integers or texts")
      }
      appendEntry(entry, to: &bytes)
    }
    return bytes
  }

  /// Where the entry of `value` starts in the block, if the block holds it.
  static func entryOffset(of value: DatabaseValue, in block: [UInt8]) -> Int? {
    block.withUnsafeBytes { raw -> Int? in
      guard raw.count >= headerSize, kind(of: value) == raw[0] else { return nil }
      let count = Int(raw.loadUnaligned(fromByteOffset: 1, as: UInt32.self).littleEndian)
      var low = 0
      var high = count
      while low < high {
        let middle = (low + high) / 2
        let offset = Int(raw.loadUnaligned(fromByteOffset: headerSize + 4 * middle, as: UInt32.self).littleEndian)
        let (order, entry) = compare(value, toKeyAt: offset, in: raw)
        if order == 0 { return entry }
        if order < 0 { high = middle } else { low = middle + 1 }
      }
      return nil
    }
  }

  /// The entry at `offset` (from `entryOffset`).
  static func entry(at offset: Int, in block: [UInt8]) -> KeyEntry {
    block.withUnsafeBytes { raw in
      let input = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
      let ordinal = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self))
      return KeyEntry(
        first: .init(input: Int32(truncatingIfNeeded: input < 0 ? -1 - input : input), ordinal: ordinal),
        isVoid: input < 0)
    }
  }

  /// Replaces the entry at `offset`.
  static func setEntry(_ entry: KeyEntry, at offset: Int, in block: inout [UInt8]) {
    var bytes: [UInt8] = []
    appendEntry(entry, to: &bytes)
    block.replaceSubrange(offset..<offset + 16, with: bytes)
  }

  /// Every key of the block, of table `table`.
  static func forEachKey(in block: [UInt8], table: Int32, _ body: (NaturalKey) -> Void) {
    block.withUnsafeBytes { raw in
      guard raw.count >= headerSize else { return }
      let count = Int(raw.loadUnaligned(fromByteOffset: 1, as: UInt32.self).littleEndian)
      for index in 0..<count {
        let offset = Int(raw.loadUnaligned(fromByteOffset: headerSize + 4 * index, as: UInt32.self).littleEndian)
        if raw[0] == integerKind {
          let number = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
          body(NaturalKey(table: table, value: .integer(number)))
        } else {
          let length = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
          let text = String(
            decoding: UnsafeRawBufferPointer(rebasing: raw[offset + 4..<offset + 4 + length]), as: UTF8.self)
          body(NaturalKey(table: table, value: .text(text)))
        }
      }
    }
  }

  /// How `value` compares with the key at `offset` (-1, 0, 1), and where that key's entry starts.
  private static func compare(_ value: DatabaseValue, toKeyAt offset: Int, in raw: UnsafeRawBufferPointer)
    -> (order: Int, entry: Int)
  {
    switch value {
    case .integer(let number):
      let stored = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
      return (number < stored ? -1 : number > stored ? 1 : 0, offset + 8)
    case .text(var text):
      let length = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
      let stored = UnsafeRawBufferPointer(rebasing: raw[offset + 4..<offset + 4 + length])
      let order = text.withUTF8 { utf8 in
        let common = min(utf8.count, length)
        for index in 0..<common where utf8[index] != stored[index] {
          return utf8[index] < stored[index] ? -1 : 1
        }
        return utf8.count < length ? -1 : utf8.count > length ? 1 : 0
      }
      return (order, offset + 4 + length)
    case .real, .blob:
      return (-1, 0)
    }
  }

  private static func appendEntry(_ entry: KeyEntry, to bytes: inout [UInt8]) {
    let input = Int64(entry.first.input)
    append(UInt64(bitPattern: entry.isVoid ? -1 - input : input), to: &bytes)
    append(UInt64(bitPattern: entry.first.ordinal), to: &bytes)
  }

  private static func append<T: FixedWidthInteger>(_ number: T, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
  }

  private static func store(_ number: UInt32, at offset: Int, in bytes: inout [UInt8]) {
    withUnsafeBytes(of: number.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
  }
}
