@_spi(Internals) import SluiceCore

/// The `KeySpill` of Sluice's drivers: the keys a `KeyRegistry` moved out of memory, with the
/// record that wrote each first, in a private temporary SQLite database on this machine — for a
/// server's driver too, where each look-up would otherwise be a round trip. It lives in a target
/// of its own (SluiceKeySpill: the engine and SQLite's C library, not the SQLite driver), so a
/// driver gives it to the engine (`KeySpillingDriver`) without depending on another driver.
///
/// Keys that come in order — most ids grow — are stored a block at a time (`KeyBlock`, a row of
/// `blocks` per few hundred keys of one table, keyed by its first key): a block is only ever
/// appended above every block of its table, so the one block that can hold a key is the last
/// whose first key is not greater, found with one index seek. Keys that do not (a table's keys
/// in no order, or one out of order) are stored a row each in `keys`. A key is in one or the
/// other, never both.
///
/// SQLite on an empty file name: "a private, temporary on-disk database will be created. This
/// private database will be automatically deleted as soon as the database connection is closed."
/// Its pages live in a small page cache and the file in the temporary directory (`$SQLITE_TMPDIR`,
/// `$TMPDIR`, else `/var/tmp` or `/tmp`), so the run's memory does not grow with its keys. It
/// needs no journal: nothing in it outlives the run, and a failure fails the run.
///
/// Both threads of a run use it, always under the registry's lock: SQLite's multi-thread mode
/// (`SQLITE_OPEN_NOMUTEX`) is safe "provided that no single database connection nor any object
/// derived from database connection, such as a prepared statement, is used in two or more
/// threads at the same time".
package final class SQLiteKeySpill: KeySpill {
  private let connection: SpillDatabase
  private let insertKey: SpillStatement
  /// Inserts `insertRows` keys at once: a statement run once per key cost as much as the insert.
  private let insertKeys: SpillStatement
  private let findKey: SpillStatement
  private let updateKey: SpillStatement
  private let insertBlock: SpillStatement
  private let findBlock: SpillStatement
  private let updateBlock: SpillStatement
  /// Per table (by the registry's number), the greatest key in a block.
  private var greatestInBlocks: [Int32: NaturalKey] = [:]

  static var insertRows: Int { 64 }
  /// Keys per block: a look-up reads one block, a few KiB.
  static var blockKeys: Int { 256 }
  /// The page cache, in KiB (part of the budget's base, `MemoryBudget.keySpillCacheBytes`): a
  /// look-up descends a few interior pages, which stay cached, to one leaf page the operating
  /// system's cache usually holds.
  static var cacheKibibytes: Int { MemoryBudget.keySpillCacheBytes / 1024 }

  package init() throws(KeySpillError) {
    do {
      connection = try SpillDatabase(path: "")
      try connection.execute(
        """
        PRAGMA foreign_keys = OFF; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
        PRAGMA cache_size = -\(Self.cacheKibibytes);
        CREATE TABLE keys (
          tbl INTEGER NOT NULL, value NOT NULL, input INTEGER NOT NULL, ordinal INTEGER NOT NULL,
          PRIMARY KEY (tbl, value)
        ) WITHOUT ROWID;
        CREATE TABLE blocks (tbl INTEGER NOT NULL, first NOT NULL, keys BLOB NOT NULL, PRIMARY KEY (tbl, first))
          WITHOUT ROWID
        """)
      insertKey = try connection.prepare("INSERT INTO keys VALUES (?, ?, ?, ?)")
      insertKeys = try connection.prepare(
        "INSERT INTO keys VALUES " + Array(repeating: "(?, ?, ?, ?)", count: Self.insertRows).joined(separator: ", "))
      findKey = try connection.prepare("SELECT input, ordinal FROM keys WHERE tbl = ?1 AND value = ?2")
      updateKey = try connection.prepare("UPDATE keys SET input = ?3, ordinal = ?4 WHERE tbl = ?1 AND value = ?2")
      insertBlock = try connection.prepare("INSERT INTO blocks VALUES (?1, ?2, ?3)")
      findBlock = try connection.prepare(
        "SELECT first, keys FROM blocks WHERE tbl = ?1 AND first <= ?2 ORDER BY first DESC LIMIT 1")
      updateBlock = try connection.prepare("UPDATE blocks SET keys = ?3 WHERE tbl = ?1 AND first = ?2")
    } catch {
      throw Self.failure(error)
    }
  }

  /// Adds keys the database does not hold, sorted by `precedes`, in one transaction: each table's
  /// keys above its greatest in a block as blocks, the others a row each.
  package func insert(_ keys: [(key: NaturalKey, entry: KeyEntry)]) throws(KeySpillError) {
    do {
      try connection.withTransaction {
        var start = 0
        while start < keys.count {
          let table = keys[start].key.table
          var end = start
          while end < keys.count && keys[end].key.table == table { end += 1 }
          // Sorted: reals and blobs last, then before them the integers and texts above the
          // table's greatest key in a block — usually all of them.
          var plain = end
          while plain > start, KeyBlock.kind(of: keys[plain - 1].key.value) == nil { plain -= 1 }
          var blocked = start
          if start < plain && !isAboveBlocks(keys[start].key) {
            var low = start + 1
            blocked = plain
            while low < blocked {
              let middle = (low + blocked) / 2
              if isAboveBlocks(keys[middle].key) { blocked = middle } else { low = middle + 1 }
            }
          }
          try insertRows(keys[start..<blocked])
          try insertBlocks(keys[blocked..<plain])
          try insertRows(keys[plain..<end])
          start = end
        }
      }
    } catch {
      throw Self.failure(error)
    }
  }

  private func isAboveBlocks(_ key: NaturalKey) -> Bool {
    guard let greatest = greatestInBlocks[key.table] else { return true }
    return NaturalKey.precedes(greatest, key)
  }

  private func insertRows(_ keys: ArraySlice<(key: NaturalKey, entry: KeyEntry)>) throws {
    var start = keys.startIndex
    while start + Self.insertRows <= keys.endIndex {
      for row in 0..<Self.insertRows {
        try bind(insertKeys, keys[start + row].key, keys[start + row].entry, row: row)
      }
      try insertKeys.execute()
      start += Self.insertRows
    }
    for (key, entry) in keys[start...] {
      try bind(insertKey, key, entry, row: 0)
      try insertKey.execute()
    }
  }

  /// Keys above every block of their table, ascending: integers, then texts.
  private func insertBlocks(_ keys: ArraySlice<(key: NaturalKey, entry: KeyEntry)>) throws {
    var start = keys.startIndex
    while start < keys.endIndex {
      guard let kind = KeyBlock.kind(of: keys[start].key.value) else { preconditionFailure("only integers and texts") }
      var end = start
      while end < keys.endIndex && end - start < Self.blockKeys && KeyBlock.kind(of: keys[end].key.value) == kind {
        end += 1
      }
      let first = keys[start].key
      try insertBlock.bind(Int64(first.table), at: 1)
      try insertBlock.bind(first.value, at: 2)
      try insertBlock.bind(.blob(KeyBlock.encode(keys[start..<end], kind: kind)), at: 3)
      try insertBlock.execute()
      greatestInBlocks[first.table] = keys[end - 1].key
      start = end
    }
  }

  package func find(_ key: NaturalKey) throws(KeySpillError) -> KeyEntry? {
    do {
      if let (_, block, offset) = try blockHolding(key) { return KeyBlock.entry(at: offset, in: block) }
      try findKey.bind(Int64(key.table), at: 1)
      try findKey.bind(key.value, at: 2)
      defer { findKey.reset() }
      guard try findKey.step() else { return nil }
      let input = findKey.columnInt64(0)
      return KeyEntry(
        first: .init(input: Int32(truncatingIfNeeded: input < 0 ? -1 - input : input), ordinal: findKey.columnInt64(1)),
        isVoid: input < 0)
    } catch let error as KeySpillError {
      throw error
    } catch {
      throw Self.failure(error)
    }
  }

  /// Changes a spilled key's entry; false when the key is not spilled.
  package func update(_ key: NaturalKey, _ entry: KeyEntry) throws(KeySpillError) -> Bool {
    do {
      if let (first, block, offset) = try blockHolding(key) {
        var block = block
        KeyBlock.setEntry(entry, at: offset, in: &block)
        try updateBlock.bind(Int64(key.table), at: 1)
        try updateBlock.bind(first, at: 2)
        try updateBlock.bind(.blob(block), at: 3)
        try updateBlock.execute()
        return true
      }
      try bind(updateKey, key, entry, row: 0)
      try updateKey.execute()
      return connection.changes > 0
    } catch let error as KeySpillError {
      throw error
    } catch {
      throw Self.failure(error)
    }
  }

  /// The block that holds `key` — its first key, its bytes — and where the key's entry is in it.
  private func blockHolding(_ key: NaturalKey) throws -> (first: DatabaseValue, block: [UInt8], offset: Int)? {
    guard KeyBlock.kind(of: key.value) != nil, let greatest = greatestInBlocks[key.table],
      !NaturalKey.precedes(greatest, key)
    else { return nil }
    try findBlock.bind(Int64(key.table), at: 1)
    try findBlock.bind(key.value, at: 2)
    defer { findBlock.reset() }
    guard try findBlock.step(), let first = findBlock.columnValue(0), case .blob(let block)? = findBlock.columnValue(1),
      let offset = KeyBlock.entryOffset(of: key.value, in: block)
    else { return nil }
    return (first, block, offset)
  }

  /// The page cache SQLite gives the spill, in bytes, as its `cache_size` says (in KiB when
  /// negative, in pages when positive).
  package func pageCacheBytes() throws(KeySpillError) -> Int {
    do {
      let sizes = try connection.prepare("SELECT cache_size, page_size FROM pragma_cache_size, pragma_page_size")
      guard try sizes.step() else { return 0 }
      let size = sizes.columnInt64(0)
      return Int(size < 0 ? -size * 1024 : size * sizes.columnInt64(1))
    } catch {
      throw Self.failure(error)
    }
  }

  /// Every spilled key, for a Bloom filter made from them.
  package func forEachKey(_ body: (NaturalKey) -> Void) throws(KeySpillError) {
    do {
      let rows = try connection.prepare("SELECT tbl, value FROM keys")
      while try rows.step() {
        guard let value = rows.columnValue(1) else { continue }
        body(NaturalKey(table: Int32(truncatingIfNeeded: rows.columnInt64(0)), value: value))
      }
      let blocks = try connection.prepare("SELECT tbl, keys FROM blocks")
      while try blocks.step() {
        guard case .blob(let block)? = blocks.columnValue(1) else { continue }
        KeyBlock.forEachKey(in: block, table: Int32(truncatingIfNeeded: blocks.columnInt64(0)), body)
      }
    } catch {
      throw Self.failure(error)
    }
  }

  /// Binds a key's four columns as row `row` of a statement's parameters: its table, its value,
  /// its first record's input — as `-1 - input` when the key is void — and that record's ordinal.
  private func bind(_ statement: SpillStatement, _ key: NaturalKey, _ entry: KeyEntry, row: Int) throws {
    let first = Int32(row * 4 + 1)
    let input = Int64(entry.first.input)
    try statement.bind(Int64(key.table), at: first)
    try statement.bind(key.value, at: first + 1)
    try statement.bind(entry.isVoid ? -1 - input : input, at: first + 2)
    try statement.bind(entry.first.ordinal, at: first + 3)
  }

  private static func failure(_ error: any Error) -> KeySpillError {
    if let error = error as? SpillDatabaseError { return KeySpillError(message: error.message) }
    return KeySpillError(message: "\(error)")
  }
}
