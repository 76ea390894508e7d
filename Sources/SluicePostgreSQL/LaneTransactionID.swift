import Foundation
@_spi(Internals) import SluiceCore

/// The global transaction id a parallel run prepares a lane transaction under:
/// `sluice:<database>:<schema>:<run id>:<k>/<n>` — the run's row in `<schema>.sluice_runs`, and
/// which of the run's `n` lane transactions this is.
///
/// Prepared transactions outlive the process and are listed cluster-wide
/// (`pg_prepared_xacts`), so the id alone must say whose it is: the database and schema tell two
/// runs with the same id apart, the run id finds the row that records the commit decision, and
/// `k/n` says how many lanes the run had, so `sluice recover` can tell a whole run from a part.
/// A `:` or `%` in a name is percent-encoded; PostgreSQL allows 199 bytes, so a name that would
/// not fit leaves out the database (the view's `database` column names it anyway). A schema name
/// so full of `:` and `%` that even then the id is too long makes the first prepare fail, and
/// the run with it (rolled back, like any failed prepare).
package struct LaneTransactionID: Sendable, Hashable, CustomStringConvertible {
  public var database: String
  public var schema: String
  public var runID: Int64
  /// This lane transaction's number, from 1.
  public var lane: Int
  /// How many lane transactions the run prepares.
  public var lanes: Int

  public init(database: String, schema: String, runID: Int64, lane: Int, lanes: Int) {
    self.database = database
    self.schema = schema
    self.runID = runID
    self.lane = lane
    self.lanes = lanes
  }

  static let prefix = "sluice:"
  /// `PREPARE TRANSACTION`'s limit: "The identifier must be … less than 200 bytes long".
  static let limit = 199

  public var description: String {
    let tail = ":\(Self.encode(schema)):\(runID):\(lane)/\(lanes)"
    var database = Self.encode(self.database)
    if Self.prefix.utf8.count + database.utf8.count + tail.utf8.count > Self.limit { database = "" }
    return Self.prefix + database + tail
  }

  /// The id of a prepared transaction, or nil for one Sluice did not make this way.
  public init?(parsing text: String) {
    guard text.hasPrefix(Self.prefix) else { return nil }
    let parts = text.dropFirst(Self.prefix.count).split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 4, let schema = Self.decode(parts[1]), let database = Self.decode(parts[0]),
      let runID = Int64(parts[2])
    else { return nil }
    let counts = parts[3].split(separator: "/")
    guard counts.count == 2, let lane = Int(counts[0]), let lanes = Int(counts[1]), lane >= 1, lane <= lanes
    else { return nil }
    self.init(database: database, schema: schema, runID: runID, lane: lane, lanes: lanes)
  }

  /// Whether `text` is a prepared transaction of an earlier Sluice (`sluice-<pid>-<ms>-<n>`),
  /// whose lane 0 carried the audit row: its outcome cannot be read from the database.
  public static func isLegacy(_ text: String) -> Bool {
    text.hasPrefix("sluice-")
  }

  private static func encode(_ name: String) -> String {
    var encoded = ""
    for scalar in name.unicodeScalars {
      switch scalar {
      case ":": encoded += "%3A"
      case "%": encoded += "%25"
      default: encoded.unicodeScalars.append(scalar)
      }
    }
    return encoded
  }

  private static func decode(_ text: Substring) -> String? {
    String(text).removingPercentEncoding
  }
}
