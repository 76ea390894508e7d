import Foundation

/// Plans (`sluice plan`): the whole run — migrations, lookup tables, every record through every
/// stage and the writes, a snapshot's deletions, the deferred indexes — in its transaction,
/// then a rollback instead of the commit. Before the load each dataset table that exists is
/// copied into a temporary table; after it, the table is compared with its copy on the table's
/// key: rows only after are inserts, rows only before deletes, rows in both updates (counted per
/// column that differs) or unchanged. Nothing is written — no row, no audit entry, no ledger row,
/// no sequence value (Sluice's tables have no sequences but `sluice_runs`', which a plan does not
/// touch) — and the report is the one the run would have made, with the plan in it.
struct PlanRun: RunStrategy {
  let services: RunServices
  let options: Execution.PlanOptions
  /// The load a plan makes before its rollback: a serial run's (with a snapshot's deletions).
  private var load: SerialRun
  /// The folder of a first load's empty database, removed once the report is made.
  private var folder: String?

  private var configuration: PipelineConfiguration { services.configuration }
  private var schema: Schema { services.schema }

  init(services: RunServices, options: Execution.PlanOptions) {
    self.services = services
    self.options = options
    load = SerialRun(services: services)
  }

  /// A plan leaves no database file it did not find, and never makes one at the target's path: a
  /// run that opened it meanwhile, waiting for the plan's lock, would then write into a file the
  /// plan removes. The plan of a first load runs against an empty database of its own, in a
  /// folder only this process can name.
  mutating func execute(
    outputs: RunOutputs, state: inout RunState, opened: inout PipelineRunner.Opened
  ) throws -> RunOutcome {
    var target = configuration.database
    if !target.driver.connectsToServer && !FileManager.default.fileExists(atPath: target.location) {
      let folder = try Self.privateFolder()
      self.folder = folder
      target.location = folder + "/plan.sqlite"
    }
    let store = try services.openDatabase(target)
    opened.store = store
    // Nothing is committed; the outputs are the plan's, published as a dry run's are.
    return .planned(try plan(into: store, outputs: outputs, state: &state))
  }

  func complete(_ report: inout RunReport) {
    load.complete(&report)
  }

  var recordsFailure: Bool { false }

  func cleanUp() {
    guard let folder else { return }
    // The database and the side files its driver writes beside it (a journal): the driver's to name.
    for file in configuration.database.driver.files(at: folder + "/plan.sqlite") { unlink(file.path) }
    rmdir(folder)
  }

  /// A new folder under the temporary directory that only this process can name (`mkdtemp`,
  /// mode 0700).
  private static func privateFolder() throws -> String {
    var template = Array((NSTemporaryDirectory() + "/sluice-plan-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
    guard made != nil else {
      throw OutputError(
        kind: .cannotCreate,
        message: "cannot create a folder for the plan's empty database: \(String(cString: strerror(errno)))")
    }
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The report of the run as it would have committed, with its plan; the transaction is rolled
  /// back.
  private mutating func plan(into store: some Store, outputs: RunOutputs, state: inout RunState) throws -> RunReport {
    do {
      try store.withTransaction {
        try store.prepareForPlan()
        let pending = try Migrator.pending(store, schema.migrations(dialect: store.dialect))
        var copies: [(table: Table, copy: String?, rowsBefore: Int, columns: [String])] = []
        for (number, table) in schema.tables.enumerated() {
          guard let columns = try store.columns(of: table.name) else {
            copies.append((table, nil, 0, []))
            continue
          }
          let copy = "sluice_plan_\(number)"
          try store.execute(
            "CREATE TEMPORARY TABLE \(copy) AS SELECT * FROM \(store.dialect.quote(table.name))")
          copies.append((table, copy, Int(try store.scalarInt("SELECT count(*) FROM \(copy)") ?? 0), columns))
        }
        let (lookupRows, totals, mirror) = try load.loadInputs(into: store, state: &state)
        var tables = try copies.map {
          try changes(of: $0.table, before: $0.copy, rowsBefore: $0.rowsBefore, columns: $0.columns, in: store)
        }
        // Rows of tables outside the run's datasets that a snapshot's deletes took with them
        // (`ON DELETE CASCADE`): the run changes them too.
        let own = Set(tables.map(\.table))
        for (table, deleted) in (load.rowsDeleted ?? [:]).sorted(by: { $0.key < $1.key }) where !own.contains(table) {
          let before = mirror?.rowsBefore[table] ?? deleted
          tables.append(
            .init(
              table: table, existed: true, rowsBefore: before, inserts: 0, updates: 0, unchanged: before - deleted,
              deletes: deleted, columnsUpdated: [:]))
        }
        var plan = RunPlan(tables: tables, lookupChanges: lookupRows, pendingMigrations: pending)
        if let limit = options.maxChanges {
          plan.maxChanges = limit.description
          plan.exceedsMaxChanges = limit.isExceeded(by: plan)
        }
        let rowsWritten = state.rowsWrittenByInputs.merging(lookupRows, uniquingKeysWith: +)
        var report = services.makeReport(
          state, failure: nil, rowsWritten: rowsWritten,
          tableRows: configuration.countsTableRows ? services.countRows(store) : [:], committed: false)
        load.complete(&report)
        totals.fill(&report)
        report.plan = plan
        throw PlanRollback(report: report)
      }
    } catch let rollback as PlanRollback {
      return rollback.report
    }
    preconditionFailure("a plan's transaction always ends in its rollback")
  }

  /// `table` now against its copy `before` (nil: the table did not exist), which has `columns`:
  /// a column schema evolution added in the run (`Schema.evolution`) is one the copy lacks, and
  /// a row whose value there is not null is updated in it.
  private func changes(
    of table: Table, before copy: String?, rowsBefore: Int, columns: [String], in store: some Store
  ) throws
    -> RunPlan.TableChanges
  {
    let dialect = store.dialect
    let q = dialect.quote
    let name = q(table.name)
    let after = Int(try store.scalarInt("SELECT count(*) FROM \(name)") ?? 0)
    guard let copy else {
      return .init(
        table: table.name, existed: false, rowsBefore: 0, inserts: after, updates: 0, unchanged: 0, deletes: 0,
        columnsUpdated: [:])
    }
    let keys = table.key.map(q)
    let match = keys.map { "a.\($0) = b.\($0)" }.joined(separator: " AND ")
    let matched = Int(try store.scalarInt("SELECT count(*) FROM \(name) a JOIN \(copy) b ON \(match)") ?? 0)
    let values = table.allColumns.map(\.name).filter { !table.key.contains($0) }
    var columnsUpdated: [String: Int] = [:]
    var updates = 0
    if !values.isEmpty {
      let differs = values.map {
        columns.contains($0) ? dialect.isDistinct("a.\(q($0))", "b.\(q($0))") : "a.\(q($0)) IS NOT NULL"
      }
      let sums = differs.map { "sum(CASE WHEN \($0) THEN 1 ELSE 0 END)" }
      let statement = try store.prepare(
        "SELECT count(*), \(sums.joined(separator: ", ")) FROM \(name) a JOIN \(copy) b ON \(match) WHERE \(differs.joined(separator: " OR "))"
      )
      defer { statement.reset() }
      if try statement.step() {
        func integer(_ column: Int32) -> Int {
          switch statement.columnValue(column) {
          case .integer(let value): Int(value)
          case .real(let value): Int(value)
          case .text(let text): Int(text) ?? 0
          default: 0
          }
        }
        updates = integer(0)
        for (offset, column) in values.enumerated() {
          let count = integer(Int32(offset + 1))
          if count > 0 { columnsUpdated[column] = count }
        }
      }
    }
    return .init(
      table: table.name, existed: true, rowsBefore: rowsBefore, inserts: after - matched, updates: updates,
      unchanged: matched - updates, deletes: rowsBefore - matched, columnsUpdated: columnsUpdated)
  }
}

/// Ends a plan's transaction in a rollback, carrying the report out of it.
private struct PlanRollback: Error {
  var report: RunReport
}
