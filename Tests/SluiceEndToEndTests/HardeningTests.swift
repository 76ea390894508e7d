import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The findings of issue 8 (“Hardening”), each through the command line: what a hostile user or a
/// broken machine did to Sluice, and what it must do instead.
@Suite("Hardening: the edges a nightly job lives on")
struct HardeningTests {
  private func rows(_ database: String, _ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var result: [String] = []
    while try statement.step() { result.append(statement.columnText(0) ?? "NULL") }
    return result
  }

  private func fruitsFingerprint(_ database: String) throws -> [String] {
    try rows(
      database,
      """
      SELECT count(*) || '|' || group_concat(fruit_id || name || color, ',') FROM (SELECT * FROM fruits ORDER BY fruit_id)
      UNION ALL SELECT count(*) || '|' || group_concat(fruit_id || position || title, ',')
        FROM (SELECT * FROM recipes ORDER BY fruit_id, position)
      """)
  }

  /// A device that refuses every write with ENOSPC: a private copy of `/dev/full` made with
  /// `mknod` (as root), so that a regression that replaces its target instead of writing into it
  /// can only ever replace this copy; `/dev/full` itself otherwise (without root, a regression
  /// cannot replace anything in /dev).
  private func fullDevice(in scratch: TemporaryDirectory) -> String {
    // 0x107 is makedev(1, 7), the Linux device number of /dev/full (a macro Swift cannot call).
    let path = scratch.file("full")
    return mknod(path, S_IFCHR | 0o666, 0x107) == 0 ? path : "/dev/full"
  }

  private static let order =
    #"{"orderId":"0000000001","amount":4000269,"currency":"EUR","status":"pending","createdAt":"2023-01-01T00:00:03.922Z","customer":{"id":319,"name":"Aiko Lima"},"items":[{"sku":"SKU-97227","qty":6,"priceMinor":416960}]}"#

  // MARK: Finding 1 — dates outside years 1…9999

  @Test(arguments: ["0000-01-01T00:00:00+01:00", "9999-12-31T23:30:00-01:00", "0000-06-01T00:00:00Z"])
  func aDateOutsideYearsOneToNineThousandIsOutOfRangeNotACrash(_ date: String) throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write(
      "orders.ndjson", Self.order.replacingOccurrences(of: "2023-01-01T00:00:03.922Z", with: date) + "\n")
    let database = scratch.file("orders.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--input", input, "--format", "ndjson", "--db", database,
      "--report", scratch.file("report.json"),
    ])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("createdAt: outOfRange: the date is outside years 1…9999 (UTC)"))
    #expect(try rows(database, "SELECT status FROM sluice_runs") == ["failed"])
    #expect(!FileManager.default.fileExists(atPath: database + "-journal"))
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("report.json"))))
    #expect(report.issues.first?.path == "createdAt")
  }

  @Test func theFirstAndLastInstantsOfTheRangeLoad() throws {
    let scratch = try TemporaryDirectory()
    let first = Self.order.replacingOccurrences(of: "2023-01-01T00:00:03.922Z", with: "0001-01-01T00:00:00Z")
    let last = Self.order.replacingOccurrences(of: "2023-01-01T00:00:03.922Z", with: "9999-12-31T23:59:59.999Z")
      .replacingOccurrences(of: "0000000001", with: "0000000002")
    let input = try scratch.write("orders.ndjson", first + "\n" + last + "\n")
    let database = scratch.file("orders.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--input", input, "--format", "ndjson", "--db", database,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      try rows(database, "SELECT created_at FROM orders ORDER BY order_id")
        == ["0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"])
  }

  // MARK: Finding 2 and 10 — closed or full standard streams

  @Test(arguments: ["2>&-", "2>/dev/full"])  // a redirection opens /dev/full, never replaces it
  func aClosedOrFullStderrChangesNothing(_ redirect: String) throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let report = scratch.file("report.json")
    let result = try SluiceBinary.shell(
      #""$SLUICE" run Pipelines/fruits-lenient.json --db "\#(database)" --report "\#(report)" \#(redirect)"#)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("fruits: 25 rows"))
    #expect(try rows(database, "SELECT count(*) FROM fruits") == ["25"])
    let written = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    #expect(written.status == .succeeded)
  }

  @Test func aClosedStdoutPipeIsReportedAndTheCommitStands() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    // `true` exits at once, so the summary lines hit a pipe without a reader: SIGPIPE (141)
    // before; now the write error is reported and the exit code says the data was committed.
    let result = try SluiceBinary.shell(
      #"set -o pipefail; sleep 0 | { "$SLUICE" run Pipelines/fruits.json --db "\#(database)"; echo "status $?" >&2; } | true"#
    )
    #expect(result.stderr.contains("status 75"), "\(result.stderr)")
    #expect(result.stderr.contains("cannot write to standard output: Broken pipe"))
    #expect(result.stderr.contains("the data was committed"))
    #expect(try rows(database, "SELECT count(*) FROM fruits") == ["48"])
    #expect(try rows(database, "SELECT status FROM sluice_runs") == ["succeeded"])
  }

  // MARK: Finding 3 — the rejects file on every exit path

  @Test func validateWithErrorsWritesEveryRejectedRecord() throws {
    let scratch = try TemporaryDirectory()
    let rejects = scratch.file("rejects.ndjson")
    let result = try SluiceCommand.run(["validate", "Pipelines/fruits-lenient.json", "--rejects", rejects])
    #expect(result.status == 65)
    let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 5)
    #expect(result.stderr.contains("5 rejected record(s) written to \(rejects)"))
  }

  @Test func aStrictFailureWritesTheRecordThatFailedIt() throws {
    let scratch = try TemporaryDirectory()
    let rejects = scratch.file("rejects.ndjson")
    let database = scratch.file("fruits.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", "SampleData/fruits-broken.ndjson.gz", "--format", "ndjson",
      "--db", database, "--rejects", rejects,
    ])
    #expect(result.status == 65)
    let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.contains(#""ordinal":5"#) == true)
    #expect(result.stderr.contains("1 rejected record(s) written to \(rejects)"))
  }

  @Test func aBlownBudgetWritesEveryRecordItRejected() throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write(
      "spec.json",
      """
      {"dataset": "fruits", "input": "\(Repository.path("SampleData/fruits-broken.ndjson.gz"))", "format": "ndjson",
       "policy": {"preset": "lenient", "maxRejects": 2}, "database": "fruits.sqlite", "rejects": "rejects.ndjson"}
      """)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 65)
    #expect(result.stderr.contains("error budget exceeded"))
    let lines = try String(contentsOfFile: scratch.file("rejects.ndjson"), encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 3)
    #expect(result.stderr.contains("3 rejected record(s) written"))
  }

  // MARK: Finding 4 — outputs that fail, before and after the commit

  @Test func rejectsThatCannotBeWrittenRollTheRunBack() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let first = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database])
    #expect(first.status == 0)
    let before = try fruitsFingerprint(database)
    // /dev/full is a device: written in place, and every write fails with ENOSPC. The rejects
    // are flushed before the commit, so the failure rolls the run back.
    let full = fullDevice(in: scratch)
    let result = try SluiceCommand.run(["run", "Pipelines/fruits-lenient.json", "--db", database, "--rejects", full])
    #expect(result.status == 74, "\(result.stderr)")
    #expect(result.stderr.contains("cannot write the rejects file \(full): no space left on device"))
    #expect(!result.stderr.contains("NSCocoaErrorDomain"))
    #expect(!result.stderr.contains("rejected record(s) written"), "a lost rejects file is never claimed as written")
    #expect(try fruitsFingerprint(database) == before)
    #expect(try rows(database, "SELECT status FROM sluice_runs ORDER BY run_id") == ["succeeded", "failed"])
  }

  @Test func aReportLostAfterTheCommitSaysTheDataWasCommitted() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let full = fullDevice(in: scratch)
    let result = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database, "--report", full])
    #expect(result.status == 75, "\(result.stderr)")
    #expect(result.stderr.contains("cannot write the report \(full): no space left on device"))
    var status = stat()
    #expect(stat(full, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR, "the device was replaced")
    #expect(result.stderr.contains("the data was committed"))
    #expect(try rows(database, "SELECT count(*) FROM fruits") == ["48"])
    #expect(try rows(database, "SELECT status FROM sluice_runs") == ["succeeded"])
  }

  @Test func aFullDiskRollsTheRunBackAndKeepsTheRejects() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    #expect(try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database]).status == 0)
    let before = try fruitsFingerprint(database)
    // 3,000 fruits, every 100th broken: the database outgrows a 512 KiB file-size limit
    // (`ulimit -f`, as a full disk does), long after the first rejects were written.
    var lines: [String] = []
    for index in 0..<3_000 {
      let recipes = (0..<3).map {
        #"{"title": "Recipe \#($0) of \#(index) \#(String(repeating: "x", count: 120))", "description": "\#(String(repeating: "y", count: 200))", "videoTutorial": "https://example.com/\#(index)/\#($0)"}"#
      }
      let color = index % 100 == 7 ? "7" : #""green""#
      lines.append(
        #"{"fruitID": "big-\#(index)", "name": "Fruit \#(index)", "color": \#(color), "recipes": [\#(recipes.joined(separator: ","))]}"#
      )
    }
    let input = try scratch.write("big.ndjson", lines.joined(separator: "\n") + "\n")
    let rejects = scratch.file("rejects.ndjson")
    let result = try SluiceBinary.shell(
      #"ulimit -f 512; "$SLUICE" run Pipelines/fruits-lenient.json --input "\#(input)" --db "\#(database)" --rejects "\#(rejects)""#
    )
    #expect(result.status == 74, "\(result.stderr)")
    #expect(try fruitsFingerprint(database) == before)
    #expect(try rows(database, "PRAGMA integrity_check") == ["ok"])
    let kept = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
    #expect(!kept.isEmpty)
    for line in kept {
      #expect(line.hasPrefix("{") && line.hasSuffix("}"))
    }
    #expect(result.stderr.contains("\(kept.count) rejected record(s) written"))
  }

  // MARK: Finding 5 — FIFOs, devices and symlinks are written into, not replaced

  @Test func aReportToAFIFOOrASymlinkToOneIsWrittenIntoIt() throws {
    let scratch = try TemporaryDirectory()
    let fifo = scratch.file("report.fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    let link = scratch.file("link-to-fifo")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fifo)
    for target in [fifo, link] {
      // Opened read-write and non-blocking, the test's end never blocks and Sluice's open
      // of the FIFO for writing succeeds at once.
      let reader = open(fifo, O_RDWR | O_NONBLOCK)
      #expect(reader >= 0)
      defer { close(reader) }
      let running = SluiceCommand.start(
        ["run", "Pipelines/fruits.json", "--db", scratch.file("fruits.sqlite"), "--report", target])
      var received: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      func drain() {
        while true {
          let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
          guard count > 0 else { return }
          received += chunk[0..<count]
        }
      }
      let deadline = Date().addingTimeInterval(120)
      while running.isRunning && Date() < deadline {
        drain()
        usleep(5_000)
      }
      drain()
      let result = try running.finished(within: 1)
      #expect(result.status == 0, "\(result.stderr)")
      let report = try RunReport.decode(from: Data(received))
      #expect(report.status == .succeeded)
      var status = stat()
      #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
    }
    var status = stat()
    #expect(lstat(link, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK, "the symlink was replaced")
  }

  @Test func aSymlinkToARegularFileKeepsPointingThere() throws {
    let scratch = try TemporaryDirectory()
    let real = try scratch.write("real.json", "old")
    let link = scratch.file("report.json")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--db", scratch.file("f.sqlite"), "--report", link,
    ])
    #expect(result.status == 0)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real)
    #expect(try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: real))).status == .succeeded)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".sluice-") }
    #expect(leftovers.isEmpty)
  }

  // MARK: Finding 6 — locked databases

  /// An exclusive lock stops the run at its first read; a reserved lock at its BEGIN; a reader's
  /// shared lock only at its COMMIT, after all the work — then the audit row is tried once
  /// without waiting, so the run waits one timeout, not two.
  @Test(arguments: [
    ("EXCLUSIVE", "UPDATE fruits SET name = name"), ("IMMEDIATE", "UPDATE fruits SET name = name"),
    ("DEFERRED", "SELECT count(*) FROM fruits"),
  ])
  func aLockedDatabaseIs74AndSaysSo(_ lock: String, _ statement: String) throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    #expect(try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database]).status == 0)
    let holder = try SQLiteConnection(path: database)
    try holder.execute("BEGIN \(lock)")
    try holder.execute(statement)
    let result = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database, "--busy-timeout", "0.3"])
    #expect(result.status == 74, "\(result.stderr)")
    #expect(result.stderr.contains("is locked by another process (waited 0.3 s)"))
    try holder.execute("COMMIT")
    let again = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database])
    #expect(again.status == 0)
  }

  @Test func theSpecSetsTheBusyTimeout() throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write(
      "spec.json",
      #"{"dataset": "fruits", "input": "\#(Repository.path("SampleData/fruits.json.gz"))", "recordPath": "fruits", "database": "f.sqlite", "busyTimeout": 0.2}"#
    )
    let database = scratch.file("f.sqlite")
    #expect(try SluiceCommand.run(["run", spec]).status == 0)
    let holder = try SQLiteConnection(path: database)
    try holder.execute("BEGIN EXCLUSIVE")
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 74)
    #expect(result.stderr.contains("waited 0.2 s"))
    try holder.execute("ROLLBACK")
    let bad = try scratch.write("bad.json", #"{"dataset": "fruits", "input": "x", "database": "d", "busyTimeout": -1}"#)
    let refused = try SluiceCommand.run(["run", bad])
    #expect(refused.status == 64)
    #expect(refused.stderr.contains("'busyTimeout' must be between 0 and 86400 seconds"))
  }

  // MARK: Finding 8 — misspelled date formats

  @Test(arguments: [
    ("iso8061", "did you mean iso8601?"), ("epochSecond", "did you mean epochSeconds?"), ("", "an empty pattern"),
  ])
  func aMisspelledDateFormatIsASpecError(_ name: String, _ hint: String) throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write(
      "spec.json",
      #"{"dataset": "orders", "input": "\#(Repository.path("SampleData/orders.ndjson.gz"))", "format": "ndjson", "database": "o.sqlite", "policy": {"preset": "lenient", "dates": ["iso8601", "\#(name)"]}}"#
    )
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 64)
    #expect(result.stderr.contains("'policy.dates[1]': '\(name)' is not a date format"))
    #expect(result.stderr.contains(hint))
    #expect(!FileManager.default.fileExists(atPath: scratch.file("o.sqlite")))
  }

  // MARK: Finding 9 — a lenient run that loads nothing

  @Test func aLenientRunThatRejectsEveryRecordFails() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    #expect(try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database]).status == 0)
    let before = try fruitsFingerprint(database)
    // Orders fed to the fruits pipeline: every record fails to decode.
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits-lenient.json", "--input", "SampleData/orders.ndjson.gz", "--db", database,
    ])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("all 2000 record(s) read were rejected and none was loaded"))
    #expect(try fruitsFingerprint(database) == before)

    let spec = try scratch.write(
      "spec.json",
      #"{"dataset": "fruits", "input": "\#(Repository.path("SampleData/orders.ndjson.gz"))", "format": "ndjson", "database": "fruits.sqlite", "policy": {"preset": "lenient", "allowNothingLoaded": true}}"#
    )
    let allowed = try SluiceCommand.run(["run", spec])
    #expect(allowed.status == 0, "\(allowed.stderr)")
    #expect(try fruitsFingerprint(database) == before)
  }

  // MARK: Finding 10 — outputs at impossible paths; a database re-created after a kill

  @Test func reportPathsThatCannotBeFilesSayWhyInWords() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("plain", "x")
    let directory = try TemporaryDirectory()
    for (path, reason) in [
      (directory.path, "it is a directory"), (file + "/report.json", "\(file) is a file, not a directory"),
      (file + "/deeper/report.json", "\(file) is a file, not a directory"),
    ] {
      let result = try SluiceCommand.run([
        "run", "Pipelines/fruits.json", "--db", scratch.file("f.sqlite"), "--report", path,
      ])
      #expect(result.status == 73, "\(result.stderr)")
      #expect(result.stderr.contains("cannot create the report \(path): \(reason)"), "\(result.stderr)")
      #expect(!result.stderr.contains("Domain"))
    }
  }

  @Test func aDatabaseLeftByAKilledFirstRunStillGetsSixteenKibibytePages() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    // A first run killed mid-write: pages on disk and a hot journal, exactly what `kill -9`
    // leaves. Python's sqlite3 writes it, then kills itself.
    let script = """
      import os, signal, sqlite3
      db = sqlite3.connect(r'\(database)', isolation_level=None)
      db.execute('PRAGMA cache_size = 1')
      db.execute('BEGIN')
      db.execute('CREATE TABLE filler(x)')
      for _ in range(2000): db.execute('INSERT INTO filler VALUES (randomblob(1000))')
      os.kill(os.getpid(), signal.SIGKILL)
      """
    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    python.arguments = ["python3", "-c", script]
    try python.run()
    python.waitUntilExit()
    #expect(python.terminationReason == .uncaughtSignal)
    let size = (try FileManager.default.attributesOfItem(atPath: database)[.size] as? NSNumber)?.intValue ?? 0
    #expect(size > 0)
    #expect(FileManager.default.fileExists(atPath: database + "-journal"))

    let result = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try rows(database, "PRAGMA page_size") == ["16384"])
    #expect(try rows(database, "SELECT count(*) FROM sqlite_master WHERE name = 'filler'") == ["0"])
  }
}
