import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
import Synchronization

// The recording store: a driver whose store keeps its tables in memory (an in-memory SQLite
// database, never a file) and records what the engine asked of it — tables created, transactions
// begun, committed and rolled back, each chunk's commit, the rows of each insert, upsert, update
// and delete, savepoints and audit rows — so an engine test runs with no database on disk and
// asserts the calls, as GRDB's tests assert the SQL sent and dlt has its `dummy` destination.
// The SQL is the engine's own (derived from the table model in SQLite's dialect); the store
// interprets none of it: it runs it in memory and notes what it was.

/// One thing the engine asked the recording store to do.
public enum StoreCall: Equatable, Sendable, CustomStringConvertible {
  /// `withTransaction` began a transaction.
  case begin
  /// The transaction `withTransaction` ran was committed.
  case commit
  /// The transaction `withTransaction` ran was rolled back.
  case rollback
  /// A checkpointed run's chunk ended: commit, and at once begin the next (`commitAndBegin`).
  case commitAndBegin
  case createTable(String)
  /// An `INSERT` that runs into a table whose row is new, with the rows it carried.
  case insert(String, rows: Int)
  /// An `INSERT … ON CONFLICT DO UPDATE`, with the rows it carried.
  case upsert(String, rows: Int)
  case update(String)
  case delete(String)
  /// A savepoint around one record (`RecordSavepoints`): begun, released or rolled back.
  case savepoint
  case releaseSavepoint
  case rollbackToSavepoint
  /// A run recorded in the audit tables (`recordAudit`).
  case audit
  /// A plan's transaction read its tables before writing any (`prepareForPlan`).
  case prepareForPlan

  public var description: String {
    switch self {
    case .begin: "begin"
    case .commit: "commit"
    case .rollback: "rollback"
    case .commitAndBegin: "commit and begin"
    case .createTable(let table): "create \(table)"
    case .insert(let table, let rows): "insert \(rows) into \(table)"
    case .upsert(let table, let rows): "upsert \(rows) into \(table)"
    case .update(let table): "update \(table)"
    case .delete(let table): "delete from \(table)"
    case .savepoint: "savepoint"
    case .releaseSavepoint: "release savepoint"
    case .rollbackToSavepoint: "rollback to savepoint"
    case .audit: "audit"
    case .prepareForPlan: "prepare for plan"
    }
  }

  /// Whether the call begins or ends a transaction (savepoints aside).
  public var isTransactionCall: Bool {
    switch self {
    case .begin, .commit, .rollback, .commitAndBegin: true
    default: false
    }
  }
}

/// The calls of every store a `RecordingDriver` opened, in order; shared with the test.
public final class StoreCallLog: Sendable {
  private let entries = Mutex<[StoreCall]>([])

  public init() {}

  func append(_ call: StoreCall) { entries.withLock { $0.append(call) } }

  /// Every call, in order.
  public var calls: [StoreCall] { entries.withLock { $0 } }

  /// The transaction calls alone, in order.
  public var transactions: [StoreCall] { calls.filter(\.isTransactionCall) }

  /// Rows inserted or upserted into `table`, over every statement.
  public func rowsWritten(into table: String) -> Int {
    calls.reduce(0) { total, call in
      switch call {
      case .insert(table, let rows), .upsert(table, let rows): total + rows
      default: total
      }
    }
  }
}

/// A store driver for engine tests: each run's store is an in-memory database recording its
/// calls into `log`. A target at any location opens a fresh one; nothing touches the disk.
public struct RecordingDriver: StoreDriver {
  public let log: StoreCallLog

  public init(log: StoreCallLog = StoreCallLog()) { self.log = log }

  public var name: String { "recording" }
  public func claim(_ location: String) -> StoreDriverClaim { .certainly }
  public func redacted(_ location: String) -> String { location }
  public var dialect: any SQLDialect { SQLiteDialect() }

  public func openForRun(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store {
    try RecordingStore(log: log)
  }

  public func openHistory(_ target: DatabaseTarget) throws -> any RunHistory {
    throw RunHistoryError(.noHistory, database: target.location, message: "the recording store keeps no history")
  }

  /// A target the engine loads into a recording store through this driver.
  public var target: DatabaseTarget { DatabaseTarget(location: "recording", driver: self) }
}

/// The store a `RecordingDriver` opens: an in-memory SQLite database whose every call the engine
/// makes through `Store` is noted in the log before it is passed on.
package final class RecordingStore: Store {
  let connection: SQLiteConnection
  let log: StoreCallLog

  init(log: StoreCallLog) throws {
    connection = try SQLiteConnection(path: ":memory:")
    self.log = log
  }

  package var dialect: any SQLDialect { connection.dialect }

  package func execute(_ sql: String) throws {
    for call in Self.calls(of: sql) { log.append(call) }
    try connection.execute(sql)
  }

  package func prepare(_ sql: String) throws -> RecordingStatement {
    RecordingStatement(try connection.prepare(sql), calls: Self.calls(of: sql), log: log)
  }

  package var changes: Int { connection.changes }

  package func withTransaction<T>(_ body: () throws -> T) throws -> T {
    log.append(.begin)
    do {
      let result = try connection.withTransaction(body)
      log.append(.commit)
      return result
    } catch {
      log.append(.rollback)
      throw error
    }
  }

  package func scalarInt(_ sql: String) throws -> Int64? { try connection.scalarInt(sql) }
  package func columns(of table: String) throws -> [String]? { try connection.columns(of: table) }
  package func indexExists(_ name: String) throws -> Bool { try connection.indexExists(name) }
  package func tablesCascadingDeletes(from table: String) throws -> [String] {
    try connection.tablesCascadingDeletes(from: table)
  }
  package var busyTimeoutMilliseconds: Int32 {
    get { connection.busyTimeoutMilliseconds }
    set { connection.busyTimeoutMilliseconds = newValue }
  }
  package func prepareForIndexBuild() throws { try connection.prepareForIndexBuild() }

  package func prepareForPlan() throws {
    log.append(.prepareForPlan)
  }

  package func commitAndBegin() throws {
    log.append(.commitAndBegin)
    try connection.commitAndBegin()
  }

  package func makeSavepoints() throws -> any RecordSavepoints {
    RecordingSavepoints(savepoints: try connection.makeSavepoints(), log: log)
  }

  package func recordAudit(_ entry: AuditEntry) throws {
    log.append(.audit)
    try connection.recordAudit(entry)
  }

  /// The calls a statement's SQL makes when it runs: the tables it creates, or the rows it writes.
  static func calls(of sql: String) -> [StoreCall] {
    let words = sql.trimmingCharacters(in: .whitespacesAndNewlines)
    if words.hasPrefix("INSERT") {
      guard let table = table(after: "INTO", in: words) else { return [] }
      let rows = valueRows(in: words)
      return [words.contains("DO UPDATE") ? .upsert(table, rows: rows) : .insert(table, rows: rows)]
    }
    if words.hasPrefix("UPDATE") { return table(after: "UPDATE", in: words).map { [.update($0)] } ?? [] }
    if words.hasPrefix("DELETE") { return table(after: "FROM", in: words).map { [.delete($0)] } ?? [] }
    var created: [StoreCall] = []
    var rest = Substring(words)
    while let range = rest.range(of: "CREATE TABLE ") {
      rest = rest[range.upperBound...]
      if let table = table(after: "", in: String(rest)) { created.append(.createTable(table)) }
    }
    return created
  }

  /// The (unquoted) name that follows `keyword` in `sql`.
  static func table(after keyword: String, in sql: String) -> String? {
    var rest = Substring(sql)
    if !keyword.isEmpty {
      guard let range = rest.range(of: keyword + " ") else { return nil }
      rest = rest[range.upperBound...]
    }
    rest = rest.drop { $0 == " " }
    for prefix in ["IF NOT EXISTS ", "main.", "temp."] where rest.hasPrefix(prefix) {
      rest = rest.dropFirst(prefix.count)
    }
    if rest.first == "\"" {
      let name = rest.dropFirst().prefix { $0 != "\"" }
      return String(name)
    }
    let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
    return name.isEmpty ? nil : String(name)
  }

  /// The rows an `INSERT … VALUES (…), (…)` carries: the parenthesized groups after `VALUES`;
  /// 1 for an `INSERT … SELECT`.
  static func valueRows(in sql: String) -> Int {
    guard let values = sql.range(of: "VALUES") else { return 1 }
    var rows = 0
    var depth = 0
    var quoted = false
    for character in sql[values.upperBound...] {
      if character == "'" { quoted.toggle() }
      if quoted { continue }
      if character == "(" {
        if depth == 0 { rows += 1 }
        depth += 1
      } else if character == ")" {
        depth -= 1
      } else if depth == 0, character.isLetter {
        break
      }
    }
    return max(rows, 1)
  }
}

/// A statement of the recording store: notes its calls each time it runs.
package final class RecordingStatement: StoreStatement {
  let statement: SQLiteStatement
  let calls: [StoreCall]
  let log: StoreCallLog
  /// Whether it ran since it was last reset (its first `step` runs it).
  private var ran = false

  init(_ statement: SQLiteStatement, calls: [StoreCall], log: StoreCallLog) {
    self.statement = statement
    self.calls = calls
    self.log = log
  }

  private func noteRun() {
    guard !ran else { return }
    ran = true
    for call in calls { log.append(call) }
  }

  package func bind(_ value: DatabaseValue?, at index: Int32) throws { try statement.bind(value, at: index) }
  package func bind(_ values: UnsafeBufferPointer<DatabaseValue?>, from index: Int32) throws {
    try statement.bind(values, from: index)
  }
  package func execute() throws {
    noteRun()
    ran = false
    try statement.execute()
  }
  @discardableResult package func step() throws -> Bool {
    noteRun()
    return try statement.step()
  }
  package func reset() {
    ran = false
    statement.reset()
  }
  package func columnIsNull(_ index: Int32) -> Bool { statement.columnIsNull(index) }
  package func columnValue(_ index: Int32) -> DatabaseValue? { statement.columnValue(index) }
}

/// The savepoints of a recording store: noted, then passed on.
struct RecordingSavepoints: RecordSavepoints {
  let savepoints: any RecordSavepoints
  let log: StoreCallLog

  func begin() throws {
    log.append(.savepoint)
    try savepoints.begin()
  }
  func release() throws {
    log.append(.releaseSavepoint)
    try savepoints.release()
  }
  func rollback() throws {
    log.append(.rollbackToSavepoint)
    try savepoints.rollback()
  }
}
