import Foundation
@_spi(Internals) import SluiceCore

#if canImport(Glibc)
  import Glibc
#endif

/// Staged runs into a SQLite file (`--stage`): the side database is `DB.sluice-stage`, beside the
/// target — a copy of it made with `VACUUM INTO` (consistent, streamed, compacted), or a new file
/// when there is no target yet. Publishing replaces the run's tables and the audit tables of the
/// target by the side database's in one transaction through `ATTACH` — only the rows that differ
/// are deleted, inserted or updated, so no row of another table cascades away —, after checking under the
/// write lock that no other process wrote to the target since the copy (SQLite's file change
/// counter, header bytes 24–27); a target that did not exist gets the side database by an atomic
/// rename.
///
/// A target in WAL mode is refused: its change counter does not move with each commit.
extension SQLiteDriver: StagingDriver {
  /// What the side database remembers of the target it was copied from.
  static let stagingTable = "sluice_stage"

  package func stagingTarget(for target: DatabaseTarget) -> DatabaseTarget {
    DatabaseTarget(location: target.location + ".sluice-stage", driver: self)
  }

  package func stagingExists(for target: DatabaseTarget) throws(StagingError) -> Bool {
    FileManager.default.fileExists(atPath: stagingTarget(for: target).location)
  }

  package func discardStaging(_ target: DatabaseTarget) {
    let path = stagingTarget(for: target).location
    for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
  }

  /// Copies the whole target (`tables` name only the run's share of it).
  package func beginStaging(_ target: DatabaseTarget, tables: [String]) throws(StagingError) {
    let path = target.location
    let final = stagingTarget(for: target).location
    // Made under another name and renamed when complete: a side database is never half a copy.
    let stage = final + ".new"
    do {
      for suffix in ["", "-journal"] { unlink(stage + suffix) }
      var counter: Int64 = -1
      if Self.isDatabase(path) {
        let source = try SQLiteConnection(path: path, options: .init(readOnly: true, create: false))
        let mode = try source.prepare("PRAGMA journal_mode")
        let journal = try mode.step() ? mode.columnText(0) : nil
        mode.reset()
        guard journal != "wal" else {
          throw StagingError(
            .unsupported,
            "--stage cannot watch \(path) for other writers: it is in WAL mode, whose change counter does not move with each commit; run without --stage, or switch the database to journal_mode=DELETE"
          )
        }
        // VACUUM INTO copies one consistent state; the counter read before and after it is that
        // state's when no commit came between (else the copy is made again).
        for attempt in 1...3 {
          let before = try Self.changeCounter(path)
          unlink(stage)
          try source.prepare("VACUUM INTO ?1").run([.text(stage)])
          if try Self.changeCounter(path) == before {
            counter = before
            break
          }
          if attempt == 3 {
            throw StagingError(.io, "\(path) kept changing while it was copied to \(stage); nothing was staged")
          }
        }
      }
      if counter < 0 && Self.isEmptyFile(path) {
        // An empty file: a database another process opened and has not written yet. The run is
        // published into it, under its write lock, as into any database (never by replacing the
        // file); a write by that process meanwhile moves its counter from 0.
        counter = 0
      }
      let connection = try SQLiteConnection(path: stage, options: .init())
      try connection.execute(
        "CREATE TABLE IF NOT EXISTS \(Self.stagingTable) (target_counter INTEGER NOT NULL, target_existed INTEGER NOT NULL)"
      )
      try connection.execute("DELETE FROM \(Self.stagingTable)")  // One left by a kill in a rename.
      try connection.prepare("INSERT INTO \(Self.stagingTable) VALUES (?1, ?2)").run([
        .integer(counter), .integer(counter >= 0 ? 1 : 0),
      ])
      guard rename(stage, final) == 0 else {
        throw StagingError(.io, "cannot rename \(stage) to \(final): \(String(cString: strerror(errno)))")
      }
    } catch let error as StagingError {
      for suffix in ["", "-journal"] { unlink(stage + suffix) }
      throw error
    } catch {
      for suffix in ["", "-journal"] { unlink(stage + suffix) }
      throw StagingError(.io, "cannot stage \(path) in \(final): \(error)")
    }
  }

  package func publishStaging(
    _ target: DatabaseTarget, tables: [String], busyTimeoutMilliseconds: Int32, beforeCommit: () -> Void
  ) throws(StagingError) {
    let path = target.location
    let stage = stagingTarget(for: target).location
    do {
      let side = try SQLiteConnection(path: stage, options: .init(create: false))
      let statement = try side.prepare("SELECT target_counter, target_existed FROM \(Self.stagingTable)")
      guard try statement.step() else { throw StagingError(.io, "\(stage) does not say what it was copied from") }
      let counter = statement.columnInt64(0)
      let existed = statement.columnInt64(1) == 1
      statement.reset()
      if !existed {
        // Nothing to merge into: the side database becomes the target, whole, at once — by a
        // link, which fails where any file is at the path, rather than a rename, which would
        // replace it: a file there, even an empty one, is another process's (SQLite creates the
        // file when it opens it), which may be waiting for its lock and would then write into
        // a file no longer at the path.
        let created =
          "\(path) was created by another process while the run was staged in \(stage) (it may be writing to it now): publishing would replace it; nothing was published (--restart stages the run again over it)"
        // Killed between the link and the unlink: the target is the side database already.
        let published = Self.isSameFile(stage, path)
        guard published || !Self.isDatabase(path) else { throw StagingError(.targetChanged, created) }
        if !published { beforeCommit() }
        if published || link(stage, path) == 0 {
          unlink(stage)
        } else if errno == EEXIST {
          throw StagingError(.targetChanged, created)
        } else if rename(stage, path) != 0 {
          // A file system without hard links: the rename, after the check above.
          throw StagingError(.io, "cannot rename \(stage) to \(path): \(String(cString: strerror(errno)))")
        }
        unlink(stage + "-journal")
        // The staging's own tables go once it is the target (before, a kill would leave a side
        // database that no longer says what it is); left by a kill here, they are harmless.
        try SQLiteConnection(
          path: path, options: .init(create: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        ).execute("DROP TABLE IF EXISTS \(Self.stagingTable); DROP TABLE IF EXISTS \(stagedReportTable)")
        return
      }
      let connection = try SQLiteConnection(
        path: path, options: .init(create: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds))
      try connection.execute("ATTACH DATABASE ?1 AS stage".replacingOccurrences(of: "?1", with: Self.literal(stage)))
      try connection.withTransaction(.immediate) {
        guard try Self.changeCounter(path) == counter else {
          // A publication that committed just before a crash, the side database still there:
          // the target holds this staged run's audit row already.
          if (try? Self.holdsStagedRun(connection)) == true { throw AlreadyPublished() }
          throw StagingError(
            .targetChanged,
            "\(path) changed while the run was staged in \(stage) (another process wrote to it): publishing would lose what it wrote; nothing was published (--restart stages the run again)"
          )
        }
        try connection.execute("PRAGMA defer_foreign_keys = ON")
        // The side database's tables in the order they were created: parents before children.
        let query = try connection.prepare(
          "SELECT name, sql FROM stage.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
        var created: [(name: String, sql: String)] = []
        while try query.step() {
          created.append((query.columnText(0) ?? "", query.columnText(1) ?? ""))
        }
        query.reset()
        let replaced = created.filter { table in
          (tables.contains(table.name) || table.name.hasPrefix("sluice_"))
            && table.name != Self.stagingTable && table.name != stagedReportTable
        }
        for table in replaced where try !Self.exists(table.name, type: "table", in: connection) {
          try connection.execute(table.sql)
        }
        // Only the rows that differ change: a row deleted and inserted again would take with it
        // the rows of other datasets' tables that reference it ON DELETE CASCADE (a device's
        // alerts), which the run never touched. Rows gone first, children before parents (their
        // cascades are the run's own: the side database is the target as it was, plus the
        // run), then rows new or changed, parents before children.
        let keys = try replaced.map { try Self.primaryKey(of: $0.name, in: connection) }
        for (table, key) in zip(replaced, keys).reversed() {
          try connection.execute(Self.deleteGone(from: table.name, key: key))
        }
        for (table, key) in zip(replaced, keys) {
          let columns = try Self.columns(of: table.name, schema: "stage", in: connection)
          try connection.execute(Self.upsert(into: table.name, columns: columns, key: key))
        }
        // Indexes the run created (a first load's deferred ones) that the target lacks.
        let indexes = try connection.prepare(
          "SELECT name, sql FROM stage.sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY rowid")
        var missing: [String] = []
        while try indexes.step() {
          let name = indexes.columnText(0) ?? ""
          if try !Self.exists(name, type: "index", in: connection), let sql = indexes.columnText(1) {
            missing.append(sql)
          }
        }
        indexes.reset()
        for sql in missing { try connection.execute(sql) }
        beforeCommit()
      }
      try connection.execute("DETACH DATABASE stage")
      discardStaging(target)
    } catch is AlreadyPublished {
      discardStaging(target)
    } catch let error as StagingError {
      throw error
    } catch let error as SQLiteError where error.failure == .busy {
      throw StagingError(.io, "cannot publish into \(path): it is locked by another process (\(error.message))")
    } catch {
      throw StagingError(.io, "cannot publish \(stage) into \(path): \(error)")
    }
  }

  private struct AlreadyPublished: Error {}

  /// Whether the target's audit holds the staged run's own row (its newest, succeeded).
  private static func holdsStagedRun(_ connection: SQLiteConnection) throws -> Bool {
    let statement = try connection.prepare(
      """
      SELECT count(*) FROM main.sluice_runs m JOIN stage.sluice_runs s
        ON m.run_id = s.run_id AND m.started_at = s.started_at AND m.pipeline = s.pipeline
      WHERE s.run_id = (SELECT max(run_id) FROM stage.sluice_runs) AND s.status = 'succeeded'
      """)
    defer { statement.reset() }
    return try statement.step() && statement.columnInt64(0) == 1
  }

  /// Whether `path` is an empty regular file.
  private static func isEmptyFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size == 0
  }

  /// Whether both paths name one file (hard links of one inode).
  private static func isSameFile(_ one: String, _ other: String) -> Bool {
    var first = stat()
    var second = stat()
    return stat(one, &first) == 0 && stat(other, &second) == 0 && first.st_dev == second.st_dev
      && first.st_ino == second.st_ino
  }

  /// Whether `path` is a SQLite database with at least one page.
  private static func isDatabase(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size > 0
  }

  /// SQLite's file change counter (header bytes 24–27), which every commit in rollback-journal
  /// mode increments.
  private static func changeCounter(_ path: String) throws -> Int64 {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw StagingError(.io, "cannot read \(path)")
    }
    defer { try? handle.close() }
    let header = try handle.read(upToCount: 28) ?? Data()
    if header.isEmpty { return 0 }  // An empty database: nothing committed yet.
    guard header.count == 28 else {
      throw StagingError(.io, "\(path) is too short to be a SQLite database")
    }
    return header[24..<28].reduce(0) { $0 << 8 | Int64($1) }
  }

  /// The target's primary key columns of `table`, in key order (empty: a table without one).
  private static func primaryKey(of table: String, in connection: SQLiteConnection) throws -> [String] {
    let statement = try connection.prepare("SELECT name FROM pragma_table_info(?1, 'main') WHERE pk > 0 ORDER BY pk")
    try statement.bind([.text(table)])
    var names: [String] = []
    while try statement.step() { names.append(statement.columnText(0) ?? "") }
    statement.reset()
    return names
  }

  /// Deletes the target's rows of `table` whose key the side database no longer holds; every
  /// row of a table without a key (no other table can reference one by its primary key, and
  /// `VACUUM INTO` may renumber its rowids, so its rows cannot be matched).
  static func deleteGone(from table: String, key: [String]) -> String {
    let name = quote(table)
    guard !key.isEmpty else { return "DELETE FROM main.\(name)" }
    let matches = key.map { "s.\(quote($0)) = t.\(quote($0))" }.joined(separator: " AND ")
    return "DELETE FROM main.\(name) AS t WHERE NOT EXISTS (SELECT 1 FROM stage.\(name) AS s WHERE \(matches))"
  }

  /// Inserts the side database's rows of `table` the target lacks and updates those whose
  /// columns differ, by key; rows equal on both sides are not written.
  static func upsert(into table: String, columns: [String], key: [String]) -> String {
    let name = quote(table)
    let list = columns.map(quote).joined(separator: ", ")
    // `WHERE true` keeps SQLite from reading ON CONFLICT as the SELECT's join constraint.
    let insert = "INSERT INTO main.\(name) AS t (\(list)) SELECT \(list) FROM stage.\(name) WHERE true"
    let values = columns.filter { !key.contains($0) }
    guard !key.isEmpty else { return insert }
    guard !values.isEmpty else { return insert + " ON CONFLICT DO NOTHING" }
    let keys = key.map(quote).joined(separator: ", ")
    let assignments = values.map { "\(quote($0)) = excluded.\(quote($0))" }.joined(separator: ", ")
    let differs = values.map { "t.\(quote($0)) IS NOT excluded.\(quote($0))" }.joined(separator: " OR ")
    return insert + " ON CONFLICT (\(keys)) DO UPDATE SET \(assignments) WHERE \(differs)"
  }

  private static func columns(of table: String, schema: String, in connection: SQLiteConnection) throws -> [String] {
    let statement = try connection.prepare("SELECT name FROM pragma_table_info(?1, ?2)")
    try statement.bind([.text(table), .text(schema)])
    var names: [String] = []
    while try statement.step() { names.append(statement.columnText(0) ?? "") }
    statement.reset()
    return names
  }

  /// Whether the target itself (not the attached side database) has a table or index `name`.
  private static func exists(_ name: String, type: String, in connection: SQLiteConnection) throws -> Bool {
    let statement = try connection.prepare("SELECT 1 FROM main.sqlite_schema WHERE type = ?1 AND name = ?2")
    defer { statement.reset() }
    try statement.bind([.text(type), .text(name)])
    return try statement.step()
  }

  /// A name as the dialect quotes it (the one identifier quoting of the driver).
  private static func quote(_ name: String) -> String { SQLiteDialect().quote(name) }

  private static func literal(_ text: String) -> String { SQLiteDialect().literal(text) }
}
