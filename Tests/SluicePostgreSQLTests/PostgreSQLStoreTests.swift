import Foundation
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Synchronization
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluicePostgreSQL

/// Where a database is, and what of it is printed: no server needed.
@Suite("Database locations")
struct DatabaseLocationTests {
  @Test(arguments: [
    ("postgresql://sluice@db.example:5432/shop", true), ("postgres://sluice@/shop?host=/run/pg", true),
    ("POSTGRESQL://x@y/z", true), ("shop.sqlite", false), ("/var/lib/postgresql://x", false),
    ("postgresql:/x", false),
  ])
  func aURLWithAPostgreSQLSchemeNamesAServer(text: String, isServer: Bool) {
    #expect((try? StoreDrivers.all.driver(for: text))?.name == (isServer ? "PostgreSQL" : "SQLite"))
  }

  @Test(arguments: [
    ("postgresql://ann:s3cret@db:5432/shop", "postgresql://ann:***@db:5432/shop"),
    ("postgres://ann:p%40ss@h1:1,h2:2/shop?sslmode=require", "postgres://ann:***@h1:1,h2:2/shop?sslmode=require"),
    (
      "postgresql://ann@db/shop?password=s3cret&connect_timeout=5",
      "postgresql://ann@db/shop?password=***&connect_timeout=5"
    ),
    ("postgresql://ann@/shop?host=/run/pg&port=5433", "postgresql://ann@/shop?host=/run/pg&port=5433"),
    ("postgresql:///shop", "postgresql:///shop"),
    ("postgresql://db/shop?x=a@b:c", "postgresql://db/shop?x=a@b:c"),
  ])
  func theRedactedURLKeepsEverythingButThePassword(url: String, redacted: String) {
    #expect(PostgreSQLDriver().redacted(url) == redacted)
    #expect(PostgreSQLDriver().hasPassword(url) == (url != redacted))
  }

  @Test(arguments: [
    ("host=db.example dbname=shop", true), ("  dbname = shop user=ann", true), ("user=ann password='a b'", true),
    ("service=nightly", true), ("shop.sqlite", false), ("a=b.sqlite", false), ("notes/host=x.sqlite", false),
    ("hostname=x", false),
  ])
  func libpqKeywordValuePairsNameAServerNotAFile(text: String, isServer: Bool) {
    #expect((try? StoreDrivers.all.driver(for: text))?.name == (isServer ? "PostgreSQL" : "SQLite"))
  }

  @Test(arguments: [
    ("host=db password=s3cret dbname=shop", "host=db password=*** dbname=shop"),
    ("host=db password = 's3 c\\'ret' dbname=shop", "host=db password = *** dbname=shop"),
    ("host=db sslpassword=k3y", "host=db sslpassword=***"),
    ("host=db dbname=shop", "host=db dbname=shop"),
    ("postgresql://ann@db/shop?sslpassword=k3y", "postgresql://ann@db/shop?sslpassword=***"),
  ])
  func theRedactedKeywordValueStringKeepsEverythingButThePassword(text: String, redacted: String) {
    #expect(PostgreSQLDriver().redacted(text) == redacted)
    #expect(PostgreSQLDriver().hasPassword(text) == (text != redacted))
  }

  @Test func aKeywordValuePasswordIsUnquoted() {
    #expect(PostgreSQLConnectionString.password(in: #"host=db password='a \' b'"#) == "a ' b")
    #expect(PostgreSQLConnectionString.password(in: "host=db password=plain") == "plain")
  }

  /// libpq reads the string without connecting; what it cannot read is said in its words, the
  /// password masked, and never as a server at "localhost".
  @Test(arguments: [
    ("postgresql://ann:hunter2@db.example:54x2/shop", "invalid port \"54x2\""),
    ("postgresql://ann:hun%zzter2@db.example/shop", "invalid percent-encoded token"),
    ("postgresql://ann:hunter2@db.example/shop?sslmode", "missing key/value separator"),
    ("postgresql://ann:hunter2@db.example/shop?bogus=1", "invalid URI query parameter: \"bogus\""),
    ("postgresql://ann:hunter2@[::1/shop", "matching \"]\""),
    ("host=db.example password=hunter2 bogus=1", "invalid connection option \"bogus\""),
    ("host=db.example password='hunter2", "unterminated quoted string"),
    ("host=db.example connect_timeout=soon password=hunter2", "invalid connect_timeout"),
  ])
  func aMalformedConnectionStringIsSaidSoWithoutItsPassword(text: String, problem: String) throws {
    let said = try #require(PostgreSQLStore.problem(in: text))
    #expect(said.contains(problem), "\(said)")
    #expect(!said.contains("hunter2") && !said.contains("hun%zzter2"))
    #expect(!said.contains("localhost"))
    let error = try #require(throws: PostgreSQLError.self) { try PostgreSQLStore(url: text) }
    #expect(error.message.hasPrefix("malformed connection string: "))
    #expect(!error.description.contains("hunter2") && !error.description.contains("localhost"))
  }

  @Test(arguments: [
    "postgresql://ann@db.example:5432,db2:5433/shop?sslmode=require&connect_timeout=5", "postgresql:///shop",
    "host=/run/postgresql port=5432 dbname=shop", "postgresql://ann@/shop?host=/run/pg&port=5433",
  ])
  func aWellFormedConnectionStringHasNoProblem(text: String) {
    #expect(PostgreSQLStore.problem(in: text) == nil)
  }

  @Test func thePasswordIsDecoded() {
    #expect(PostgreSQLConnectionString.password(in: "postgresql://ann:p%40ss@db/shop") == "p@ss")
    #expect(PostgreSQLConnectionString.password(in: "postgresql://ann@db/shop") == nil)
  }

  @Test func aStatementSendsEveryParameterUpToTheHighestItNames() {
    #expect(PostgreSQLStatement.parameters(in: "DELETE FROM t WHERE k = $3") == [3])
    #expect(PostgreSQLStatement.parameters(in: "SELECT '$1', \"$2\", $10 -- $4\n, $5") == [10, 5])
  }

  @Test func theDialectSpellsTypesAndParametersForPostgreSQL() {
    let dialect = PostgreSQLDialect()
    #expect(dialect.typeName(.boolean) == "smallint")
    #expect(dialect.typeName(.timestamp) == "timestamptz")
    #expect(dialect.parameter(12) == "$12")
  }
}

/// The PostgreSQL store against a real server: types round trip, errors are classified as the
/// engine needs, without values. Skipped without `SLUICE_TEST_POSTGRES_URL`.
@Suite(
  "PostgreSQL store",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLStoreTests {
  let schema = PostgreSQLSchema()

  /// A store in the test's own schema, created.
  func store() throws -> PostgreSQLStore {
    let store = try schema.connect()
    try store.withTransaction {}
    return store
  }

  @Test func valuesRoundTripThroughTheDeclaredTypes() throws {
    let db = try store()
    let dialect = db.dialect
    try db.execute(
      """
      CREATE TABLE t (k \(dialect.typeName(.integer)) PRIMARY KEY, flag \(dialect.typeName(.boolean)),
        x \(dialect.typeName(.real)), at \(dialect.typeName(.timestamp)), body \(dialect.typeName(.blob)),
        note \(dialect.typeName(.text)))
      """)
    let reals: [Double] = [0.1, -1e-300, 1.7976931348623157e308, 123456789.125, .infinity, 0]
    let times = [
      "2023-01-01T00:00:05.000Z", "1969-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
    ]
    let insert = try db.prepare("INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)")
    for (index, real) in reals.enumerated() {
      try insert.run([
        .integer(Int64(index) - 3 + (index == 5 ? Int64.max - 2 : 0)), .integer(Int64(index % 2)), .real(real),
        .text(times[index % times.count]), .blob(index == 0 ? [] : [0, 255, UInt8(index), 10]),
        .text(index == 1 ? "" : "Zoë ' \" \\ \u{1F600} \(index)"),
      ])
    }
    let read = try db.prepare(
      """
      SELECT k, flag, x, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), body, note FROM t ORDER BY x
      """)
    var rows: [[DatabaseValue?]] = []
    while try read.step() { rows.append((0..<6).map { read.columnValue(Int32($0)) }) }
    #expect(rows.count == reals.count)
    #expect(rows.map { $0[2] } == reals.sorted().map { .real($0) })
    for row in rows {
      guard case .real(let real)? = row[2], let index = reals.firstIndex(of: real) else {
        Issue.record("unexpected row \(row)")
        continue
      }
      #expect(row[0] == .integer(Int64(index) - 3 + (index == 5 ? Int64.max - 2 : 0)))
      #expect(row[1] == .integer(Int64(index % 2)))
      #expect(row[3] == .text(times[index % times.count]))
      #expect(row[4] == .blob(index == 0 ? [] : [0, 255, UInt8(index), 10]))
      #expect(row[5] == .text(index == 1 ? "" : "Zoë ' \" \\ \u{1F600} \(index)"))
    }
  }

  @Test func textWithANulCharacterIsRefusedNotCut() throws {
    let db = try store()
    try db.execute("CREATE TABLE t (note text)")
    let insert = try db.prepare("INSERT INTO t VALUES ($1)")
    let error = try #require(throws: PostgreSQLError.self) { try insert.bind(.text("a\u{0}secret"), at: 1) }
    #expect(error.failure == .constraint(ConstraintViolation(kind: .value, parameter: 1)))
    #expect(!error.description.contains("secret"))
  }

  @Test func constraintErrorsNameTheConstraintAndNeverTheValues() throws {
    let db = try store()
    try db.execute(
      """
      CREATE TABLE parent (id text PRIMARY KEY);
      CREATE TABLE t (a text NOT NULL, b text NOT NULL, n bigint CONSTRAINT "t.n check" CHECK (n >= 0),
        p text REFERENCES parent, PRIMARY KEY (a, b));
      """)
    let insert = try db.prepare("INSERT INTO t VALUES ($1, $2, $3, $4)")
    try insert.run(["key-one", "key-two", 1, nil])
    func failure(_ values: [DatabaseValue?]) throws -> PostgreSQLError {
      try db.execute("SAVEPOINT s")
      defer { try? db.execute("ROLLBACK TO SAVEPOINT s") }
      return try #require(throws: PostgreSQLError.self) { try insert.run(values) }
    }
    try db.withTransaction {
      let duplicate = try failure(["key-one", "key-two", 7, nil])
      #expect(duplicate.sqlState == "23505")
      #expect(duplicate.failure == .constraint(.init(kind: .unique, table: "t", columns: ["a", "b"], name: "t_pkey")))
      let null = try failure(["k9", nil, 7, nil])
      #expect(null.failure == .constraint(.init(kind: .notNull, table: "t", columns: ["b"])))
      let check = try failure(["k9", "secret-value", -5, nil])
      #expect(check.failure == .constraint(.init(kind: .check, table: "t", name: "t.n check")))
      let orphan = try failure(["k9", "k9", 1, "secret-parent"])
      #expect(orphan.failure == .constraint(.init(kind: .foreignKey, table: "t", name: "t_p_fkey")))
      for error in [duplicate, null, check, orphan] {
        #expect(!error.description.contains("secret"))
        // Values distinctive enough that no server path or host name holds them by chance (a
        // socket folder made by mktemp once held "k1").
        #expect(!error.description.contains("key-one") && !error.description.contains("key-two"))
      }
      try db.execute("SAVEPOINT s")
      let wrongType = try #require(throws: PostgreSQLError.self) {
        try db.prepare("SELECT $1::bigint").run([.text("secret-number")])
      }
      try db.execute("ROLLBACK TO SAVEPOINT s")
      #expect(wrongType.sqlState == "22P02")
      #expect(!wrongType.description.contains("secret"))
    }
  }

  @Test func aLockHeldPastTheBusyTimeoutIsBusy() throws {
    let db = try store()
    try db.execute("CREATE TABLE t (k text PRIMARY KEY)")
    let holder = try schema.connect()
    try holder.execute("BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
    db.busyTimeoutMilliseconds = 50
    let error = try #require(throws: PostgreSQLError.self) {
      try db.withTransaction { try db.execute("INSERT INTO t VALUES ('x')") }
    }
    #expect(error.failure == .busy)
    try holder.execute("ROLLBACK")
    try db.withTransaction { try db.execute("INSERT INTO t VALUES ('x')") }
    #expect(try db.scalarInt("SELECT count(*) FROM t") == 1)
  }

  @Test func aCommitOfAFailedTransactionThrowsInsteadOfRollingBackQuietly() throws {
    let db = try store()
    try db.execute("CREATE TABLE t (k text PRIMARY KEY)")
    #expect(throws: PostgreSQLError.self) {
      try db.withTransaction {
        try db.execute("INSERT INTO t VALUES ('x')")
        _ = try? db.execute("INSERT INTO t VALUES ('x')")  // swallowed: the transaction is aborted
      }
    }
    #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
  }

  /// Two first runs into one new schema: the second waits for the first's commit (it would
  /// otherwise wait for the first's catalog rows, then fail on a duplicate schema or table name),
  /// then finds every migration applied.
  @Test func aSecondFirstRunWaitsForTheFirstThenFindsItsTablesMigrated() throws {
    let migrations = [
      Migration("create t", sql: "CREATE TABLE t (k text PRIMARY KEY)", creates: .table("t", columns: ["k"]))
    ]
    let url = schema.url
    let name = schema.name
    let migrated = DispatchSemaphore(value: 0)
    let secondStarted = DispatchSemaphore(value: 0)
    let firstDone = DispatchSemaphore(value: 0)
    let secondBackend = Atomic<Int32>(0)
    let sawTheSecondWait = Atomic<Bool>(false)
    let first = Thread {
      defer { firstDone.signal() }
      guard let store = try? PostgreSQLStore(url: url, options: .init(schema: name)),
        let observer = try? PostgreSQLStore(url: url)
      else { return }
      _ = try? store.withTransaction {
        try Migrator.migrate(store, migrations)
        migrated.signal()
        _ = secondStarted.wait(timeout: .now() + 30)
        // Commit only once the server shows the second waiting for a lock (at most 30 s).
        let pid = secondBackend.load(ordering: .acquiring)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
          let waiting = try observer.scalarInt(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = \(pid) AND wait_event_type = 'Lock'")
          if waiting == 1 {
            sawTheSecondWait.store(true, ordering: .releasing)
            break
          }
          usleep(10_000)
        }
      }
    }
    first.start()
    #expect(migrated.wait(timeout: .now() + 30) == .success)
    let second = try PostgreSQLStore(url: url, options: .init(schema: name, lockTimeoutMilliseconds: 30_000))
    secondBackend.store(second.backendProcessID, ordering: .releasing)
    secondStarted.signal()
    let applied = try second.withTransaction { try Migrator.migrate(second, migrations) }
    #expect(firstDone.wait(timeout: .now() + 30) == .success)
    let waited = sawTheSecondWait.load(ordering: .acquiring)
    #expect(waited, "the second run never waited for the first's lock")
    #expect(applied.applied.isEmpty)
    #expect(try second.columns(of: "t") == ["k"])
  }

  /// Runs into a migrated schema take no migrations lock: one holding it does not stop them.
  @Test func aMigratedSchemaIsLoadedWithoutTheMigrationsLock() throws {
    let migrations = [Migration("create t", sql: "CREATE TABLE t (k text PRIMARY KEY)")]
    let db = try store()
    try db.withTransaction { _ = try Migrator.migrate(db, migrations) }
    let holder = try schema.connect()
    try holder.execute("BEGIN")
    #expect(try holder.lockMigrations())
    db.busyTimeoutMilliseconds = 50
    let applied = try db.withTransaction { try Migrator.migrate(db, migrations) }
    #expect(applied.applied.isEmpty)
    // A migration still to apply waits for the lock, and gives up after the busy timeout.
    let more = migrations + [Migration("create u", sql: "CREATE TABLE u (k text PRIMARY KEY)")]
    let error = try #require(throws: PostgreSQLError.self) {
      try db.withTransaction { _ = try Migrator.migrate(db, more) }
    }
    #expect(error.failure == .busy)
    try holder.execute("ROLLBACK")
  }

  /// TCP keepalives find a vanished server in minutes: Sluice's settings, unless the URL has its own.
  @Test func keepalivesAreSetUnlessTheURLSetsThem() throws {
    let db = try schema.connect()
    #expect(db.connectionOption("keepalives") == "1")
    #expect(db.connectionOption("keepalives_idle") == "60")
    #expect(db.connectionOption("keepalives_interval") == "10")
    #expect(db.connectionOption("keepalives_count") == "6")
    #expect(db.connectionOption("tcp_user_timeout") == "120000")
    let own = try PostgreSQLStore(url: schema.url + "&keepalives_idle=5&tcp_user_timeout=9000")
    #expect(own.connectionOption("keepalives_idle") == "5")
    #expect(own.connectionOption("tcp_user_timeout") == "9000")
  }

  @Test func migrationsAdoptTablesThatExistInTheSchema() throws {
    let db = try store()
    try db.execute("CREATE TABLE t (k text PRIMARY KEY, v bigint); CREATE INDEX t_by_v ON t (v)")
    #expect(try db.columns(of: "t") == ["k", "v"])
    #expect(try db.columns(of: "missing") == nil)
    #expect(try db.indexExists("t_by_v"))
    #expect(try !db.indexExists("t_by_k"))
    // Another schema's table of the same name is not this schema's.
    let other = PostgreSQLSchema()
    let elsewhere = try other.connect()
    try elsewhere.withTransaction {}
    #expect(try elsewhere.columns(of: "t") == nil)
    let migrations = [
      Migration(
        "create t", sql: "CREATE TABLE t (k text PRIMARY KEY, v bigint)", creates: .table("t", columns: ["k", "v"])),
      Migration("create t_by_v", sql: "CREATE INDEX t_by_v ON t (v)", creates: .index("t_by_v")),
    ]
    let applied = try db.withTransaction { try Migrator.migrate(db, migrations) }
    #expect(applied.applied == ["create t", "create t_by_v"])
    let missingColumn = [
      Migration("create t2", sql: "", creates: .table("t", columns: ["k", "v", "w"]))
    ]
    #expect(throws: MigrationError.self) { try db.withTransaction { try Migrator.migrate(db, missingColumn) } }
  }
}
