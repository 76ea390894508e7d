import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

@Suite("SQLite layer")
struct SQLiteTests {
  /// Keeps the temporary directory alive as long as the connection is used.
  final class Scratch {
    let directory: TemporaryDirectory
    let connection: SQLiteConnection
    init() throws {
      directory = try TemporaryDirectory()
      connection = try SQLiteConnection(path: directory.file("test.sqlite"))
    }
  }

  private func makeDatabase() throws -> Scratch {
    let scratch = try Scratch()
    try scratch.connection.execute(
      """
      CREATE TABLE parents (id TEXT PRIMARY KEY, name TEXT NOT NULL);
      CREATE TABLE children (
        parent_id TEXT NOT NULL REFERENCES parents (id) ON DELETE CASCADE,
        position INTEGER NOT NULL, PRIMARY KEY (parent_id, position));
      """)
    return scratch
  }

  @Test func preparedStatementIsReusedAcrossBindings() throws {
    let scratch = try makeDatabase()
    defer { withExtendedLifetime(scratch) {} }
    let db = scratch.connection
    let insert = try db.prepare("INSERT INTO parents (id, name) VALUES (?, ?)")
    for index in 0..<100 { try insert.run([.text("p\(index)"), .text("Ünïcode \(index)")]) }
    #expect(try db.scalarInt("SELECT count(*) FROM parents") == 100)
    let select = try db.prepare("SELECT name FROM parents WHERE id = ?")
    try select.bind([.text("p42")])
    #expect(try select.step())
    #expect(select.columnText(0) == "Ünïcode 42")
  }

  /// Texts are bound from buffers the statement owns (`SQLITE_STATIC`), so what SQLite reads is
  /// what was bound, byte for byte, whatever became of the strings: when the statement runs
  /// again on its kept bindings, after a rebind of another parameter, for an empty text, one at
  /// the buffers' capacity, one over it (copied by SQLite), and one while a query runs.
  @Test func boundTextsAreTheStatementsOwnUntilBoundAgain() throws {
    let scratch = try makeDatabase()
    defer { withExtendedLifetime(scratch) {} }
    let db = scratch.connection
    try db.execute("CREATE TABLE texts (n INTEGER, a TEXT, b TEXT)")
    let insert = try db.prepare("INSERT INTO texts (n, a, b) VALUES (?, ?, ?)")
    let capacity = SQLiteStatement.slotCapacity
    let cases: [(String, String)] = [
      ("", "ünï 🦆"), (String(repeating: "x", count: capacity), String(repeating: "é", count: capacity / 2)),
      (String(repeating: "y", count: capacity + 1), String(repeating: "z", count: 70_000)),
      ("short", "a longer text than fifteen bytes"),
    ]
    for (n, (a, b)) in cases.enumerated() {
      // Strings made at run time, gone when the iteration ends: a heap string freed after the
      // bind must not be what SQLite reads.
      var first: String? = String(decoding: Array(a.utf8), as: UTF8.self)
      try insert.bind(.integer(Int64(n)), at: 1)
      try insert.bind(first.map(DatabaseValue.text), at: 2)
      try insert.bind(String(decoding: Array(b.utf8), as: UTF8.self), at: 3)
      first = nil
      try insert.execute()
      // The same bindings again, then one parameter rebound: the others are kept as they were.
      try insert.bind(.integer(Int64(n + 100)), at: 1)
      try insert.execute()
    }
    let select = try db.prepare("SELECT a, b FROM texts WHERE n = ?")
    for (n, (a, b)) in cases.enumerated() {
      for number in [n, n + 100] {
        try select.bind(.integer(Int64(number)), at: 1)
        #expect(try select.step())
        #expect(select.columnText(0) == a && select.columnText(1) == b, "row \(number)")
        #expect(!select.columnIsNull(0), "an empty text is not NULL")
        select.reset()
      }
    }
    // A running statement refuses a new binding and keeps reading the one it had.
    try select.bind(.integer(0), at: 1)
    #expect(try select.step())
    #expect(throws: (any Error).self) { try select.bind(.text("a text while running"), at: 1) }
    #expect(select.columnText(1) == "ünï 🦆")
    select.reset()
  }

  @Test func transactionRollsBackOnErrorAndRethrowsIt() throws {
    let scratch = try makeDatabase()
    defer { withExtendedLifetime(scratch) {} }
    let db = scratch.connection
    struct Boom: Error {}
    #expect(throws: Boom.self) {
      try db.withTransaction {
        try db.execute("INSERT INTO parents VALUES ('a', 'A')")
        throw Boom()
      }
    }
    #expect(try db.scalarInt("SELECT count(*) FROM parents") == 0)
    #expect(!db.isInTransaction)
    try db.withTransaction { try db.execute("INSERT INTO parents VALUES ('b', 'B')") }
    #expect(try db.scalarInt("SELECT count(*) FROM parents") == 1)
  }

  @Test func errorsCarryCodeMessageAndSQLButNeverBoundValues() throws {
    let scratch = try makeDatabase()
    defer { withExtendedLifetime(scratch) {} }
    let db = scratch.connection
    let insert = try db.prepare("INSERT INTO parents (id, name) VALUES (?, ?)")
    try insert.run([.text("secret-id"), .text("secret-name")])
    let error = try #require(throws: SQLiteError.self) {
      try insert.run([.text("secret-id"), .text("other secret")])
    }
    #expect(error.isConstraintViolation)
    #expect(error.extendedCode == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
    #expect(error.sql == "INSERT INTO parents (id, name) VALUES (?, ?)")
    #expect(!error.description.contains("secret"))

    let syntax = try #require(throws: SQLiteError.self) { try db.prepare("SELEC nothing") }
    #expect(syntax.code == 1)
    #expect(syntax.sql == "SELEC nothing")
  }

  @Test func foreignKeysAreEnforcedAndCascade() throws {
    let scratch = try makeDatabase()
    defer { withExtendedLifetime(scratch) {} }
    let db = scratch.connection
    let orphan = try #require(throws: SQLiteError.self) {
      try db.execute("INSERT INTO children VALUES ('nobody', 0)")
    }
    #expect(orphan.isConstraintViolation)
    try db.execute("INSERT INTO parents VALUES ('p', 'P'); INSERT INTO children VALUES ('p', 0), ('p', 1)")
    try db.execute("DELETE FROM parents WHERE id = 'p'")
    #expect(try db.scalarInt("SELECT count(*) FROM children") == 0)
  }

  @Test func migrationsRunOnceAndAreRecorded() throws {
    let scratch = try makeDatabase()
    defer { withExtendedLifetime(scratch) {} }
    let db = scratch.connection
    let migrations = [
      Migration("m1", sql: "CREATE TABLE one (x INTEGER)"),
      Migration("m2", sql: "CREATE TABLE two (y INTEGER)"),
    ]
    #expect(try Migrator.migrate(db, migrations).applied == ["m1", "m2"])
    #expect(try Migrator.migrate(db, migrations).applied == [])
    let more = migrations + [Migration("m3", sql: "ALTER TABLE two ADD COLUMN z TEXT")]
    #expect(try Migrator.migrate(db, more).applied == ["m3"])
    #expect(try db.scalarInt("SELECT count(*) FROM sluice_migrations") == 3)
  }

  @Test func deferrableIndexesWaitOnlyForTablesTheMigrationCreates() throws {
    let scratch = try makeDatabase()
    defer { withExtendedLifetime(scratch) {} }
    let db = scratch.connection
    let migrations = [
      Migration("t-1", sql: "CREATE TABLE t (x INTEGER, y INTEGER)"),
      Migration("t-2", sql: "CREATE INDEX t_by_y ON t (y)", isDeferrableIndex: true),
    ]
    let first = try Migrator.migrate(db, migrations, deferringIndexesOfNewTables: true)
    #expect(first.applied == ["t-1"])
    #expect(first.deferred.map(\.identifier) == ["t-2"])
    #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 't_by_y'") == 0)
    #expect(try Migrator.migrate(db, first.deferred).applied == ["t-2"])
    #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 't_by_y'") == 1)

    // A schema that exists already gets a new deferrable index at once.
    let later = migrations + [Migration("t-3", sql: "CREATE INDEX t_by_x ON t (x)", isDeferrableIndex: true)]
    let second = try Migrator.migrate(db, later, deferringIndexesOfNewTables: true)
    #expect(second.applied == ["t-3"])
    #expect(second.deferred.isEmpty)

    // A table new to an existing schema (alerts beside the devices a database holds) is empty:
    // its deferrable index waits for the load; a new index of a table that exists does not.
    let third =
      later + [
        Migration("u-1", sql: "CREATE TABLE u (x INTEGER)", creates: .table("u", columns: ["x"])),
        Migration("u-2", sql: "CREATE INDEX u_by_x ON u (x)", isDeferrableIndex: true, indexedTable: "u"),
        Migration("t-4", sql: "CREATE INDEX t_by_xy ON t (x, y)", isDeferrableIndex: true, indexedTable: "t"),
      ]
    let withNewTable = try Migrator.migrate(db, third, deferringIndexesOfNewTables: true)
    #expect(withNewTable.applied == ["u-1", "t-4"])
    #expect(withNewTable.deferred.map(\.identifier) == ["u-2"])
    // Without the option, nothing waits.
    let fourth = third + [Migration("v-1", sql: "CREATE TABLE v (x INTEGER)", creates: .table("v", columns: ["x"]))]
    let plain = try Migrator.migrate(
      db, fourth + [Migration("v-2", sql: "CREATE INDEX v_by_x ON v (x)", isDeferrableIndex: true, indexedTable: "v")])
    #expect(plain.applied == ["u-2", "v-1", "v-2"])
  }

  @Test func failedMigrationInsideATransactionLeavesNoTrace() throws {
    let scratch = try makeDatabase()
    defer { withExtendedLifetime(scratch) {} }
    let db = scratch.connection
    let broken = [
      Migration("ok", sql: "CREATE TABLE fine (x INTEGER)"),
      Migration("broken", sql: "CREATE TABLE (oops"),
    ]
    #expect(throws: SQLiteError.self) { try db.withTransaction { try Migrator.migrate(db, broken) } }
    #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name IN ('fine', 'sluice_migrations')") == 0)
  }

  @Test func openingInAMissingDirectoryFails() throws {
    let error = try #require(throws: SQLiteError.self) {
      try SQLiteConnection(path: "/nonexistent-dir/sluice/test.sqlite")
    }
    #expect(error.code == 14)  // SQLITE_CANTOPEN
  }

  @Test func secondWriterGetsBusyAfterTheTimeout() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("locked.sqlite")
    let first = try SQLiteConnection(path: path)
    try first.execute("CREATE TABLE t (x INTEGER); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
    var options = SQLiteConnection.OpenOptions()
    options.busyTimeoutMilliseconds = 50
    let second = try SQLiteConnection(path: path, options: options)
    let error = try #require(throws: SQLiteError.self) { try second.execute("BEGIN IMMEDIATE") }
    #expect(error.isBusy)
    try first.execute("COMMIT")
  }

  @Test func timestampsKeepEveryMillisecondOfAParsedDate() throws {
    let parser = DateParser(formats: [.iso8601])
    for millisecond in 0..<1000 {
      let fraction = String(1000 + millisecond).dropFirst()
      for stamp in ["1969-12-31T23:59:59", "1970-01-01T00:00:00", "2023-01-01T00:00:05", "2099-12-31T23:59:59"] {
        let date = try #require(parser.parse("\(stamp).\(fraction)Z"))
        #expect(TimestampText.text(date) == "\(stamp).\(fraction)Z")
      }
    }
    let submillisecond = try #require(parser.parse("2023-01-01T00:00:05.123456Z"))
    #expect(TimestampText.text(submillisecond) == "2023-01-01T00:00:05.123Z")
  }

  /// `sluice runs` reads a ledger row's time back with `date(from:)`: the canonical text by
  /// hand (an `ISO8601DateFormatter` a row took 25 s for 100,000 rows), which must read every
  /// instant as the formatter does, and refuse what is not a day of the calendar.
  @Test func timestampsReadBackAsTheFormatterReadsThem() throws {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let texts = [
      "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "2000-02-29T12:34:56.789Z",
      "2023-01-01T00:00:05.002Z", "1582-10-15T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
      "2024-03-01T00:00:00.500Z",
    ]
    for text in texts {
      let fast = try #require(TimestampText.canonicalMilliseconds(text), "\(text)")
      let slow = try #require(formatter.date(from: text))
      #expect(fast == Int64((slow.timeIntervalSince1970 * 1000).rounded()), "\(text)")
      #expect(TimestampText.date(from: text).map(TimestampText.text) == text)
    }
    for text in [
      "2023-02-30T00:00:00.000Z", "2023-13-01T00:00:00.000Z", "2023-01-01T24:00:00.000Z",
      "2023-01-01 00:00:00.000Z", "2023-01-01T00:00:00Z", "+10000-01-01T00:00:00.000Z",
    ] {
      #expect(TimestampText.canonicalMilliseconds(text) == nil, "\(text)")
    }
    #expect(
      TimestampText.date(from: "+10000-01-01T00:00:00.000Z") == formatter.date(from: "+10000-01-01T00:00:00.000Z"))
    // Before 1582 the formatter reads the Julian calendar where `text(_:)` writes the proleptic
    // Gregorian one (two days apart in year 1): what it wrote reads back as itself.
    let early = "0001-01-01T00:00:00.000Z"
    #expect(TimestampText.date(from: early).map(TimestampText.text) == early)
  }

  /// Issue 8, finding 1: a negative year trapped in `UInt8(value % 10)`. The decoder keeps such
  /// dates out; the formatter must still never trap on one a mapper makes itself.
  @Test func timestampsOutsideFourDigitYearsNeverTrap() {
    #expect(TimestampText.text(Date(timeIntervalSince1970: -62_167_222_800)) == "-0001-12-31T23:00:00.000Z")
    #expect(TimestampText.text(Date(timeIntervalSince1970: 253_402_300_800)) == "+10000-01-01T00:00:00.000Z")
    #expect(TimestampText.text(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00.000Z")
    #expect(!TimestampText.text(Date(timeIntervalSince1970: 1e300)).isEmpty)
    #expect(!TimestampText.text(Date(timeIntervalSince1970: -.infinity)).isEmpty)
    #expect(TimestampText.text(Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00.000Z")
  }
}
