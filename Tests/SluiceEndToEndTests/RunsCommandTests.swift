import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `sluice runs`: the history a database's audit tables keep, read back read-only.
@Suite("sluice runs, end to end")
struct RunsCommandTests {
  /// A database with three runs: 1 the clean fruits sample, 2 the lenient one with five
  /// rejects, 3 a strict run on the broken sample that failed.
  private func historyDatabase(in scratch: TemporaryDirectory) throws -> String {
    let database = scratch.file("history.sqlite")
    let runs: [([String], Int32)] = [
      (["run", "Pipelines/fruits.json"], 0),
      (["run", "Pipelines/fruits-lenient.json"], 0),
      (["run", "Pipelines/fruits.json", "--input", "SampleData/fruits-broken.ndjson.gz", "--format", "ndjson"], 65),
    ]
    for (number, (arguments, status)) in runs.enumerated() {
      let result = try SluiceCommand.run(arguments + ["--db", database, "--report", scratch.file("r\(number).json")])
      try #require(result.status == status, "\(result.stderr)")
    }
    return database
  }

  private func execute(_ database: String, _ sql: String) throws {
    try SQLiteConnection(path: database).execute(sql)
  }

  /// The whitespace-separated cells of a table line.
  private func cells(_ line: Substring) -> [Substring] {
    line.split(separator: " ", omittingEmptySubsequences: true)
  }

  @Test func listShowsEveryRunNewestFirstInAlignedColumns() throws {
    let scratch = try TemporaryDirectory()
    let database = try historyDatabase(in: scratch)
    let result = try SluiceCommand.run(["runs", database])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    try #require(lines.count == 4, "\(result.stdout)")
    #expect(
      cells(lines[0]) == [
        "run", "pipeline", "mode", "started", "duration", "status", "read", "loaded", "rejected", "failure",
      ])
    #expect(Array(cells(lines[1]).prefix(2)) == ["3", "fruits"])
    #expect(Array(cells(lines[1])[5...8]) == ["failed", "5", "4", "1"])
    #expect(lines[1].contains("strict policy: decode rejected record 5 (line 5): color: typeMismatch"))
    #expect(Array(cells(lines[2])[0...1]) == ["2", "fruits-lenient"])
    #expect(Array(cells(lines[2])[5...]) == ["succeeded", "30", "25", "5"])
    #expect(Array(cells(lines[3])[0...1]) == ["1", "fruits"])
    #expect(Array(cells(lines[3])[5...]) == ["succeeded", "48", "48", "0"])
    // Text columns start, number columns end, at the same place on every line.
    let header = String(lines[0])
    for line in lines.dropFirst().map(String.init) {
      let status = try #require(line.range(of: line.contains("failed") ? "failed" : "succeeded"))
      #expect(
        line.distance(from: line.startIndex, to: status.lowerBound)
          == header.distance(from: header.startIndex, to: try #require(header.range(of: "status")).lowerBound))
      let rejectedEnd = header.distance(
        from: header.startIndex, to: try #require(header.range(of: "rejected")).upperBound)
      #expect(line.prefix(rejectedEnd).last?.isNumber == true, "\(line)")
    }
    let started = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(
      "SELECT started_at FROM sluice_runs WHERE run_id = 2")
    try #require(try started.step())
    #expect(lines[2].contains(try #require(started.columnText(0))))
  }

  @Test func lastLimitsTheListToTheNewestRuns() throws {
    let scratch = try TemporaryDirectory()
    let database = try historyDatabase(in: scratch)
    let result = try SluiceCommand.run(["runs", database, "--last", "1"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(cells(lines[1]).first == "3")
    let two = try SluiceCommand.run(["runs", "--last=2", database])
    #expect(two.stdout.split(separator: "\n").dropFirst().compactMap { cells($0).first } == ["3", "2"])
  }

  @Test func jsonListsEveryRunFieldByField() throws {
    let scratch = try TemporaryDirectory()
    let database = try historyDatabase(in: scratch)
    let result = try SluiceCommand.run(["runs", database, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let runs = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    try #require(runs.count == 3)
    #expect(runs.map { $0["runId"] as? Int } == [3, 2, 1])

    let failed = runs[0]
    #expect(failed["pipeline"] as? String == "fruits")
    #expect(failed["dataset"] as? String == "fruits")
    #expect(failed["mode"] as? String == "run")
    #expect(failed["policy"] as? String == "strict")
    #expect(failed["status"] as? String == "failed")
    #expect((failed["failure"] as? String)?.hasPrefix("strict policy: decode rejected record 5 (line 5)") == true)
    #expect(failed["recordsRead"] as? Int == 5)
    #expect(failed["recordsRejected"] as? Int == 1)
    #expect(failed["rowsWritten"] as? [String: Int] == [:])

    let lenient = runs[1]
    #expect(lenient["pipeline"] as? String == "fruits-lenient")
    #expect(lenient["policy"] as? String == "lenient")
    #expect(lenient["status"] as? String == "succeeded")
    #expect(lenient["failure"] is NSNull)
    #expect(lenient["input"] as? String == Repository.path("SampleData/fruits-broken.ndjson.gz"))
    #expect(lenient["recordsRead"] as? Int == 30)
    #expect(lenient["recordsLoaded"] as? Int == 25)
    #expect(lenient["recordsRejected"] as? Int == 5)
    #expect(lenient["warnings"] as? Int == 0)
    #expect(
      lenient["issueCounts"] as? [String: Int] == [
        "invalidValue": 2, "missingField": 1, "syntax": 1, "typeMismatch": 1,
      ])
    #expect(lenient["rowsWritten"] as? [String: Int] == ["fruits": 25, "recipes": 93])
    let stages = try #require(lenient["stages"] as? [[String: Any]])
    #expect(stages.map { $0["stage"] as? String } == ["read", "decode", "validate", "map", "load"])
    #expect(stages.map { $0["rejected"] as? Int } == [1, 2, 2, 0, 0])
    let started = try #require(lenient["startedAt"] as? String)
    let finished = try #require(lenient["finishedAt"] as? String)
    #expect(started.count == 24 && started.hasSuffix("Z"))
    #expect(started <= finished)
    #expect((lenient["durationSeconds"] as? Double ?? -1) >= 0)

    // What the JSON says is what sluice_runs holds.
    let row = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(
      "SELECT started_at, finished_at, records_loaded FROM sluice_runs WHERE run_id = 2")
    try #require(try row.step())
    #expect(row.columnText(0) == started)
    #expect(row.columnText(1) == finished)
    #expect(row.columnInt64(2) == 25)
    #expect(runs[2]["recordsLoaded"] as? Int == 48)
  }

  @Test func oneRunListsItsIssuesByStageCodeAndPathWithoutValues() throws {
    let scratch = try TemporaryDirectory()
    let database = try historyDatabase(in: scratch)
    let result = try SluiceCommand.run(["runs", database, "2"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("run 2: fruits-lenient (fruits, lenient) succeeded in "))
    #expect(result.stdout.contains("  records:   30 read, 25 loaded, 5 rejected, 0 warning(s)\n"))
    #expect(result.stdout.contains("  rows written: fruits 25, recipes 93\n"))
    #expect(result.stdout.contains("  issues: 5 — invalidValue 2, missingField 1, syntax 1, typeMismatch 1\n"))
    let lines = result.stdout.split(separator: "\n")
    let header = try #require(lines.firstIndex { cells($0) == ["stage", "severity", "code", "path", "count"] })
    #expect(
      lines[(header + 1)...].prefix(5).map { cells($0) } == [
        ["read", "error", "syntax", "-", "1"],
        ["decode", "error", "missingField", "name", "1"],
        ["decode", "error", "typeMismatch", "color", "1"],
        ["validate", "error", "invalidValue", "recipes[1].title", "1"],
        ["validate", "error", "invalidValue", "recipes[1].videoTutorial", "1"],
      ])
    // Then its input, from the input ledger: loaded, its counts, its size and SHA-256.
    let broken = Repository.path("SampleData/fruits-broken.ndjson.gz")
    let size = try #require(try FileManager.default.attributesOfItem(atPath: broken)[.size] as? Int)
    let ledger = lines[(header + 6)...].map { cells($0) }
    #expect(ledger.first == ["inputs", "(sluice_inputs):", "1:"])
    #expect(ledger.dropFirst(2).first.map { Array($0.prefix(7)) } == ["1", "loaded", "30", "25", "5", "0", "\(size)"])
    #expect(ledger.dropFirst(2).first?.last.map(String.init) == broken)
    // The broken records' values (record 5 is the mango whose color is 7) stay in the dump.
    #expect(!result.stdout.contains("Mango"))
    #expect(!result.stdout.contains("F0000005"))
    #expect(!result.stdout.contains("sluice_rejects keeps"))

    let failed = try SluiceCommand.run(["runs", database, "3"])
    #expect(failed.status == 0)
    #expect(failed.stdout.contains("run 3: fruits (fruits, strict) failed in "))
    #expect(failed.stdout.contains("  reason:    strict policy: decode rejected record 5 (line 5)"))
    #expect(failed.stdout.contains("  rows written: none\n"))
  }

  @Test func oneRunAsJSONHasTheRunAndItsIssueGroups() throws {
    let scratch = try TemporaryDirectory()
    let database = try historyDatabase(in: scratch)
    let result = try SluiceCommand.run(["runs", database, "2", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    let run = try #require(object["run"] as? [String: Any])
    #expect(run["runId"] as? Int == 2)
    #expect(run["recordsRejected"] as? Int == 5)
    let issues = try #require(object["issues"] as? [[String: Any]])
    #expect(
      issues.map { "\($0["stage"] ?? "") \($0["code"] ?? "") \($0["path"] ?? "") \($0["count"] ?? "")" } == [
        "read syntax  1", "decode missingField name 1", "decode typeMismatch color 1",
        "validate invalidValue recipes[1].title 1", "validate invalidValue recipes[1].videoTutorial 1",
      ])
    #expect(issues.allSatisfy { $0["severity"] as? String == "error" })
  }

  /// A run of a glob of many files: its view lists the first inputs as a run report does and
  /// sums the rest, in JSON and as text (a run of 100k files made a 60 MB JSON and took 379 MB
  /// to print it; issue 38, finding 11c). The run's own counts still cover every input.
  @Test func oneRunOfManyFilesListsTheFirstInputsAndSumsTheRest() throws {
    let scratch = try TemporaryDirectory()
    let count = RunReport.inputSectionLimit + 1_000
    try FileManager.default.createDirectory(atPath: scratch.file("drops"), withIntermediateDirectories: true)
    for index in 0..<count {
      _ = try scratch.write(
        String(format: "drops/%05d.ndjson", index),
        #"{"fruitID":"F\#(index)","name":"N","color":"red","recipes":[]}"# + "\n")
    }
    let database = scratch.file("d.sqlite")
    let spec = try scratch.write(
      "spec.json", #"{"dataset": "fruits", "input": "drops/*.ndjson", "format": "ndjson", "database": "d.sqlite"}"#)
    let run = try SluiceCommand.run(["run", spec, "--no-progress"])
    try #require(run.status == 0, "\(run.stderr)")

    let json = try SluiceCommand.run(["runs", database, "1", "--json"])
    #expect(json.status == 0, "\(json.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let inputs = try #require(object["inputs"] as? [[String: Any]])
    #expect(inputs.count == RunReport.inputSectionLimit)
    #expect(inputs.first?["path"] as? String == scratch.file("drops/00000.ndjson"))
    #expect(inputs.last?["position"] as? Int == RunReport.inputSectionLimit - 1)
    let omitted = try #require(object["inputsOmitted"] as? [String: Any], "\(object.keys)")
    #expect(omitted["count"] as? Int == 1_000)
    #expect(omitted["recordsRead"] as? Int == 1_000 && omitted["recordsLoaded"] as? Int == 1_000)
    #expect(omitted["skipped"] as? Int == 0)
    #expect((omitted["bytes"] as? Int ?? 0) > 0)
    #expect((object["run"] as? [String: Any])?["recordsLoaded"] as? Int == count)
    #expect(json.stdout.utf8.count < 1_500_000, "\(json.stdout.utf8.count) bytes")

    let text = try SluiceCommand.run(["runs", database, "1"])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(
      text.stdout.contains("  inputs (sluice_inputs): \(count), the first \(RunReport.inputSectionLimit) listed:\n"))
    #expect(
      text.stdout.contains("    … 1000 more: 1000 read, 1000 loaded, 0 rejected, 0 skipped"),
      "\(text.stdout.suffix(500))")
    #expect(!text.stdout.contains("drops/01000.ndjson"))
    #expect(text.stdout.contains("drops/00999.ndjson"))
  }

  @Test func aRunWhoseIssuesWereSampledSaysHowManyAreKept() throws {
    let scratch = try TemporaryDirectory()
    let database = try historyDatabase(in: scratch)
    // As if run 2 had counted 250 typeMismatch issues and kept the first one.
    try execute(
      database,
      #"UPDATE sluice_runs SET issue_counts = '{"invalidValue":2,"missingField":1,"syntax":1,"typeMismatch":250}' WHERE run_id = 2"#
    )
    let result = try SluiceCommand.run(["runs", database, "2"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("  issues: 254 — typeMismatch 250, invalidValue 2, missingField 1, syntax 1\n"))
    #expect(result.stdout.contains("  sluice_rejects keeps the first issues of each code: typeMismatch 1 of 250\n"))
  }

  @Test func readingTheHistoryChangesNothing() throws {
    let scratch = try TemporaryDirectory()
    let database = try historyDatabase(in: scratch)
    let before = try Data(contentsOf: URL(fileURLWithPath: database))
    for arguments in [["runs", database], ["runs", database, "2", "--json"], ["runs", database, "99"]] {
      _ = try SluiceCommand.run(arguments)
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix("history.sqlite") } == [
        "history.sqlite"
      ])
  }

  /// Leaves a hot rollback journal beside `database`, as a process killed mid-transaction does:
  /// python3's sqlite3 begins a big transaction with an 8-page cache, so changed pages spill into
  /// the database file before the commit (renaming every run's pipeline `crashed` on the way), and is then
  /// SIGKILLed.
  static func leaveHotJournal(_ database: String, scratch: TemporaryDirectory) throws {
    let script = try scratch.write(
      "crash.py",
      """
      import os, signal, sqlite3, sys
      connection = sqlite3.connect(sys.argv[1], isolation_level=None)
      connection.execute("PRAGMA cache_size = 8")
      connection.execute("BEGIN")
      connection.execute("UPDATE sluice_runs SET pipeline = 'crashed'")
      connection.execute("CREATE TABLE crashed (payload BLOB)")
      for _ in range(2000):
          connection.execute("INSERT INTO crashed VALUES (randomblob(2000))")
      os.kill(os.getpid(), signal.SIGKILL)

      """)
    let before = try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int ?? 0
    let crashed = try Tool.shell("exec python3 '\(script)' '\(database)'")
    try #require(crashed.status == SIGKILL, "\(crashed.stderr)")
    // Hot: the journal is there, not empty, begins with a rollback journal's magic number, and
    // the process that wrote it is gone; pages of the transaction are in the database file.
    let journal = try Data(contentsOf: URL(fileURLWithPath: database + "-journal"))
    try #require(journal.starts(with: [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]))
    let after = try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int ?? 0
    try #require(after > before + 1_000_000, "no page spilled into the database (\(before) → \(after) bytes)")
  }

  /// After a crash, `sluice runs` is the first thing an operator runs: a hot journal is rolled
  /// back (as the next writer would) and said so, and the history is the committed one.
  @Test func aHotJournalACrashLeftIsRolledBackAndTheHistoryRead() throws {
    let scratch = try TemporaryDirectory()
    let database = try historyDatabase(in: scratch)
    try Self.leaveHotJournal(database, scratch: scratch)
    let result = try SluiceCommand.run(["runs", database])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stderr.contains("SQLite error"), "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "a transaction left unfinished by a process that crashed (its hot journal \(database)-journal) was found and rolled back"
      ), "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == 4, "\(result.stdout)")
    #expect(lines.dropFirst().map { cells($0)[1] } == ["fruits", "fruits-lenient", "fruits"], "\(result.stdout)")
    #expect(!FileManager.default.fileExists(atPath: database + "-journal"))
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
    #expect(try connection.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'crashed'") == 0)
    let check = try connection.prepare("PRAGMA integrity_check")
    _ = try check.step()
    #expect(check.columnText(0) == "ok")
  }

  @Test func aMissingDatabaseExits66AndIsNotCreated() throws {
    let scratch = try TemporaryDirectory()
    let missing = scratch.file("nightly.sqlite")
    let result = try SluiceCommand.run(["runs", missing])
    #expect(result.status == 66)
    #expect(result.stderr == "sluice: \(missing): no such file\n")
    #expect(result.stdout.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: missing))
  }

  @Test func aDatabaseWithoutHistoryExits66() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("other.sqlite")
    try execute(database, "CREATE TABLE notes (body TEXT)")
    let result = try SluiceCommand.run(["runs", database])
    #expect(result.status == 66)
    #expect(result.stderr.contains("\(database): no run history (no sluice_runs table)"), "\(result.stderr)")
  }

  @Test func anUnknownRunExits66NamingTheRunsThereAre() throws {
    let scratch = try TemporaryDirectory()
    let database = try historyDatabase(in: scratch)
    let result = try SluiceCommand.run(["runs", database, "7"])
    #expect(result.status == 66)
    #expect(result.stderr.contains("\(database): no run 7 (its runs are 1…3)"), "\(result.stderr)")
    #expect(result.stdout.isEmpty)
  }

  @Test func aFileThatIsNotADatabaseExits65() throws {
    let scratch = try TemporaryDirectory()
    let text = try scratch.write("notes.sqlite", String(repeating: "not a database\n", count: 100))
    let result = try SluiceCommand.run(["runs", text])
    #expect(result.status == 65)
    #expect(result.stderr.contains("\(text): not a SQLite database"), "\(result.stderr)")
  }

  @Test func anAuditRowSluiceDidNotWriteExits65() throws {
    let scratch = try TemporaryDirectory()
    let database = try historyDatabase(in: scratch)
    try execute(database, "UPDATE sluice_runs SET stages = 'by hand' WHERE run_id = 1")
    let result = try SluiceCommand.run(["runs", database])
    #expect(result.status == 65)
    #expect(result.stderr.contains("run 1: stages is not what Sluice writes"), "\(result.stderr)")
  }

  @Test(arguments: [
    (["runs"], "missing the database (sluice runs DB)"),
    (["runs", "x.sqlite", "--last", "0"], "--last must be a whole number of runs, 1 or more, not '0'"),
    (["runs", "x.sqlite", "--last", "many"], "--last must be a whole number of runs, 1 or more, not 'many'"),
    (["runs", "x.sqlite", "two"], "RUN_ID must be a run's number"),
    (["runs", "x.sqlite", "2", "--last", "3"], "--last counts recent runs; with RUN_ID (2) there is one run to show"),
    (["runs", "x.sqlite", "1", "2"], "expected a database and at most one run id, got 3 arguments"),
    (["runs", "x.sqlite", "--csv"], "unknown option --csv"),
  ])
  func usageErrorsExit64(arguments: [String], expected: String) throws {
    let result = try SluiceCommand.run(arguments)
    #expect(result.status == 64)
    #expect(result.stderr.contains(expected), "\(result.stderr)")
    #expect(result.stderr.contains("Run 'sluice runs --help' for usage."))
  }

  @Test func helpListsTheRunsCommand() throws {
    let top = try SluiceCommand.run(["--help"])
    #expect(top.stdout.contains("sluice runs DB [RUN_ID] [--last N] [--json]"))
    let runs = try SluiceCommand.run(["runs", "--help"])
    #expect(runs.status == 0)
    #expect(runs.stdout.contains("USAGE: sluice runs DB [--last N] [--json]"))
    #expect(runs.stdout.contains("--last N"))
  }
}
