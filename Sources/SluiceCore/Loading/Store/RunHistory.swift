/// The audit trail of a database, read back: its recent runs, one run, and that run's issues
/// counted by where they happened — for `sluice runs`.
///
/// A store that records runs (`Store.recordAudit`) provides this too, so the command reads the
/// history of any store the same way. Implementations open the database for reading only.
public protocol RunHistory {
  /// The most recent runs, newest first, at most `limit`.
  func recentRuns(limit: Int) throws -> [RecordedRun]
  /// The run with this id; `RunHistoryError.unknownRun` when there is none.
  func run(id: Int64) throws -> RecordedRun
  /// The run's issues as `sluice_rejects` keeps them, grouped by stage, severity, code and
  /// field path, in stage order and then by count, largest first. Never record values.
  func issueGroups(ofRun id: Int64) throws -> [IssueGroup]
  /// What a person reading the history must know besides its rows, one line each: runs that
  /// did not end (a parallel run interrupted while committing) and what settles them.
  func notes() throws -> [String]
  /// The run's inputs as the input ledger (`sluice_inputs`) keeps them, in input order: what a
  /// committed run read or, incremental, skipped. Empty for a failed run or an older database.
  func inputs(ofRun id: Int64) throws -> [InputLedgerEntry]
}

extension RunHistory {
  public func notes() throws -> [String] { [] }
  public func inputs(ofRun id: Int64) throws -> [InputLedgerEntry] { [] }
}

/// A history that cannot be read: the database is missing, is not a database, holds no runs,
/// lacks the run asked for, or its server cannot be reached.
public struct RunHistoryError: Error, Sendable, CustomStringConvertible {
  public enum Code: String, Sendable {
    /// No database at the path (or it cannot be opened for reading).
    case databaseMissing
    /// The file is not a database of this store's kind.
    case notADatabase
    /// The database has no audit tables: no run was ever recorded in it.
    case noHistory
    /// The database has no run with the id asked for.
    case unknownRun
    /// A row of the audit tables is not what Sluice writes (a column edited by hand).
    case malformedRow
    /// The database server cannot be reached, refuses the login, or went away.
    case unreachable
  }

  public var code: Code
  public var database: String
  public var message: String

  public init(_ code: Code, database: String, message: String) {
    self.code = code
    self.database = database
    self.message = message
  }

  public var description: String { "\(database): \(message)" }
}
