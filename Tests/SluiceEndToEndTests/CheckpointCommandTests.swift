import Foundation
import OrderSamples
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Checkpointed runs on the real binary (`--checkpoint-every`, `--resume`): killed with
/// SIGKILL at chunk commits and at random moments, then resumed, a run ends with exactly the
/// tables, counts, issues, rejects and input ledger of the same run uninterrupted; a resume that
/// cannot be exact — another pipeline, an input changed since — is refused before it writes.
@Suite("Checkpointed runs: killed, resumed, and exactly the uninterrupted run", .tags(.slow))
struct CheckpointCommandTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  static let tables = ["orders", "order_items", "customers"]

  /// `count` orders as NDJSON, with a few that the lenient policy rejects (a bad currency, a
  /// negative quantity, a broken line) and order 5 repeated near the end (a repeated key the
  /// registry must still know after a resume).
  @discardableResult
  func input(_ name: String = "orders.ndjson", count: Int = 1_800) throws -> String {
    var lines: [String] = []
    for id in 1...count {
      var order = GeneratedOrder(
        id: String(format: "%08d", id), currency: "EUR", status: "pending", createdAt: "2023-01-01T00:00:00Z",
        customerID: Int64(id % 40), customerName: "Customer \(id % 40)",
        items: (0...(id % 3)).map { .init(sku: "SKU-\(id)-\($0)", qty: 1 + $0, priceMinor: Int64(100 + id)) })
      if id % 331 == 0 { order.currency = "euros" }
      if id % 457 == 0 { order.items[0].qty = -4 }
      lines.append(order.json.replacingOccurrences(of: "\n", with: " "))
      if id % 613 == 0 { lines.append(#"{"id": "broken", "currency": "#) }
    }
    lines.insert(lines[4], at: lines.count - 3)
    return try scratch.write(name, lines.joined(separator: "\n") + "\n")
  }

  func spec(database: String = "orders.sqlite", extra: String = "") throws -> String {
    try scratch.write(
      "pipeline.json",
      #"""
      {"dataset": "orders", "input": "orders.ndjson", "format": "ndjson", "database": "\#(database)",
       "policy": {"preset": "lenient", "maxRejects": 1000, "maxRejectRate": 0.5}\#(extra)}
      """#)
  }

  /// What two runs must share: the rows, and the report's counts, issues and inputs (without
  /// timings, paths of the database and outputs, or peak memory).
  struct Outcome: Equatable {
    var rows: TableRows
    var report: String
    var rejects: String
  }

  func outcome(database: String, report: String, rejects: String, rows: TableRows? = nil) throws -> Outcome {
    let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    var fields: [String] = [decoded.status.rawValue, "\(decoded.committed)"]
    fields += decoded.stages.map {
      "\($0.stage.rawValue) \($0.recordsIn) \($0.recordsOut) \($0.rejected) \($0.warnings) \($0.skipped) \($0.kept)"
    }
    fields += decoded.issueCounts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    fields += decoded.issues.map {
      "\($0.stage.rawValue) \($0.code.rawValue) \($0.location?.ordinal ?? -1) \($0.location?.line ?? -1) \($0.location?.byteOffset ?? -1) \($0.path) \($0.message)"
    }
    fields += decoded.rowsWritten.sorted { $0.key < $1.key }.map { "rows \($0.key)=\($0.value)" }
    fields += decoded.inputs.map { input in
      "input \(input.path) \(input.compressedBytes) \(input.sha256 ?? "-") \(input.stages.map { "\($0.recordsIn)/\($0.recordsOut)/\($0.rejected)" }) \(input.rowsWritten.sorted { $0.key < $1.key })"
    }
    fields.append("duplicates \(decoded.duplicateKeys ?? [:])")
    fields.append("quarantined \(decoded.quarantined)")
    return Outcome(
      rows: try rows ?? TableRows(sqlite: database, tables: Self.tables), report: fields.joined(separator: "\n"),
      rejects: try String(contentsOfFile: rejects, encoding: .utf8))
  }

  /// The ledger rows the run left, without their run ids.
  func ledger(_ database: String) throws -> [String] {
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
    let statement = try connection.prepare(
      "SELECT path || ' ' || status || ' ' || sha256 || ' ' || records_read || ' ' || records_loaded || ' ' || records_rejected FROM sluice_inputs ORDER BY position"
    )
    var rows: [String] = []
    while try statement.step() { rows.append(statement.columnText(0) ?? "") }
    return rows
  }

  func checkpoints(_ database: String) throws -> Int64 {
    try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt(
      "SELECT count(*) FROM sluice_checkpoints") ?? -1
  }

  /// The uninterrupted run, single transaction, as the reference.
  func reference(_ spec: String) throws -> Outcome {
    let database = scratch.file("reference.sqlite")
    let result = try SluiceCommand.run([
      "run", spec, "--db", database, "--report", scratch.file("reference.json"), "--rejects",
      scratch.file("reference-rejects.ndjson"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    return try outcome(
      database: database, report: scratch.file("reference.json"), rejects: scratch.file("reference-rejects.ndjson"))
  }

  func arguments(_ spec: String, _ name: String, _ extra: [String]) -> [String] {
    [
      "run", spec, "--db", scratch.file("\(name).sqlite"), "--report", scratch.file("\(name).json"), "--rejects",
      scratch.file("\(name)-rejects.ndjson"),
    ] + extra
  }

  @Test func anUninterruptedCheckpointedRunEqualsTheSingleTransactionRun() throws {
    try input()
    let spec = try spec()
    let expected = try reference(spec)
    let result = try SluiceCommand.run(arguments(spec, "chunked", ["--checkpoint-every", "300"]))
    #expect(result.status == 0, "\(result.stderr)")
    let chunked = try outcome(
      database: scratch.file("chunked.sqlite"), report: scratch.file("chunked.json"),
      rejects: scratch.file("chunked-rejects.ndjson"))
    #expect(chunked == expected)
    #expect(try checkpoints(scratch.file("chunked.sqlite")) == 0)
    #expect(try ledger(scratch.file("chunked.sqlite")) == ledger(scratch.file("reference.sqlite")))
    // The repeated order 5 is reported as such, and the rejects were written.
    #expect(expected.report.contains("duplicates [\"orders\": 1]"))
    #expect(!expected.rejects.isEmpty)
  }

  /// Killed just after each of its chunk commits, after its last commit (before its outputs are
  /// renamed into place) and at random moments (some before the first commit, some in the resume
  /// itself), then resumed until it succeeds: 23 kill points.
  @Test func aRunKilledAnywhereAndResumedEndsExactlyAsTheUninterruptedRun() throws {
    try input()
    let spec = try spec()
    let expected = try reference(spec)
    // Launched, as the killed runs are: its time, start-up included, spreads their kills.
    let started = Date()
    #expect(try SluiceBinary.run(arguments(spec, "timing", ["--checkpoint-every", "300"])).status == 0)
    let duration = Date().timeIntervalSince(started)

    var generator = SystemRandomNumberGenerator()
    var points: [(name: String, kill: KillPoint)] = (1...6).map { ("after chunk \($0)", .afterChunk($0)) }
    points.append(("after the last commit, before the outputs are in place", .finished))
    points += (0..<14).map { _ in
      let delay = Double.random(in: 0.02...max(duration, 0.05), using: &generator)
      return ("after \(delay) s", .after(delay))
    }
    points += [
      ("after chunk 1, then the resume after chunk 3", .afterChunk(1)), ("twice at random", .after(duration / 3)),
    ]
    var resumedPoints: Set<Int> = []
    var killedAtChunk: Set<Int> = []
    for (index, point) in points.enumerated() {
      let name = "killed-\(index)"
      var extra = ["--checkpoint-every", "300"]
      if case .afterChunk(let chunk) = point.kill { extra += ["--test-kill-at", "chunk-\(chunk)"] }
      if case .finished = point.kill { extra += ["--test-kill-at", "finished"] }
      let process = try SluiceBinary.start(arguments(spec, name, extra))
      if case .after(let delay) = point.kill {
        usleep(useconds_t(delay * 1_000_000))
        kill(process.processIdentifier, SIGKILL)
      }
      process.waitUntilExit()
      var finished = process.terminationReason == .exit && process.terminationStatus == 0
      if process.terminationReason == .uncaughtSignal {
        switch point.kill {
        case .afterChunk, .finished: killedAtChunk.insert(index)
        case .after: break
        }
      }
      // A second interruption, of the resume itself, for the last two points (unless the run
      // finished before its kill; the resume may finish before its own).
      if index >= points.count - 2 && !finished {
        let resume = try SluiceBinary.start(
          arguments(spec, name, ["--resume"] + (index == points.count - 2 ? ["--test-kill-at", "chunk-3"] : [])))
        if index == points.count - 1 {
          usleep(useconds_t(duration / 3 * 1_000_000))
          kill(resume.processIdentifier, SIGKILL)
        }
        resume.waitUntilExit()
        finished = resume.terminationReason == .exit && resume.terminationStatus == 0
      }
      // Resume until done: a run killed before its first commit has nothing to resume, and the
      // resume starts it; one killed after it ended (its outputs in place) is done.
      var attempts = 0
      let killedDatabase = scratch.file("\(name).sqlite")
      while !finished && attempts < 4 {
        attempts += 1
        if (try? checkpoints(killedDatabase)) == 0, !((try? ledger(killedDatabase)) ?? []).isEmpty { break }
        let resumed = try SluiceCommand.run(arguments(spec, name, ["--resume"]))
        #expect(resumed.status == 0, "\(point.name): resume exited \(resumed.status): \(resumed.stderr)")
        finished = resumed.status == 0
        if finished && !resumed.stderr.contains("nothing to resume") { resumedPoints.insert(index) }
      }
      let database = scratch.file("\(name).sqlite")
      let (ledger, wanted) = (try ledger(database), try ledger(scratch.file("reference.sqlite")))
      #expect(ledger == wanted, "\(point.name): \(ledger) instead of \(wanted)")
      #expect(try checkpoints(database) == 0)
      let result = try outcome(
        database: database, report: scratch.file("\(name).json"), rejects: scratch.file("\(name)-rejects.ndjson"))
      #expect(result.rows == expected.rows, "\(point.name): the tables differ")
      #expect(
        result.report == expected.report,
        "\(point.name): the reports differ: \(Self.difference(result.report, from: expected.report))")
      #expect(result.rejects == expected.rejects, "\(point.name): the rejects differ")
    }
    // Every run killed at a chunk's commit was then resumed. (A chunk ends at the first batch
    // boundary past 300 records, and batches follow the machine's load, so the input has three
    // to six chunks; the random kills may fall before the first commit or after the end.)
    #expect(
      killedAtChunk.isSuperset(of: [0, 6]) && killedAtChunk.count >= 4, "killed at commits: \(killedAtChunk.sorted())")
    #expect(killedAtChunk.isSubset(of: resumedPoints), "resumed: \(resumedPoints.sorted()), killed: \(killedAtChunk)")
  }

  /// The lines of `text` that `expected` lacks and those it lacks of `expected`.
  static func difference(_ text: String, from expected: String) -> String {
    let lines = text.split(separator: "\n")
    let wanted = expected.split(separator: "\n")
    return "extra \(lines.filter { !wanted.contains($0) }), missing \(wanted.filter { !lines.contains($0) })"
  }

  enum KillPoint {
    case afterChunk(Int)
    case after(Double)
    /// After the last commit, before the report and rejects are renamed into place.
    case finished
  }

  @Test func aResumeRefusesAnInputChangedSinceTheCheckpointAndWritesNothing() throws {
    let path = try input()
    let spec = try spec()
    let database = scratch.file("orders.sqlite")
    let killed = try SluiceBinary.run(["run", spec, "--checkpoint-every", "300", "--test-kill-at", "chunk-2"])
    #expect(killed.status == SIGKILL)
    let before = try TableRows(sqlite: database, tables: Self.tables)
    #expect(!before.tables.isEmpty)
    let original = try Data(contentsOf: URL(fileURLWithPath: path))

    // Modified in place (same size), truncated, replaced by a copy: each refused, exit 65.
    var modified = original
    modified[modified.count - 10] = UInt8(ascii: "9")
    let truncated = original.prefix(original.count / 2)
    for (what, bytes) in [("modified", modified), ("truncated", Data(truncated)), ("replaced", original)] {
      if what == "replaced" {
        try FileManager.default.removeItem(atPath: path)
        try bytes.write(to: URL(fileURLWithPath: path))
      } else {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: bytes)
        try handle.close()
      }
      let resumed = try SluiceCommand.run(["run", spec, "--resume"])
      #expect(resumed.status == 65, "\(what): \(resumed.stderr)")
      #expect(resumed.stderr.contains("orders.ndjson"), "\(what): \(resumed.stderr)")
      #expect(resumed.stderr.contains("nothing was written"), "\(what)")
      #expect(try TableRows(sqlite: database, tables: Self.tables) == before, "\(what)")
      #expect(try checkpoints(database) == 1, "\(what): the checkpoint stays for a resume with the right input")
    }
  }

  /// The staging files of rejects beside `name`'s rejects file (`.NAME-rejects.ndjson.sluice-*`).
  func rejectsStagingFiles(_ name: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter {
      $0.hasPrefix(".\(name)-rejects.ndjson.sluice-")
    }
  }

  /// A resume killed after it took over the interrupted run's rejects but before its own first
  /// commit: the checkpoint still names the first run's staging file, so that file must still be
  /// there for the next resume; once a resume commits, neither run's staging file is left.
  @Test func aResumeKilledBeforeItsFirstCommitCanBeResumedAgain() throws {
    try input()
    let spec = try spec()
    let expected = try reference(spec)
    // Chunk 2 holds record 331, the first reject.
    let killed = try SluiceBinary.run(
      arguments(spec, "twice", ["--checkpoint-every", "300", "--test-kill-at", "chunk-2"]))
    #expect(killed.status == SIGKILL)
    let first = try rejectsStagingFiles("twice")
    #expect(first.count == 1)
    for _ in 0..<2 {
      let resumed = try SluiceBinary.run(arguments(spec, "twice", ["--resume", "--test-kill-at", "resumed"]))
      #expect(resumed.status == SIGKILL, "\(resumed.stderr)")
    }
    // The killed resumes' staging files are abandoned; aged past the minute a committed run
    // waits before it takes a staging file nobody holds for abandoned, they go with its commit.
    let abandoned = try rejectsStagingFiles("twice")
    #expect(abandoned.count == 3, "\(abandoned)")
    for name in abandoned {
      var times = [timeval(tv_sec: time(nil) - 120, tv_usec: 0), timeval(tv_sec: time(nil) - 120, tv_usec: 0)]
      #expect(utimes(scratch.file(name), &times) == 0)
    }
    let finished = try SluiceCommand.run(arguments(spec, "twice", ["--resume"]))
    #expect(finished.status == 0, "\(finished.stderr)")
    let result = try outcome(
      database: scratch.file("twice.sqlite"), report: scratch.file("twice.json"),
      rejects: scratch.file("twice-rejects.ndjson"))
    #expect(result == expected)
    #expect(
      try rejectsStagingFiles("twice") == [], "a committed run leaves no abandoned staging file beside its rejects")
  }

  /// The interrupted run's rejects staging is gone (a tmp cleaner, an operator) and the rejects
  /// path holds another run's rejects — last night's: the resume refuses, writes nothing and
  /// says what to do, rather than start tonight's rejects file with last night's records. A
  /// rejects file that does begin with the interrupted run's rejects (as a failure publishes
  /// them) is taken over.
  @Test func aResumeRefusesRejectsThatAreNotTheInterruptedRunsAndWritesNothing() throws {
    try input()
    let spec = try spec()
    let expected = try reference(spec)
    // Last night: another dump, its rejects at tonight's rejects path.
    let lastNight = try input("last-night.ndjson", count: 1_500)
    let previous = try SluiceCommand.run(arguments(spec, "gone", ["--input", lastNight]))
    #expect(previous.status == 0, "\(previous.stderr)")
    let rejectsPath = scratch.file("gone-rejects.ndjson")
    let lastNightsRejects = try Data(contentsOf: URL(fileURLWithPath: rejectsPath))
    // Tonight: killed after chunk 2, which holds record 331, the first reject; its staging goes.
    let killed = try SluiceBinary.run(
      arguments(spec, "gone", ["--checkpoint-every", "300", "--test-kill-at", "chunk-2"]))
    #expect(killed.status == SIGKILL)
    let staging = try rejectsStagingFiles("gone")
    try #require(staging.count == 1)
    try FileManager.default.removeItem(atPath: scratch.file(staging[0]))
    let refused = try SluiceCommand.run(arguments(spec, "gone", ["--resume"]))
    #expect(refused.status == 65, "\(refused.stderr)")
    #expect(
      refused.stderr.contains("the rejects the interrupted run wrote before its last checkpoint"), "\(refused.stderr)")
    #expect(refused.stderr.contains("\(rejectsPath) holds other records"), "\(refused.stderr)")
    #expect(refused.stderr.contains("--restart"), "\(refused.stderr)")
    #expect(refused.stderr.contains("nothing was written"), "\(refused.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: rejectsPath)) == lastNightsRejects)
    #expect(try checkpoints(scratch.file("gone.sqlite")) == 1)

    // The same kill, with the staging renamed over the rejects path as a failure publishes it:
    // that file begins with the interrupted run's rejects, and the resume finishes the run.
    #expect(
      try SluiceBinary.run(arguments(spec, "moved", ["--checkpoint-every", "300", "--test-kill-at", "chunk-2"])).status
        == SIGKILL)
    let moved = try rejectsStagingFiles("moved")
    try #require(moved.count == 1)
    #expect(rename(scratch.file(moved[0]), scratch.file("moved-rejects.ndjson")) == 0)
    let resumed = try SluiceCommand.run(arguments(spec, "moved", ["--resume"]))
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let result = try outcome(
      database: scratch.file("moved.sqlite"), report: scratch.file("moved.json"),
      rejects: scratch.file("moved-rejects.ndjson"))
    #expect(result == expected)
  }

  /// A first load defers its secondary indexes to its last chunk; a resume keeps them deferred
  /// (rather than sort the rows committed so far into them at its start and keep them up to date
  /// for every row after), and the finished run has exactly the uninterrupted run's schema.
  @Test func aResumeKeepsTheIndexesAFirstLoadDeferredForItsEnd() throws {
    try input()
    let spec = try spec()
    _ = try reference(spec)
    func indexes(_ name: String) throws -> [String] {
      let connection = try SQLiteConnection(path: scratch.file(name), options: .init(readOnly: true))
      let query = try connection.prepare(
        "SELECT name || ': ' || sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
      var names: [String] = []
      while try query.step() {
        if case .text(let name) = query.columnValue(0) { names.append(name) }
      }
      return names
    }
    let expected = try indexes("reference.sqlite")
    #expect(expected.contains { $0.hasPrefix("orders_by_customer:") }, "\(expected)")
    let killed = try SluiceBinary.run(
      arguments(spec, "deferred", ["--checkpoint-every", "300", "--test-kill-at", "chunk-1"]))
    #expect(killed.status == SIGKILL)
    #expect(try indexes("deferred.sqlite").isEmpty)
    let resumedOnce = try SluiceBinary.run(arguments(spec, "deferred", ["--resume", "--test-kill-at", "chunk-3"]))
    #expect(resumedOnce.status == SIGKILL, "\(resumedOnce.stderr)")
    #expect(try indexes("deferred.sqlite").isEmpty, "the resume built the deferred indexes before its last chunk")
    let finished = try SluiceCommand.run(arguments(spec, "deferred", ["--resume"]))
    #expect(finished.status == 0, "\(finished.stderr)")
    #expect(try indexes("deferred.sqlite") == expected)
  }

  /// Killed after its last commit, before its report and rejects were renamed into place: the
  /// run is in the database, and its finished checkpoint (holding its report, naming its staged
  /// rejects) lets `--resume` put exactly those outputs in place; a new run goes on regardless.
  @Test func aRunKilledAfterItsLastCommitHasItsOutputsPutInPlaceByTheResume() throws {
    try input()
    let spec = try spec()
    let expected = try reference(spec)
    let killed = try SluiceBinary.run(
      arguments(spec, "late", ["--checkpoint-every", "300", "--test-kill-at", "finished"]))
    #expect(killed.status == SIGKILL, "\(killed.stderr)")
    let database = scratch.file("late.sqlite")
    #expect(try ledger(database) == ledger(scratch.file("reference.sqlite")), "the run did not commit")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("late.json")))
    #expect(!FileManager.default.fileExists(atPath: scratch.file("late-rejects.ndjson")))
    let runs = try SluiceCommand.run(["runs", database])
    #expect(runs.stderr.contains("stopped before it put its report and rejects in place"), "\(runs.stderr)")
    let resumed = try SluiceCommand.run(arguments(spec, "late", ["--resume"]))
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let result = try outcome(
      database: database, report: scratch.file("late.json"), rejects: scratch.file("late-rejects.ndjson"))
    #expect(result == expected)
    #expect(try checkpoints(database) == 0)
    #expect(try rejectsStagingFiles("late").isEmpty, "the killed run's staged rejects are left")
    // Resumed once more, the run is done: there is nothing to resume, and the resume starts the
    // next run (the nightly command is the same every night).
    let next = try SluiceCommand.run(arguments(spec, "late", ["--resume"]))
    #expect(next.status == 0, "\(next.stderr)")
    #expect(next.stderr.contains("nothing to resume"), "\(next.stderr)")

    // Killed there again, then a new run instead of a resume: not refused.
    let again = try SluiceBinary.run(
      arguments(spec, "late", ["--checkpoint-every", "300", "--test-kill-at", "finished"]))
    #expect(again.status == SIGKILL)
    let fresh = try SluiceCommand.run(arguments(spec, "late", ["--checkpoint-every", "300"]))
    #expect(fresh.status == 0, "\(fresh.stderr)")
    #expect(try checkpoints(database) == 0)
  }

  /// The checkpoint keeps when the run started to the millisecond (a date, not text rounded to
  /// the second), so the resumed run's audit row starts when the interrupted run did; the chunks'
  /// keys are compact BLOBs.
  @Test func aResumedRunStartsWhenTheInterruptedRunStartedToTheMillisecond() throws {
    try input()
    let spec = try spec()
    let killed = try SluiceBinary.run(
      arguments(spec, "started", ["--checkpoint-every", "300", "--test-kill-at", "chunk-2"]))
    #expect(killed.status == SIGKILL)
    let database = scratch.file("started.sqlite")
    // Read, then closed: an open read would hold the database against the resume's commits.
    func interrupted() throws -> (startedAt: String?, kinds: String?, compact: Int64) {
      let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
      let started = try connection.prepare("SELECT started_at FROM sluice_checkpoints")
      defer { started.reset() }
      let keys = try connection.prepare(
        """
        SELECT group_concat(DISTINCT typeof(keys)), sum(length(keys)) < 12 * (SELECT records FROM sluice_checkpoints) \
        FROM sluice_checkpoint_keys
        """)
      defer { keys.reset() }
      guard try started.step(), try keys.step() else { return (nil, nil, 0) }
      return (started.columnText(0), keys.columnText(0), keys.columnInt64(1))
    }
    let (startedAt, kinds, compact) = try interrupted()
    #expect(kinds == "blob")
    #expect(compact == 1, "an order's key takes more than 12 bytes")
    let finished = try SluiceCommand.run(arguments(spec, "started", ["--resume"]))
    #expect(finished.status == 0, "\(finished.stderr)")
    let audit = try SQLiteConnection(path: database, options: .init(readOnly: true))
    let started = try audit.prepare("SELECT started_at FROM sluice_runs")
    defer { started.reset() }
    #expect(try started.step())
    #expect(startedAt != nil && started.columnText(0) == startedAt)
  }

  /// The restart command of a nightly job is the same every night (`--resume`): a run killed
  /// before its first chunk committed, or one that finished, leaves nothing to resume, and the
  /// resume starts the run — saying so on stderr and in the report — rather than refuse.
  @Test func aResumeWithNothingToResumeStartsTheRunAndSaysSo() throws {
    try input()
    let spec = try spec()
    let expected = try reference(spec)
    let note = "nothing to resume: no chunk of an unfinished run of pipeline pipeline is committed in"
    // Killed inside its first chunk's transaction, just before the commit: nothing committed.
    let killed = try SluiceBinary.run(
      arguments(spec, "early", ["--checkpoint-every", "300", "--test-kill-at", "committing-1"]))
    #expect(killed.status == SIGKILL, "\(killed.stderr)")
    let runs = try SluiceCommand.run(["runs", scratch.file("early.sqlite")])
    #expect(!runs.stderr.contains("unfinished"), "\(runs.stderr)")
    let resumed = try SluiceCommand.run(arguments(spec, "early", ["--checkpoint-every", "300", "--resume"]))
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(resumed.stderr.contains(note), "\(resumed.stderr)")
    let report = try JSONSerialization.jsonObject(
      with: Data(contentsOf: URL(fileURLWithPath: scratch.file("early.json"))))
    let notes = (report as? [String: Any])?["notes"] as? [String] ?? []
    #expect(notes.first?.hasPrefix(note) == true, "\(notes)")
    let result = try outcome(
      database: scratch.file("early.sqlite"), report: scratch.file("early.json"),
      rejects: scratch.file("early-rejects.ndjson"))
    #expect(result == expected)
    #expect(try ledger(scratch.file("early.sqlite")) == ledger(scratch.file("reference.sqlite")))
    // With no database at all, and after a run that finished: the same.
    let fresh = try SluiceCommand.run(["run", spec, "--resume"])
    #expect(fresh.status == 0, "\(fresh.stderr)")
    #expect(fresh.stderr.contains(note), "\(fresh.stderr)")
    let again = try SluiceCommand.run(arguments(spec, "early", ["--checkpoint-every", "300", "--resume"]))
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains(note), "\(again.stderr)")
    // What must be refused still is: a resume of an unfinished run whose input changed.
    #expect(
      try SluiceBinary.run(arguments(spec, "late", ["--checkpoint-every", "300", "--test-kill-at", "chunk-1"])).status
        == SIGKILL)
    try input(count: 1_900)
    let changed = try SluiceCommand.run(arguments(spec, "late", ["--resume"]))
    #expect(changed.status == 65, "\(changed.stderr)")
    #expect(!changed.stderr.contains("nothing to resume"))
  }

  @Test func aNewRunOverAnUnfinishedOneIsRefusedUnlessRestarted() throws {
    try input()
    let spec = try spec()
    _ = try SluiceBinary.run(["run", spec, "--checkpoint-every", "300", "--test-kill-at", "chunk-1"])
    let runs = try SluiceCommand.run(["runs", scratch.file("orders.sqlite")])
    #expect(runs.status == 0)
    #expect(runs.stderr.contains("pipeline pipeline: a checkpointed run"))
    #expect(runs.stderr.contains("--resume"))
    let again = try SluiceCommand.run(["run", spec, "--checkpoint-every", "300"])
    #expect(again.status == 65)
    #expect(again.stderr.contains("--resume finishes it"))
    let restarted = try SluiceCommand.run(["run", spec, "--checkpoint-every", "300", "--restart"])
    #expect(restarted.status == 0, "\(restarted.stderr)")
    #expect(try checkpoints(scratch.file("orders.sqlite")) == 0)
  }

  /// Under the strict policy a chunked run is not all-or-nothing: the failing chunk is rolled
  /// back, the committed ones stay, and the run can be resumed (here it fails again, at the same
  /// record, since the input cannot change).
  @Test func aStrictFailureRollsBackOnlyItsChunkAndLeavesTheRunResumable() throws {
    try input()
    let strict = try scratch.write(
      "strict.json",
      #"{"dataset": "orders", "input": "orders.ndjson", "format": "ndjson", "database": "orders.sqlite"}"#)
    let failed = try SluiceCommand.run(["run", strict, "--checkpoint-every", "256"])
    #expect(failed.status == 65)
    #expect(failed.stderr.contains("record 331"))
    let connection = try SQLiteConnection(path: scratch.file("orders.sqlite"), options: .init(readOnly: true))
    // The first chunk (records 1–256) committed; the one with record 331 did not.
    #expect(try connection.scalarInt("SELECT count(*) FROM orders") == 256)
    #expect(try checkpoints(scratch.file("orders.sqlite")) == 1)
    let resumed = try SluiceCommand.run(["run", strict, "--resume"])
    #expect(resumed.status == 65)
    #expect(resumed.stderr.contains("record 331"))
  }

  @Test func twoResumersAtOnceFinishTheRunExactlyOnce() throws {
    try input(count: 3_000)
    let spec = try spec()
    let expected = try reference(spec)
    _ = try SluiceBinary.run(arguments(spec, "raced", ["--checkpoint-every", "300", "--test-kill-at", "chunk-1"]))
    let first = try SluiceBinary.start(arguments(spec, "raced", ["--resume"]))
    let second = try SluiceBinary.start(arguments(spec, "raced", ["--resume"]))
    first.waitUntilExit()
    second.waitUntilExit()
    let statuses = [first.terminationStatus, second.terminationStatus].sorted()
    // One finishes; the other found nothing left (64), lost the race for the lock (74), or was
    // taken over by the other (74).
    #expect(statuses.contains(0), "\(statuses)")
    #expect(statuses.allSatisfy { [0, 64, 74].contains($0) }, "\(statuses)")
    let database = scratch.file("raced.sqlite")
    #expect(try TableRows(sqlite: database, tables: Self.tables) == expected.rows)
    #expect(try checkpoints(database) == 0)
  }

  /// A disk that fills mid-run (a 512 KiB file-size limit, as `ulimit -f` sets it): the chunk
  /// being written is rolled back, the committed ones stay with their checkpoint, and a resume
  /// once there is room ends exactly as the uninterrupted run.
  @Test func aFullDiskMidChunkLeavesTheRunResumable() throws {
    try input(count: 5_000)
    let spec = try spec()
    let expected = try reference(spec)
    let full = try SluiceBinary.shell(
      #"ulimit -f 512; "$SLUICE" \#(arguments(spec, "full", ["--checkpoint-every", "300"]).map { "'\($0)'" }.joined(separator: " "))"#
    )
    #expect(full.status == 74, "\(full.stderr)")
    #expect(full.stderr.contains("full") || full.stderr.contains("too large"), "\(full.stderr)")
    let database = scratch.file("full.sqlite")
    #expect(try checkpoints(database) == 1)
    let committed =
      try SQLiteConnection(path: database, options: .init(readOnly: false, create: false)).scalarInt(
        "SELECT count(*) FROM orders") ?? 0
    #expect(committed > 0 && committed < 4_990, "\(committed) orders committed")
    let resumed = try SluiceCommand.run(arguments(spec, "full", ["--resume"]))
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let result = try outcome(
      database: database, report: scratch.file("full.json"), rejects: scratch.file("full-rejects.ndjson"))
    #expect(result == expected)
  }

  @Test func checkpointsRefuseWhatTheyCannotResume() throws {
    try input()
    let spec = try spec()
    let snapshot = try SluiceCommand.run(["run", spec, "--checkpoint-every", "10", "--snapshot"])
    #expect(snapshot.status == 64)
    #expect(snapshot.stderr.contains("snapshot"))
    let zero = try SluiceCommand.run(["run", spec, "--checkpoint-every", "0"])
    #expect(zero.status == 64)
    let both = try SluiceCommand.run(["run", spec, "--resume", "--restart"])
    #expect(both.status == 64)
  }
}

/// The same kill and resume into PostgreSQL.
@Suite(
  "Checkpointed runs into PostgreSQL, killed and resumed",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLCheckpointCommandTests {
  @Test func aRunKilledAfterAChunkAndResumedEqualsTheUninterruptedRun() throws {
    let tests = try CheckpointCommandTests()
    try tests.input()
    let spec = try tests.spec()
    let reference = PostgreSQLSchema()
    let chunked = PostgreSQLSchema()
    /// In process, but for a kill (`--test-kill-at`), which needs `sluice-faults` of its own.
    func run(_ schema: PostgreSQLSchema, _ extra: [String]) throws -> SluiceBinary.Result {
      let arguments = ["run", spec, "--db", schema.url, "--db-schema", schema.name] + extra
      return try extra.contains("--test-kill-at") ? SluiceBinary.run(arguments) : SluiceCommand.run(arguments)
    }
    #expect(try run(reference, []).status == 0)
    // After chunks, and after the last commit (before the report is renamed into place).
    for (runs, point) in [(1, "chunk-1"), (2, "chunk-3"), (3, "finished")] {
      let report = tests.scratch.file("\(point).json")
      let killed = try run(
        chunked, ["--checkpoint-every", "300", "--test-kill-at", point, "--restart", "--report", report])
      #expect(killed.status != 0)
      let resumed = try run(chunked, ["--resume", "--report", report])
      #expect(resumed.status == 0, "\(resumed.stderr)")
      #expect(try chunked.rows(of: CheckpointCommandTests.tables) == reference.rows(of: CheckpointCommandTests.tables))
      let store = try chunked.connect()
      #expect(try store.scalarInt("SELECT count(*) FROM sluice_checkpoints") == 0)
      let ledger = try store.scalarInt("SELECT sum(records_read)::bigint FROM sluice_inputs WHERE status = 'loaded'")
      #expect(ledger == Int64(CheckpointCommandTests.recordsPerRun) * Int64(runs))
      let written = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
      #expect(written.committed && written.stages.first?.recordsIn == CheckpointCommandTests.recordsPerRun, "\(point)")
    }
  }
}

extension PostgreSQLCheckpointCommandTests {
  /// The run is killed with its second chunk's COMMIT on the wire: the server carries it out
  /// after the process is gone (here 2 s after the chunk was ready, `late-chunk-2`), while a
  /// `--resume` has already started. The resume must wait for that transaction and go on from
  /// the second chunk — not read the first chunk's checkpoint, redo the second, and fail on its
  /// keys (duplicate key in `sluice_checkpoint_keys`, as a random kill once made it do).
  @Test func aResumeStartedWhileTheKilledRunsLastCommitIsInFlightGoesOnFromThatCommit() throws {
    let tests = try CheckpointCommandTests()
    try tests.input()
    let spec = try tests.spec()
    let reference = PostgreSQLSchema()
    let chunked = PostgreSQLSchema()
    func arguments(_ schema: PostgreSQLSchema, _ extra: [String]) -> [String] {
      ["run", spec, "--db", schema.url, "--db-schema", schema.name] + extra
    }
    let plain = tests.scratch.file("reference.json")
    #expect(try SluiceCommand.run(arguments(reference, ["--report", plain])).status == 0)
    let report = tests.scratch.file("late.json")
    let process = try SluiceBinary.start(
      arguments(chunked, ["--checkpoint-every", "300", "--test-kill-at", "late-chunk-2", "--report", report]))
    // The first chunk's checkpoint is committed; the second's commit is held back.
    var committed: Int64?
    for _ in 0..<1_000 where committed != 1 {
      committed = try? chunked.connect().scalarInt("SELECT chunk FROM sluice_checkpoints")
      if committed != 1 { usleep(10_000) }
    }
    try #require(committed == 1, "the first chunk's checkpoint never showed")
    let resumed = try SluiceCommand.run(arguments(chunked, ["--resume", "--report", report]))
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(try chunked.rows(of: CheckpointCommandTests.tables) == reference.rows(of: CheckpointCommandTests.tables))
    let store = try chunked.connect()
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_checkpoints") == 0)
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_checkpoint_keys") == 0)
    let ledger = try store.scalarInt("SELECT sum(records_read)::bigint FROM sluice_inputs WHERE status = 'loaded'")
    #expect(ledger == Int64(CheckpointCommandTests.recordsPerRun))
    let written = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    let expected = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: plain)))
    #expect(written.committed)
    #expect(written.stages.map(\.recordsOut) == expected.stages.map(\.recordsOut))
    #expect(written.issueCounts == expected.issueCounts)
  }

  /// Killed at random moments (some before the first commit, some after the last), then
  /// resumed — or, with nothing committed, started over — until done: the rows, the ledger and
  /// the report's counts are the uninterrupted run's every time.
  @Test func aRunKilledAtRandomAndResumedEqualsTheUninterruptedRun() throws {
    let tests = try CheckpointCommandTests()
    try tests.input()
    let spec = try tests.spec()
    let reference = PostgreSQLSchema()
    func arguments(_ schema: PostgreSQLSchema, _ extra: [String]) -> [String] {
      ["run", spec, "--db", schema.url, "--db-schema", schema.name] + extra
    }
    func counts(_ report: String) throws -> String {
      let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
      return decoded.stages.map { "\($0.stage.rawValue) \($0.recordsIn) \($0.recordsOut) \($0.rejected)" }
        .joined(separator: "; ") + " \(decoded.issueCounts.sorted { $0.key < $1.key })"
    }
    let started = Date()
    let plain = tests.scratch.file("reference.json")
    #expect(try SluiceCommand.run(arguments(reference, ["--report", plain])).status == 0)
    let duration = Date().timeIntervalSince(started)
    let expected = try reference.rows(of: CheckpointCommandTests.tables)
    for attempt in 0..<8 {
      let schema = PostgreSQLSchema()
      let report = tests.scratch.file("random-\(attempt).json")
      let process = try SluiceBinary.start(arguments(schema, ["--checkpoint-every", "300", "--report", report]))
      usleep(useconds_t(Double.random(in: 0.02...max(duration * 1.2, 0.05)) * 1_000_000))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      var finished = process.terminationReason == .exit && process.terminationStatus == 0
      var tries = 0
      while !finished && tries < 3 {
        tries += 1
        // Killed after its outputs were in place, before it ended: nothing left to do. (A run
        // killed before its first commit has nothing to resume either: the resume starts it.)
        if try schema.exists(), let store = try? schema.connect(),
          (try? store.scalarInt("SELECT count(*) FROM sluice_checkpoints")) == 0,
          (try? store.scalarInt("SELECT count(*) FROM sluice_inputs")) == 1
        {
          break
        }
        let resumed = try SluiceCommand.run(arguments(schema, ["--resume", "--report", report]))
        #expect(resumed.status == 0, "attempt \(attempt): \(resumed.stderr)")
        finished = resumed.status == 0
      }
      #expect(try schema.rows(of: CheckpointCommandTests.tables) == expected, "attempt \(attempt)")
      let store = try schema.connect()
      #expect(try store.scalarInt("SELECT count(*) FROM sluice_checkpoints") == 0, "attempt \(attempt)")
      #expect(try store.scalarInt("SELECT count(*) FROM sluice_inputs") == 1, "attempt \(attempt)")
      #expect(try counts(report) == counts(plain), "attempt \(attempt)")
    }
  }

  /// The server ends the run's connection mid-chunk (`pg_terminate_backend`, once two chunks are
  /// committed): the run fails with 74, the chunk in flight is rolled back, the committed ones
  /// stay with their checkpoint, and the resume ends with the uninterrupted run's rows.
  @Test func aConnectionKilledMidChunkLeavesTheRunResumable() throws {
    let tests = try CheckpointCommandTests()
    try tests.input(count: 6_000)
    let spec = try tests.spec()
    let reference = PostgreSQLSchema()
    let chunked = PostgreSQLSchema()
    #expect(
      try SluiceCommand.run(["run", spec, "--db", reference.url, "--db-schema", reference.name]).status == 0)
    let (terminated, status) = try CheckpointCommandTests.runEndedBySessionAfterTwoChunks(
      ["run", spec, "--checkpoint-every", "300"], into: chunked)
    try #require(terminated, "the run ended before its second chunk could be interrupted")
    #expect(status == 74)
    let store = try chunked.connect()
    let committed = try store.scalarInt("SELECT count(*) FROM orders") ?? 0
    #expect(committed > 0 && committed < 5_980, "\(committed) orders committed")
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_checkpoints") == 1)
    let resumed = try SluiceCommand.run(["run", spec, "--db", chunked.url, "--db-schema", chunked.name, "--resume"])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(try chunked.rows(of: CheckpointCommandTests.tables) == reference.rows(of: CheckpointCommandTests.tables))
  }
}

extension CheckpointCommandTests {
  /// Records (reader results) the default input holds: 1,800 orders, 2 broken lines, 1 repeat.
  static let recordsPerRun = 1_803
}

/// Staged runs (`--stage`): checkpointed into a side database readers never see, published in
/// one transaction — killed anywhere, the target is exactly as it was until the publication,
/// and the resume publishes exactly the uninterrupted run.
@Suite("Staged runs: resumable and all-or-nothing", .tags(.slow))
struct StagedRunCommandTests {
  let tests: CheckpointCommandTests

  init() throws { tests = try CheckpointCommandTests() }

  var scratch: TemporaryDirectory { tests.scratch }

  /// The target's rows and audit, read as the next run would open it (a hot journal left by a
  /// kill is rolled back first).
  func state(_ database: String) throws -> String {
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: false, create: false))
    let runs = try connection.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'succeeded'") ?? -1
    let inputs = try connection.scalarInt("SELECT count(*) FROM sluice_inputs") ?? -1
    return "\(try TableRows(sqlite: database, tables: CheckpointCommandTests.tables)) runs \(runs) inputs \(inputs)"
  }

  @Test func aStagedRunKilledAnywhereLeavesTheTargetAsItWasAndItsResumePublishesIt() throws {
    try tests.input()
    let spec = try tests.spec()
    // The target holds an earlier load of the first 600 orders; tonight's run loads all.
    let earlier = try scratch.write(
      "earlier.ndjson",
      try String(contentsOfFile: scratch.file("orders.ndjson"), encoding: .utf8).split(separator: "\n").prefix(600)
        .joined(separator: "\n") + "\n")
    let template = scratch.file("template.sqlite")
    #expect(try SluiceCommand.run(["run", spec, "--db", template, "--input", earlier]).status == 0)
    let old = try state(template)
    let reference = scratch.file("reference.sqlite")
    try FileManager.default.copyItem(atPath: template, toPath: reference)
    #expect(try SluiceCommand.run(["run", spec, "--db", reference]).status == 0)
    let new = try state(reference)
    #expect(new != old)

    // Just after the copy (nothing committed: the resume stages afresh), after chunks, inside
    // the publication.
    let points: [[String]] = [
      ["--test-kill-at", "chunk-0"], ["--test-kill-at", "chunk-1"], ["--test-kill-at", "chunk-3"],
      ["--test-kill-at", "publish"],
    ]
    for (index, point) in points.enumerated() {
      let database = scratch.file("staged-\(index).sqlite")
      try FileManager.default.copyItem(atPath: template, toPath: database)
      let killed = try SluiceBinary.run(
        ["run", spec, "--db", database, "--stage", "--checkpoint-every", "300"] + point)
      #expect(killed.status == SIGKILL, "\(point): \(killed.stderr)")
      #expect(try state(database) == old, "\(point): the target changed before the publication")
      #expect(FileManager.default.fileExists(atPath: database + ".sluice-stage"))
      let runs = try SluiceCommand.run(["runs", database])
      #expect(runs.status == 0)
      #expect(runs.stderr.contains("a staged run into \(database) is unfinished"), "\(point): \(runs.stderr)")
      let resumed = try SluiceCommand.run(["run", spec, "--db", database, "--stage", "--resume"])
      #expect(resumed.status == 0, "\(point): \(resumed.stderr)")
      #expect(try state(database) == new, "\(point)")
      #expect(!FileManager.default.fileExists(atPath: database + ".sluice-stage"))
    }

    // And at random moments: whatever the kill hit — the copy, a chunk, the publication, or
    // nothing — the target is the old state or the new one, and resuming (or, when nothing was
    // staged yet, starting over) ends in the new one.
    // Launched, as the killed runs are: its time, start-up included, spreads their kills.
    let started = Date()
    #expect(try SluiceBinary.run(["run", spec, "--db", scratch.file("timing.sqlite"), "--stage"]).status == 0)
    let duration = Date().timeIntervalSince(started)
    for attempt in 0..<8 {
      let database = scratch.file("random-\(attempt).sqlite")
      try FileManager.default.copyItem(atPath: template, toPath: database)
      let process = try SluiceBinary.start(["run", spec, "--db", database, "--stage", "--checkpoint-every", "300"])
      usleep(useconds_t(Double.random(in: 0.01...max(duration, 0.05)) * 1_000_000))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let now = try state(database)
      #expect(now == old || now == new, "attempt \(attempt): a mixed state")
      if FileManager.default.fileExists(atPath: database + ".sluice-stage") {
        let resumed = try SluiceCommand.run(["run", spec, "--db", database, "--stage", "--resume"])
        #expect(resumed.status == 0, "attempt \(attempt): \(resumed.stderr)")
      } else if now == old {
        #expect(try SluiceCommand.run(["run", spec, "--db", database, "--stage"]).status == 0)
      }
      #expect(try state(database) == new, "attempt \(attempt)")
    }
  }

  /// A disk that fills while the run is staged (a 512 KiB file-size limit, as `ulimit -f` sets
  /// it, which the side database outgrows): the run fails, the target is exactly as it was, and
  /// the staging resumes once there is room.
  @Test func aFullDiskWhileStagedLeavesTheTargetAsItWasAndTheStagingResumable() throws {
    try tests.input(count: 5_000)
    let spec = try tests.spec()
    let template = scratch.file("template.sqlite")
    #expect(try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", template]).status == 0)
    let old = try Data(contentsOf: URL(fileURLWithPath: template))
    let reference = scratch.file("reference.sqlite")
    try FileManager.default.copyItem(atPath: template, toPath: reference)
    #expect(try SluiceCommand.run(["run", spec, "--db", reference]).status == 0)
    let database = scratch.file("full.sqlite")
    try FileManager.default.copyItem(atPath: template, toPath: database)
    let arguments = ["run", spec, "--db", database, "--stage", "--checkpoint-every", "300"]
    let full = try SluiceBinary.shell(
      #"ulimit -f 512; "$SLUICE" \#(arguments.map { "'\($0)'" }.joined(separator: " "))"#)
    #expect(full.status == 74, "\(full.stderr)")
    #expect(full.stderr.contains("full") || full.stderr.contains("too large"), "\(full.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == old, "the target changed")
    #expect(FileManager.default.fileExists(atPath: database + ".sluice-stage"))
    let resumed = try SluiceCommand.run(["run", spec, "--db", database, "--stage", "--resume"])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(try state(database) == state(reference))
    #expect(!FileManager.default.fileExists(atPath: database + ".sluice-stage"))
  }

  /// Killed after the publication, before the outputs were renamed into place: the target
  /// holds the run and its finished checkpoint; `--stage --resume` puts the outputs in place.
  @Test func aStagedRunKilledAfterItsPublicationHasItsOutputsPutInPlaceByTheResume() throws {
    try tests.input()
    let spec = try tests.spec()
    let expected = try tests.reference(spec)
    let database = scratch.file("staged.sqlite")
    let killed = try SluiceBinary.run(
      tests.arguments(spec, "staged", ["--stage", "--checkpoint-every", "300", "--test-kill-at", "finished"]))
    #expect(killed.status == SIGKILL, "\(killed.stderr)")
    #expect(!FileManager.default.fileExists(atPath: database + ".sluice-stage"))
    #expect(try state(database) == state(scratch.file("reference.sqlite")))
    let resumed = try SluiceCommand.run(tests.arguments(spec, "staged", ["--stage", "--resume"]))
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let result = try tests.outcome(
      database: database, report: scratch.file("staged.json"), rejects: scratch.file("staged-rejects.ndjson"))
    #expect(result == expected)
    #expect(try tests.checkpoints(database) == 0)
    // Resumed once more, there is nothing left to resume: the resume stages and publishes the
    // run again (tomorrow night's, with the same command), and says so.
    let again = try SluiceCommand.run(tests.arguments(spec, "staged", ["--stage", "--resume"]))
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("nothing to resume"), "\(again.stderr)")
    #expect(
      try tests.outcome(
        database: database, report: scratch.file("staged.json"), rejects: scratch.file("staged-rejects.ndjson")
      ).rows
        == expected.rows)
  }

  /// Killed inside the publication: the resume publishes, with the rejects and report of the
  /// run as it was staged.
  @Test func aStagedRunKilledInItsPublicationEndsWithTheUninterruptedRunsOutputs() throws {
    try tests.input()
    let spec = try tests.spec()
    let expected = try tests.reference(spec)
    let killed = try SluiceBinary.run(
      tests.arguments(spec, "staged", ["--stage", "--checkpoint-every", "300", "--test-kill-at", "publish"]))
    #expect(killed.status == SIGKILL, "\(killed.stderr)")
    let resumed = try SluiceCommand.run(tests.arguments(spec, "staged", ["--stage", "--resume"]))
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let result = try tests.outcome(
      database: scratch.file("staged.sqlite"), report: scratch.file("staged.json"),
      rejects: scratch.file("staged-rejects.ndjson"))
    #expect(result == expected)
  }

  @Test func aFirstStagedLoadIsPublishedByARenameAndLeavesNoTargetUntilThen() throws {
    try tests.input()
    let spec = try tests.spec()
    let reference = scratch.file("reference.sqlite")
    #expect(try SluiceCommand.run(["run", spec, "--db", reference]).status == 0)
    let database = scratch.file("first.sqlite")
    let killed = try SluiceBinary.run([
      "run", spec, "--db", database, "--stage", "--checkpoint-every", "300", "--test-kill-at", "chunk-2",
    ])
    #expect(killed.status == SIGKILL)
    #expect(!FileManager.default.fileExists(atPath: database))
    let runs = try SluiceCommand.run(["runs", database])
    #expect(runs.status == 66)
    #expect(runs.stderr.contains("a staged run into \(database) is unfinished"), "\(runs.stderr)")
    #expect(runs.stderr.contains("--stage --resume"))
    let resumed = try SluiceCommand.run(["run", spec, "--db", database, "--stage", "--resume"])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(try state(database) == state(reference))
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
    #expect(try connection.columns(of: "sluice_stage") == nil)
    #expect(try connection.scalarInt("SELECT count(*) FROM sluice_checkpoints") == 0)
  }

  @Test func aTargetWrittenWhileStagedIsNotOverwritten() throws {
    try tests.input()
    let spec = try tests.spec()
    let database = scratch.file("target.sqlite")
    #expect(try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database]).status == 0)
    let killed = try SluiceBinary.run([
      "run", spec, "--db", database, "--stage", "--checkpoint-every", "300", "--test-kill-at", "chunk-1",
    ])
    #expect(killed.status == SIGKILL)
    // Another run writes to the target meanwhile.
    #expect(try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database]).status == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: database))
    let resumed = try SluiceCommand.run(["run", spec, "--db", database, "--stage", "--resume"])
    #expect(resumed.status == 65, "\(resumed.stderr)")
    #expect(resumed.stderr.contains("changed while the run was staged"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    let again = try SluiceCommand.run(["run", spec, "--db", database, "--stage", "--restart"])
    #expect(again.status == 0, "\(again.stderr)")
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
    #expect(try connection.scalarInt("SELECT count(*) FROM orders") == 1_792)  // 1,793 written, order 5 twice
    #expect(try connection.scalarInt("SELECT count(*) FROM fruits") ?? 0 > 0)
  }

  /// `--stage --resume` with no staging to go on from (killed before its copy was made, or
  /// nothing unfinished) stages and publishes the run, and says there was nothing to resume.
  @Test func aStagedResumeWithNothingToResumeStartsTheStagedRun() throws {
    try tests.input()
    let spec = try tests.spec()
    let expected = try tests.reference(spec)
    let started = try SluiceCommand.run(tests.arguments(spec, "nothing", ["--stage", "--resume"]))
    #expect(started.status == 0, "\(started.stderr)")
    #expect(started.stderr.contains("nothing to resume"), "\(started.stderr)")
    let database = scratch.file("nothing.sqlite")
    #expect(!FileManager.default.fileExists(atPath: database + ".sluice-stage"))
    let result = try tests.outcome(
      database: database, report: scratch.file("nothing.json"), rejects: scratch.file("nothing-rejects.ndjson"))
    #expect(result == expected)
  }
}

extension CheckpointCommandTests {
  /// Runs `arguments` in process — a checkpointed run, `--db` and `--db-schema` added for
  /// `schema` — and, once its second chunk has committed, ends its session as a server that
  /// stops does (`pg_terminate_backend`), so that the other tests using the server go on.
  /// Returns whether the session was ended before the run finished, and the run's exit status.
  static func runEndedBySessionAfterTwoChunks(_ arguments: [String], into schema: PostgreSQLSchema) throws -> (
    terminated: Bool, status: Int32
  ) {
    let application = "sluice_ck_" + UUID().uuidString.prefix(8).lowercased()
    let running = SluiceCommand.start(
      arguments + ["--db", schema.url + "&application_name=\(application)", "--db-schema", schema.name])
    let admin = try PostgreSQLServer.connect()
    var terminated = false
    let deadline = Date().addingTimeInterval(120)
    while running.isRunning && Date() < deadline {
      let chunks = try? admin.scalarInt(
        "SELECT chunk FROM \"\(schema.name)\".sluice_checkpoints WHERE pipeline = 'pipeline'")
      if let chunks, chunks >= 2 {
        terminated =
          (try admin.scalarInt(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(application)'")
            ?? 0) > 0
        break
      }
      usleep(2_000)
    }
    return (terminated, try running.finished().status)
  }
}
