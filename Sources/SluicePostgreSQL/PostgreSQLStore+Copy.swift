internal import CLibPQ
import Foundation
@_spi(Internals) import SluiceCore

/// `COPY … FROM STDIN` and the small queries of the bulk writer.
extension PostgreSQLStore: BulkLoadingStore {
  /// Nil when the store's options keep every batch on the row writer (`usesBulkWriter`).
  package func makeBulkWriter(schema: Schema, conflict: ConflictPolicy) throws -> (any BulkWriter)? {
    guard options.usesBulkWriter else { return nil }
    return try PostgreSQLBulkWriter(store: self, schema: schema, conflict: conflict)
  }

  /// Runs `sql`, a `COPY … FROM STDIN`, sending `data` (in the COPY's format) as its input.
  func copy(_ sql: String, data: [UInt8]) throws {
    let start = PQexec(connection, sql)
    guard let start else { throw connectionError(sql: sql) }
    guard PQresultStatus(start) == PGRES_COPY_IN else {
      defer { PQclear(start) }
      try check(start, sql: sql)
      throw PostgreSQLError(sqlState: "08P01", message: "the server did not start the COPY", server: server, sql: sql)
    }
    PQclear(start)
    let chunk = 1 << 18
    let sent = data.withUnsafeBufferPointer { buffer -> Bool in
      guard let base = buffer.baseAddress else { return true }
      var offset = 0
      while offset < buffer.count {
        let count = min(chunk, buffer.count - offset)
        // "The result is 1 if the data was queued, zero if it was not queued because of full
        // buffers (this will only happen in nonblocking mode), or -1 if an error occurred."
        let queued = UnsafeRawPointer(base + offset).withMemoryRebound(to: CChar.self, capacity: count) {
          PQputCopyData(connection, $0, Int32(count))
        }
        if queued != 1 { return false }
        offset += count
      }
      return true
    }
    guard PQputCopyEnd(connection, sent ? nil : "sluice could not send the rows") == 1 else {
      throw connectionError(sql: sql)
    }
    // "After successfully calling PQputCopyEnd, call PQgetResult to obtain the final result
    // status of the COPY command." — and on until it returns NULL.
    var failure: (any Error)?
    while let result = PQgetResult(connection) {
      defer { PQclear(result) }
      if failure == nil {
        do { try check(result, sql: sql) } catch { failure = error }
      }
    }
    if let failure { throw failure }
    if !sent { throw connectionError(sql: sql) }
  }

  /// What one statement of `runEach` answered: rows changed, and its rows when all integers.
  struct StatementResult {
    var changes: Int
    var rows: [[Int64]]
  }

  /// Runs several statements in one round trip and returns each one's result; throws the first
  /// error (the statements after it did not run).
  func runEach(_ statements: [String]) throws -> [StatementResult] {
    let sql = statements.joined(separator: ";\n")
    guard PQsendQuery(connection, sql) == 1 else { throw connectionError(sql: sql) }
    var results: [StatementResult] = []
    var failure: (any Error)?
    // "PQgetResult must be called repeatedly until it returns a null pointer, indicating that
    // the command is done."
    while let result = PQgetResult(connection) {
      defer { PQclear(result) }
      guard failure == nil else { continue }
      do {
        try check(result, sql: statements.indices.contains(results.count) ? statements[results.count] : sql)
        results.append(StatementResult(changes: Self.changes(of: result), rows: Self.integerRows(of: result)))
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
    return results
  }

  static func integerRows(of result: OpaquePointer) -> [[Int64]] {
    let columns = PQnfields(result)
    return (0..<PQntuples(result)).map { row in
      (0..<columns).map { column in
        guard PQgetisnull(result, row, column) == 0, let text = PQgetvalue(result, row, column) else { return 0 }
        return Int64(String(cString: text)) ?? 0
      }
    }
  }
}
