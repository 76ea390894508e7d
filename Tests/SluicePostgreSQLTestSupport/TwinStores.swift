import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport

/// One load, twice: into a fresh SQLite file and into a fresh PostgreSQL schema, with the same
/// configuration, so a test can prove both stores end with the same rows and the same report.
package final class TwinStores {
  package let directory: TemporaryDirectory
  package let schema: PostgreSQLSchema
  package var sqlitePath: String { directory.file("twin.sqlite") }

  /// `schema`: another server's (the Citus coordinator's, `CitusCluster.schema()`).
  package init(schema: PostgreSQLSchema = PostgreSQLSchema()) throws {
    directory = try TemporaryDirectory()
    self.schema = schema
  }

  package struct Reports {
    package var sqlite: RunReport
    package var postgreSQL: RunReport

    package init(sqlite: RunReport, postgreSQL: RunReport) {
      self.sqlite = sqlite
      self.postgreSQL = postgreSQL
    }
  }

  /// Runs `configuration` (its database replaced) into both stores.
  package func run(_ configuration: PipelineConfiguration, datasets: [AnyDataset]) throws -> Reports {
    var sqlite = configuration
    sqlite.database = .sqlite(sqlitePath)
    return Reports(
      sqlite: try Pipeline(datasets: datasets, configuration: sqlite.counted).run(),
      postgreSQL: try Pipeline(datasets: datasets, configuration: schema.aim(configuration).counted).run())
  }

  /// A committed spec's pipeline, without its outputs, into both stores.
  package func run(spec name: String, policy: Policy? = nil, conflict: ConflictPolicy? = nil) throws -> Reports {
    let spec = try PipelineSpec(contentsOf: Repository.path("Pipelines/\(name)"))
    var configuration = try spec.configuration(drivers: .all)
    configuration.reportPath = nil
    configuration.junitPath = nil
    configuration.rejectsPath = nil
    if let policy { configuration.policy = policy }
    if let conflict { configuration.conflict = conflict }
    return try run(configuration, datasets: try spec.datasets(for: configuration, in: Catalog.datasets))
  }

  /// The same tables, read from both stores.
  package func tables(_ names: [String]) throws -> (sqlite: TableRows, postgreSQL: TableRows) {
    (try TableRows(sqlite: sqlitePath, tables: names), try schema.rows(of: names))
  }
}

extension RunReport {
  /// What a run's outcome is, whichever store it wrote: status, counts, rows, and each issue
  /// with its place and message — not times or the database's name.
  package var outcome: [String] {
    var lines = ["status \(status.rawValue)", "failure \(failure?.kind.rawValue ?? "-")", "committed \(committed)"]
    lines += stages.map {
      "\($0.stage.rawValue) in \($0.recordsIn) out \($0.recordsOut) rejected \($0.rejected) warnings \($0.warnings)"
    }
    lines += rowsWritten.sorted { $0.key < $1.key }.map { "written \($0.key) \($0.value)" }
    lines += tableRows.sorted { $0.key < $1.key }.map { "rows \($0.key) \($0.value)" }
    lines += issues.map {
      "issue \($0.stage.rawValue) \($0.code.rawValue) record \($0.location?.ordinal ?? -1) line \($0.location?.line ?? -1) at \($0.path): \($0.message)"
    }
    return lines
  }
}
