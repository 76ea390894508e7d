import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 21 (“Hardening, round two”), the findings about the files a run touches, on the real
/// binary: outputs that would replace the database or an input (3), patterns hidden by a file
/// (5), named pipes (8), escape sequences in what is printed (9), and the smaller ones (10).
@Suite("Hardening, round two: paths, pipes and terminals")
struct HardeningPathsTests {
  private static let fruit = #"{"fruitID":"F1","name":"Apple","color":"red","recipes":[]}"#

  private func fruits(_ count: Int, from first: Int = 1) -> String {
    (first..<(first + count)).map { #"{"fruitID":"F\#($0)","name":"N\#($0)","color":"red","recipes":[]}"# }
      .joined(separator: "\n") + "\n"
  }

  private func rows(_ database: String, _ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var result: [String] = []
    while try statement.step() { result.append(statement.columnText(0) ?? "NULL") }
    return result
  }

  private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  /// A committed database of one fruit, its bytes, and an input file of one more.
  private func committedDatabase(in scratch: TemporaryDirectory) throws -> (
    database: String, input: String, before: Data
  ) {
    let database = scratch.file("nightly.sqlite")
    let first = try scratch.write("first.ndjson", fruits(1))
    let loaded = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", first, "--format", "ndjson", "--db", database,
    ])
    #expect(loaded.status == 0, "\(loaded.stderr)")
    let input = try scratch.write("tonight.ndjson", fruits(1, from: 2))
    return (database, input, try #require(bytes(database)))
  }

  // MARK: Finding 3 — outputs over the database, an input or each other

  @Test(arguments: [
    ["--report", "nightly.sqlite"], ["--rejects", "nightly.sqlite"], ["--html", "./nightly.sqlite"],
    ["--junit", "nightly.sqlite-journal"], ["--report", "nightly.sqlite-wal"], ["--report", "link-to-db"],
    ["--rejects", "tonight.ndjson"], ["--report", "same.json", "--html", "same.json"],
    ["--junit", "same.xml", "--rejects", "sub/../same.xml"],
  ])
  func anOutputThatIsTheDatabaseAnInputOrAnotherOutputIsRefusedBeforeAnythingIsOpened(_ outputs: [String]) throws {
    let scratch = try TemporaryDirectory()
    let (database, input, before) = try committedDatabase(in: scratch)
    try FileManager.default.createSymbolicLink(atPath: scratch.file("link-to-db"), withDestinationPath: database)
    try FileManager.default.createDirectory(atPath: scratch.file("sub"), withIntermediateDirectories: true)
    let inputBefore = try #require(bytes(input))
    let result = try SluiceCommand.run(
      ["run", "Pipelines/fruits.json", "--input", input, "--format", "ndjson", "--db", database]
        + outputs.enumerated().map { $0.offset % 2 == 0 ? $0.element : scratch.file($0.element) })
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("is the same file as the"), "\(result.stderr)")
    #expect(result.stderr.contains("a path of its own"), "\(result.stderr)")
    // Nothing was opened: the database, the input, and no temporary output beside them.
    #expect(bytes(database) == before)
    #expect(bytes(input) == inputBefore)
    let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".sluice-") }
    #expect(left.isEmpty, "\(left)")
    #expect(try rows(database, "SELECT count(*) FROM sluice_runs") == ["1"])
  }

  @Test func aSpecWhoseReportIsItsDatabaseIsRefused() throws {
    let scratch = try TemporaryDirectory()
    let (database, input, before) = try committedDatabase(in: scratch)
    let spec = try scratch.write(
      "spec.json",
      #"{"dataset": "fruits", "input": "tonight.ndjson", "format": "ndjson", "database": "nightly.sqlite", "report": "nightly.sqlite"}"#
    )
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("the report \(database) is the same file as the database"), "\(result.stderr)")
    #expect(bytes(database) == before)
    #expect(!input.isEmpty)
  }

  /// `-` is standard input. As a database or an output it crashed the binary (Foundation traps
  /// on a one-character path's last component); it is a usage error naming what to give instead,
  /// before anything is opened, and no file named `-` appears.
  @Test(arguments: [
    (["--db", "-"], "--db is not a SQLite database file name it can use: '-' is standard input"),
    (["--report", "-"], "the report cannot be '-': '-' is standard input"),
    (["--junit", "-"], "the JUnit file cannot be '-'"), (["--html", "-"], "the HTML report cannot be '-'"),
    (["--rejects", "-"], "the rejects file cannot be '-'"),
  ])
  func standardInputAsADatabaseOrAnOutputIsAUsageError(_ options: [String], message: String) throws {
    let scratch = try TemporaryDirectory()
    let (database, input, before) = try committedDatabase(in: scratch)
    let arguments = ["run", Repository.path("Pipelines/fruits.json"), "--input", input, "--format", "ndjson"]
    let result = try SluiceCommand.run(
      arguments + (options.first == "--db" ? options : ["--db", database] + options), in: scratch.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(!result.stderr.contains("crashed"))
    #expect(bytes(database) == before)
    #expect(!FileManager.default.fileExists(atPath: scratch.file("-")))
  }

  @Test func aSpecWhoseDatabaseIsStandardInputIsRefused() throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write(
      "spec.json", #"{"dataset": "fruits", "input": "tonight.ndjson", "format": "ndjson", "database": "-"}"#)
    let result = try SluiceCommand.run(["run", spec], in: scratch.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("'database' is not a SQLite database file name it can use: '-' is standard input"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["spec.json"])
  }

  @Test func outputsToCharacterDevicesMayShareOne() throws {
    let scratch = try TemporaryDirectory()
    let (database, input, _) = try committedDatabase(in: scratch)
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", input, "--format", "ndjson", "--db", database,
      "--report", "/dev/null", "--html", "/dev/null", "--junit", "/dev/null",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try rows(database, "SELECT count(*) FROM fruits") == ["2"])
  }

  // MARK: Finding 5 — a pattern is a pattern

  @Test func aFolderNamedLikeThePatternIsOneMatchAmongTheOthers() throws {
    let scratch = try TemporaryDirectory()
    for (folder, first) in [("*", 1), ("general", 3), ("random", 5)] {
      try FileManager.default.createDirectory(
        atPath: scratch.file("export/\(folder)"), withIntermediateDirectories: true)
      _ = try scratch.write("export/\(folder)/day.ndjson", fruits(2, from: first))
    }
    _ = try scratch.write("export/*.ndjson", fruits(1, from: 7))  // a file named like the pattern
    let spec = try scratch.write(
      "spec.json", #"{"dataset": "fruits", "input": "export/*/*.ndjson", "format": "ndjson", "database": "d.sqlite"}"#)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try rows(scratch.file("d.sqlite"), "SELECT count(*) FROM fruits") == ["6"])
    let flat = try scratch.write(
      "flat.json", #"{"dataset": "fruits", "input": "export/*.ndjson", "format": "ndjson", "database": "e.sqlite"}"#)
    let matched = try SluiceCommand.run(["run", flat])
    #expect(matched.status == 0, "\(matched.stderr)")
    #expect(try rows(scratch.file("e.sqlite"), "SELECT count(*) FROM fruits") == ["1"])
  }

  @Test func aFileNameWithPatternCharactersIsWrittenEscaped() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("general [1100].ndjson", fruits(2))
    _ = try scratch.write("general 1.ndjson", fruits(3, from: 10))  // what the bracket pattern matches
    let escaped = try scratch.write(
      "escaped.json",
      #"{"dataset": "fruits", "input": "general \\[1100\\].ndjson", "format": "ndjson", "database": "a.sqlite"}"#)
    let literal = try SluiceCommand.run(["run", escaped])
    #expect(literal.status == 0, "\(literal.stderr)")
    #expect(try rows(scratch.file("a.sqlite"), "SELECT group_concat(fruit_id) FROM fruits") == ["F1,F2"])
    // Unescaped, the brackets are a pattern: it matches `general 1.ndjson` and only that.
    let pattern = try scratch.write(
      "pattern.json",
      #"{"dataset": "fruits", "input": "general [1100].ndjson", "format": "ndjson", "database": "b.sqlite"}"#)
    let matched = try SluiceCommand.run(["run", pattern])
    #expect(matched.status == 0, "\(matched.stderr)")
    #expect(try rows(scratch.file("b.sqlite"), "SELECT count(*) FROM fruits") == ["3"])
  }

  @Test func aPatternThatMatchesNothingFailsEvenWhenAFileOfThatNameExists() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("report [2024].ndjson", fruits(2))
    let spec = try scratch.write(
      "spec.json",
      #"{"dataset": "fruits", "input": "report [2024].ndjson", "format": "ndjson", "database": "d.sqlite"}"#)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 66, "\(result.stderr)")
    #expect(result.stderr.contains("no file matches this pattern"), "\(result.stderr)")
    #expect(result.stderr.contains("a file of that very name exists"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("d.sqlite")))
  }

  // MARK: Finding 8 — named pipes

  @Test func aFIFOInputIsOpenedOnceAndReadWhole() throws {
    let scratch = try TemporaryDirectory()
    let source = try scratch.write("fruits.ndjson", fruits(500))
    for attempt in 1...6 {
      let database = scratch.file("fifo-\(attempt).sqlite")
      let fifo = scratch.file("in-\(attempt).fifo")
      #expect(mkfifo(fifo, 0o600) == 0)
      let writer = try Tool.background(
        #"cat '\#(source)' > '\#(fifo)'; echo "writer $?" > '\#(scratch.file("writer-\(attempt)"))'"#)
      let result = try SluiceCommand.start([
        "run", "Pipelines/fruits.json", "--input", fifo, "--format", "ndjson", "--db", database,
      ]).finished(within: 60)
      Tool.end(writer)
      #expect(result.status == 0, "attempt \(attempt): \(result.stderr)")
      #expect(try rows(database, "SELECT count(*) FROM fruits") == ["500"], "attempt \(attempt)")
      #expect(
        (try? String(contentsOfFile: scratch.file("writer-\(attempt)"), encoding: .utf8)) == "writer 0\n",
        "attempt \(attempt): the writer was cut off")
    }
  }

  @Test func aReportFIFOWithoutAReaderFailsBeforeTheDatabaseIsOpened() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("d.sqlite")
    #expect(mkfifo(scratch.file("report.fifo"), 0o600) == 0)
    let result = try SluiceCommand.start([
      "run", "Pipelines/fruits.json", "--db", database, "--report", scratch.file("report.fifo"), "--busy-timeout", "1",
    ]).finished(within: 60)
    #expect(result.status == 73, "\(result.stderr)")
    #expect(result.stderr.contains("no process opened this FIFO for reading within 1 s"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: database))
  }

  @Test func aReportFIFOWhoseReaderComesLateGetsTheReport() throws {
    let scratch = try TemporaryDirectory()
    let fifo = scratch.file("report.fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    let reader = try Tool.background("sleep 0.5; cat '\(fifo)' > '\(scratch.file("received.json"))'")
    let result = try SluiceCommand.start([
      "run", "Pipelines/fruits.json", "--db", scratch.file("d.sqlite"), "--report", fifo,
    ]).finished(within: 60)
    Tool.end(reader)
    #expect(result.status == 0, "\(result.stderr)")
    let report = try RunReport.decode(from: try #require(bytes(scratch.file("received.json"))))
    #expect(report.committed)
  }

  @Test func inspectRefusesAPipeItWouldReadOnlyOnce() throws {
    // A pipe as `<(…)` hands one: /dev/fd/N. Its writing end stays open and empty: a read
    // would wait, never end.
    let pipe = Pipe()
    let result = try SluiceCommand.start(["inspect", "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)"])
      .finished(within: 60)
    withExtendedLifetime(pipe) {}
    #expect(result.status == 66, "\(result.stderr)")
    #expect(result.stderr.contains("is a pipe or FIFO, which can be read only once"), "\(result.stderr)")
    #expect(result.stdout.isEmpty)
  }

  // MARK: Finding 9 — escape sequences, newlines and bidi overrides are never printed raw

  @Test func keysWithControlAndBidiCharactersArePrintedEscaped() throws {
    let scratch = try TemporaryDirectory()
    let key = #"\u001b[2J\u001b[31mred\u202Efdp.exe\nsluice: forged line"#
    let input = try scratch.write(
      "evil.ndjson", #"{"fruitID":"F1","name":"A","color":"red","recipes":[],""# + key + #"":1}"# + "\n")
    let database = scratch.file("d.sqlite")
    let run = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", input, "--format", "ndjson", "--db", database,
    ])
    let runs = try SluiceCommand.run(["runs", database, "1"])
    let inspect = try SluiceCommand.run(["inspect", input, "--format", "ndjson"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(runs.status == 0 && inspect.status == 0, "\(runs.stderr)\(inspect.stderr)")
    for (name, text) in [("run", run.stderr), ("runs", runs.stdout), ("inspect", inspect.stdout)] {
      #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }, "\(name) printed a raw control")
      #expect(!text.contains("\nsluice: forged line"), "\(name) printed an injected line")
      #expect(text.contains(#"\u{1B}[2J\u{1B}[31mred\u{202E}fdp.exe\u{A}sluice: forged line"#), "\(name): \(text)")
    }
    // The JSON report keeps the key as it is: JSON has its own escaping.
  }

  // MARK: Finding 10 — the smaller ones

  @Test func theDriftSummaryKeepsBracketsThatAreNotIndexes() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write(
      "odd.ndjson", #"{"fruitID":"F1","name":"A","color":"red","recipes":[],"]]><x>":1,"q[a]":2}"# + "\n")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", input, "--format", "ndjson", "--db", scratch.file("d.sqlite"),
      "--report", scratch.file("r.json"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let report = try RunReport.decode(from: try #require(bytes(scratch.file("r.json"))))
    #expect(Set(report.drift.unknownFields.map(\.path)) == ["]]><x>", "q[a]"])
  }

  @Test func runsReadsAWALDatabaseInADirectoryItCannotWriteAndLeavesNoSideFiles() throws {
    guard getuid() == 0 else { return }  // needs another user to make a directory read-only to
    let scratch = try TemporaryDirectory()
    let folder = scratch.file("readonly")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let database = folder + "/history.sqlite"
    let loaded = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database])
    #expect(loaded.status == 0, "\(loaded.stderr)")
    try SQLiteConnection(path: database).execute("PRAGMA journal_mode = WAL")
    chmod(scratch.path, 0o755)
    chmod(folder, 0o555)
    chmod(database, 0o644)
    defer { chmod(folder, 0o755) }
    // The build folder may sit under a directory only root can enter (CI clones into a mktemp -d,
    // mode 0700): nobody runs a copy of the binary from the scratch folder it can reach.
    let binary = scratch.file("sluice")
    try FileManager.default.copyItem(atPath: SluiceBinary.path, toPath: binary)
    chmod(binary, 0o755)
    let asNobody = try SluiceBinary.shell(#"runuser -u nobody -- '\#(binary)' runs '\#(database)'"#, in: "/")
    #expect(asNobody.status == 0, "\(asNobody.stderr)")
    #expect(asNobody.stdout.contains("succeeded"))
    let asRoot = try SluiceCommand.run(["runs", database, "1"])
    #expect(asRoot.status == 0, "\(asRoot.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["history.sqlite"])
  }

  @Test func aDatabasePathThatIsNotARegularFileIsRefused() throws {
    let scratch = try TemporaryDirectory()
    // A private copy of /dev/null (makedev(1, 3)) as root; a FIFO otherwise.
    let device = scratch.file("null")
    let isDevice = mknod(device, S_IFCHR | 0o666, 0x103) == 0
    if !isDevice { mkfifo(device, 0o644) }
    let fifo = scratch.file("db.fifo")
    mkfifo(fifo, 0o644)
    for path in [device, fifo] {
      let result = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", path])
      #expect(result.status == 73, "\(path): \(result.stderr)")
      #expect(result.stderr.contains("not a database file"), "\(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
    }
  }

  @Test func aPathThroughALinkToItsOwnFolderResolvesAsTheKernelDoes() throws {
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("data"), withIntermediateDirectories: true)
    _ = try scratch.write("data/fruits.ndjson", fruits(3))
    try FileManager.default.createSymbolicLink(atPath: scratch.file("data/here"), withDestinationPath: ".")
    // data/here is data, so data/here/.. is the scratch folder, which holds data/fruits.ndjson.
    let result = try SluiceCommand.run(
      [
        "run", Repository.path("Pipelines/fruits.json"), "--input", "data/here/../data/fruits.ndjson", "--format",
        "ndjson",
        "--db", "d.sqlite",
      ],
      in: scratch.path)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try rows(scratch.file("d.sqlite"), "SELECT count(*) FROM fruits") == ["3"])
  }

  @Test func aGlobOfManyFilesKeepsItsReportBounded() throws {
    let scratch = try TemporaryDirectory()
    let count = RunReport.inputSectionLimit + 200
    try FileManager.default.createDirectory(atPath: scratch.file("drops"), withIntermediateDirectories: true)
    for index in 0..<count {
      _ = try scratch.write(String(format: "drops/%05d.ndjson", index), fruits(1, from: index))
    }
    _ = try scratch.write("drops/01100.ndjson", fruits(1, from: 90_000) + "not json\n")  // one rejected line
    let spec = try scratch.write(
      "spec.json",
      #"{"dataset": "fruits", "input": "drops/*.ndjson", "format": "ndjson", "database": "d.sqlite", "report": "r.json", "policy": "lenient"}"#
    )
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 0, "\(result.stderr)")
    let report = try RunReport.decode(from: try #require(bytes(scratch.file("r.json"))))
    #expect(report.inputs.count == RunReport.inputSectionLimit)
    let omitted = try #require(report.inputsOmitted)
    #expect(omitted.count == 200 && omitted.opened == 200)
    #expect(omitted.statistics(for: .read).recordsIn == 201)
    #expect(omitted.statistics(for: .read).rejected == 1)
    #expect(omitted.rowsWritten["fruits"] == 200)
    #expect(report.statistics(for: .read).recordsIn == count + 1)
    #expect(report.rowsWritten["fruits"] == count)
    #expect(report.input.path.hasSuffix(", … and \(count - RunReport.inputPathLimit) more"))
    #expect(report.input.path.count < 4_000)
    let inputLines = result.stderr.split(separator: "\n").filter {
      $0.hasPrefix("    ") && $0.dropFirst(4).first?.isNumber == true && $0.contains("drops/")
    }
    #expect(inputLines.count == 20, "\(inputLines.count)")
    #expect(result.stderr.contains("… \(count - 20) more: \(count - 20 + 1) read, 1 rejected, \(count - 20) loaded"))
    #expect(try rows(scratch.file("d.sqlite"), "SELECT count(*) FROM fruits") == ["\(count)"])
  }

  @Test func anEmptyNDJSONInputIsAnEmptyLoadAndAnEmptyJSONInputIsNotADocument() throws {
    let scratch = try TemporaryDirectory()
    let empty = try scratch.write("empty", "")
    let ndjson = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", empty, "--format", "ndjson", "--db", scratch.file("n.sqlite"),
    ])
    #expect(ndjson.status == 0, "\(ndjson.stderr)")
    #expect(
      try rows(scratch.file("n.sqlite"), "SELECT status || ' ' || records_read FROM sluice_runs") == ["succeeded 0"])
    #expect(ndjson.stderr.contains("no record was read"), "\(ndjson.stderr)")
    for format in ["json", "xml"] {
      let result = try SluiceCommand.run([
        "run", "Pipelines/fruits.json", "--input", empty, "--format", format, "--db", scratch.file("\(format).sqlite"),
      ])
      #expect(result.status == 65, "\(format): \(result.stderr)")
    }
  }
}
