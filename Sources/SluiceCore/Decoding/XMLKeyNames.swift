/// The key names of one large XML object, hashed, for the key sweep: whether a key is the first
/// of its name, and whether any key of its name was asked for, in constant time.
///
/// The sweep asks this of every key the DTO never asked for; comparing each such key with all
/// the others made an element with 50,000 attributes take over a minute. Names are compared by
/// their bytes on the tape, as `sameName` does, and hashed with the standard library's seeded
/// `Hasher`, so no crafted set of names can make them collide. Built once per object, from one
/// walk over its keys; the table is at most twice their number.
struct XMLKeyNames {
  /// Per slot: the first key node of a name, or -1.
  private var slots: [Int32]
  /// Per slot: some key of the name was asked for.
  private var asked: [Bool]
  /// Per slot: the object's keys of the name, and those of them before `cursor`.
  private var counts: [Int32]
  private var seen: [Int32]
  /// The first key not yet counted in `seen`.
  private var cursor: Int
  private let object: Int
  private let mask: Int

  init(tape: RecordTape, object: Int) {
    let end = tape.end(of: object)
    var keys = 0
    var k = object + 1
    while k < end {
      keys += 1
      k = tape.end(of: k + 1)
    }
    var capacity = 16
    while capacity < 2 * keys { capacity *= 2 }
    mask = capacity - 1
    slots = [Int32](repeating: -1, count: capacity)
    asked = [Bool](repeating: false, count: capacity)
    counts = [Int32](repeating: 0, count: capacity)
    seen = counts
    self.object = object
    cursor = object + 1
    k = object + 1
    while k < end {
      let slot = Self.slot(of: k, in: tape, slots: slots, mask: mask)
      if slots[slot] < 0 { slots[slot] = Int32(k) }
      if tape.nodes[k].isAccessed { asked[slot] = true }
      counts[slot] += 1
      k = tape.end(of: k + 1)
    }
  }

  /// A key's index among the object's keys of its name, and whether there are others. Keys are
  /// asked for in order (the sweep visits an object's children in order), so the keys before
  /// each are counted once in all; one asked for out of order starts the count again.
  mutating func ordinal(of key: Int, in tape: RecordTape) -> (ordinal: Int, repeats: Bool) {
    if key < cursor {
      seen = [Int32](repeating: 0, count: seen.count)
      cursor = object + 1
    }
    while cursor < key {
      seen[Self.slot(of: cursor, in: tape, slots: slots, mask: mask)] += 1
      cursor = tape.end(of: cursor + 1)
    }
    let slot = Self.slot(of: key, in: tape, slots: slots, mask: mask)
    return (Int(seen[slot]), counts[slot] > 1)
  }

  /// For a key of the object: whether no earlier key has its name, and whether a key of its
  /// name was asked for (the key itself included).
  func use(of key: Int, in tape: RecordTape) -> (isFirstOfName: Bool, isAskedFor: Bool) {
    let slot = Self.slot(of: key, in: tape, slots: slots, mask: mask)
    return (Int(slots[slot]) == key, asked[slot])
  }

  /// The slot of a key's name: the one holding an earlier key of that name, or the free one
  /// the name hashes to.
  private static func slot(of key: Int, in tape: RecordTape, slots: [Int32], mask: Int) -> Int {
    let range = tape.textRange(of: key)
    return tape.bytes.withUnsafeBufferPointer { bytes in
      let name = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range]))
      var hasher = Hasher()
      hasher.combine(bytes: name)
      var slot = hasher.finalize() & mask
      while slots[slot] >= 0 {
        let other = tape.textRange(of: Int(slots[slot]))
        if other.count == range.count
          && name.elementsEqual(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[other])))
        {
          return slot
        }
        slot = (slot + 1) & mask
      }
      return slot
    }
  }
}
