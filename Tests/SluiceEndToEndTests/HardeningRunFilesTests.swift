import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 38 (“Hardening”), the findings about the files a run reads and writes, on the real
/// binary: an output over any file the command reads or the staging database (7), the modes of
/// the files that hold record values and links planted in a shared folder (8), an input FIFO
/// nobody writes (9), and an input rewritten without its fingerprint changing (12).
@Suite("Hardening, issue 38: the files a run reads and writes")
struct HardeningRunFilesTests {
  private func fruits(_ count: Int, from first: Int = 1) -> String {
    (first..<(first + count)).map { #"{"fruitID":"F\#($0)","name":"N\#($0)","color":"red","recipes":[]}"# }
      .joined(separator: "\n") + "\n"
  }

  /// One fruit the strict contract takes and one it rejects (no name): a lenient run writes a
  /// rejects file.
  private static let oneGoodOneBad =
    #"{"fruitID":"F1","name":"Apple","color":"red","recipes":[]}"# + "\n"
    + #"{"fruitID":"F2","color":"red","recipes":[]}"# + "\n"

  /// A spec of the test's own, beside its input: fruits from `in.ndjson` into `d.sqlite`, no
  /// outputs unless `extra` names some.
  private func makeSpec(in scratch: TemporaryDirectory, extra: String = "") throws -> String {
    try scratch.write(
      "spec.json",
      #"{"dataset": "fruits", "input": "in.ndjson", "format": "ndjson", "database": "d.sqlite"\#(extra)}"#)
  }

  private func rows(_ database: String, _ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var result: [String] = []
    while try statement.step() { result.append(statement.columnText(0) ?? "NULL") }
    return result
  }

  private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  /// The permission bits of `path` (links not followed).
  private func mode(_ path: String) -> mode_t? {
    var status = stat()
    return lstat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
  }

  // MARK: Finding 7 — an output over a file the command reads

  @Test(arguments: [
    (["--report", "spec.json"], #""#), (["--html", "./spec.json"], #""#), (["--rejects", "spec.json"], #""#),
    ([], #", "report": "spec.json""#), ([], #", "junit": "spec.json""#),
  ])
  func anOutputOverThePipelineSpecIsRefusedBeforeAnythingIsWritten(_ options: [String], key: String) throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("in.ndjson", fruits(2))
    let spec = try makeSpec(in: scratch, extra: key)
    let before = try #require(bytes(spec))
    let result = try SluiceCommand.run(["run", "spec.json"] + options, in: scratch.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("is the same file as the pipeline spec"), "\(result.stderr)")
    #expect(bytes(spec) == before)
    #expect(!FileManager.default.fileExists(atPath: scratch.file("d.sqlite")))
  }

  @Test func aValidateReportOverItsBaselineIsRefused() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write("in.ndjson", fruits(3))
    _ = try makeSpec(in: scratch)
    let inspected = try SluiceCommand.run(["inspect", input, "--format", "ndjson", "--json"], in: scratch.path)
    #expect(inspected.status == 0, "\(inspected.stderr)")
    let baseline = try scratch.write("b.json", inspected.stdout)
    let accepted = try SluiceCommand.run(
      ["validate", "spec.json", "--baseline", "b.json", "--report", "r.json"], in: scratch.path)
    #expect(accepted.status == 0, "\(accepted.stderr)")
    for output in ["--report", "--junit", "--html"] {
      let result = try SluiceCommand.run(
        ["validate", "spec.json", "--baseline", "b.json", output, "b.json"], in: scratch.path)
      #expect(result.status == 64, "\(output): \(result.stderr)")
      #expect(result.stderr.contains("is the same file as the baseline"), "\(result.stderr)")
      #expect(bytes(baseline) == Data(inspected.stdout.utf8), "\(output)")
    }
  }

  /// `validate --db` reads the database it checks: an output over it is refused as a run's is.
  @Test(arguments: ["d.sqlite", "d.sqlite-journal"])
  func aValidateOutputOverTheDatabaseItChecksIsRefused(_ report: String) throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("in.ndjson", fruits(2))
    _ = try makeSpec(in: scratch)
    let loaded = try SluiceCommand.run(["run", "spec.json"], in: scratch.path)
    #expect(loaded.status == 0, "\(loaded.stderr)")
    let before = try #require(bytes(scratch.file("d.sqlite")))
    let result = try SluiceCommand.run(
      ["validate", "spec.json", "--db", "d.sqlite", "--report", report], in: scratch.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("is the same file as the database"), "\(result.stderr)")
    #expect(bytes(scratch.file("d.sqlite")) == before)
    #expect(!FileManager.default.fileExists(atPath: scratch.file("d.sqlite-journal")))
  }

  @Test(arguments: ["r.json", "./r.json", "link-to-r.json"])
  func reportRefusesAnHTMLPageOverTheReportItRenders(_ html: String) throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("in.ndjson", fruits(2))
    _ = try makeSpec(in: scratch)
    let ran = try SluiceCommand.run(["run", "spec.json", "--report", "r.json"], in: scratch.path)
    #expect(ran.status == 0, "\(ran.stderr)")
    try FileManager.default.createSymbolicLink(atPath: scratch.file("link-to-r.json"), withDestinationPath: "r.json")
    let before = try #require(bytes(scratch.file("r.json")))
    let result = try SluiceCommand.run(["report", "r.json", "--html", html], in: scratch.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("is the same file as the JSON report it renders"), "\(result.stderr)")
    #expect(bytes(scratch.file("r.json")) == before)
    #expect(try RunReport.decode(from: before).committed)
    let rendered = try SluiceCommand.run(["report", "r.json", "--html", "r.html"], in: scratch.path)
    #expect(rendered.status == 0, "\(rendered.stderr)")
  }

  /// A report at the staging database's path (`DB.sluice-stage`) or one of its side files made
  /// every later `--stage` run refuse: it is the database's as much as `-journal` is.
  @Test(arguments: [".sluice-stage", ".sluice-stage-journal", ".sluice-stage-wal"])
  func anOutputAtTheStagingDatabaseIsRefused(_ suffix: String) throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("in.ndjson", fruits(2))
    _ = try makeSpec(in: scratch)
    let result = try SluiceCommand.run(["run", "spec.json", "--report", "d.sqlite" + suffix], in: scratch.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("is the same file as the staging database"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("d.sqlite" + suffix)))
    let staged = try SluiceCommand.run(["run", "spec.json", "--stage"], in: scratch.path)
    #expect(staged.status == 0, "\(staged.stderr)")
    #expect(try rows(scratch.file("d.sqlite"), "SELECT count(*) FROM fruits") == ["2"])
  }

  // MARK: Finding 8 — modes of the files that hold record values; links in shared folders

  /// Rejects hold record values and `replay` loads them: 0600 whatever the umask. Reports are
  /// 0644 under the umask and never writable by the group or others; folders made for outputs
  /// are 0755 under the umask.
  @Test(arguments: [("000", 0o644, 0o755), ("022", 0o644, 0o755), ("027", 0o640, 0o750), ("077", 0o600, 0o700)])
  func outputsAreNeverWritableByOthersAndRejectsAreTheOwnersOnly(
    _ mask: String, report: mode_t, folder: mode_t
  ) throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("in.ndjson", Self.oneGoodOneBad)
    _ = try makeSpec(in: scratch)
    let result = try SluiceBinary.shell(
      """
      umask \(mask)
      exec "$SLUICE" run spec.json --policy lenient --rejects out/rejects.ndjson --report out/report.json \
        --junit out/junit.xml --html out/report.html
      """, in: scratch.path)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(mode(scratch.file("out/rejects.ndjson")) == 0o600)
    for name in ["report.json", "junit.xml", "report.html"] {
      #expect(mode(scratch.file("out/" + name)) == report, "\(name)")
    }
    #expect(mode(scratch.file("out")) == folder)
  }

  /// A file an older run left world-writable (or rejects left world-readable) is replaced by
  /// one that is not.
  @Test func replacingAnOutputDropsTheWriteBitsOfOthersAndRejectsStayTheOwnersOnly() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("in.ndjson", Self.oneGoodOneBad)
    _ = try makeSpec(in: scratch)
    let rejects = try scratch.write("rejects.ndjson", "old\n")
    let report = try scratch.write("report.json", "old\n")
    chmod(rejects, 0o666)
    chmod(report, 0o4777)
    let result = try SluiceBinary.shell(
      #"umask 000; exec "$SLUICE" run spec.json --policy lenient --rejects rejects.ndjson --report report.json"#,
      in: scratch.path)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(mode(rejects) == 0o600)
    #expect(mode(report) == 0o755)
  }

  /// While the run reads its input the outputs are staging files beside their paths; they hold
  /// the rejects' record values already, so they are 0600 until they are published, whatever
  /// the umask. The run waits on a FIFO input while the modes are looked at.
  @Test func stagingFilesAreTheOwnersOnlyWhileTheRunWrites() throws {
    let scratch = try TemporaryDirectory()
    let source = try scratch.write("source.ndjson", Self.oneGoodOneBad)
    _ = try makeSpec(in: scratch)
    let result = try SluiceBinary.shell(
      """
      set -u
      umask 000
      mkfifo in.fifo
      "$SLUICE" run spec.json --input in.fifo --policy lenient --rejects rejects.ndjson --report report.json \
        --busy-timeout 120 &
      run=$!
      for _ in $(seq 1 1200); do
        [ "$(ls -A | grep -c '\\.sluice-')" -ge 2 ] && break
        sleep 0.05
      done
      stat -c '%a %n' .rejects.ndjson.sluice-* .report.json.sluice-* > modes.txt
      cat '\(source)' > in.fifo
      wait $run
      """, in: scratch.path)
    #expect(result.status == 0, "\(result.stderr)")
    let modes = try String(contentsOfFile: scratch.file("modes.txt"), encoding: .utf8)
      .split(separator: "\n")
    #expect(modes.count == 2, "\(modes)")
    for line in modes { #expect(line.hasPrefix("600 "), "\(line)") }
    #expect(mode(scratch.file("rejects.ndjson")) == 0o600)
    #expect(mode(scratch.file("report.json")) == 0o644)
  }

  /// A symbolic link in a sticky folder anyone may write into (`/tmp`), owned by someone who
  /// owns neither the folder nor this process, may have been planted to make the run write
  /// through it: refused, as the kernel's `protected_symlinks` refuses it where it is on.
  @Test(arguments: ["--report", "--rejects"])
  func anOutputThatIsAnotherUsersLinkInASharedStickyFolderIsRefused(_ option: String) throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("in.ndjson", Self.oneGoodOneBad)
    _ = try makeSpec(in: scratch)
    let shared = scratch.file("shared")
    try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
    #expect(chmod(shared, 0o1777) == 0)
    let victim = try scratch.write("victim.txt", "keep\n")
    let link = shared + "/out.json"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
    #expect(lchown(link, 65534, 65534) == 0)
    let result = try SluiceCommand.run(
      ["run", "spec.json", "--policy", "lenient", option, link], in: scratch.path)
    #expect(result.status == 73, "\(result.stderr)")
    #expect(result.stderr.contains("\(link): it is a symbolic link owned by user 65534"), "\(result.stderr)")
    #expect(result.stderr.contains("sticky folder anyone may write into"), "\(result.stderr)")
    #expect(bytes(victim) == Data("keep\n".utf8))
    #expect(!FileManager.default.fileExists(atPath: scratch.file("d.sqlite")))

    // The folder's owner's link, or this user's own, is followed as before.
    #expect(lchown(link, getuid(), getgid()) == 0)
    let followed = try SluiceCommand.run(
      ["run", "spec.json", "--policy", "lenient", option, link], in: scratch.path)
    #expect(followed.status == 0, "\(followed.stderr)")
    #expect(bytes(victim) != Data("keep\n".utf8))
  }

  // MARK: Finding 9 — an input FIFO nobody writes

  @Test func anInputFIFOWithoutAWriterFailsAfterTheBusyTimeoutNamingIt() throws {
    let scratch = try TemporaryDirectory()
    _ = try makeSpec(in: scratch)
    let fifo = scratch.file("in.fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    let result = try SluiceCommand.start(
      ["run", "spec.json", "--input", "in.fifo", "--busy-timeout", "0.5"], in: scratch.path
    ).finished(within: 30)
    #expect(result.status == 66, "\(result.stderr)")
    #expect(
      result.stderr.contains("\(fifo): no process opened this FIFO for writing within 0.5 s"), "\(result.stderr)")
    #expect(try rows(scratch.file("d.sqlite"), "SELECT status FROM sluice_runs") == ["failed"])
  }

  @Test func anInputFIFOWhoseWriterComesLateIsReadWhole() throws {
    let scratch = try TemporaryDirectory()
    let source = try scratch.write("source.ndjson", fruits(300))
    _ = try makeSpec(in: scratch)
    #expect(mkfifo(scratch.file("in.fifo"), 0o600) == 0)
    let writer = try Tool.background(
      #"sleep 0.5; cat '\#(source)' > in.fifo; echo "writer $?" > writer"#, in: scratch.path)
    let result = try SluiceCommand.start(
      ["run", "spec.json", "--input", "in.fifo", "--busy-timeout", "30"], in: scratch.path
    ).finished(within: 60)
    Tool.end(writer)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try rows(scratch.file("d.sqlite"), "SELECT count(*) FROM fruits") == ["300"])
    #expect((try? String(contentsOfFile: scratch.file("writer"), encoding: .utf8)) == "writer 0\n")
  }

  // MARK: Finding 12 — content that changed under an unchanged fingerprint

  /// Writes `replacement` over the bytes of `path` at `offset` through a shared writable
  /// mapping, as a program that maps its file would: same inode, same size.
  private func writeThroughSharedMapping(_ path: String, offset: Int, _ replacement: String) throws {
    let file = open(path, O_RDWR)
    try #require(file >= 0)
    defer { close(file) }
    var status = stat()
    try #require(fstat(file, &status) == 0)
    let size = Int(status.st_size)
    let mapping = try #require(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0))
    try #require(mapping != MAP_FAILED)
    for (index, byte) in replacement.utf8.enumerated() {
      mapping.storeBytes(of: byte, toByteOffset: offset + index, as: UInt8.self)
    }
    #expect(msync(mapping, size, MS_SYNC) == 0)
    #expect(munmap(mapping, size) == 0)
  }

  @Test func verifyContentFindsAFileRewrittenInPlaceUnderTheSameFingerprint() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write("in.ndjson", fruits(3))
    _ = try makeSpec(in: scratch)
    let database = scratch.file("d.sqlite")
    let first = try SluiceCommand.run(["run", "spec.json", "--incremental"], in: scratch.path)
    #expect(first.status == 0, "\(first.stderr)")

    let before = try #require(FileFingerprint(path: input))
    let text = fruits(3)
    let offset = try #require(text.range(of: #""N2""#)).lowerBound.utf16Offset(in: text)
    try writeThroughSharedMapping(input, offset: offset + 1, "M")
    let after = try #require(FileFingerprint(path: input))
    #expect(after.inode == before.inode && after.size == before.size)
    #expect(try String(contentsOfFile: input, encoding: .utf8).contains(#""M2""#))
    // Linux 6.x on ext4 and tmpfs moves both times on the write fault (page_mkwrite); a file
    // system without that hook, or a write within the times' granularity, leaves them as they
    // were. The ledger is put where such a kernel leaves it: the file's fingerprint, old content.
    if after != before {
      let ledger = try SQLiteConnection(path: database)
      try ledger.execute("UPDATE sluice_inputs SET fingerprint = '\(after.text)'")
    }

    // The limit the docs state: the fingerprint is trusted, the new content is not seen.
    let trusted = try SluiceCommand.run(["run", "spec.json", "--incremental"], in: scratch.path)
    #expect(trusted.status == 0, "\(trusted.stderr)")
    #expect(trusted.stderr.contains("unchanged since run 1"), "\(trusted.stderr)")
    #expect(try rows(database, "SELECT name FROM fruits WHERE fruit_id = 'F2'") == ["N2"])

    // --verify-content hashes it: a changed file, refused as one is without --reload-changed.
    let verified = try SluiceCommand.run(
      ["run", "spec.json", "--incremental", "--verify-content"], in: scratch.path)
    #expect(verified.status == 65, "\(verified.stderr)")
    #expect(verified.stderr.contains("was loaded by run 1 with other content"), "\(verified.stderr)")

    let reloaded = try SluiceCommand.run(
      ["run", "spec.json", "--incremental", "--verify-content", "--reload-changed"], in: scratch.path)
    #expect(reloaded.status == 0, "\(reloaded.stderr)")
    #expect(try rows(database, "SELECT name FROM fruits WHERE fruit_id = 'F2'") == ["M2"])

    // Content that is what the ledger holds is still skipped, after being hashed.
    let again = try SluiceCommand.run(["run", "spec.json", "--incremental", "--verify-content"], in: scratch.path)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("unchanged since run"), "\(again.stderr)")
  }

  @Test func verifyContentAppliesToAnIncrementalRun() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("in.ndjson", fruits(1))
    _ = try makeSpec(in: scratch)
    let result = try SluiceCommand.run(["run", "spec.json", "--verify-content"], in: scratch.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("--verify-content applies to an incremental run"), "\(result.stderr)")
  }
}
