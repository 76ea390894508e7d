/// What a run would change, found by running it and rolling it back (`sluice plan`): per table
/// the rows it would insert, update (and which columns), leave as they are and delete — the
/// cascades and a snapshot's deletions included — the lookup rows it would change and the
/// migrations it would apply.
public struct RunPlan: Sendable, Codable, Hashable {
  /// One table's changes, measured by comparing the table after the run with a copy taken
  /// before it, row by row on the table's key.
  public struct TableChanges: Sendable, Codable, Hashable {
    public var table: String
    /// Whether the table existed before (a plan against a new schema creates every table).
    public var existed: Bool
    /// Rows before the run.
    public var rowsBefore: Int
    public var inserts: Int
    public var updates: Int
    /// Rows present before and after with the same values: written again to no effect, or not
    /// touched by the run.
    public var unchanged: Int
    public var deletes: Int
    /// Per column, the updated rows whose value in it changed.
    public var columnsUpdated: [String: Int]

    public var changes: Int { inserts + updates + deletes }

    public init(
      table: String, existed: Bool, rowsBefore: Int, inserts: Int, updates: Int, unchanged: Int, deletes: Int,
      columnsUpdated: [String: Int]
    ) {
      self.table = table
      self.existed = existed
      self.rowsBefore = rowsBefore
      self.inserts = inserts
      self.updates = updates
      self.unchanged = unchanged
      self.deletes = deletes
      self.columnsUpdated = columnsUpdated
    }
  }

  /// The dataset tables, in the schema's order.
  public var tables: [TableChanges]
  /// Rows of lookup tables the run would insert, update or retire, per table.
  public var lookupChanges: [String: Int]
  /// The migrations the run would apply, by identifier, in order.
  public var pendingMigrations: [String]
  /// The gate (`--max-changes`) as given, and whether the plan exceeds it.
  public var maxChanges: String?
  public var exceedsMaxChanges: Bool

  /// Inserted, updated and deleted rows over every dataset table.
  public var changes: Int { tables.map(\.changes).reduce(0, +) }
  /// Rows the dataset tables held before.
  public var rowsBefore: Int { tables.map(\.rowsBefore).reduce(0, +) }

  public init(
    tables: [TableChanges], lookupChanges: [String: Int], pendingMigrations: [String], maxChanges: String? = nil,
    exceedsMaxChanges: Bool = false
  ) {
    self.tables = tables
    self.lookupChanges = lookupChanges
    self.pendingMigrations = pendingMigrations
    self.maxChanges = maxChanges
    self.exceedsMaxChanges = exceedsMaxChanges
  }

  /// The plan as text, a line per table, for the terminal.
  public var lines: [String] {
    var lines = ["plan (the run was rolled back; nothing was written):"]
    let width = max(tables.map(\.table.count).max() ?? 5, 5)
    func pad(_ text: String) -> String { text + String(repeating: " ", count: max(width - text.count, 0)) }
    lines.append(
      "  \(pad("table"))  \("insert".leftPadded(9))  \("update".leftPadded(9))  \("unchanged".leftPadded(9))  \("delete".leftPadded(9))"
    )
    for table in tables {
      var line =
        "  \(pad(table.table))  \(String(table.inserts).leftPadded(9))  \(String(table.updates).leftPadded(9))  \(String(table.unchanged).leftPadded(9))  \(String(table.deletes).leftPadded(9))"
      if !table.existed { line += "  (new table)" }
      lines.append(line)
      if !table.columnsUpdated.isEmpty {
        lines.append(
          "    updated columns: "
            + table.columnsUpdated.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", "))
      }
    }
    if !lookupChanges.isEmpty {
      lines.append(
        "  lookup rows: "
          + lookupChanges.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
    lines.append(
      pendingMigrations.isEmpty
        ? "  migrations: none pending"
        : "  migrations: \(pendingMigrations.count) pending (\(pendingMigrations.prefix(5).joined(separator: ", "))\(pendingMigrations.count > 5 ? ", …" : ""))"
    )
    var total = "  changes: \(changes) row(s) of \(rowsBefore) before"
    if let maxChanges {
      total += exceedsMaxChanges ? " — more than --max-changes \(maxChanges)" : " — within --max-changes \(maxChanges)"
    }
    lines.append(total)
    return lines
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    String(repeating: " ", count: max(width - count, 0)) + self
  }
}

/// The gate of a plan: at most a number of changed rows, or a share of the rows the tables held.
public enum ChangeLimit: Sendable, Hashable, CustomStringConvertible {
  case rows(Int)
  /// A percentage of the rows the tables held before the run, from 0 to 100.
  case percent(Double)

  /// `500` or `5%`; nil for anything else.
  public init?(_ text: String) {
    if text.hasSuffix("%") {
      guard let percent = Double(text.dropLast()), percent >= 0, percent <= 100 else { return nil }
      self = .percent(percent)
    } else {
      guard let rows = Int(text), rows >= 0 else { return nil }
      self = .rows(rows)
    }
  }

  /// As `--max-changes` takes it: `500`, `5%`, `2.5%`.
  public var description: String {
    switch self {
    case .rows(let rows): return "\(rows)"
    case .percent(let percent):
      return percent == percent.rounded() && abs(percent) < 1e15 ? "\(Int(percent))%" : "\(percent)%"
    }
  }

  /// Whether `plan` changes more than this allows.
  public func isExceeded(by plan: RunPlan) -> Bool {
    switch self {
    case .rows(let rows): return plan.changes > rows
    case .percent(let percent): return Double(plan.changes) > percent / 100 * Double(plan.rowsBefore)
    }
  }
}
