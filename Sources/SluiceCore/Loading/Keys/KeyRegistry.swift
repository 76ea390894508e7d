import Foundation
import Synchronization

#if canImport(Glibc)
  /// glibc's `malloc_trim` (`<malloc.h>`, which the Glibc module does not export).
  @_silgen_name("malloc_trim")
  private func mallocTrim(_ pad: Int) -> Int32
#endif

// Repeated natural keys within one run (`duplicateKey` at the load stage).
//
// What counts: the rows a record *owns* — its top-level rows of tables that follow the run's
// conflict policy (an order, a message, a post, a profile of a full import) — keyed by their
// natural key, across every input the run (or, with `--jobs`, the lane) reads. Rows that many
// records share by design (customers named by orders, senders, conversations: tables declared
// `onConflict: .upsert`) are merged, never repeated; patches and merges change rows, they do not
// own them; child and extension rows go with their parent. A key the database held before the run
// is no repeat: only keys written by an earlier record of the same run are.
//
// Where: the decoding thread registers each record's own keys in input order as it makes the
// rows, and marks the rows whose key an earlier record (or an earlier row of the same record)
// registered — exactly, whatever the loading thread is doing, since keys are only ever added. The
// loading thread decides in the same order: a key whose first record it rejected (`void`) was
// never written, so the next record that writes it is its first; otherwise the marked row is a
// repeat of the record that wrote the key first. The writer's thread — the run's bottleneck —
// pays only for the rare marked rows and rejected records.

/// The natural keys of the rows a run's records own, each with the record that wrote it first;
/// bounded in memory whatever the run's size.
///
/// The keys registered last are held exactly in a dictionary (`recent`). They move to a private
/// temporary store the run's driver provides (`KeySpill`: both drivers give SluiceKeySpill's, a
/// private temporary SQLite file deleted when it is closed) when they reach `Limits.recentBytes`,
/// or before, when the decoding thread has time to spare — when it
/// would otherwise wait for the loading thread (`spillWhileIdle`), so that the writes mostly cost
/// the run no time it had not to spare. A key not among the recent ones is looked for there only
/// when it could be: ids mostly grow, so a new key is mostly greater than every spilled key of
/// its table and needs no look-up at all. Once one is not, a Bloom filter of `Limits.filterBytes`
/// over the spilled keys is made (from the database, once) and kept up to date; it answers
/// "certainly new" for most new keys, the more keys it holds the fewer — never a wrong answer.
package final class KeyRegistry: Sendable {
  /// The record that wrote a key (`KeyOccurrence`), a key (`NaturalKey`) and what the registry
  /// knows of it (`KeyEntry`): the store interface's types, which a `KeySpill` keeps.
  package typealias Occurrence = KeyOccurrence
  package typealias Key = NaturalKey
  package typealias Entry = KeyEntry

  /// How much memory the registry may hold.
  package struct Limits: Sendable {
    /// Keys held in memory before they move to the temporary database (an estimate: key bytes
    /// plus a dictionary entry's overhead).
    package var recentBytes = 256 << 10
    /// The Bloom filter, made when a key first needs it: 16 bits per key for 1M spilled keys
    /// (about 1 in 1,000 new keys that are not the greatest yet is looked up), 1.7 for 10M
    /// (about half are).
    package var filterBytes = 2 << 20

    package init() {}

    package init(recentBytes: Int, filterBytes: Int) {
      self.recentBytes = recentBytes
      self.filterBytes = filterBytes
    }
  }

  /// The tables of one schema whose rows records own, by table serial, each with its key's own
  /// columns and the registry's number for it.
  package struct OwnedTables: Sendable {
    package struct Owned: Sendable {
      package let id: Int32
      package let table: Table
      /// The key's columns among the table's own columns.
      package let keyColumns: [Int]
    }
    fileprivate let bySerial: [Owned?]

    package func owned(_ serial: Int32) -> Owned? {
      let serial = Int(serial)
      return serial < bySerial.count ? bySerial[serial] : nil
    }
  }

  private let state: Mutex<State>

  /// A registry that moves its keys to a store `makeSpill` makes at the first spill, or — with
  /// no such store (a driver that offers none) — holds every key of the run in memory.
  package init(limits: Limits = Limits(), makeSpill: MakeSpill? = nil) {
    state = Mutex(State(limits: limits, makeSpill: makeSpill))
  }

  /// Makes the store spilled keys go to.
  package typealias MakeSpill = @Sendable () throws(KeyRegistryError) -> any KeySpill

  /// The tables of `schema` whose rows records own: top-level tables that follow the run's
  /// conflict policy and have a key.
  package func ownedTables(in schema: Schema) -> OwnedTables {
    state.withLock { state in
      var bySerial: [OwnedTables.Owned?] = []
      for table in schema.tables where table.parent == nil && table.onConflict == nil && !table.key.isEmpty {
        let columns = table.key.compactMap { name in table.columns.firstIndex { $0.name == name } }
        guard columns.count == table.key.count else { continue }
        let serial = Int(table.serial)
        if bySerial.count <= serial { bySerial += Array(repeating: nil, count: serial + 1 - bySerial.count) }
        bySerial[serial] = OwnedTables.Owned(id: state.id(of: table.name), table: table, keyColumns: columns)
      }
      return OwnedTables(bySerial: bySerial)
    }
  }

  // MARK: - The decoding thread

  /// Registers the keys of the rows `record` owns; returns the rows (entries) whose key was
  /// registered before, by an earlier record or an earlier row of this one.
  package func register(_ rows: RecordRows, owned: OwnedTables, by record: Occurrence) throws(KeyRegistryError)
    -> [Int32]
  {
    var repeats: [Int32] = []
    for entry in 0..<rows.count {
      guard let key = Self.key(of: entry, in: rows, owned: owned) else { continue }
      let isNew = try state.withLock { state throws(KeyRegistryError) in
        try state.insertIfNew(key, Entry(first: record, isVoid: false))
      }
      if !isNew { repeats.append(Int32(entry)) }
    }
    return repeats
  }

  /// Moves the recent keys to the temporary database if there are enough of them to be worth a
  /// transaction; the decoding thread calls it when it has time to spare.
  package func spillWhileIdle() throws(KeyRegistryError) {
    try state.withLock { state throws(KeyRegistryError) in
      if state.recent.keys.count >= Self.idleSpillKeys && state.makeSpill != nil { try state.spillRecent() }
    }
  }

  /// The fewest recent keys `spillWhileIdle` moves.
  static var idleSpillKeys: Int { 1024 }

  /// The run has read its inputs: the keys' memory and the temporary database go now, before
  /// the indexes built after a load need the memory. The registry then knows no key.
  package func finish() {
    state.withLock { state in state = State(limits: state.limits, makeSpill: state.makeSpill) }
    #if canImport(Glibc)
      // glibc keeps freed memory in its heap for reuse; what the registry held (its dictionary,
      // the Bloom filter, the spill's page cache) would still count in the run's peak while the
      // indexes are built. Hand the free pages back to the system.
      _ = mallocTrim(0)
    #endif
  }

  // MARK: - The loading thread, in input order

  /// The record that wrote the key of row `entry` first — `record` itself when an earlier row
  /// of it did — or nil when the key's first record was rejected at the load stage: then
  /// `record` becomes its first.
  package func firstWriter(of entry: Int, in rows: RecordRows, owned: OwnedTables, record: Occurrence)
    throws(KeyRegistryError) -> Occurrence?
  {
    guard let key = Self.key(of: entry, in: rows, owned: owned) else { return nil }
    return try state.withLock { state throws(KeyRegistryError) in
      guard let found = try state.find(key), !found.isVoid else {
        try state.update(key, Entry(first: record, isVoid: false))
        return nil
      }
      return found.first
    }
  }

  /// `record` was rejected at the load stage: the keys it registered first were never written.
  package func void(_ rows: RecordRows, owned: OwnedTables, record: Occurrence) throws(KeyRegistryError) {
    for entry in 0..<rows.count {
      guard let key = Self.key(of: entry, in: rows, owned: owned) else { continue }
      try state.withLock { state throws(KeyRegistryError) in
        guard let found = try state.find(key), found.first == record, !found.isVoid else { return }
        try state.update(key, Entry(first: record, isVoid: true))
      }
    }
  }

  // MARK: - Checkpoints

  /// The name of the table the registry numbers `id` (a checkpoint saves keys by table name).
  package func tableName(of id: Int32) -> String {
    state.withLock { state in Int(id) < state.tableNames.count ? state.tableNames[Int(id)] : "" }
  }

  /// A key the records before a resumed run's checkpoint wrote, `first` the record that wrote
  /// it first. Keys are restored in the order they were written, so the first one stays.
  package func restore(table: String, value: DatabaseValue, first: Occurrence) throws(KeyRegistryError) {
    try state.withLock { state throws(KeyRegistryError) in
      _ = try state.insertIfNew(Key(table: state.id(of: table), value: value), Entry(first: first, isVoid: false))
    }
  }

  // MARK: - A set of keys

  /// Adds `value` to the keys of `table` (a registry used as a bounded set of keys).
  package func insert(table: String, value: DatabaseValue) throws(KeyRegistryError) {
    try state.withLock { state throws(KeyRegistryError) in
      _ = try state.insertIfNew(
        Key(table: state.id(of: table), value: value), Entry(first: Occurrence(input: 0, ordinal: 0), isVoid: false))
    }
  }

  /// Whether `value` is among the keys of `table`, in memory or spilled.
  package func contains(table: String, value: DatabaseValue) throws(KeyRegistryError) -> Bool {
    try state.withLock { state throws(KeyRegistryError) in
      try state.find(Key(table: state.id(of: table), value: value)) != nil
    }
  }

  // MARK: - Keys

  /// The key of row `entry` when the record owns it: a top-level whole row of an owned table,
  /// whose key has no NULL (a NULL key is the store's `constraint` issue, not a repeat).
  package static func key(of entry: Int, in rows: RecordRows, owned: OwnedTables) -> Key? {
    let row = rows.entries[entry]
    guard row.parent < 0, !row.isPatch, row.unchanged == 0, let table = owned.owned(row.serial) else { return nil }
    if table.keyColumns.count == 1 {
      guard let value = rows.value(entry, table.keyColumns[0]) else { return nil }
      return Key(table: table.id, value: value)
    }
    var bytes: [UInt8] = []
    for column in table.keyColumns {
      guard let value = rows.value(entry, column) else { return nil }
      append(value, to: &bytes)
    }
    return Key(table: table.id, value: .blob(bytes))
  }

  /// One column of a key of several: a type tag, then the value's bytes, led by their count
  /// where that varies, so that no two keys encode alike.
  private static func append(_ value: DatabaseValue, to bytes: inout [UInt8]) {
    func append(_ number: UInt64) {
      withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }
    switch value {
    case .integer(let number):
      bytes.append(0)
      append(UInt64(bitPattern: number))
    case .real(let number):
      bytes.append(1)
      append(number.bitPattern)
    case .text(let text):
      bytes.append(2)
      append(UInt64(text.utf8.count))
      bytes.append(contentsOf: text.utf8)
    case .blob(let blob):
      bytes.append(3)
      append(UInt64(blob.count))
      bytes.append(contentsOf: blob)
    }
  }
}

/// The registry's errors are its spill's (`KeySpillError`): the temporary store is all that fails.
package typealias KeyRegistryError = KeySpillError

extension KeyRegistry {
  /// The recent keys with their entries, in the order they came, and each key's place there.
  fileprivate struct Batch {
    var places: [Key: Int32] = [:]
    var keys: [(key: Key, entry: Entry)] = []
    var bytes = 0

    func entry(_ key: Key) -> Entry? { places[key].map { keys[Int($0)].entry } }
  }

  /// The registry's keys, recent and spilled (see `KeyRegistry`).
  fileprivate struct State {
    let limits: Limits
    let makeSpill: MakeSpill?
    var tableNames: [String] = []
    var recent = Batch()
    var spill: (any KeySpill)?
    /// Over the spilled keys: made when a key first needs it.
    var filter: BloomFilter?
    /// Per table (by the registry's number), the greatest spilled key (`Key.precedes`).
    var greatestSpilled: [Key?] = []
    /// The temporary database failed to take keys.
    var failure: KeyRegistryError?

    init(limits: Limits, makeSpill: MakeSpill?) {
      self.limits = limits
      self.makeSpill = makeSpill
    }

    mutating func id(of table: String) -> Int32 {
      if let index = tableNames.firstIndex(of: table) { return Int32(index) }
      tableNames.append(table)
      greatestSpilled.append(nil)
      return Int32(tableNames.count - 1)
    }

    /// What a recent key is reckoned to hold in memory: a dictionary entry and its place in the
    /// order, and its bytes beyond what a string stores inline.
    static func weight(_ key: Key) -> Int {
      switch key.value {
      case .integer, .real: return 128
      case .text(let text): return text.utf8.count > 15 ? 160 + text.utf8.count : 128
      case .blob(let bytes): return 160 + bytes.count
      }
    }

    /// The entry of `key` in the temporary database, looked for only when it could be there: the
    /// key is no greater than its table's greatest spilled key, and the filter — made now, from
    /// the database, if this is the first such key — does not rule it out.
    mutating func findSpilled(_ key: Key) throws(KeyRegistryError) -> Entry? {
      guard let spill, let greatest = greatestSpilled[Int(key.table)], !Key.precedes(greatest, key) else {
        return nil
      }
      if filter == nil {
        var made = BloomFilter(bytes: limits.filterBytes)
        try spill.forEachKey { made.insert($0.hash) }
        filter = made
      }
      guard filter?.mayContain(key.hash) == true else { return nil }
      return try spill.find(key)
    }

    mutating func find(_ key: Key) throws(KeyRegistryError) -> Entry? {
      if let entry = recent.entry(key) { return entry }
      return try findSpilled(key)
    }

    /// Adds `key` unless the registry holds it; returns whether it was new. The common case — a
    /// new key greater than those spilled — costs one dictionary insert and one comparison.
    mutating func insertIfNew(_ key: Key, _ entry: Entry) throws(KeyRegistryError) -> Bool {
      let place = Int32(recent.keys.count)
      if let known = recent.places.updateValue(place, forKey: key) {
        recent.places[key] = known
        return false
      }
      if try findSpilled(key) != nil {
        recent.places[key] = nil
        return false
      }
      recent.keys.append((key, entry))
      recent.bytes += Self.weight(key)
      if recent.bytes >= limits.recentBytes && makeSpill != nil { try spillRecent() }
      return true
    }

    /// Changes a key's entry where it is; a key the registry lacks is added (the loading thread
    /// only asks about keys the decoding thread registered, so that does not happen).
    mutating func update(_ key: Key, _ entry: Entry) throws(KeyRegistryError) {
      if let place = recent.places[key] {
        recent.keys[Int(place)].entry = entry
      } else if let spill, try spill.update(key, entry) {
        return
      } else {
        _ = try insertIfNew(key, entry)
      }
    }

    /// Writes the recent keys to the temporary database — made at the first spill — in key
    /// order if they came in it (usually), else sorted into it, and forgets them here.
    mutating func spillRecent() throws(KeyRegistryError) {
      if let failure { throw failure }
      guard !recent.keys.isEmpty else { return }
      do {
        try write(recent)
      } catch {
        // The database is not to be trusted after a failed write (it keeps no journal): every
        // later spill fails the same way, and the keys stay here.
        failure = error
        throw error
      }
      recent.places.removeAll(keepingCapacity: true)
      recent.keys.removeAll(keepingCapacity: true)
      recent.bytes = 0
    }

    private mutating func write(_ batch: Batch) throws(KeyRegistryError) {
      let spill: KeySpill
      if let existing = self.spill {
        spill = existing
      } else if let makeSpill {
        spill = try makeSpill()
        self.spill = spill
      } else {
        return
      }
      var rows = batch.keys
      if !rows.indices.dropFirst().allSatisfy({ !Key.precedes(rows[$0].key, rows[$0 - 1].key) }) {
        rows.sort { Key.precedes($0.key, $1.key) }
      }
      try spill.insert(rows)
      for index in rows.indices {
        filter?.insert(rows[index].key.hash)
        // Sorted by table, then key: a table's last key is its greatest.
        guard index + 1 == rows.count || rows[index + 1].key.table != rows[index].key.table else { continue }
        let key = rows[index].key
        if let greatest = greatestSpilled[Int(key.table)], !Key.precedes(greatest, key) { continue }
        greatestSpilled[Int(key.table)] = key
      }
    }
  }
}
