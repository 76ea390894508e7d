import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
@_spi(Internals) import SluiceTestSupport
import Testing

/// The Citus cluster the tests may load into: its coordinator's URL, `SLUICE_TEST_CITUS_URL`,
/// which `.ci/with-citus` exports after starting a coordinator and two workers on this machine
/// (`.ci/run` runs the tests through it). Without the variable the Citus tests are skipped, and
/// say so; under `CI=true` the suite "Citus in CI" fails instead.
public enum CitusCluster {
  public static let url: String? = {
    guard let url = ProcessInfo.processInfo.environment["SLUICE_TEST_CITUS_URL"], !url.isEmpty else { return nil }
    return url
  }()

  public static var isAvailable: Bool { url != nil }

  /// Why the Citus tests are skipped, for `.enabled(if:)`.
  public static let skipReason: Comment =
    "no Citus cluster: set SLUICE_TEST_CITUS_URL or run the tests through .ci/with-citus"

  /// A connection to the coordinator's default schema, as its superuser.
  package static func connect() throws -> PostgreSQLStore {
    guard let url else { throw PostgreSQLError(sqlState: "08001", message: "no test cluster", server: "") }
    return try PostgreSQLStore(url: url)
  }

  /// A new schema on the coordinator (dropped, shards and all, when the value goes away).
  public static func schema() -> PostgreSQLSchema { PostgreSQLSchema(url: url ?? "") }

  /// Runs `script` with `psql -v ON_ERROR_STOP=1` on the coordinator, as a user applies what
  /// `sluice schema --dialect citus` prints, in `schema` (created first); returns psql's status
  /// and its error output.
  public static func psql(_ script: String, in schema: PostgreSQLSchema) throws -> (status: Int32, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", schema.url]
    var environment = ProcessInfo.processInfo.environment
    environment["PGOPTIONS"] = "-c client_min_messages=warning"
    process.environment = environment
    let input = Pipe()
    // Errors into a file, output nowhere: psql never blocks on a full pipe.
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-psql-\(UUID().uuidString).log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: log) }
    let errors = try FileHandle(forWritingTo: log)
    defer { try? errors.close() }
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    let text = "CREATE SCHEMA IF NOT EXISTS \"\(schema.name)\";\nSET search_path TO \"\(schema.name)\";\n" + script
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    let stderr = (try? Data(contentsOf: log)) ?? Data()
    return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
  }

  /// How each table of `schema` is laid out, from `pg_dist_partition`: `reference`,
  /// `distributed by COLUMN` (with ` colocated with TABLE` when it shares its colocation group
  /// with an earlier table of the list), or `local` for a table Citus does not know.
  public static func layout(of tables: [String], in schema: PostgreSQLSchema) throws -> [String: String] {
    let store = try connect()
    let statement = try store.prepare(
      """
      SELECT c.relname, p.partmethod, column_to_column_name(p.logicalrelid, p.partkey), p.colocationid
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
      WHERE n.nspname = $1 AND c.relname = $2
      """)
    var layout: [String: String] = [:]
    var groups: [(table: String, group: Int64)] = []
    for table in tables {
      try statement.bind(.text(schema.name), at: 1)
      try statement.bind(.text(table), at: 2)
      defer { statement.reset() }
      guard try statement.step() else { continue }
      switch statement.columnValue(1) {
      case .text("n")?: layout[table] = "reference"
      case .text("h")?:
        var text = "distributed by \(statement.columnValue(2).map(TableRows.render) ?? "?")"
        if case .integer(let group)? = statement.columnValue(3) {
          if let first = groups.first(where: { $0.group == group }) { text += " colocated with \(first.table)" }
          groups.append((table, group))
        }
        layout[table] = text
      case nil: layout[table] = "local"
      case let other?: layout[table] = "partition method \(TableRows.render(other))"
      }
    }
    return layout
  }

  /// The rows of `table` in `schema` on each worker (by port), from the shards' sizes as the
  /// workers count them — so a test sees rows really sit on both.
  public static func rowsPerWorker(of table: String, in schema: PostgreSQLSchema) throws -> [String: Int64] {
    let store = try connect()
    let statement = try store.prepare(
      """
      SELECT s.nodeport::text, sum(r.result::bigint)::bigint
      FROM run_command_on_shards($1, 'SELECT count(*) FROM %s') r
      JOIN citus_shards s ON s.shardid = r.shardid
      WHERE r.success GROUP BY s.nodeport
      """)
    try statement.bind(.text("\"\(schema.name)\".\"\(table)\""), at: 1)
    defer { statement.reset() }
    var rows: [String: Int64] = [:]
    while try statement.step() {
      if case .text(let port)? = statement.columnValue(0), case .integer(let count)? = statement.columnValue(1) {
        rows[port] = count
      }
    }
    return rows
  }
}
