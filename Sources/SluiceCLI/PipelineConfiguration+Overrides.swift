import Foundation
import SluiceCore

extension PipelineConfiguration {
  /// The spec's configuration with the command line's options applied (`--rejects` aside: what
  /// it names depends on the subcommand). The parser has already refused options the
  /// subcommand does not take, so every value here is one it does.
  func applying(_ values: [String: String]) throws(UsageError) -> PipelineConfiguration {
    var configuration = self
    if values["input"] != nil && values["input-dir"] != nil {
      throw UsageError("--input names the input; --input-dir re-bases the spec's: give one")
    }
    if configuration.hasSeveralInputs {
      for option in ["input", "format", "record-path"] where values[option] != nil {
        throw UsageError(
          "--\(option) is ambiguous: the pipeline lists \(configuration.inputs.count) inputs, each with its own; use --input-dir DIR to read them from another folder")
      }
    }
    if let input = values["input"] { configuration.input = Self.absolute(input) }
    if let db = values["db"] {
      // A server's URL is not a path: it goes to libpq as written.
      configuration.database = DatabaseLocation.namesPostgreSQL(db) ? db : Self.absolute(db)
      if DatabaseLocation.namesPostgreSQL(db), let problem = PostgreSQLStore.problem(in: db) {
        throw UsageError("--db is not a PostgreSQL connection string libpq can read: \(problem)")
      }
      if DatabaseLocation(db).hasPassword {
        printError(
          "sluice: warning: the --db URL carries a password, which other users can see in the process list; put it in ~/.pgpass or PGPASSWORD instead")
      }
    }
    if let schema = values["db-schema"] {
      guard !schema.isEmpty, schema.utf8.count <= PostgreSQLDialect.identifierLimit else {
        throw UsageError("--db-schema must be a name of 1 to \(PostgreSQLDialect.identifierLimit) bytes")
      }
      configuration.databaseSchema = schema
    }
    if let timeout = values["connect-timeout"] {
      guard let seconds = Int(timeout), (2...86_400).contains(seconds) else {
        throw UsageError("--connect-timeout must be a whole number of seconds from 2 to 86400, not '\(timeout)'")
      }
      configuration.connectTimeoutSeconds = seconds
    }
    if let jobs = values["jobs"] {
      guard let count = Int(jobs), (1...Self.maxJobs).contains(count) else {
        throw UsageError("--jobs must be a whole number from 1 to \(Self.maxJobs), not '\(jobs)'")
      }
      configuration.jobs = count
    }
    if let report = values["report"] { configuration.reportPath = Self.absolute(report) }
    if let junit = values["junit"] { configuration.junitPath = Self.absolute(junit) }
    if let html = values["html"] { configuration.htmlPath = Self.absolute(html) }
    if let format = values["format"] {
      guard let value = Format(rawValue: format) else {
        throw UsageError("--format must be json, ndjson or xml, not '\(format)'")
      }
      // A path written for another format means nothing in this one.
      if value != configuration.format && values["record-path"] == nil { configuration.recordPath = [] }
      configuration.format = value
    }
    if let path = values["record-path"] {
      configuration.recordPath = PipelineSpec.parseRecordPath(path)
    }
    if let policy = values["policy"] {
      guard let preset = Policy.Preset(rawValue: policy) else {
        throw UsageError("--policy must be strict or lenient, not '\(policy)'")
      }
      if configuration.policy.preset != preset { configuration.policy = Policy(preset: preset) }
    }
    if let timeout = values["busy-timeout"] {
      guard let seconds = Double(timeout), seconds >= 0, seconds <= 86_400 else {
        throw UsageError("--busy-timeout must be a number of seconds from 0 to 86400, not '\(timeout)'")
      }
      configuration.busyTimeoutSeconds = seconds
    }
    if let conflict = values["on-conflict"] {
      guard let value = ConflictPolicy(rawValue: conflict) else {
        throw UsageError(
          "--on-conflict must be one of \(ConflictPolicy.allCases.map(\.rawValue).joined(separator: ", ")), not '\(conflict)'")
      }
      configuration.conflict = value
    }
    if configuration.databaseSchema != nil && !configuration.databaseLocation.isPostgreSQL && values["db-schema"] != nil {
      throw UsageError("--db-schema applies to a PostgreSQL database (--db postgresql://…), not a SQLite file")
    }
    if !configuration.hasSeveralInputs && configuration.format == .ndjson && !configuration.recordPath.isEmpty {
      throw UsageError("--record-path applies to --format json, not ndjson")
    }
    if configuration.jobs > 1 && !configuration.databaseLocation.isPostgreSQL {
      printError("sluice: note: --jobs applies to PostgreSQL; a SQLite database takes one writer, so the inputs load one after another")
    }
    // For the tests of the ordered commit on a server that allows two-phase commit.
    if ProcessInfo.processInfo.environment["SLUICE_LANE_COMMIT"] == "ordered" { configuration.laneCommit = .ordered }
    return configuration
  }

  /// A command-line path made absolute against the working directory; `-` (standard input)
  /// stays as it is.
  static func absolute(_ path: String) -> String { FilePaths.absolute(path) }
}
