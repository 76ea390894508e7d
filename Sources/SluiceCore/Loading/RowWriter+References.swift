extension RowWriter {
  // References, a batch at a time: the keys a batch's records name that no cache knows are
  // looked up in a few queries before the batch is written; each record's references are
  // then resolved from the caches.

  /// Starts a batch: forgets which keys the previous batch found missing.
  func beginBatch() {
    for plan in plans where plan.isTracked { plan.missing.removeAll(keepingCapacity: true) }
  }

  /// Forgets the rows the shared-row cache remembers writing: another writer (a bulk one) wrote
  /// rows of the same tables since.
  func forgetRows() {
    for plan in plans where !plan.rowCache.isEmpty { plan.rowCache.removeAll() }
  }

  /// Notes the keys `rows` references (and the keys its patches update) that neither the record
  /// itself nor a cache resolves.
  func want(_ rows: RecordRows) throws {
    for open in rows.openReferences {
      guard let key = rows.value(Int(open.entry), Int(open.column)) else { continue }
      let target = plans[planIndex(serial: open.target)]
      if open.isPatchKey { try target.stagesPatches(store: store, sql: sql) }
      if target.known.contains(key) { continue }
      // A patch names its own row: it must exist, like a referenced one.
      if open.isPatchKey { try target.tracksKeys(store: store, sql: sql) }
      target.wanted.insert(key)
    }
  }

  /// Looks up the wanted keys, `lookupChunk` at a time, and remembers those that exist.
  func fetchWanted() throws {
    for plan in plans where !plan.wanted.isEmpty {
      let keys = Array(plan.wanted)
      plan.missing = plan.wanted
      plan.wanted.removeAll(keepingCapacity: true)
      guard let lookup = plan.lookup else { continue }
      let counts = try Self.lookUp(keys, with: lookup) { key in
        plan.known.insert(key)
        plan.missing.remove(key)
      }
      if counts.keys > 0 { lookups[plan.table.name, default: .init()].add(counts) }
    }
  }

  /// Runs `lookup` (`TableSQL.existingKeys`, `lookupChunk` parameters) over `keys`, a chunk at a
  /// time, and hands every key it finds to `found`; returns the keys looked up and the queries.
  ///
  /// A key the store cannot even bind (PostgreSQL: text with a NUL character) names no row it
  /// holds: it is not looked up, so it stays missing and its reference is an orphan, not the
  /// run's error. A short chunk repeats its last key: one prepared statement serves every chunk.
  static func lookUp(
    _ keys: [DatabaseValue], with lookup: any StoreStatement, found: (DatabaseValue) -> Void
  ) throws -> RunReport.ReferenceLookups {
    let bindable = keys.filter { key in
      do {
        try lookup.bind(key, at: 1)
        return true
      } catch let error as any StoreError {
        if case .constraint = error.failure { return false }
        return true
      } catch {
        return true
      }
    }
    for start in stride(from: 0, to: bindable.count, by: lookupChunk) {
      let chunk = bindable[start..<min(start + lookupChunk, bindable.count)]
      for parameter in 0..<lookupChunk {
        try lookup.bind(chunk[min(chunk.startIndex + parameter, chunk.endIndex - 1)], at: Int32(parameter + 1))
      }
      defer { lookup.reset() }
      while try lookup.step() {
        if let key = lookup.columnValue(0) { found(key) }
      }
    }
    return RunReport.ReferenceLookups(
      keys: bindable.count, queries: (bindable.count + lookupChunk - 1) / lookupChunk)
  }

  func resolveReferences(_ rows: inout RecordRows, at location: RecordLocation?, warnings: inout [Issue]) throws {
    for open in rows.openReferences {
      let entry = Int(open.entry)
      guard let key = rows.value(entry, Int(open.column)) else { continue }
      let target = plans[planIndex(serial: open.target)]
      if target.known.contains(key) { continue }
      let table = plans[planIndex(of: entry, rows)].table
      let path = rows.path(entry, column: table.inheritedCount + Int(open.column), in: table)
      if open.isPatchKey {
        throw Rejection(issues: [
          Issue(
            stage: .load, code: .orphanReference, location: location, path: path,
            message: "the patch names a row of \(table.name) that does not exist")
        ])
      }
      switch open.orphans {
      case .reject:
        throw Rejection(issues: [
          Issue(
            stage: .load, code: .orphanReference, location: location, path: path,
            message: "names a row of \(target.table.name) that does not exist")
        ])
      case .setNull:
        rows.values[Int(rows.entries[entry].start) + Int(open.column)] = nil
        warnings.append(
          Issue(
            stage: .load, severity: .warning, code: .orphanReference, location: location, path: path,
            message: "names a row of \(target.table.name) that does not exist; stored as NULL"))
      }
    }
  }

  /// Writes one row by its table's conflict policy; returns true when it kept an existing row.
}
