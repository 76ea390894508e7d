import Foundation

/// One input of a committed run as the input ledger (`sluice_inputs`) keeps it: which file,
/// which content (SHA-256 of its bytes, computed while it was read), what its records did — or,
/// for an input an incremental run skipped, which earlier run loaded that content.
///
/// The ledger is written in the run's own transaction, with its rows: a file is in the ledger
/// exactly when what it loaded is in the tables.
public struct InputLedgerEntry: Sendable, Hashable, Codable {
  public enum Status: String, Sendable, Hashable, Codable {
    /// The run read the input and its records were loaded (or rejected, or skipped by design).
    case loaded
    /// An incremental run did not read it: the database already held its content.
    case skipped
  }

  /// The input's place among the run's inputs, from 0.
  public var position: Int
  /// The path as the run read it (a spec's relative path resolved; `-` for standard input).
  public var path: String
  /// The dataset its records were read as.
  public var dataset: String
  public var status: Status
  /// The file's size in bytes (compressed, for gzip); nil for standard input or a pipe.
  public var size: Int64?
  /// When the file was last modified, as the run found it; nil for standard input or a pipe.
  public var modifiedAt: Date?
  /// Device, inode, size and times (`FileFingerprint.text`): how a later run tells the very
  /// same file without reading it.
  public var fingerprint: String?
  /// SHA-256 of the file's bytes, lowercase hexadecimal.
  public var sha256: String
  /// SHA-256 of its first 64 KiB: the cheap pre-check before a whole file is hashed.
  public var headSHA256: String
  public var recordsRead: Int
  public var recordsLoaded: Int
  public var recordsRejected: Int
  public var recordsSkipped: Int
  /// For a skipped input: the run that loaded its content.
  public var sameAsRun: Int64?
  /// A remote input's ETag (quotes included, opaque) as its server gave it; nil for a file.
  public var etag: String?
  /// A remote input's `Last-Modified` as its server wrote it; nil for a file.
  public var lastModified: String?

  enum CodingKeys: String, CodingKey {
    case position, path, dataset, status, size, modifiedAt, fingerprint
    case sha256 = "sha256"
    case headSHA256 = "headSha256"
    case recordsRead, recordsLoaded, recordsRejected, recordsSkipped
    case sameAsRun = "sameAsRunId"
    case etag, lastModified
  }

  package init(
    position: Int, path: String, dataset: String, status: Status, size: Int64?, modifiedAt: Date?,
    fingerprint: String?, sha256: String, headSHA256: String, recordsRead: Int = 0, recordsLoaded: Int = 0,
    recordsRejected: Int = 0, recordsSkipped: Int = 0, sameAsRun: Int64? = nil, etag: String? = nil,
    lastModified: String? = nil
  ) {
    self.position = position
    self.path = path
    self.dataset = dataset
    self.status = status
    self.size = size
    self.modifiedAt = modifiedAt
    self.fingerprint = fingerprint
    self.sha256 = sha256
    self.headSHA256 = headSHA256
    self.recordsRead = recordsRead
    self.recordsLoaded = recordsLoaded
    self.recordsRejected = recordsRejected
    self.recordsSkipped = recordsSkipped
    self.sameAsRun = sameAsRun
    self.etag = etag
    self.lastModified = lastModified
  }
}

/// The input ledger's SQL, the same for every store but its types (each store's audit log
/// creates the table, with these columns, in its migrations), and the look-ups an incremental
/// run makes in it.
package enum InputLedger {
  package static let table = "sluice_inputs"

  /// The columns in the order `row(_:runID:)` gives them.
  static let columns = [
    "run_id", "position", "path", "dataset", "status", "size", "modified_at", "fingerprint", "sha256", "head_sha256",
    "records_read", "records_loaded", "records_rejected", "records_skipped", "same_as_run", "etag", "last_modified",
  ]

  /// Inserts `entries` as the rows of run `runID`. Call inside the run's transaction, after the
  /// store's audit migrations.
  package static func record(_ entries: [InputLedgerEntry], runID: Int64, into store: some Store) throws {
    guard !entries.isEmpty else { return }
    let parameters = columns.indices.map { store.dialect.parameter($0 + 1) }.joined(separator: ", ")
    let insert = try store.prepare(
      "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(parameters))")
    for var entry in entries {
      // A skipped input whose content an earlier input of this same run loaded names this run.
      if entry.status == .skipped && entry.sameAsRun == nil { entry.sameAsRun = runID }
      try insert.run(row(entry, runID: runID))
    }
  }

  static func row(_ entry: InputLedgerEntry, runID: Int64) -> [DatabaseValue?] {
    [
      .integer(runID), .integer(Int64(entry.position)), .text(AuditText.storable(entry.path, limit: 4096)),
      .text(entry.dataset), .text(entry.status.rawValue), entry.size.map { .integer($0) },
      entry.modifiedAt.map { .text(TimestampText.text($0)) }, entry.fingerprint.map { .text($0) },
      .text(entry.sha256), .text(entry.headSHA256), .integer(Int64(entry.recordsRead)),
      .integer(Int64(entry.recordsLoaded)), .integer(Int64(entry.recordsRejected)),
      .integer(Int64(entry.recordsSkipped)), entry.sameAsRun.map { .integer($0) },
      entry.etag.map { .text(AuditText.storable($0, limit: 1024)) },
      entry.lastModified.map { .text(AuditText.storable($0, limit: 128)) },
    ]
  }

  /// Rows of runs that committed. A run's ledger rows are written with its tables', but a
  /// parallel PostgreSQL run writes them when it decides to commit, before its lanes do: one that
  /// then ended `failed` or `partial` holds nothing the ledger can vouch for.
  private static let committed = "run_id IN (SELECT run_id FROM sluice_runs WHERE status = 'succeeded')"

  /// The ledger's rows of run `runID`, in input order; empty when the database has no ledger
  /// (it predates it) or the run left no rows (it failed, or was a validate run).
  /// `modifiedAtText` is the store's expression for `modified_at` as canonical UTC text.
  package static func entries(ofRun runID: Int64, in store: some Store, modifiedAtText: String = "modified_at") throws
    -> [InputLedgerEntry]
  {
    guard let columns = try store.columns(of: table) else { return [] }
    let query = try store.prepare(
      """
      SELECT position, path, dataset, status, size, \(modifiedAtText), fingerprint, sha256, head_sha256,
        records_read, records_loaded, records_rejected, records_skipped, same_as_run, \(remoteColumns(columns))
      FROM \(table) WHERE run_id = \(store.dialect.parameter(1)) ORDER BY position
      """)
    defer { query.reset() }
    try query.bind(.integer(runID), at: 1)
    var entries: [InputLedgerEntry] = []
    while try query.step() {
      func integer(_ column: Int32) -> Int64? {
        if case .integer(let value)? = query.columnValue(column) { return value }
        return nil
      }
      func text(_ column: Int32) -> String? {
        if case .text(let value)? = query.columnValue(column) { return value }
        return nil
      }
      entries.append(
        InputLedgerEntry(
          position: Int(integer(0) ?? 0), path: text(1) ?? "", dataset: text(2) ?? "",
          status: text(3).flatMap(InputLedgerEntry.Status.init(rawValue:)) ?? .loaded, size: integer(4),
          modifiedAt: text(5).flatMap(TimestampText.date(from:)), fingerprint: text(6), sha256: text(7) ?? "",
          headSHA256: text(8) ?? "", recordsRead: Int(integer(9) ?? 0), recordsLoaded: Int(integer(10) ?? 0),
          recordsRejected: Int(integer(11) ?? 0), recordsSkipped: Int(integer(12) ?? 0), sameAsRun: integer(13),
          etag: text(14), lastModified: text(15)))
    }
    return entries
  }

  /// The remote inputs' columns, or nulls in a ledger an earlier Sluice made and no run of this
  /// one has migrated yet (an incremental run looks before it migrates; `sluice runs` never does).
  static func remoteColumns(_ columns: [String]) -> String {
    columns.contains("etag") ? "etag, last_modified" : "NULL, NULL"
  }

  /// What the ledger says about one path: its latest row for this dataset.
  struct PathRow {
    var runID: Int64
    var fingerprint: String?
    var size: Int64?
    var etag: String?
    var lastModified: String?
    var sha256: String
    var headSHA256: String
    /// The run that loaded the content: the row's own run, or the one a skipped row names.
    var loadedBy: Int64
  }

  static func latest(path: String, dataset: String, in store: some Store) throws -> PathRow? {
    let p = store.dialect.parameter
    let remote = remoteColumns(try store.columns(of: table) ?? [])
    let query = try store.prepare(
      """
      SELECT run_id, fingerprint, sha256, coalesce(same_as_run, run_id), head_sha256, size, \(remote) FROM \(table)
      WHERE dataset = \(p(1)) AND path = \(p(2)) AND \(committed) ORDER BY run_id DESC LIMIT 1
      """)
    defer { query.reset() }
    try query.bind([.text(dataset), .text(AuditText.storable(path, limit: 4096))])
    guard try query.step(), case .integer(let runID)? = query.columnValue(0),
      case .text(let sha256)? = query.columnValue(2), case .integer(let loadedBy)? = query.columnValue(3),
      case .text(let head)? = query.columnValue(4)
    else { return nil }
    var fingerprint: String?
    if case .text(let text)? = query.columnValue(1) { fingerprint = text }
    var size: Int64?
    if case .integer(let value)? = query.columnValue(5) { size = value }
    var etag: String?
    if case .text(let text)? = query.columnValue(6) { etag = text }
    var lastModified: String?
    if case .text(let text)? = query.columnValue(7) { lastModified = text }
    return PathRow(
      runID: runID, fingerprint: fingerprint, size: size, etag: etag, lastModified: lastModified, sha256: sha256,
      headSHA256: head, loadedBy: loadedBy)
  }

  /// Whether any content of this size and first 64 KiB was loaded as `dataset`.
  static func hasCandidates(size: Int64, headSHA256: String, dataset: String, in store: some Store) throws -> Bool {
    let p = store.dialect.parameter
    let query = try store.prepare(
      """
      SELECT 1 FROM \(table)
      WHERE dataset = \(p(1)) AND size = \(p(2)) AND head_sha256 = \(p(3)) AND \(committed) LIMIT 1
      """)
    defer { query.reset() }
    try query.bind([.text(dataset), .integer(size), .text(headSHA256)])
    return try query.step()
  }

  /// The earliest run that loaded content with this digest as `dataset`, and the path it read.
  static func loaded(sha256: String, size: Int64, dataset: String, in store: some Store) throws -> (
    runID: Int64, path: String
  )? {
    let p = store.dialect.parameter
    let query = try store.prepare(
      """
      SELECT run_id, path FROM \(table)
      WHERE dataset = \(p(1)) AND size = \(p(2)) AND sha256 = \(p(3)) AND status = 'loaded' AND \(committed)
      ORDER BY run_id LIMIT 1
      """)
    defer { query.reset() }
    try query.bind([.text(dataset), .integer(size), .text(sha256)])
    guard try query.step(), case .integer(let runID)? = query.columnValue(0),
      case .text(let path)? = query.columnValue(1)
    else { return nil }
    return (runID, path)
  }
}
