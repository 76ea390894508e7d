import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A database that does not exist yet, and another process that opens it meanwhile: SQLite
/// creates the file when it opens it and then waits for the lock. Neither a plan nor a staged
/// first load may then remove or replace that file — the other process would write into a file
/// no longer at the path (SQLite's "disk I/O error", or rows lost).
@Suite("First loads: a file another process opened is never removed or replaced")
struct FirstLoadRaceTests {
  let tests: CheckpointCommandTests

  init() throws { tests = try CheckpointCommandTests() }

  var scratch: TemporaryDirectory { tests.scratch }

  final class Seen: Sendable {
    let existed = Mutex<[Bool]>([])
  }

  /// A plan of a first load plans against an empty database of its own: the target's path never
  /// holds a file while it runs, so a run that opens it meanwhile makes it and keeps it.
  @Test func aPlanOfAFirstLoadNeverMakesAFileAtTheTargetsPath() throws {
    let input = try tests.input(count: 600)
    let database = scratch.file("new.sqlite")
    var configuration = PipelineConfiguration(
      name: "orders", input: input, format: .ndjson, policy: .lenient,
      database: try StoreDrivers.all.target(for: database))
    configuration.mode = .plan
    configuration.progressInterval = 0
    let seen = Seen()
    configuration.progress = { _ in
      let exists = FileManager.default.fileExists(atPath: database)
      seen.existed.withLock { $0.append(exists) }
    }
    let report = try Pipeline(dataset: OrdersDataset(), configuration: configuration).run()
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    let plan = try #require(report.plan)
    #expect(plan.tables.first { $0.table == "orders" }?.inserts == 598)
    let existed = seen.existed.withLock { $0 }
    #expect(!existed.isEmpty)
    #expect(!existed.contains(true), "the plan made a file at the target's path while it ran")
    #expect(!FileManager.default.fileExists(atPath: database))
    // And nothing of it is left in the temporary folder.
    let left = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
      $0.hasPrefix("sluice-plan-")
    }
    for folder in left {
      // Another test's plan may be running; this one's is gone once it returned.
      #expect(!FileManager.default.fileExists(atPath: NSTemporaryDirectory() + "/" + folder + "/plan.sqlite-journal"))
    }
  }

  /// A staged first load killed just before its publication; meanwhile another process opened
  /// the target (an empty file, as SQLite leaves it before its first commit). The resume refuses
  /// to replace it — the file stays as it is, the side database too — and `--restart` stages the
  /// run again over it.
  @Test func aStagedFirstLoadNeverReplacesAFileAnotherProcessOpenedMeanwhile() throws {
    _ = try tests.input(count: 600)
    let spec = try tests.spec()
    let database = scratch.file("orders.sqlite")
    let killed = try SluiceBinary.run(["run", spec, "--stage", "--test-kill-at", "publish"])
    #expect(killed.status == SIGKILL, "\(killed.stderr)")
    #expect(!FileManager.default.fileExists(atPath: database))
    #expect(FileManager.default.fileExists(atPath: database + ".sluice-stage"))
    // Another process opens the new database and waits for its lock: SQLite has made the file.
    #expect(FileManager.default.createFile(atPath: database, contents: nil))
    var before = stat()
    #expect(stat(database, &before) == 0)

    let resumed = try SluiceCommand.run(["run", spec, "--stage", "--resume"])
    #expect(resumed.status == 65, "\(resumed.stderr)")
    #expect(resumed.stderr.contains("was created by another process while the run was staged"), "\(resumed.stderr)")
    var after = stat()
    #expect(stat(database, &after) == 0)
    #expect(after.st_ino == before.st_ino && after.st_size == 0, "the other process's file was replaced")
    #expect(FileManager.default.fileExists(atPath: database + ".sluice-stage"))

    let restarted = try SluiceCommand.run(["run", spec, "--stage", "--restart"])
    #expect(restarted.status == 0, "\(restarted.stderr)")
    #expect(
      try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt("SELECT count(*) FROM orders")
        == 598)
    #expect(!FileManager.default.fileExists(atPath: database + ".sluice-stage"))
  }

  /// Killed between making the side database the target and removing its other name: the
  /// resume sees one file under both names and finishes, rather than refuse its own target.
  @Test func aStagedFirstLoadKilledAfterItsLinkFinishesOnResume() throws {
    _ = try tests.input(count: 600)
    let spec = try tests.spec()
    let database = scratch.file("orders.sqlite")
    let killed = try SluiceBinary.run(["run", spec, "--stage", "--test-kill-at", "publish"])
    #expect(killed.status == SIGKILL, "\(killed.stderr)")
    #expect(link(database + ".sluice-stage", database) == 0)
    let resumed = try SluiceCommand.run(["run", spec, "--stage", "--resume"])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(
      try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt("SELECT count(*) FROM orders")
        == 598)
    #expect(!FileManager.default.fileExists(atPath: database + ".sluice-stage"))
  }
}
