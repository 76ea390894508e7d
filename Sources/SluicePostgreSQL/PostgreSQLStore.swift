internal import CLibPQ
import Foundation
@_spi(Internals) import SluiceCore

/// One connection to a PostgreSQL server, over libpq: the store a run writes into when its
/// database is a `postgresql://` URL.
///
/// Statements are prepared on the server (`PQprepare`) and run with text parameters
/// (`PQexecPrepared`), so the engine's row-at-a-time writer, its savepoints and its transaction
/// work as they do with SQLite. Each session runs in UTC with ISO dates, waits for locks at most
/// `busyTimeoutMilliseconds` (`lock_timeout`), and, when a schema is named, in that schema alone
/// (`search_path`) — created by the first transaction if it does not exist.
///
/// The connection string is any libpq URI; libpq also reads the `PG*` environment variables and
/// `~/.pgpass`. Sluice adds a `connect_timeout` of 10 s when neither the URL, `PGCONNECT_TIMEOUT`
/// nor the caller sets one, so an unreachable server fails the run instead of hanging it. The
/// password never appears in what the store reports: errors name the server by host, port and
/// database.
package final class PostgreSQLStore: Store {
  package struct Options: Sendable {
    /// The schema the tables live in; nil: the server's `search_path` (normally `public`).
    public var schema: String?
    /// Seconds to wait for a connection; nil: the URL's, `PGCONNECT_TIMEOUT`, or 10.
    public var connectTimeoutSeconds: Int?
    public var lockTimeoutMilliseconds: Int32
    /// Whether batches go through the bulk writer (`COPY`, set-based applies) where it takes
    /// them; false keeps every batch on the row writer, for comparing the two and for ruling the
    /// bulk writer out when a load looks wrong.
    public var usesBulkWriter: Bool
    /// Whether the bulk writer may use `MERGE` on PostgreSQL 15 and later; false takes the
    /// `UPDATE` + `INSERT` older servers get (for comparing the two).
    public var usesMerge: Bool

    public init(
      schema: String? = nil, connectTimeoutSeconds: Int? = nil, lockTimeoutMilliseconds: Int32 = 5_000,
      usesBulkWriter: Bool = true, usesMerge: Bool = true
    ) {
      self.schema = schema
      self.connectTimeoutSeconds = connectTimeoutSeconds
      self.lockTimeoutMilliseconds = lockTimeoutMilliseconds
      self.usesBulkWriter = usesBulkWriter
      self.usesMerge = usesMerge
    }
  }

  public static let defaultConnectTimeoutSeconds = 10

  let connection: OpaquePointer
  /// `host …, port …, database …`: the server as messages name it.
  public let server: String
  public let schema: String?
  /// What the store was opened with.
  public let options: Options
  /// Whether the transaction is to be prepared (two-phase commit): bulk batches then stage in
  /// ordinary unlogged tables rather than temporary ones, which a prepare refuses.
  package var preparesTransaction = false
  /// The ordinary staging tables made in the open transaction, to drop before it is prepared.
  var stagingTables: [String] = []
  /// Whether the named schema must still be created (by the next transaction).
  var createsSchema = false
  public private(set) var changes = 0
  private var statementCount = 0
  /// Statements whose owner went away, deallocated on the server before the next prepare.
  var retiredStatements: [String] = []
  /// Indexes of the schema by name, with their columns, for naming what a 23505 broke or a
  /// 54000 could not hold: read at the first prepare and again after each DDL statement.
  private var indexes: [String: [String]]?
  /// The tables those indexes belong to: a Citus worker names a shard (`fruits_102034`), and
  /// the error names the table whose name is the shard's without its number.
  private var indexedTables: Set<String> = []
  /// The version of the `citus` extension when the database has it (`13.2-1`): the server is a
  /// Citus coordinator, whose tables may be distributed or reference tables. Read once, at
  /// connection.
  package private(set) var citusVersion: String?
  /// Whether the database is a Citus coordinator's.
  package var isCitus: Bool { citusVersion != nil }

  public var busyTimeoutMilliseconds: Int32 {
    didSet {
      // lock_timeout 0 waits for ever; a store asked not to wait waits 1 ms.
      try? run("SET lock_timeout TO \(max(busyTimeoutMilliseconds, 1))")
    }
  }

  public var dialect: any SQLDialect { PostgreSQLDialect() }

  /// The server's version as libpq gives it: 150020 for 15.20.
  var serverVersion: Int { Int(PQserverVersion(connection)) }

  /// libpq's TCP liveness settings Sluice starts from (`PostgreSQLStore.init`).
  static let keepalives = [
    ("keepalives", "1"), ("keepalives_idle", "60"), ("keepalives_interval", "10"), ("keepalives_count", "6"),
    ("tcp_user_timeout", "120000"),
  ]

  /// The value of a connection option as libpq settled it (`PQconninfo`), or nil when unset.
  func connectionOption(_ keyword: String) -> String? {
    guard let options = PQconninfo(connection) else { return nil }
    defer { PQconninfoFree(options) }
    var option = options
    while let name = option.pointee.keyword {
      if String(cString: name) == keyword { return option.pointee.val.map { String(cString: $0) } }
      option += 1
    }
    return nil
  }

  /// What is wrong with a connection string libpq cannot read — a malformed URL (a bad
  /// percent-escape, a query parameter without `=`, an unknown one, an unclosed `[`), an unknown
  /// keyword, a port or connect timeout that is not a number — in libpq's words with every
  /// password masked; nil when it reads. Nothing is connected to.
  public static func problem(in url: String) -> String? {
    let secrets = PostgreSQLConnectionString.secrets(in: url)
    func masked(_ text: String) -> String {
      secrets.reduce(oneLine(text)) { $0.replacingOccurrences(of: $1, with: "***") }
    }
    var message: UnsafeMutablePointer<CChar>?
    // "PQconninfoParse: Returns parsed connection options from the provided connection string.
    // … If errmsg is not NULL, then *errmsg is set to NULL on success, else to a malloc'd error
    // string explaining the problem. (It is also possible for *errmsg to be set to NULL and the
    // function to return NULL; this indicates an out-of-memory condition.)"
    guard let options = PQconninfoParse(url, &message) else {
      defer { if let message { PQfreemem(message) } }
      return masked(message.map { String(cString: $0) } ?? "out of memory")
    }
    defer { PQconninfoFree(options) }
    var option = options
    while let name = option.pointee.keyword {
      defer { option += 1 }
      guard let pointer = option.pointee.val else { continue }
      let keyword = String(cString: name)
      let value = String(cString: pointer)
      switch keyword {
      case "port":
        // A list for several hosts; an empty entry is the default port.
        for port in value.split(separator: ",", omittingEmptySubsequences: false) where !port.isEmpty {
          guard let number = Int(port), (1...65_535).contains(number) else {
            return masked("invalid port \"\(port)\" (a number from 1 to 65535)")
          }
        }
      case "connect_timeout":
        guard Int(value.trimmingCharacters(in: .whitespaces)) != nil else {
          return masked("invalid connect_timeout \"\(value)\" (a whole number of seconds)")
        }
      default:
        break
      }
    }
    return nil
  }

  /// Whether libpq's environment (`PGCONNECT_TIMEOUT`) gives a connect timeout: its defaults,
  /// as libpq itself reads them.
  static var environmentSetsConnectTimeout: Bool {
    guard let defaults = PQconndefaults() else { return false }
    defer { PQconninfoFree(defaults) }
    var option = defaults
    while let keyword = option.pointee.keyword {
      if String(cString: keyword) == "connect_timeout" {
        return option.pointee.val.map { !String(cString: $0).isEmpty } ?? false
      }
      option += 1
    }
    return false
  }

  public init(url: String, options: Options = Options()) throws {
    if let problem = Self.problem(in: url) {
      throw PostgreSQLError(
        sqlState: "08001", message: "malformed connection string: \(problem)", server: "PostgreSQL")
    }
    var keywords: [String] = []
    var values: [String] = []
    // Before the URL, so a connect_timeout in it wins; the environment's (PGCONNECT_TIMEOUT)
    // wins too, since an explicit keyword would override it.
    if options.connectTimeoutSeconds == nil && !Self.environmentSetsConnectTimeout {
      keywords.append("connect_timeout")
      values.append(String(Self.defaultConnectTimeoutSeconds))
    }
    // Over TCP, a peer that vanished (a server host down, a dropped route) is found in about
    // two minutes rather than the kernel's two hours: the first probe after 60 s idle, then one
    // every 10 s, 6 unanswered ending the connection — and sent data unacknowledged for as long
    // ends it too. Before the URL, whose own settings win (libpq reads no variables for these).
    for (keyword, value) in Self.keepalives {
      keywords.append(keyword)
      values.append(value)
    }
    keywords += ["fallback_application_name", "dbname"]
    values += ["sluice", url]
    if let seconds = options.connectTimeoutSeconds {
      keywords.append("connect_timeout")
      values.append(String(seconds))
    }
    keywords.append("client_encoding")
    values.append("UTF8")
    // libpq's messages have no reason to quote a password; if one ever did, it is masked.
    let secrets = PostgreSQLConnectionString.secrets(in: url)
    let pointer = Self.withCStrings(keywords) { keywords in
      Self.withCStrings(values) { values in
        // "If expand_dbname is non-zero, the value for the first dbname key word is checked to see
        // if it is a connection string. If so, it is “expanded” into the individual connection
        // parameters extracted from the string."
        PQconnectdbParams(keywords, values, 1)
      }
    }
    guard let pointer else {
      throw PostgreSQLError(sqlState: "08001", message: "out of memory", server: "PostgreSQL")
    }
    let server = Self.describe(pointer)
    guard PQstatus(pointer) == CONNECTION_OK else {
      var message = Self.oneLine(String(cString: PQerrorMessage(pointer)))
      for secret in secrets { message = message.replacingOccurrences(of: secret, with: "***") }
      PQfinish(pointer)
      throw PostgreSQLError(sqlState: "08001", message: message, server: server)
    }
    // Notices (`relation … already exists, skipping`) would go to stderr: Sluice reports its own.
    PQsetNoticeProcessor(pointer, { _, _ in }, nil)
    connection = pointer
    self.server = server
    schema = options.schema
    self.options = options
    busyTimeoutMilliseconds = options.lockTimeoutMilliseconds
    var setup = [
      "SET client_min_messages TO warning", "SET TimeZone TO 'UTC'", "SET DateStyle TO 'ISO'",
      "SET lock_timeout TO \(max(options.lockTimeoutMilliseconds, 1))",
    ]
    if let schema = options.schema {
      setup.append("SET search_path TO \(dialect.quote(schema))")
    }
    try run(setup.joined(separator: "; "))
    let citus = try prepare("SELECT extversion FROM pg_extension WHERE extname = 'citus'")
    if try citus.step(), case .text(let version)? = citus.columnValue(0) { citusVersion = version }
    citus.reset()
    if let schema = options.schema {
      let exists = try prepare("SELECT 1 FROM pg_namespace WHERE nspname = $1")
      try exists.bind(.text(schema), at: 1)
      createsSchema = try !exists.step()
      exists.reset()
    }
  }

  deinit { PQfinish(connection) }

  // MARK: - Statements

  /// Runs one or more statements without parameters; DDL among them may change the schema's
  /// unique indexes.
  public func execute(_ sql: String) throws {
    try run(sql)
    let upper = sql.uppercased()
    if upper.contains("CREATE") || upper.contains("ALTER") || upper.contains("DROP") {
      // Read now, while the transaction can still run a query: after a failed statement it
      // could not, and the error needs the columns of the index it names.
      readIndexesIfPossible()
    }
  }

  /// Runs statements without parameters through the simple query protocol.
  func run(_ sql: String) throws {
    let result = PQexec(connection, sql)
    defer { PQclear(result) }
    try check(result, sql: sql)
    changes = Self.changes(of: result)
  }

  public func prepare(_ sql: String) throws -> PostgreSQLStatement {
    deallocateRetired()
    if indexes == nil && PQtransactionStatus(connection) != PQTRANS_INERROR {
      // A failed read leaves nil, to try again at the next prepare.
      readIndexesIfPossible()
    }
    statementCount += 1
    return try PostgreSQLStatement(store: self, name: "sluice_\(statementCount)", sql: sql)
  }

  /// Frees the server's copies of statements nobody holds any more, in one round trip, when the
  /// session can run commands.
  private func deallocateRetired() {
    guard !retiredStatements.isEmpty, PQtransactionStatus(connection) != PQTRANS_INERROR else { return }
    let sql = retiredStatements.map { "DEALLOCATE \(dialect.quote($0))" }.joined(separator: "; ")
    retiredStatements.removeAll()
    PQclear(PQexec(connection, sql))
  }

  func noteChanges(_ result: OpaquePointer?) { changes = Self.changes(of: result) }

  /// `PQcmdTuples`: "the number of rows affected by the SQL statement that generated the
  /// PGresult … If the command was anything else, it returns an empty string."
  static func changes(of result: OpaquePointer?) -> Int {
    guard let result, let text = PQcmdTuples(result) else { return 0 }
    return Int(String(cString: text)) ?? 0
  }

  // MARK: - Transactions

  public func withTransaction<T>(_ body: () throws -> T) throws -> T {
    try run("BEGIN")
    let result: T
    do {
      if createsSchema, let schema {
        // Another first run may be creating it: wait for that one to commit.
        _ = try lockMigrations()
        try run("CREATE SCHEMA IF NOT EXISTS \(dialect.quote(schema))")
      }
      result = try body()
    } catch {
      rollbackTransaction()
      throw error
    }
    try commit()
    return result
  }

  public func commitAndBegin() throws {
    try commit()
    try run("BEGIN")
  }

  /// Commits the open transaction; throws when the server rolled it back instead ("COMMIT" on a
  /// transaction that failed is answered with the tag ROLLBACK, not an error). A lane's
  /// transaction (`commitTransaction`) ends here too. Opening differs: `withTransaction` takes
  /// the migrations lock before it creates the schema, a lane (`beginTransaction`) must not.
  func commit() throws {
    let commit = PQexec(connection, "COMMIT")
    defer { PQclear(commit) }
    try check(commit, sql: "COMMIT")
    if let commit, let tag = PQcmdStatus(commit), String(cString: tag) != "COMMIT" {
      throw PostgreSQLError(
        sqlState: "25P02", message: "the server rolled the transaction back at COMMIT: a statement in it had failed",
        server: server, sql: "COMMIT")
    }
    createsSchema = false
  }

  public func makeSavepoints() throws -> any RecordSavepoints { PostgreSQLSavepoints(store: self) }

  // MARK: - Queries

  public func scalarInt(_ sql: String) throws -> Int64? {
    let statement = try prepare(sql)
    defer { statement.reset() }
    guard try statement.step(), case .integer(let value)? = statement.columnValue(0) else { return nil }
    return value
  }

  public func columns(of table: String) throws -> [String]? {
    let statement = try prepare(
      """
      SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position
      """)
    try statement.bind(.text(table), at: 1)
    defer { statement.reset() }
    var columns: [String] = []
    while try statement.step() {
      if case .text(let name)? = statement.columnValue(0) { columns.append(name) }
    }
    return columns.isEmpty ? nil : columns
  }

  /// Foreign keys from tables of the current schema (those of other schemas are not counted).
  public func tablesCascadingDeletes(from table: String) throws -> [String] {
    let statement = try prepare(
      """
      SELECT DISTINCT source.relname FROM pg_constraint c
        JOIN pg_class source ON source.oid = c.conrelid JOIN pg_class target ON target.oid = c.confrelid
      WHERE c.contype = 'f' AND c.confdeltype = 'c' AND target.relname = $1
        AND target.relnamespace = current_schema()::regnamespace AND source.relnamespace = target.relnamespace
      ORDER BY source.relname
      """)
    try statement.bind(.text(table), at: 1)
    defer { statement.reset() }
    var tables: [String] = []
    while try statement.step() {
      if case .text(let name)? = statement.columnValue(0) { tables.append(name) }
    }
    return tables
  }

  public func indexExists(_ name: String) throws -> Bool {
    let statement = try prepare("SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1")
    try statement.bind(.text(name), at: 1)
    defer { statement.reset() }
    return try statement.step()
  }

  /// Index builds take `maintenance_work_mem` on the server; nothing to trade on this side.
  public func prepareForIndexBuild() throws {}

  /// On Citus, the plan's copies read each distributed table over several connections per
  /// worker, and Citus then refuses the load's first write to a reference table that a
  /// distributed table points at ("cannot modify table … because there was a parallel operation
  /// on a distributed table"; its detail: "When there is a foreign key to a reference table or to
  /// a local table, Citus needs to perform all operations over a single connection per node to
  /// ensure consistency."). The plan's transaction therefore runs every multi-shard statement over
  /// one connection per worker, as Citus's hint says — as a run does anyway once it has written
  /// such a reference table (Citus switches to that mode itself there).
  public func prepareForPlan() throws {
    guard isCitus else { return }
    try execute("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'")
  }

  /// A transaction-scoped advisory lock named after the schema the session writes: two first
  /// runs into one schema would otherwise both create its tables, and the second would wait for
  /// the first's catalog rows, then fail on a duplicate name. With it, the second waits for the
  /// first to commit (within `lock_timeout`; after it, "locked by another process"), then finds
  /// the migrations applied. Only a run with migrations to apply takes it, so runs into a
  /// migrated schema never wait for each other here.
  public func lockMigrations() throws -> Bool {
    // Named by the schema asked for, which may not exist yet (current_schema() is then NULL).
    let lock = try prepare(
      "SELECT pg_advisory_xact_lock(hashtext('sluice migrations ' || coalesce($1, current_schema(), '')))")
    try lock.bind(schema.map(DatabaseValue.text), at: 1)
    defer { lock.reset() }
    _ = try lock.step()
    return true
  }

  public func lockAgainstConcurrentRuns() throws -> Bool {
    // Per schema: the tables and the input ledger of the runs that must not interleave.
    let lock = try prepare(
      "SELECT pg_advisory_xact_lock(hashtext('sluice exclusive runs ' || coalesce($1, current_schema(), '')))")
    try lock.bind(schema.map(DatabaseValue.text), at: 1)
    defer { lock.reset() }
    _ = try lock.step()
    return true
  }

  public func recordAudit(_ entry: AuditEntry) throws {
    try PostgreSQLAuditLog.record(entry, into: self)
  }

  /// Reads the schema's indexes and their tables; a failed read leaves `indexes` nil.
  private func readIndexesIfPossible() {
    guard let read = try? readIndexes() else {
      indexes = nil
      return
    }
    (indexes, indexedTables) = read
  }

  /// The indexes (among them primary keys and unique constraints, which share their index's
  /// name) of the current schema, with their columns in order, and the tables they index.
  private func readIndexes() throws -> (indexes: [String: [String]], tables: Set<String>) {
    let result = PQexec(
      connection,
      """
      SELECT i.relname, a.attname, t.relname
      FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE n.nspname = current_schema()
      ORDER BY i.relname, k.position
      """)
    defer { PQclear(result) }
    try check(result, sql: "indexes")
    var indexes: [String: [String]] = [:]
    var tables = Set<String>()
    for row in 0..<PQntuples(result) {
      guard let index = PQgetvalue(result, row, 0), let column = PQgetvalue(result, row, 1),
        let table = PQgetvalue(result, row, 2)
      else { continue }
      indexes[String(cString: index), default: []].append(String(cString: column))
      tables.insert(String(cString: table))
    }
    return (indexes, tables)
  }

  // MARK: - Errors

  /// Throws the error a result carries; a nil result is a lost connection or exhausted memory.
  func check(_ result: OpaquePointer?, sql: String?) throws {
    guard let result else { throw connectionError(sql: sql) }
    switch PQresultStatus(result) {
    case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_COPY_IN, PGRES_COPY_OUT:
      return
    default:
      throw error(from: result, sql: sql)
    }
  }

  func error(from result: OpaquePointer, sql: String?) -> PostgreSQLError {
    func field(_ code: Character) -> String? {
      guard let ascii = code.asciiValue, let value = PQresultErrorField(result, Int32(ascii)) else { return nil }
      return String(cString: value)
    }
    guard var state = field("C") else { return connectionError(sql: sql) }  // PG_DIAG_SQLSTATE
    let primary = Self.oneLine(field("M") ?? "")  // PG_DIAG_MESSAGE_PRIMARY
    // PG_DIAG_CONSTRAINT_NAME, _TABLE_NAME, _COLUMN_NAME
    var constraint = field("n")
    var table = field("t")
    var column = field("c")
    if isCitus {
      // A worker's broken constraint reaches the coordinator's client with the worker's SQLSTATE
      // and message but without its fields from most statements, and as XX000 with the message
      // alone from a distributed COPY; either way it names shards (`fruits_pkey_102034` on
      // `fruits_102034`).
      if state == "XX000" || (state.hasPrefix("23") && constraint == nil && table == nil),
        let broken = CitusConstraintMessage(primary)
      {
        state = broken.sqlState
        constraint = broken.constraint
        table = broken.table
        column = broken.column
      }
      let indexes = indexes
      (table, constraint) = CitusConstraintMessage.shardless(
        table: table, constraint: constraint, isTable: indexedTables.contains, isIndex: { indexes?[$0] != nil })
    }
    var error = PostgreSQLError(
      sqlState: state, message: PostgreSQLError.valueFreeMessage(sqlState: state, message: primary),
      constraint: constraint, table: table, column: column, server: server, sql: sql)
    if state == "23505", let constraint = error.constraint {
      error.uniqueColumns = indexes?[constraint] ?? []
    }
    if state == "54000", let constraint = error.constraint {
      error.indexColumns = indexes?[constraint] ?? []
    }
    return error
  }

  /// The connection's own error: the server went away, or the client ran out of memory.
  func connectionError(sql: String?) -> PostgreSQLError {
    let message = Self.oneLine(String(cString: PQerrorMessage(connection)))
    return PostgreSQLError(
      sqlState: "08006", message: message.isEmpty ? "the connection to the server was lost" : message, server: server,
      sql: sql)
  }

  /// Host, port and database of a connection (a socket's directory is its host).
  static func describe(_ connection: OpaquePointer) -> String {
    func text(_ value: UnsafeMutablePointer<CChar>?) -> String? {
      guard let value else { return nil }
      let text = String(cString: value)
      return text.isEmpty ? nil : text
    }
    let host = text(PQhost(connection)) ?? "localhost"
    let port = text(PQport(connection)) ?? "5432"
    let database = text(PQdb(connection)).map { ", database \($0)" } ?? ""
    return "PostgreSQL at host \(host), port \(port)\(database)"
  }

  static func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }.joined(separator: " ")
  }

  /// Calls `body` with a NULL-terminated array of C strings.
  private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { $0.map { UnsafePointer($0) } } + [nil])
  }
}

/// One savepoint per record of a lenient run: PostgreSQL aborts a whole transaction at its first
/// error, and rolling back to the savepoint is what lets the run go on without the record.
struct PostgreSQLSavepoints: RecordSavepoints {
  let store: PostgreSQLStore

  func begin() throws { try store.run("SAVEPOINT sluice_record") }
  func release() throws { try store.run("RELEASE SAVEPOINT sluice_record") }
  func rollback() throws { try store.run("ROLLBACK TO SAVEPOINT sluice_record; RELEASE SAVEPOINT sluice_record") }
}
