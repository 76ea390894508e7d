import Foundation
@_spi(Internals) import SluiceCore

/// Staged runs into PostgreSQL (`--stage`): the staging area is a schema of the run on the same
/// server, `sluice_stage_<schema>`, whose tables readers of the target never see.
///
/// - **Begin**, in one transaction: the schema is made with an unlogged copy of each of the
///   target's tables the run writes and of its `sluice_*` audit tables — columns, defaults,
///   checks, keys, indexes under their own names, foreign keys between the copies, identity
///   sequences where the target's are — and a fingerprint of each copied table (its row count
///   and a sum of its rows' hashes) in a logged table, `sluice_stage`.
/// - **The run** loads into that schema (its `search_path`), checkpointed chunk by chunk.
/// - **Publish**, in one transaction: the target's tables are locked against writers (readers go
///   on seeing them as they were); their fingerprints must be those taken at the copy — a table
///   another process wrote to meanwhile makes the run refuse rather than lose that write; then
///   each table is made equal to its staged copy set-based, changing only the rows that differ
///   (`DELETE` of the rows gone, children before parents, then `INSERT … ON CONFLICT DO UPDATE`
///   of the rows new or changed, parents before children: a row deleted and inserted again would
///   take with it the rows of other tables that reference it `ON DELETE CASCADE`), tables the run made are created in
///   the target, identity sequences are moved on past the rows, and the staging schema is
///   dropped — all in the same transaction, so a crash at any point leaves either the target as
///   it was and the staging schema resumable, or the run published and no staging left.
///
/// Unlogged tables are emptied by a crash of the server itself: a second marker, in an unlogged
/// table, tells a resume that this happened (the staged chunks are gone; `--restart` stages
/// again). Citus is refused: the staged copies would be local tables of the coordinator.
extension PostgreSQLDriver: StagingDriver {
  /// The logged marker: the target's schema and each copied table's fingerprint.
  static let stagingMarker = "sluice_stage"
  /// The unlogged marker: a row a crash of the server removes with the staged rows.
  static let stagingSentinel = "sluice_stage_unlogged"

  /// The staging schema of a run into `target`'s schema (nil: the server's `search_path`,
  /// named `default` here), within PostgreSQL's 63-byte identifiers.
  static func stagingSchema(for target: DatabaseTarget) -> String { stagingSchema(forSchema: target.schema) }

  static func stagingSchema(forSchema schema: String?) -> String {
    let name = "sluice_stage_" + (schema ?? "default")
    guard name.utf8.count > PostgreSQLDialect.identifierLimit else { return name }
    let hash = SHA256()
    hash.update((schema ?? "").utf8)
    return "sluice_stage_" + SHA256.hex(of: hash.finish().prefix(8))
  }

  package func stagingTarget(for target: DatabaseTarget) -> DatabaseTarget {
    var staged = target
    staged.schema = Self.stagingSchema(for: target)
    return staged
  }

  package func stagingExists(for target: DatabaseTarget) throws(StagingError) -> Bool {
    try withConnection(to: target) { store in
      try Self.schemaExists(Self.stagingSchema(for: target), in: store)
    }
  }

  package func checkStagingIntact(_ target: DatabaseTarget) throws(StagingError) {
    try withConnection(to: target) { store in try Self.checkSentinel(in: Self.stagingSchema(for: target), store: store)
    }
  }

  package func discardStaging(_ target: DatabaseTarget) {
    let schema = Self.stagingSchema(for: target)
    _ = try? withConnection(to: target) { store in
      try store.execute("DROP SCHEMA IF EXISTS \(store.dialect.quote(schema)) CASCADE")
    }
  }

  package func beginStaging(_ target: DatabaseTarget, tables: [String]) throws(StagingError) {
    let stage = Self.stagingSchema(for: target)
    try withConnection(to: target) { store in
      guard !store.isCitus else {
        throw StagingError(
          .unsupported,
          "--stage is not built for Citus: the staged copies would be local tables of the coordinator; a checkpointed run (--checkpoint-every) commits chunk by chunk"
        )
      }
      try store.withTransaction {
        let schema = try Self.currentSchema(of: target, in: store)
        let quotedStage = store.dialect.quote(stage)
        try store.execute("DROP SCHEMA IF EXISTS \(quotedStage) CASCADE")
        try store.execute("CREATE SCHEMA \(quotedStage)")
        let copied = try Self.tables(in: schema, store: store).filter { tables.contains($0) || $0.hasPrefix("sluice_") }
        try Self.copyDefinitions(of: copied, from: schema, to: stage, unlogged: true, in: store)
        let order = try Self.dependencyOrder(of: copied, in: stage, store: store)
        var fingerprints: [(String, String)] = []
        for table in order {
          try Self.copyRows(of: table, from: schema, to: stage, in: store)
          fingerprints.append((table, try Self.fingerprint(of: table, in: schema, store: store)))
        }
        try Self.copyForeignKeys(of: copied, from: schema, to: stage, in: store)
        try Self.moveSequences(of: copied, in: stage, in: store)
        try store.execute(
          "CREATE TABLE \(quotedStage).\(Self.stagingMarker) (target_schema text NOT NULL, tbl text, fingerprint text)")
        let insert = try store.prepare(
          "INSERT INTO \(quotedStage).\(Self.stagingMarker) (target_schema, tbl, fingerprint) VALUES ($1, $2, $3)")
        try insert.run([.text(schema), nil, nil])
        for (table, fingerprint) in fingerprints { try insert.run([.text(schema), .text(table), .text(fingerprint)]) }
        try store.execute(
          "CREATE UNLOGGED TABLE \(quotedStage).\(Self.stagingSentinel) (present boolean NOT NULL); INSERT INTO \(quotedStage).\(Self.stagingSentinel) VALUES (true)"
        )
      }
    }
  }

  package func publishStaging(
    _ target: DatabaseTarget, tables: [String], busyTimeoutMilliseconds: Int32, beforeCommit: () -> Void
  ) throws(StagingError) {
    let stage = Self.stagingSchema(for: target)
    try withConnection(to: target, lockTimeoutMilliseconds: busyTimeoutMilliseconds) { store in
      try store.withTransaction {
        let quotedStage = store.dialect.quote(stage)
        let marker = try Self.rows(
          "SELECT target_schema, tbl, fingerprint FROM \(quotedStage).\(Self.stagingMarker)", in: store)
        guard let schema = marker.first?[0] else {
          throw StagingError(.io, "the staging schema \(stage) does not say what it was copied from")
        }
        try Self.checkSentinel(in: stage, store: store)
        let copied = marker.compactMap { row in row[1].map { ($0, row[2] ?? "") } }
        // Writers wait (readers do not) while the fingerprints are compared and the rows replaced.
        for (table, _) in copied {
          try store.execute(
            "LOCK TABLE \(store.dialect.quote(schema)).\(store.dialect.quote(table)) IN EXCLUSIVE MODE")
        }
        for (table, fingerprint) in copied
        where try Self.fingerprint(of: table, in: schema, store: store) != fingerprint {
          throw StagingError(
            .targetChanged,
            "\(table) in schema \(schema) changed while the run was staged in schema \(stage) (another process wrote to it): publishing would lose what it wrote; nothing was published (--restart stages the run again)"
          )
        }
        let replaced = try Self.tables(in: stage, store: store).filter {
          (tables.contains($0) || $0.hasPrefix("sluice_")) && $0 != Self.stagingMarker && $0 != Self.stagingSentinel
            && $0 != stagedReportTable
        }
        try store.execute("CREATE SCHEMA IF NOT EXISTS \(store.dialect.quote(schema))")
        let existing = Set(try Self.tables(in: schema, store: store))
        let made = replaced.filter { !existing.contains($0) }
        try Self.copyDefinitions(of: made, from: stage, to: schema, unlogged: false, in: store)
        let order = try Self.dependencyOrder(of: replaced, in: stage, store: store)
        // Only the rows that differ change: a row deleted and inserted again would take with it
        // the rows of tables outside the run that reference it ON DELETE CASCADE (a device's
        // alerts). Rows gone first, children before parents; then rows new or changed.
        var keys: [String: [String]] = [:]
        for table in order where existing.contains(table) {
          keys[table] = try Self.primaryKey(of: table, in: schema, store: store)
        }
        for table in order.reversed() where existing.contains(table) {
          try Self.deleteGone(from: table, key: keys[table] ?? [], in: schema, stage: stage, store: store)
        }
        for table in order {
          if let key = keys[table] {
            try Self.upsertRows(of: table, key: key, from: stage, to: schema, in: store)
          } else {
            try Self.copyRows(of: table, from: stage, to: schema, in: store)
          }
        }
        try Self.copyForeignKeys(of: made, from: stage, to: schema, in: store)
        try Self.copyIndexes(missingFrom: replaced.filter(existing.contains), from: stage, to: schema, in: store)
        try Self.moveSequences(of: replaced, in: schema, in: store)
        try store.execute("DROP SCHEMA \(quotedStage) CASCADE")
        beforeCommit()
      }
    }
  }

  // MARK: - Connections

  /// Runs `body` on a new connection to `target`'s database, its errors as staging errors.
  private func withConnection<T>(
    to target: DatabaseTarget, lockTimeoutMilliseconds: Int32 = 5_000, _ body: (PostgreSQLStore) throws -> T
  ) throws(StagingError) -> T {
    do {
      let store = try connect(
        DatabaseTarget(location: target.location, driver: self, connectTimeoutSeconds: target.connectTimeoutSeconds),
        lockTimeoutMilliseconds: lockTimeoutMilliseconds)
      return try body(store)
    } catch let error as StagingError {
      throw error
    } catch let error as StoreOpenError {
      throw StagingError(.io, error.message)
    } catch let error as PostgreSQLError where error.sqlState == "55P03" {
      throw StagingError(
        .io,
        "cannot stage or publish into \(target.description): a table is locked by another process (\(error.message))")
    } catch let error as PostgreSQLError {
      throw StagingError(.io, "cannot stage or publish into \(target.description): \(error.message)")
    } catch {
      throw StagingError(.io, "cannot stage or publish into \(target.description): \(error)")
    }
  }

  /// The schema a target's tables live in: the one it names, or the connection's current one.
  private static func currentSchema(of target: DatabaseTarget, in store: PostgreSQLStore) throws -> String {
    if let schema = target.schema { return schema }
    guard let schema = try rows("SELECT current_schema()", in: store).first?[0] else {
      throw StagingError(.io, "\(target.description) has no current schema (its search_path names none that exists)")
    }
    return schema
  }

  private static func schemaExists(_ schema: String, in store: PostgreSQLStore) throws -> Bool {
    try !rows("SELECT 1 FROM pg_namespace WHERE nspname = $1", [.text(schema)], in: store).isEmpty
  }

  /// The unlogged marker is there unless the server crashed since the staging began.
  private static func checkSentinel(in stage: String, store: PostgreSQLStore) throws {
    let quoted = store.dialect.quote(stage)
    guard try !rows("SELECT present FROM \(quoted).\(stagingSentinel)", in: store).isEmpty else {
      throw StagingError(
        .io,
        "the staged rows in schema \(stage) were lost: the server restarted after a crash, which empties unlogged tables; nothing was published (--restart stages the run again)"
      )
    }
  }

  // MARK: - Tables

  /// The ordinary and unlogged tables of `schema`, by name.
  private static func tables(in schema: String, store: PostgreSQLStore) throws -> [String] {
    try rows(
      "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY c.relname",
      [.text(schema)], in: store
    ).compactMap { $0[0] }
  }

  /// Creates each of `tables` in `destination` as it is in `source`: columns, defaults, checks,
  /// identity, comments, then its primary key and unique constraints and its other indexes under
  /// their own names (foreign keys come after the rows, `copyForeignKeys`).
  private static func copyDefinitions(
    of tables: [String], from source: String, to destination: String, unlogged: Bool, in store: PostgreSQLStore
  ) throws {
    let quote = store.dialect.quote
    for table in tables {
      try store.execute(
        "CREATE \(unlogged ? "UNLOGGED " : "")TABLE \(quote(destination)).\(quote(table)) (LIKE \(quote(source)).\(quote(table)) INCLUDING ALL EXCLUDING INDEXES)"
      )
      for (name, definition) in try constraints(of: table, in: source, types: "pu", store: store) {
        try store.execute(
          "ALTER TABLE \(quote(destination)).\(quote(table)) ADD CONSTRAINT \(quote(name)) \(definition)")
      }
    }
    try copyIndexes(missingFrom: tables, from: source, to: destination, in: store)
  }

  /// Creates the indexes (not those of constraints) `source`'s copy of each table has and
  /// `destination`'s lacks, under their names.
  private static func copyIndexes(
    missingFrom tables: [String], from source: String, to destination: String, in store: PostgreSQLStore
  ) throws {
    for table in tables {
      let indexes = try rows(
        """
        SELECT i.relname, pg_get_indexdef(x.indexrelid), format('%I.%I', $1::text, $2::text) FROM pg_index x
          JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
          JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = $1 AND t.relname = $2
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
          AND NOT EXISTS (SELECT 1 FROM pg_class d JOIN pg_namespace dn ON dn.oid = d.relnamespace
                          WHERE dn.nspname = $3 AND d.relname = i.relname)
        ORDER BY i.relname
        """, [.text(source), .text(table), .text(destination)], in: store)
      for index in indexes {
        guard let definition = index[1], let printed = index[2] else { continue }
        // `CREATE [UNIQUE] INDEX name ON schema.table USING …` (the table always qualified, as
        // `format('%I.%I')` quotes it): the same, on the other schema.
        let moved = definition.replacingOccurrences(
          of: "ON \(printed) ", with: "ON \(store.dialect.quote(destination)).\(store.dialect.quote(table)) ")
        guard moved != definition else {
          throw StagingError(.io, "cannot copy index \(index[0] ?? "") of \(table): its definition is not understood")
        }
        try store.execute(moved)
      }
    }
  }

  /// Adds to `destination`'s copies the foreign keys between `tables` that `source`'s have
  /// (pointing at `destination`'s tables), and those to tables outside `tables` as they are.
  private static func copyForeignKeys(
    of tables: [String], from source: String, to destination: String, in store: PostgreSQLStore
  ) throws {
    let quote = store.dialect.quote
    for table in tables {
      let keys = try rows(
        """
        SELECT c.conname, c.confrelid::regclass::text, rn.nspname, r.relname, pg_get_constraintdef(c.oid)
        FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
          JOIN pg_class r ON r.oid = c.confrelid JOIN pg_namespace rn ON rn.oid = r.relnamespace
        WHERE c.contype = 'f' AND n.nspname = $1 AND t.relname = $2 ORDER BY c.conname
        """, [.text(source), .text(table)], in: store)
      for key in keys {
        guard let name = key[0], let printed = key[1], let schema = key[2], let referenced = key[3],
          var definition = key[4]
        else { continue }
        if schema == source {
          // `REFERENCES table(…)` as the catalog prints it (qualified or not): the destination's.
          let target = "REFERENCES \(quote(destination)).\(quote(referenced))("
          guard let range = definition.range(of: "REFERENCES \(printed)(") else {
            throw StagingError(.io, "cannot copy foreign key \(name) of \(table): its definition is not understood")
          }
          definition.replaceSubrange(range, with: target)
        }
        try store.execute(
          "ALTER TABLE \(quote(destination)).\(quote(table)) ADD CONSTRAINT \(quote(name)) \(definition)")
      }
    }
  }

  /// The constraints of `types` (`p` primary key, `u` unique) of a table, with their definitions.
  private static func constraints(of table: String, in schema: String, types: String, store: PostgreSQLStore) throws
    -> [(String, String)]
  {
    try rows(
      """
      SELECT c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = $1 AND t.relname = $2 AND strpos($3, c.contype::text) > 0 ORDER BY c.conname
      """, [.text(schema), .text(table), .text(types)], in: store
    ).compactMap { row in row[0].flatMap { name in row[1].map { (name, $0) } } }
  }

  /// `tables` with every table after those its foreign keys reference (in `schema`).
  private static func dependencyOrder(of tables: [String], in schema: String, store: PostgreSQLStore) throws -> [String]
  {
    let edges = try rows(
      """
      SELECT t.relname, r.relname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_class r ON r.oid = c.confrelid
      WHERE c.contype = 'f' AND n.nspname = $1 AND r.relnamespace = t.relnamespace AND t.oid <> r.oid
      """, [.text(schema)], in: store)
    var parents: [String: Set<String>] = [:]
    for edge in edges {
      guard let child = edge[0], let parent = edge[1], tables.contains(parent) else { continue }
      parents[child, default: []].insert(parent)
    }
    var ordered: [String] = []
    var placed = Set<String>()
    var left = tables
    while !left.isEmpty {
      let ready = left.filter { (parents[$0] ?? []).isSubset(of: placed) }
      // A cycle of foreign keys: the rest in name order (their inserts then rely on the server).
      let next = ready.isEmpty ? left : ready
      ordered += next
      placed.formUnion(next)
      left.removeAll { placed.contains($0) }
    }
    return ordered
  }

  /// Copies every row of `table` from `source` to `destination` (identity values as they are).
  private static func copyRows(of table: String, from source: String, to destination: String, in store: PostgreSQLStore)
    throws
  {
    let quote = store.dialect.quote
    let columns = try storedColumns(of: table, in: source, store: store).map(quote).joined(separator: ", ")
    try store.execute(
      "INSERT INTO \(quote(destination)).\(quote(table)) (\(columns)) OVERRIDING SYSTEM VALUE SELECT \(columns) FROM \(quote(source)).\(quote(table))"
    )
  }

  /// The columns of `table` a row stores (not generated ones), in order.
  private static func storedColumns(of table: String, in schema: String, store: PostgreSQLStore) throws -> [String] {
    try rows(
      """
      SELECT a.attname FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = $1 AND t.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      ORDER BY a.attnum
      """, [.text(schema), .text(table)], in: store
    ).compactMap { $0[0] }
  }

  /// The primary key columns of `table` in `schema`, in key order (empty: a table without one).
  private static func primaryKey(of table: String, in schema: String, store: PostgreSQLStore) throws -> [String] {
    try rows(
      """
      SELECT a.attname FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
        CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE n.nspname = $1 AND t.relname = $2 AND x.indisprimary ORDER BY k.position
      """, [.text(schema), .text(table)], in: store
    ).compactMap { $0[0] }
  }

  /// Deletes `destination`'s rows of `table` whose key the staged copy no longer holds (every
  /// row of a table without a primary key, whose rows cannot be matched).
  private static func deleteGone(
    from table: String, key: [String], in destination: String, stage: String, store: PostgreSQLStore
  ) throws {
    let quote = store.dialect.quote
    let target = "\(quote(destination)).\(quote(table))"
    guard !key.isEmpty else { return try store.execute("DELETE FROM \(target)") }
    let matches = key.map { "s.\(quote($0)) = t.\(quote($0))" }.joined(separator: " AND ")
    try store.execute(
      "DELETE FROM \(target) AS t WHERE NOT EXISTS (SELECT 1 FROM \(quote(stage)).\(quote(table)) AS s WHERE \(matches))"
    )
  }

  /// Inserts the staged rows of `table` that `destination` lacks and updates those whose columns
  /// differ, by primary key; rows equal on both sides are not written.
  private static func upsertRows(
    of table: String, key: [String], from source: String, to destination: String, in store: PostgreSQLStore
  ) throws {
    let quote = store.dialect.quote
    let columns = try storedColumns(of: table, in: source, store: store)
    let list = columns.map(quote).joined(separator: ", ")
    var sql =
      "INSERT INTO \(quote(destination)).\(quote(table)) AS t (\(list)) OVERRIDING SYSTEM VALUE SELECT \(list) FROM \(quote(source)).\(quote(table))"
    let values = columns.filter { !key.contains($0) }
    if key.isEmpty {
      // No key to match on: the caller deleted every row; all go in again.
    } else if values.isEmpty {
      sql += " ON CONFLICT DO NOTHING"
    } else {
      let assignments = values.map { "\(quote($0)) = EXCLUDED.\(quote($0))" }.joined(separator: ", ")
      let old = values.map { "t.\(quote($0))" }.joined(separator: ", ")
      let new = values.map { "EXCLUDED.\(quote($0))" }.joined(separator: ", ")
      sql +=
        " ON CONFLICT (\(key.map(quote).joined(separator: ", "))) DO UPDATE SET \(assignments) WHERE ROW(\(old)) IS DISTINCT FROM ROW(\(new))"
    }
    try store.execute(sql)
  }

  /// Moves each identity or serial sequence of `tables` in `schema` past the column's largest
  /// value, so the rows the next run adds take new numbers.
  private static func moveSequences(of tables: [String], in schema: String, in store: PostgreSQLStore) throws {
    let quote = store.dialect.quote
    for table in tables {
      let sequenced = try rows(
        """
        SELECT a.attname, pg_get_serial_sequence(format('%I.%I', $1::text, $2::text), a.attname)
        FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = $1 AND t.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped
        """, [.text(schema), .text(table)], in: store)
      for row in sequenced {
        guard let column = row[0], let sequence = row[1] else { continue }
        _ = try rows(
          "SELECT setval($1::regclass, coalesce((SELECT max(\(quote(column))) FROM \(quote(schema)).\(quote(table))), 0) + 1, false)",
          [.text(sequence)], in: store)
      }
    }
  }

  /// The row count and a sum of the rows' hashes: what a write by another process changes.
  private static func fingerprint(of table: String, in schema: String, store: PostgreSQLStore) throws -> String {
    let quote = store.dialect.quote
    let row = try rows(
      "SELECT count(*)::text || ':' || coalesce(sum(('x' || substr(md5(t::text), 1, 15))::bit(60)::bigint), 0)::text FROM \(quote(schema)).\(quote(table)) AS t",
      in: store)
    return row.first?[0] ?? ""
  }

  /// The rows a query returns, each column as text (nil for NULL).
  private static func rows(_ sql: String, _ parameters: [DatabaseValue?] = [], in store: PostgreSQLStore) throws
    -> [[String?]]
  {
    let statement = try store.prepare(sql)
    defer { statement.reset() }
    for (index, value) in parameters.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
    var result: [[String?]] = []
    while try statement.step() {
      var row: [String?] = []
      for column in 0..<statement.columnCount {
        switch statement.columnValue(column) {
        case .text(let text)?: row.append(text)
        case .integer(let value)?: row.append(String(value))
        case .real(let value)?: row.append(String(value))
        case .blob?: row.append(nil)
        case nil: row.append(nil)
        }
      }
      result.append(row)
    }
    return result
  }
}
