import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport

/// The PostgreSQL server the tests may load into: `SLUICE_TEST_POSTGRES_URL`, which
/// `.ci/with-postgres` exports (`.ci/run` always runs the tests through it). Without the
/// variable the PostgreSQL tests are skipped, and say so.
public enum PostgreSQLServer {
  public static let url: String? = {
    guard let url = ProcessInfo.processInfo.environment["SLUICE_TEST_POSTGRES_URL"], !url.isEmpty else { return nil }
    return url
  }()

  public static var isAvailable: Bool { url != nil }

  /// The URL's query parameters (`host`, `port`), to reach the same server another way.
  public static func parameter(_ name: String) -> String? {
    guard let url, let components = URLComponents(string: url) else { return nil }
    return components.queryItems?.first { $0.name == name }?.value
  }

  /// The server's port, for connections over the loopback interface.
  public static var port: String { parameter("port") ?? "5432" }

  /// A connection to the server's default schema, for set-up the tests do as its superuser.
  package static func connect() throws -> PostgreSQLStore {
    guard let url else { throw PostgreSQLError(sqlState: "08001", message: "no test server", server: "") }
    return try PostgreSQLStore(url: url)
  }
}

/// A schema of its own for one test, dropped with everything in it when the value goes away.
/// It is not created here: the first run into it creates it, as a run into a new schema does.
public final class PostgreSQLSchema {
  public let name: String
  /// The server's URL: the schema is chosen with `databaseSchema`.
  public let url: String

  /// A schema on the test server, or on the server at `url` (the Citus coordinator).
  public init(url: String? = nil) {
    name = "sluice_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    self.url = url ?? PostgreSQLServer.url ?? ""
  }

  deinit {
    guard !url.isEmpty else { return }
    _ = try? PostgreSQLStore(url: url).execute("DROP SCHEMA IF EXISTS \"\(name)\" CASCADE")
  }

  package func connect() throws -> PostgreSQLStore {
    try PostgreSQLStore(url: url, options: .init(schema: name))
  }

  /// Whether a run has created it.
  public func exists() throws -> Bool {
    let store = try PostgreSQLServer.connect()
    let statement = try store.prepare("SELECT 1 FROM pg_namespace WHERE nspname = $1")
    try statement.bind(.text(name), at: 1)
    return try statement.step()
  }

  /// `configuration` aimed at this schema.
  public func aim(_ configuration: PipelineConfiguration) -> PipelineConfiguration {
    var configuration = configuration
    configuration.database = .postgreSQL(url, schema: name)
    return configuration
  }

  /// Every row of each of `tables` that exists, normalized as `TableRows` writes them.
  public func rows(of tables: [String]) throws -> TableRows {
    try TableRows(postgreSQL: connect(), tables: tables)
  }
}

extension TableRows {
  /// Every row of each of `tables` that exists in the store's schema.
  package init(postgreSQL store: PostgreSQLStore, tables names: [String]) throws {
    var tables: [String: [String]] = [:]
    for name in names {
      let info = try store.prepare(
        """
        SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position
        """)
      try info.bind(.text(name), at: 1)
      var columns: [(name: String, type: String)] = []
      while try info.step() {
        if case .text(let column)? = info.columnValue(0), case .text(let type)? = info.columnValue(1) {
          columns.append((column, type))
        }
      }
      guard !columns.isEmpty else { continue }
      let list = columns.map { column in
        column.type == "timestamp with time zone"
          ? "to_char(\"\(column.name)\" AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')" : "\"\(column.name)\""
      }
      let select = try store.prepare("SELECT \(list.joined(separator: ", ")) FROM \"\(name)\"")
      var rows: [String] = []
      while try select.step() {
        rows.append((0..<columns.count).map { Self.render(select.columnValue(Int32($0))) }.joined(separator: " | "))
      }
      tables[name] = [columns.map(\.name).joined(separator: ", ")] + rows.sorted()
    }
    self.init(tables: tables)
  }

}

extension StoreDrivers {
  /// Every driver this package has, as the `sluice` executable registers them.
  public static let all = StoreDrivers([SQLiteDriver(), PostgreSQLDriver()])
}
