import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

#if canImport(Glibc)
  import Glibc
#endif

/// The staging files a killed run leaves beside its outputs (`.NAME.sluice-XXXXXX`, holding
/// rejected records' values): a committed run removes those nobody holds, and nothing else.
@Suite("Abandoned staging files: removed once nobody holds them")
struct AbandonedStagingTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  /// Writes `name` in the scratch directory, `age` seconds old.
  @discardableResult
  func file(_ name: String, age: Double) throws -> String {
    let path = try scratch.write(name, "{\"record\": \"a value\"}\n")
    var times = [
      timeval(tv_sec: time(nil) - Int(age), tv_usec: 0), timeval(tv_sec: time(nil) - Int(age), tv_usec: 0),
    ]
    #expect(utimes(path, &times) == 0)
    return path
  }

  func staging(of name: String) throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".\(name).sluice-") })
  }

  @Test func onlyOldUnheldStagingFilesOfTheSameTargetGo() throws {
    try file(".rejects.ndjson.sluice-Abc123", age: 600)  // a killed run's: goes
    try file(".rejects.ndjson.sluice-Xyz789", age: 5)  // too young to be sure: stays
    let held = try file(".rejects.ndjson.sluice-Held00", age: 600)  // a running process's: stays
    try file(".rejects.ndjson.sluice-TooLong1", age: 600)  // not a name mkstemp makes: stays
    try file(".report.json.sluice-Abc123", age: 600)  // another target's: stays
    try file("rejects.ndjson.sluice-Abc123", age: 600)  // not hidden, not ours: stays
    let elsewhere = try file("elsewhere.ndjson", age: 600)
    #expect(symlink(elsewhere, scratch.file(".rejects.ndjson.sluice-Link00")) == 0)  // a link: stays

    let holder = open(held, O_RDONLY)
    #expect(holder >= 0)
    defer { close(holder) }
    #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)

    let output = try OutputFile(path: scratch.file("rejects.ndjson"), purpose: "rejects file")
    let own = try #require(output.stagingPath)
    #expect(output.removeAbandonedStagingFiles() == 1)
    #expect(
      try staging(of: "rejects.ndjson") == [
        ".rejects.ndjson.sluice-Xyz789", ".rejects.ndjson.sluice-Held00", ".rejects.ndjson.sluice-TooLong1",
        ".rejects.ndjson.sluice-Link00", (own as NSString).lastPathComponent,
      ])
    #expect(FileManager.default.fileExists(atPath: scratch.file(".report.json.sluice-Abc123")))
    #expect(FileManager.default.fileExists(atPath: elsewhere))

    // A second output of the same path sees the first's staging file as held (its own `flock`).
    try file(".rejects.ndjson.sluice-Late00", age: 600)
    var times = [timeval(tv_sec: time(nil) - 600, tv_usec: 0), timeval(tv_sec: time(nil) - 600, tv_usec: 0)]
    #expect(utimes(own, &times) == 0)
    let second = try OutputFile(path: scratch.file("rejects.ndjson"), purpose: "rejects file")
    #expect(second.removeAbandonedStagingFiles() == 1)
    #expect(FileManager.default.fileExists(atPath: own))
    #expect(!FileManager.default.fileExists(atPath: scratch.file(".rejects.ndjson.sluice-Late00")))
    try output.publish()
    #expect(try String(contentsOfFile: scratch.file("rejects.ndjson"), encoding: .utf8).isEmpty)
  }
}
