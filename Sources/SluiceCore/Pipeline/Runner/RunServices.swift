import Foundation

/// What a run's strategies are given instead of the runner: the run's configuration, its inputs
/// with their datasets, the schema, and the few things every mode does alike — read an input,
/// load one, migrate the schema, build the deferred indexes, open the database, count rows,
/// make the report from a state, classify a failure (`RunServices+Inputs`, `+Report`,
/// `+Incremental`, `+Snapshot`). It holds no mode's state: that is each strategy's own.
package struct RunServices: Sendable {
  package let configuration: PipelineConfiguration
  /// Each input with the dataset its records are read as, in load order.
  package let inputs: [PipelineRunner.Source]
  /// Every input's dataset's tables, each once.
  package let schema: Schema
  /// The optional inputs that are not there, by their place among `inputs`: a run skips them
  /// (`PipelineRunner.checkInputsExist`).
  package var missingInputs: Set<Int> = []

  package typealias Source = PipelineRunner.Source

  // MARK: - The load

  /// Loads one input through a loader of its own, over its dataset's tables (what the loader
  /// caches it found in this transaction, which holds the earlier inputs' rows), and adds what
  /// the loading took to `totals`. Serial runs and each lane of a parallel one load alike;
  /// `observer` hears of each batch (a checkpointed run's chunks).
  package func load(
    _ source: Source, index: Int, into store: any Store, savepoints: (any RecordSavepoints)?,
    mirror: SnapshotMirror? = nil, observer: (any LoadObserver)? = nil, totals: inout LoadTotals,
    state: inout RunState, resuming: InputProgress.Saved? = nil
  ) throws {
    try read(source, index: index, state: &state, resuming: resuming) { reader, loop, state in
      let loader = try BatchLoader(
        store: store, schema: source.dataset.schema, conflict: configuration.conflict, savepoints: savepoints,
        mirror: mirror, budget: configuration.memoryBudget)
      defer { totals.add(loader.totals) }
      try loop.load(reader, loader: loader, observer: observer, state: &state)
      return loader.rowsWritten
    }
  }

  /// Applies the schema's missing migrations, all but the deferrable indexes of a fresh schema
  /// (returned, to build after the load), and brings the lookup tables in line with their enums
  /// (the rows that changed, per table).
  /// `stillDeferred`: indexes an interrupted run deferred, which its resume defers too.
  package func migrateSchema(
    _ store: some Store, stillDeferred: Set<String> = []
  ) throws -> (deferred: [Migration], lookupRows: [String: Int]) {
    let deferred = try Migrator.migrate(
      store, schema.migrations(dialect: store.dialect), deferringIndexesOfNewTables: true,
      stillDeferred: stillDeferred
    ).deferred
    var lookupRows: [String: Int] = [:]
    for lookup in schema.lookups {
      let synchronized = try LookupTable.synchronize(lookup, in: store)
      let rows = synchronized.inserted + synchronized.updated + synchronized.retired
      if rows > 0 { lookupRows[lookup.table, default: 0] += rows }
    }
    return (deferred, lookupRows)
  }

  /// Builds the indexes a fresh schema's load deferred (`locking: false` for a parallel run's
  /// lane). An entry too large for one (PostgreSQL's B-tree limit) is the data's fault, but built
  /// over the loaded table it belongs to no record the run can name: the run fails on its data.
  package func buildDeferredIndexes(_ deferred: [Migration], in store: some Store, locking: Bool = true) throws {
    guard !deferred.isEmpty else { return }
    try store.prepareForIndexBuild()
    do {
      try Migrator.migrate(store, deferred, locking: locking)
    } catch let error as any StoreError {
      guard case .constraint(let violation) = error.failure, violation.kind == .tooLarge else { throw error }
      let declared = schema.tables.flatMap(\.indexes).first { $0.name == violation.name }
      let index = violation.name.map { "index \($0)" } ?? "an index built after the load"
      let names = violation.columns.isEmpty ? declared?.columns ?? [] : violation.columns
      let columns = names.isEmpty ? "" : " on \(names.joined(separator: ", "))"
      throw RunAbort(
        failure: .init(
          kind: .data,
          message:
            "a value is too large for \(index)\(violation.table.map { " of \($0)" } ?? "")\(columns): \(error.message); the index is built after a first load, so the record cannot be named; nothing was written"
        ))
    }
  }

  // MARK: - Resources

  /// Opens the run's database through its driver. One that cannot be created is exit 73; a
  /// server that cannot be reached or refuses the login is an I/O failure (exit 74) naming the
  /// server without its password; a lock held past the busy timeout is the store's busy error.
  /// Its page cache is the budget's share (`MemoryBudget`).
  package func openDatabase(_ target: DatabaseTarget? = nil) throws -> any Store {
    do {
      let store = try configuration.database.driver.openForRun(
        target ?? configuration.database, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
      try store.usePageCache(bytes: configuration.memoryBudget.pageCacheBytes)
      return store
    } catch let error as StoreOpenError {
      switch error.kind {
      case .cannotCreate: throw OutputError(kind: .cannotCreate, message: error.message)
      case .unreachable: throw RunAbort(failure: .init(kind: .io, message: error.message))
      case .missing: throw RunAbort(failure: .init(kind: .inputMissing, message: error.message))
      }
    }
  }

  package func countRows(_ store: some Store) -> [String: Int] {
    countRows { _ in store }
  }

  /// Every table's rows, each counted by the connection `store(table)` names (in a parallel run
  /// only the connection that wrote a table sees its rows before the commit); a table that
  /// cannot be counted is left out.
  package func countRows(through store: (String) -> any Store) -> [String: Int] {
    var rows: [String: Int] = [:]
    for table in schema.tableNames {
      let connection = store(table)
      if let count = try? connection.scalarInt("SELECT count(*) FROM \(connection.dialect.quote(table))") {
        rows[table] = Int(count)
      }
    }
    return rows
  }
}
