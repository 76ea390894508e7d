import Foundation

/// Everything a run did, as the versioned JSON report (`"reportVersion": 1`) and the source of
/// the summary on stderr. It holds counts, locations and paths — never record values.
///
/// ```swift
/// let report = try Pipeline(dataset: OrdersDataset(), configuration: configuration).run()
/// if report.status == .failed { print(report.failure?.kind, report.failure?.message) }
/// for issue in report.issues { print(issue) }   // stage, record, line, byte, field path, code
/// let json = try report.jsonData()              // what --report writes
/// ```
public struct RunReport: Sendable, Codable {
  public enum Status: String, Sendable, Codable {
    case succeeded, failed
  }

  /// Why a run failed, and which exit code that is.
  public struct Failure: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable {
      /// The run's configuration cannot be carried out as given — an output that is the database,
      /// an input or another output. Found before anything is opened.
      case configuration
      /// The data broke the policy (strict violation, unreadable structure).
      case data
      /// The input file is missing or cannot be opened.
      case inputMissing
      /// A remote input's server refused access (401, 403): exit 77.
      case permissionDenied
      /// The database or an output cannot be created or opened.
      case cannotCreateOutput
      /// A corrupt or truncated stream, a locked or full database, a server gone, an output that
      /// could not be written before the commit.
      case io
    }
    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
      self.kind = kind
      self.message = message
    }
  }

  public struct InputSummary: Sendable, Codable {
    public var path: String
    public var format: String
    public var gzip: Bool
    public var compressedBytes: Int64
    public var decompressedBytes: Int64
  }

  /// One input of the run on its own: what it was and what its records did. A run with one
  /// input has one section, with the run's counts.
  public struct InputSection: Sendable, Codable {
    public var path: String
    public var format: String
    public var dataset: String
    /// False for an input the run never opened, because it failed before.
    public var opened: Bool
    public var gzip: Bool
    public var compressedBytes: Int64
    public var decompressedBytes: Int64
    public var stages: [StageStatistics]
    public var issueCounts: [String: Int]
    public var coercions: Int
    /// Rows the input's records wrote, per table; lookup tables brought in line with their
    /// enums at the start of the run are the run's (`rowsWritten` of the report).
    public var rowsWritten: [String: Int]
    /// The SHA-256 of the input's bytes (compressed, for gzip), for an input a committed run
    /// read: what the input ledger (`sluice_inputs`) keeps.
    public var sha256: String? = nil
    /// An input an incremental run did not read: the database already held its content.
    public var skipped: SkippedInput? = nil
    /// An input an incremental run loaded again with `--reload-changed`: the run that had loaded
    /// other content under its name.
    public var changedSinceRunId: Int64? = nil

    public func statistics(for stage: Stage) -> StageStatistics {
      stages.first { $0.stage == stage } ?? StageStatistics(stage: stage)
    }
  }

  /// Why an incremental run did not read an input: the run that loaded its content, and how
  /// that was known.
  public struct SkippedInput: Sendable, Codable, Hashable {
    public enum Reason: String, Sendable, Codable, Hashable {
      /// The very file the ledger recorded: same device, inode, size and times; not read.
      case unchanged
      /// Other file, same content: its SHA-256 is that of an input already loaded.
      case sameContent = "same-content"
    }
    public var reason: Reason
    /// The run that loaded the content; nil when it is an earlier input of this same run.
    public var loadedByRunId: Int64?
    /// The path the content was loaded from, when it was another file.
    public var loadedAs: String?

    public init(reason: Reason, loadedByRunId: Int64?, loadedAs: String?) {
      self.reason = reason
      self.loadedByRunId = loadedByRunId
      self.loadedAs = loadedAs
    }

    /// `unchanged since run 3`, `same content as /drops/a.json, loaded by run 3`.
    public var description: String {
      let run = loadedByRunId.map { "run \($0)" } ?? "this run"
      switch reason {
      case .unchanged: return "unchanged since \(run)"
      case .sameContent: return "same content as \(loadedAs ?? "an input") loaded by \(run)"
      }
    }
  }

  /// Keys looked up in one table, in batched queries of up to a hundred keys each.
  public struct ReferenceLookups: Sendable, Codable, Hashable {
    public var keys = 0
    public var queries = 0

    public init(keys: Int = 0, queries: Int = 0) {
      self.keys = keys
      self.queries = queries
    }

    mutating func add(keys: Int, queries: Int) {
      self.keys += keys
      self.queries += queries
    }

    package mutating func add(_ other: ReferenceLookups) { add(keys: other.keys, queries: other.queries) }
  }

  /// A parallel run's shape: its inputs in `lanes` (inputs that share no table), loaded over
  /// `connections` at once, their transactions committed by `commit` — `two-phase` (atomic) or
  /// `ordered` (one after another once all had loaded).
  public struct Parallelism: Sendable, Codable, Hashable {
    public var connections: Int
    public var lanes: Int
    public var commit: String

    public init(connections: Int, lanes: Int, commit: String) {
      self.connections = connections
      self.lanes = lanes
      self.commit = commit
    }
  }

  /// How a bulk-loading store (PostgreSQL) wrote the run's batches: per top-level table, the
  /// batches copied straight into it (keys new to it) and those staged and applied with the
  /// conflict policy (keys it had, or that a batch repeats); and the batches written row by row
  /// (records the bulk writer does not take, or a batch whose rows broke a constraint, to find
  /// the culprits). A batch here is what the loading thread took at once: up to 4,096 records
  /// (PostgreSQL) or 1,024 (SQLite, whose "copied" batches are multi-row inserts of new keys and
  /// "staged" ones multi-row upserts of a shared table).
  public struct BulkWrites: Sendable, Codable, Hashable {
    public struct Table: Sendable, Codable, Hashable {
      public var copied = 0
      public var staged = 0

      public init(copied: Int = 0, staged: Int = 0) {
        self.copied = copied
        self.staged = staged
      }
    }
    public var tables: [String: Table] = [:]
    public var rowByRow = 0
    /// Of `rowByRow`, the batches the writer could have written in bulk but sent record by
    /// record because that had cost less (SQLite, `WritePathChooser`); nil when none.
    public var chosenRowByRow: Int?

    public init(tables: [String: Table] = [:], rowByRow: Int = 0, chosenRowByRow: Int? = nil) {
      self.tables = tables
      self.rowByRow = rowByRow
      self.chosenRowByRow = chosenRowByRow
    }

    package mutating func add(_ other: BulkWrites) {
      for (name, table) in other.tables {
        tables[name, default: Table()].copied += table.copied
        tables[name, default: Table()].staged += table.staged
      }
      rowByRow += other.rowByRow
      if let chosen = other.chosenRowByRow { chosenRowByRow = (chosenRowByRow ?? 0) + chosen }
    }

    /// "customers 3 inserted, 1 merged; 2 row by row (1 of them as cheaper)": what the text and
    /// HTML reports say of the bulk batches, each with its own way of writing a number. The words
    /// are true of every store — a batch "copied" is inserted (PostgreSQL's COPY, SQLite's
    /// multi-row inserts), one "staged" is merged with the rows the table had (PostgreSQL's staged
    /// merge, SQLite's multi-row upserts) — as the report does not say which store wrote it.
    package func summary(_ number: (Int) -> String) -> String {
      let perTable = tables.sorted { $0.key < $1.key }.map { table, batches in
        "\(table) \(number(batches.copied)) inserted, \(number(batches.staged)) merged"
      }
      var rowByRow = "\(number(self.rowByRow)) row by row"
      if let chosenRowByRow { rowByRow += " (\(number(chosenRowByRow)) of them as cheaper)" }
      return (perTable + [rowByRow]).joined(separator: "; ")
    }
  }

  /// One check of the contract, as the JUnit report shows it: a stage, or a validation rule.
  public struct Check: Sendable, Codable, Hashable {
    public var name: String
    public var stage: Stage
    public var rule: String?
    /// Error-level issues this check raised.
    public var failures: Int
    /// Warning-level issues this check raised.
    public var warnings: Int

    public func matches(_ issue: Issue) -> Bool { issue.stage == stage && issue.rule == rule }
  }

  public var reportVersion = 1
  /// `run`, `validate` (no writes) or `replay` (records from a quarantine file).
  public var mode: String
  public var pipeline: String
  /// The dataset; with several inputs of different datasets, their names joined by `+`.
  public var dataset: String
  public var policy: String
  public var conflict: String
  public var database: String
  public var status: Status
  public var failure: Failure?
  public var startedAt: Date
  public var finishedAt: Date
  public var durationSeconds: Double
  public var peakMemoryBytes: Int64?
  /// The input, or with several the inputs' totals: their paths joined by `, `, their formats
  /// by `+`, gzip when any is, bytes summed. `inputs` has each on its own.
  public var input: InputSummary
  /// One section per input, in the order they were read: the first `inputSectionLimit`.
  public var inputs: [InputSection]
  /// The inputs past the first `inputSectionLimit`, summed; absent when every input has its
  /// section.
  public var inputsOmitted: OmittedInputs? = nil
  /// Counts of the whole run, every input included; so are the issue counts, issues, checks,
  /// drift, coercions and rows below.
  public var stages: [StageStatistics]
  public var issueCounts: [String: Int]
  /// How many issues of each code `issues` keeps (the rest are only counted).
  public var issueSampleLimit: Int
  public var issues: [Issue]
  /// The contract's checks with their failure counts (the JUnit test cases).
  public var checks: [Check]
  /// Unknown fields and unsupported enum values across the run.
  public var drift: DriftSummary
  /// Scalars converted under `legacyScalars`.
  public var coercions: Int
  /// Records the datasets skipped by design (an export's metadata lines), per reason; absent
  /// when none was.
  public var skippedByDesign: [String: Int]? = nil
  /// Rejected records written to the quarantine file.
  public var quarantined: Int
  /// Natural keys of the rows records own that an earlier record of the run wrote, met again,
  /// per table (each a `duplicateKey` issue of the load stage); absent when there were none.
  public var duplicateKeys: [String: Int]? = nil
  /// Inputs an incremental run did not read because the database already held their content
  /// (each input's section says which run loaded it); nil when none was skipped.
  public var inputsSkipped: Int? = nil
  /// The rows a snapshot run deleted because their keys were not in its input, per table (the
  /// top-level tables' and those whose rows went with them); nil when the run is no snapshot.
  public var rowsDeleted: [String: Int]? = nil
  /// What a plan (`sluice plan`) found the run would change, before it rolled back; nil for
  /// every other run.
  public var plan: RunPlan? = nil
  /// How a validate run's input differs from its baseline (`--baseline`), breaking changes
  /// first; nil without a baseline, empty when nothing changed.
  public var baselineChanges: [BaselineChange]? = nil
  /// What the run has to tell its operator about how it went (a `--resume` that found nothing
  /// to resume, and started the run); nil when nothing.
  public var notes: [String]? = nil
  /// Rows this run wrote, per table.
  public var rowsWritten: [String: Int]
  /// The keys of referenced tables (and of patched rows) the run looked up in the database,
  /// per table, with the queries that did it; absent when there were none. Keys a record of
  /// the run wrote, or an earlier look-up found, are not looked up again.
  public var referenceLookups: [String: ReferenceLookups]? = nil
  /// How a parallel run (`--jobs`) loaded: absent for a run over one connection.
  public var parallel: Parallelism? = nil
  /// How the bulk writer wrote the batches; absent when the store has none (SQLite).
  public var bulkWrites: BulkWrites? = nil
  /// Rows each of the dataset's tables holds after the run (empty when nothing was committed).
  public var tableRows: [String: Int]
  /// True when the run's changes were committed; false after a rollback or a dry run.
  public var committed: Bool
  /// Outputs that could not be written after the outcome was final — a report going to a pipe
  /// whose reader left — one message each. After a commit they make the exit code 75.
  public var outputErrors: [String]

  public func statistics(for stage: Stage) -> StageStatistics {
    stages.first { $0.stage == stage } ?? StageStatistics(stage: stage)
  }

  /// How many inputs a report lists one by one (`inputs`); the rest are summed
  /// (`inputsOmitted`), and `input.path` names the first `inputPathLimit` of them.
  public static let inputSectionLimit = 1_000
  public static let inputPathLimit = 20

  /// Every input of the run, listed or summed.
  public var inputCount: Int { inputs.count + (inputsOmitted?.count ?? 0) }

  /// The report as pretty-printed JSON with sorted keys (stable for diffs and tests).
  /// `date` to the second before it, as the JSON report writes it (`.iso8601` drops the
  /// fraction). `ISO8601DateFormatter` rounds to the millisecond first, so 04:47:53.9996 would
  /// print as :54 on a page whose JSON report says :53, and a page rendered again from that
  /// report (`sluice report --html`) would differ from the run's own.
  static func wholeSeconds(_ date: Date) -> Date {
    Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
  }

  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return try encoder.encode(self)
  }
}
