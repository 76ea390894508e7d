import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `kill -9` in the middle of an import into an existing database, at several points — a plain
/// run, a snapshot (its deletes) and an incremental run (its ledger): what is left is exactly the
/// old state or exactly the new one, never a mixture, the database passes `integrity_check`, and
/// the next run succeeds. Which point each kill hits depends on the
/// machine's speed; every outcome is checked the same way, so none is a timing assertion.
@Suite("Fault injection: kill -9 mid-import", .tags(.slow))
struct KillTests {
  /// The state a database holds. Opened for writing, as the next run would open it: a run killed
  /// mid-transaction leaves a hot journal, which only a connection that may write rolls back (a
  /// read-only one fails with SQLITE_READONLY_ROLLBACK).
  private func fingerprint(_ database: String) throws -> String {
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: false, create: false))
    let statement = try connection.prepare(
      """
      SELECT (SELECT count(*) || ':' || total(length(name) + length(color)) FROM fruits) || '/' ||
             (SELECT count(*) || ':' || total(length(title)) FROM recipes) || '/' ||
             (SELECT count(*) FROM sluice_runs WHERE status = 'succeeded') || '/' ||
             (SELECT count(*) FROM sluice_inputs)
      """)
    _ = try statement.step()
    return statement.columnText(0) ?? ""
  }

  /// `PRAGMA integrity_check`'s answer; the connection is closed before it returns, so it
  /// holds no lock while the next run starts.
  private func integrity(_ database: String) throws -> String? {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(
      "PRAGMA integrity_check")
    _ = try statement.step()
    return statement.columnText(0)
  }

  /// NDJSON fruits big enough that an import takes a while: `count` fruits, 3 recipes each.
  private func makeInput(in directory: TemporaryDirectory, count: Int) throws -> String {
    var text = ""
    text.reserveCapacity(count * 400)
    for index in 0..<count {
      text += #"{"fruitID": "k\#(index)", "name": "Fruit number \#(index)", "color": "c\#(index % 7)", "recipes": ["#
      text += (0..<3).map {
        #"{"title": "Recipe \#($0) for \#(index)", "description": "Slice and serve \#($0).", "videoTutorial": "https://example.com/\#(index)/\#($0)"}"#
      }
      .joined(separator: ",")
      text += "]}\n"
    }
    return try directory.write("fruits.ndjson", text)
  }

  /// A plain run; a snapshot that deletes the 48 sample fruits the input lacks (their recipes
  /// with them); an incremental run, whose ledger row commits with its rows.
  @Test(arguments: [[], ["--snapshot", "--max-delete-rate", "1"], ["--incremental"]])
  func aKilledImportLeavesTheOldOrTheNewStateAndTheNextRunSucceeds(_ mode: [String]) throws {
    let scratch = try TemporaryDirectory()
    let input = try makeInput(in: scratch, count: 6_000)
    let template = scratch.file("template.sqlite")
    #expect(try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", template]).status == 0)
    let old = try fingerprint(template)

    // The state a complete import reaches, from a copy of the same starting point.
    let reference = scratch.file("reference.sqlite")
    try FileManager.default.copyItem(atPath: template, toPath: reference)
    // Launched, as the killed runs are: its time, start-up included, aims their kills.
    let started = Date()
    let complete = try SluiceBinary.run(
      ["run", "Pipelines/fruits.json", "--input", input, "--format", "ndjson", "--db", reference] + mode)
    #expect(complete.status == 0, "\(complete.stderr)")
    // The kills land at shares of what a complete import took here: from the start-up (a few
    // ms) through the load to the commit, and one after it, on a fast machine or a slow one.
    let duration = Date().timeIntervalSince(started)
    let new = try fingerprint(reference)
    #expect(new != old)

    var killedEarly = 0
    for (attempt, share) in [0.01, 0.1, 0.3, 0.6, 0.9, 1.3].enumerated() {
      let delay = max(share * duration, 0.005)
      let database = scratch.file("killed-\(attempt).sqlite")
      try FileManager.default.copyItem(atPath: template, toPath: database)
      let process = try SluiceBinary.start(
        ["run", "Pipelines/fruits.json", "--input", input, "--format", "ndjson", "--db", database] + mode)
      usleep(useconds_t(delay * 1_000_000))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let killed = process.terminationReason == .uncaughtSignal
      if killed && share <= 0.6 { killedEarly += 1 }

      let state = try fingerprint(database)  // opening it rolls back a hot journal
      #expect(state == old || state == new, "kill after \(delay) s left a mixed state: \(state)")
      // A run the kill came too late for finished: it exited 0 and committed everything.
      if killed {
        #expect(process.terminationStatus == SIGKILL)
      } else {
        #expect(process.terminationStatus == 0, "an unkilled run after \(delay) s exited \(process.terminationStatus)")
        #expect(state == new, "a run that finished after \(delay) s left the old state")
      }
      #expect(try integrity(database) == "ok")

      let rerun = try SluiceCommand.run(
        ["run", "Pipelines/fruits.json", "--input", input, "--format", "ndjson", "--db", database] + mode)
      #expect(rerun.status == 0, "\(rerun.stderr)")
      let after = try fingerprint(database)
      // The re-run adds its own audit row; the data equals a complete import's.
      #expect(after.split(separator: "/").prefix(2) == new.split(separator: "/").prefix(2))
    }
    // The kills before the import's usual end did interrupt it (one may miss on a busy host).
    #expect(killedEarly >= 3, "only \(killedEarly) of the 4 early kills interrupted the import")
  }
}
