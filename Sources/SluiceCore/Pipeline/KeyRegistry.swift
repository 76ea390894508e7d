import Synchronization

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
/// The keys registered last are held in memory, exactly; when they reach `Limits.recentBytes`
/// they move to a private temporary SQLite database (a file SQLite deletes when it is closed),
/// and from then on a Bloom filter over every key registered answers "certainly new" for most
/// new keys without a look-up there. The filter is rebuilt twice as large whenever it holds more
/// than 8 bits' worth of keys per byte, up to `Limits.maxFilterBytes`; past that it fills and only
/// makes more look-ups, never a wrong answer.
final class KeyRegistry: Sendable {
  /// The record that wrote a key: its input's place in the pipeline and its ordinal there.
  struct Occurrence: Hashable, Sendable {
    var input: Int32
    var ordinal: Int64
  }

  /// How much memory the registry may hold.
  struct Limits: Sendable {
    /// Keys held in memory before they move to the temporary database (an estimate: key bytes
    /// plus a dictionary entry's overhead).
    var recentBytes = 2 << 20
    /// The Bloom filter's size when it is first made, and the most it grows to.
    var minFilterBytes = 64 << 10
    var maxFilterBytes = 4 << 20

    init() {}

    init(recentBytes: Int, minFilterBytes: Int, maxFilterBytes: Int) {
      self.recentBytes = recentBytes
      self.minFilterBytes = minFilterBytes
      self.maxFilterBytes = maxFilterBytes
    }
  }

  /// The tables of one schema whose rows records own, by table serial, each with its key's own
  /// columns and the registry's number for it.
  struct OwnedTables: Sendable {
    struct Owned: Sendable {
      let id: Int32
      let table: Table
      /// The key's columns among the table's own columns.
      let keyColumns: [Int]
    }
    fileprivate let bySerial: [Owned?]

    func owned(_ serial: Int32) -> Owned? {
      let serial = Int(serial)
      return serial < bySerial.count ? bySerial[serial] : nil
    }
  }

  /// A key: the registry's number for its table, and its value (several columns' values encoded
  /// together as a blob).
  struct Key: Hashable {
    var table: Int32
    var value: DatabaseValue
  }

  struct Entry: Equatable {
    var first: Occurrence
    /// The first record was rejected at the load stage: the key was never written.
    var isVoid: Bool
  }

  private let state: Mutex<State>

  init(limits: Limits = Limits()) {
    state = Mutex(State(limits: limits))
  }

  /// The tables of `schema` whose rows records own: top-level tables that follow the run's
  /// conflict policy and have a key.
  func ownedTables(in schema: Schema) -> OwnedTables {
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

  /// The name of the table the registry numbers `id`.
  func tableName(_ id: Int32) -> String {
    state.withLock { $0.tableNames[Int(id)] }
  }

  // MARK: - The decoding thread

  /// Registers the keys of the rows `record` owns; returns the rows (entries) whose key was
  /// registered before, by an earlier record or an earlier row of this one.
  func register(_ rows: RecordRows, owned: OwnedTables, by record: Occurrence) throws(KeyRegistryError) -> [Int32] {
    var repeats: [Int32] = []
    for entry in 0..<rows.count {
      guard let key = Self.key(of: entry, in: rows, owned: owned) else { continue }
      let isRepeat = try state.withLock { state throws(KeyRegistryError) in
        if try state.find(key) != nil { return true }
        try state.insert(key, Entry(first: record, isVoid: false))
        return false
      }
      if isRepeat { repeats.append(Int32(entry)) }
    }
    return repeats
  }

  // MARK: - The loading thread, in input order

  /// The record that wrote the key of row `entry` first — `record` itself when an earlier row
  /// of it did — or nil when the key's first record was rejected at the load stage: then
  /// `record` becomes its first.
  func firstWriter(of entry: Int, in rows: RecordRows, owned: OwnedTables, record: Occurrence)
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
  func void(_ rows: RecordRows, owned: OwnedTables, record: Occurrence) throws(KeyRegistryError) {
    for entry in 0..<rows.count {
      guard let key = Self.key(of: entry, in: rows, owned: owned) else { continue }
      try state.withLock { state throws(KeyRegistryError) in
        guard let found = try state.find(key), found.first == record, !found.isVoid else { return }
        try state.update(key, Entry(first: record, isVoid: true))
      }
    }
  }

  // MARK: - Keys

  /// The key of row `entry` when the record owns it: a top-level whole row of an owned table,
  /// whose key has no NULL (a NULL key is the store's `constraint` issue, not a repeat).
  static func key(of entry: Int, in rows: RecordRows, owned: OwnedTables) -> Key? {
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

/// The registry's temporary database failed (a full or unwritable temporary directory): the run
/// cannot tell repeated keys apart, so it fails (exit 74).
struct KeyRegistryError: Error, Sendable, CustomStringConvertible {
  var message: String

  var description: String {
    "the run's registry of natural keys (a temporary SQLite database in $TMPDIR) failed: \(message)"
  }
}

extension KeyRegistry {
  /// The registry's keys: the recent ones in a dictionary, the others spilled, behind the filter.
  fileprivate struct State {
    let limits: Limits
    var tableNames: [String] = []
    var recent: [Key: Entry] = [:]
    var recentBytes = 0
    var spill: KeySpill?
    /// Made at the first spill, over every key registered since.
    var filter: BloomFilter?

    init(limits: Limits) { self.limits = limits }

    mutating func id(of table: String) -> Int32 {
      if let index = tableNames.firstIndex(of: table) { return Int32(index) }
      tableNames.append(table)
      return Int32(tableNames.count - 1)
    }

    static func hash(_ key: Key) -> UInt64 {
      var hasher = Hasher()
      hasher.combine(key)
      return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// What a recent key is reckoned to hold in memory: a dictionary entry, and its bytes
    /// beyond what a string stores inline.
    static func weight(_ key: Key) -> Int {
      switch key.value {
      case .integer, .real: return 96
      case .text(let text): return text.utf8.count > 15 ? 128 + text.utf8.count : 96
      case .blob(let bytes): return 128 + bytes.count
      }
    }

    mutating func find(_ key: Key) throws(KeyRegistryError) -> Entry? {
      if let entry = recent[key] { return entry }
      guard let spill, let filter, filter.mayContain(Self.hash(key)) else { return nil }
      return try spill.find(key)
    }

    mutating func insert(_ key: Key, _ entry: Entry) throws(KeyRegistryError) {
      recent[key] = entry
      recentBytes += Self.weight(key)
      filter?.insert(Self.hash(key))
      if recentBytes >= limits.recentBytes { try spillRecent() }
    }

    /// Changes a key's entry where it is, or adds it (a key the registry lacks cannot be met by
    /// the loading thread, which only asks about keys the decoding thread registered).
    mutating func update(_ key: Key, _ entry: Entry) throws(KeyRegistryError) {
      if recent[key] != nil {
        recent[key] = entry
      } else if let spill, try spill.update(key, entry) {
        return
      } else {
        try insert(key, entry)
      }
    }

    /// Moves the recent keys to the temporary database, and makes or grows the filter.
    mutating func spillRecent() throws(KeyRegistryError) {
      let spill: KeySpill
      if let existing = self.spill {
        spill = existing
      } else {
        spill = try KeySpill()
        self.spill = spill
      }
      try spill.insert(recent)
      if filter == nil {
        // Every key so far is a recent one.
        var made = BloomFilter(bytes: max(limits.minFilterBytes, min(limits.maxFilterBytes, 2 * recent.count)))
        for key in recent.keys { made.insert(Self.hash(key)) }
        filter = made
      } else if let count = filter?.count, let bytes = filter?.byteCount, count > bytes, bytes < limits.maxFilterBytes {
        // The old filter's memory goes before the new one is made, from every spilled key.
        filter = nil
        var grown = BloomFilter(bytes: min(limits.maxFilterBytes, 2 * count))
        try spill.forEachKey { grown.insert(Self.hash($0)) }
        filter = grown
      }
      recent.removeAll(keepingCapacity: true)
      recentBytes = 0
    }
  }
}
