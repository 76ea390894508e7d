internal import CLibPQ
import Foundation
@_spi(Internals) import SluiceCore
import SluiceKeySpill

/// The PostgreSQL driver: a server named by a libpq connection string — a URL
/// (`postgresql://loader@db.example/shop`) or keyword/value pairs (`host=db dbname=shop`) — loaded
/// through libpq with `COPY` and set-based applies, over several connections at once for a run's
/// independent inputs (`--jobs`, committed in two phases where the server allows it), with the
/// recovery of a run interrupted while committing (`sluice recover`).
///
/// ```swift
/// let drivers = StoreDrivers([PostgreSQLDriver(), SQLiteDriver()])
/// var configuration = PipelineConfiguration(
///   name: "orders", input: "orders.json.gz",
///   database: try drivers.target(for: "postgresql://loader@db.example/shop", schema: "nightly"))
/// let report = try Pipeline(dataset: OrdersDataset(), configuration: configuration).run()
/// ```
public struct PostgreSQLDriver: ParallelLoadingDriver, RecoveringDriver, KeySpillingDriver {
  /// How the driver writes: the bulk writer and `MERGE` where the server has it, unless asked
  /// not to (for comparing, and for ruling the bulk writer out when a load looks wrong).
  package struct Options: Sendable, Hashable {
    public var usesBulkWriter: Bool
    public var usesMerge: Bool
    public init(usesBulkWriter: Bool = true, usesMerge: Bool = true) {
      self.usesBulkWriter = usesBulkWriter
      self.usesMerge = usesMerge
    }
  }

  package let options: Options

  /// The driver as `sluice` registers it: the bulk writer, and `MERGE` where the server has it.
  public init() {
    self.init(options: Options())
  }

  package init(options: Options) {
    self.options = options
  }

  public var name: String { "PostgreSQL" }

  /// The libpq it runs against (`PQlibVersion`). Its runs' keys spill to SQLite, which the
  /// SQLite driver lists.
  public var linkedLibraries: [LinkedLibrary] {
    [LinkedLibrary(name: "libpq", version: Self.dotted(libpq: Int(PQlibVersion())))]
  }

  /// `PQlibVersion`'s number as a version: `150005` is 15.5 (major × 10000 + minor from 10 on),
  /// `90624` is 9.6.24 (major × 10000 + minor × 100 + patch before).
  static func dotted(libpq number: Int) -> String {
    number >= 100_000
      ? "\(number / 10000).\(number % 10000)"
      : "\(number / 10000).\(number / 100 % 100).\(number % 100)"
  }

  public func claim(_ location: String) -> StoreDriverClaim {
    PostgreSQLConnectionString.namesPostgreSQL(location) ? .certainly : .no
  }

  public func problem(in location: String) -> String? { PostgreSQLStore.problem(in: location) }

  public func redacted(_ location: String) -> String { PostgreSQLConnectionString.redact(location) }

  public func hasPassword(_ location: String) -> Bool { redacted(location) != location }

  public var dialect: any SQLDialect { PostgreSQLDialect() }

  /// Citus, whose coordinator a run connects to as to any PostgreSQL server.
  public var layouts: [any SchemaLayout] { [CitusLayout()] }

  public var schemaNameLimit: Int? { PostgreSQLDialect.identifierLimit }
  public var identifierLimit: Int? { PostgreSQLDialect.identifierLimit }
  /// The system catalogs' prefix (`pg_class`, `pg_stat_…`).
  public var reservedNamePrefixes: [String] { ["pg_"] }

  public var connectsToServer: Bool { true }

  public func openForRun(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store {
    try connect(target, lockTimeoutMilliseconds: busyTimeoutMilliseconds)
  }

  /// A read-only session (`default_transaction_read_only`) in one `READ ONLY`, `REPEATABLE
  /// READ` transaction: every query sees the same snapshot, and none can write.
  public func openForReading(_ target: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> any Store {
    let store = try connect(target, lockTimeoutMilliseconds: busyTimeoutMilliseconds)
    do {
      try store.execute("SET default_transaction_read_only TO on")
      try store.execute("BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
    } catch let error as PostgreSQLError {
      throw StoreOpenError(kind: .unreachable, message: "cannot read \(target.description): \(error.message)")
    }
    return store
  }

  /// A connection for a run; one that fails names the server by host, port and database.
  func connect(_ target: DatabaseTarget, lockTimeoutMilliseconds: Int32) throws(StoreOpenError) -> PostgreSQLStore {
    do {
      return try PostgreSQLStore(
        url: target.location,
        options: .init(
          schema: target.schema, connectTimeoutSeconds: target.connectTimeoutSeconds,
          lockTimeoutMilliseconds: lockTimeoutMilliseconds, usesBulkWriter: options.usesBulkWriter,
          usesMerge: options.usesMerge))
    } catch let error as PostgreSQLError {
      let place = error.server.isEmpty ? target.description : error.server
      throw StoreOpenError(kind: .unreachable, message: "cannot connect to \(place): \(error.message)")
    } catch {
      throw StoreOpenError(kind: .unreachable, message: "cannot connect to \(target.description): \(error)")
    }
  }

  public func openHistory(_ target: DatabaseTarget) throws -> any RunHistory {
    try PostgreSQLRunHistory(
      url: target.location, schema: target.schema, connectTimeoutSeconds: target.connectTimeoutSeconds)
  }

  package func openLaneConnection(_ target: DatabaseTarget, lockTimeoutMilliseconds: Int32) throws
    -> any LaneConnection
  {
    try connect(target, lockTimeoutMilliseconds: lockTimeoutMilliseconds)
  }

  package func openRecovery(_ target: DatabaseTarget) throws -> any RunRecovery {
    try PostgreSQLRecovery(
      url: target.location, schema: target.schema, connectTimeoutSeconds: target.connectTimeoutSeconds)
  }

  /// A run's spilled natural keys go to a private temporary SQLite file on this machine (SluiceKeySpill's
  /// `SQLiteKeySpill`), not to the server, where each look-up would be a round trip.
  package func makeKeySpill() throws(KeySpillError) -> any KeySpill { try SQLiteKeySpill() }
}

extension DatabaseTarget {
  /// A PostgreSQL server by its libpq connection string, the tables in `schema` (nil: the
  /// server's `search_path`).
  package static func postgreSQL(
    _ connectionString: String, schema: String? = nil, connectTimeoutSeconds: Int? = nil,
    options: PostgreSQLDriver.Options = .init()
  ) -> DatabaseTarget {
    DatabaseTarget(
      location: connectionString, driver: PostgreSQLDriver(options: options), schema: schema,
      connectTimeoutSeconds: connectTimeoutSeconds)
  }
}
