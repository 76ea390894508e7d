/// The keys a `KeyRegistry` moved out of memory: a private temporary SQLite database, one row per
/// key with the record that wrote it first.
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
final class KeySpill {
  private let connection: SQLiteConnection
  private let insertStatement: SQLiteStatement
  private let findStatement: SQLiteStatement
  private let updateStatement: SQLiteStatement

  /// The page cache, in KiB: a look-up descends a few interior pages, which stay cached, to one
  /// leaf page the operating system's cache usually holds.
  static var cacheKibibytes: Int { 1024 }

  init() throws(KeyRegistryError) {
    do {
      connection = try SQLiteConnection(path: "")
      try connection.execute(
        """
        PRAGMA foreign_keys = OFF; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
        PRAGMA cache_size = -\(Self.cacheKibibytes);
        CREATE TABLE spilled (
          tbl INTEGER NOT NULL, value NOT NULL, input INTEGER NOT NULL, ordinal INTEGER NOT NULL,
          void INTEGER NOT NULL, PRIMARY KEY (tbl, value)
        ) WITHOUT ROWID
        """)
      insertStatement = try connection.prepare("INSERT INTO spilled VALUES (?1, ?2, ?3, ?4, ?5)")
      findStatement = try connection.prepare("SELECT input, ordinal, void FROM spilled WHERE tbl = ?1 AND value = ?2")
      updateStatement = try connection.prepare(
        "UPDATE spilled SET input = ?3, ordinal = ?4, void = ?5 WHERE tbl = ?1 AND value = ?2")
    } catch {
      throw Self.failure(error)
    }
  }

  /// Adds keys the database does not hold, in one transaction, in key order so that the inserts
  /// walk the B-tree's pages once.
  func insert(_ keys: [KeyRegistry.Key: KeyRegistry.Entry]) throws(KeyRegistryError) {
    let sorted = keys.sorted { Self.precedes($0.key, $1.key) }
    do {
      try connection.withTransaction(.deferred) {
        for (key, entry) in sorted {
          try bind(insertStatement, key, entry)
          try insertStatement.execute()
        }
      }
    } catch {
      throw Self.failure(error)
    }
  }

  func find(_ key: KeyRegistry.Key) throws(KeyRegistryError) -> KeyRegistry.Entry? {
    do {
      try findStatement.bind(.integer(Int64(key.table)), at: 1)
      try findStatement.bind(key.value, at: 2)
      defer { findStatement.reset() }
      guard try findStatement.step() else { return nil }
      return KeyRegistry.Entry(
        first: .init(input: Int32(truncatingIfNeeded: findStatement.columnInt64(0)), ordinal: findStatement.columnInt64(1)),
        isVoid: findStatement.columnInt64(2) != 0)
    } catch {
      throw Self.failure(error)
    }
  }

  /// Changes a spilled key's entry; false when the key is not spilled.
  func update(_ key: KeyRegistry.Key, _ entry: KeyRegistry.Entry) throws(KeyRegistryError) -> Bool {
    do {
      try bind(updateStatement, key, entry)
      try updateStatement.execute()
      return connection.changes > 0
    } catch {
      throw Self.failure(error)
    }
  }

  /// Every spilled key, for a Bloom filter made anew.
  func forEachKey(_ body: (KeyRegistry.Key) -> Void) throws(KeyRegistryError) {
    do {
      let scan = try connection.prepare("SELECT tbl, value FROM spilled")
      while try scan.step() {
        guard let value = scan.columnValue(1) else { continue }
        body(KeyRegistry.Key(table: Int32(truncatingIfNeeded: scan.columnInt64(0)), value: value))
      }
    } catch {
      throw Self.failure(error)
    }
  }

  private func bind(_ statement: SQLiteStatement, _ key: KeyRegistry.Key, _ entry: KeyRegistry.Entry) throws {
    try statement.bind(Int64(key.table), at: 1)
    try statement.bind(key.value, at: 2)
    try statement.bind(Int64(entry.first.input), at: 3)
    try statement.bind(entry.first.ordinal, at: 4)
    try statement.bind(Int64(entry.isVoid ? 1 : 0), at: 5)
  }

  /// Key order, as near SQLite's as is cheap: by table, then integers by value and text byte by
  /// byte; other values (blobs, reals) after them in no particular order.
  private static func precedes(_ a: KeyRegistry.Key, _ b: KeyRegistry.Key) -> Bool {
    if a.table != b.table { return a.table < b.table }
    switch (a.value, b.value) {
    case (.integer(let x), .integer(let y)):
      return x < y
    case (.text(var x), .text(var y)):
      return x.withUTF8 { x in y.withUTF8 { y in x.lexicographicallyPrecedes(y) } }
    default:
      return rank(a.value) < rank(b.value)
    }
  }

  private static func rank(_ value: DatabaseValue) -> Int {
    switch value {
    case .integer: 0
    case .real: 1
    case .text: 2
    case .blob: 3
    }
  }

  private static func failure(_ error: any Error) -> KeyRegistryError {
    if let error = error as? SQLiteError { return KeyRegistryError(message: error.message) }
    return KeyRegistryError(message: "\(error)")
  }
}
