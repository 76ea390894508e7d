import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// A row rejected because its text is not valid Unicode — a byte Windows-1252 does not define,
/// an unpaired UTF-16 surrogate, invalid UTF-8 in CSV or NDJSON — keeps its bytes in the rejects
/// file (each bad byte as a `\udcXX` escape), so that replaying the file unchanged rejects the row
/// again with its original issue and never loads U+FFFD (issue 55); the row fixed by hand loads.
@Suite("Replay of rows whose text is not valid Unicode")
struct ReplayInvalidTextTests {
  /// One input: its file's bytes, its format and dialect, and the escape the bad byte becomes.
  struct Case: CustomStringConvertible, Sendable {
    var description: String
    var bytes: [UInt8]
    var format: String
    var dialect: String?
    var escape: String
  }

  static let cases: [Case] = [
    Case(
      description: "windows-1252",
      bytes: Array("id,name,latitude,longitude\nd1,good,1.5,2.5\nd2,bad".utf8) + [0x81]
        + Array(",1.5,2.5\n".utf8), format: "csv", dialect: #"{"encoding": "windows-1252"}"#, escape: #"\udc81"#),
    Case(
      description: "utf-16le",
      bytes: [0xFF, 0xFE] + utf16LE("id,name,latitude,longitude\nd1,good,1.5,2.5\nd2,bad")
        + [0x00, 0xD8] + utf16LE(",1.5,2.5\n"), format: "csv", dialect: nil, escape: #"\udcff"#),
    Case(
      description: "utf-8 CSV",
      bytes: Array("id,name,latitude,longitude\nd1,good,1.5,2.5\nd2,bad".utf8) + [0xFF]
        + Array(",1.5,2.5\n".utf8), format: "csv", dialect: nil, escape: #"\udcff"#),
    Case(
      description: "utf-8 NDJSON",
      bytes: Array(#"{"id": "d1", "name": "good", "latitude": 1.5, "longitude": 2.5}"#.utf8) + [0x0A]
        + Array(#"{"id": "d2", "name": "bad"#.utf8) + [0xC3, 0x28]
        + Array(#"", "latitude": 1.5, "longitude": 2.5}"#.utf8)
        + [0x0A], format: "ndjson", dialect: nil, escape: #"\udcc3("#),
  ]

  static func utf16LE(_ text: String) -> [UInt8] {
    text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
  }

  private func names(in database: String) throws -> [String] {
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
    let statement = try connection.prepare("SELECT name FROM devices ORDER BY device_id")
    var names: [String] = []
    while try statement.step() { names.append(statement.columnText(0) ?? "") }
    return names
  }

  @Test(arguments: cases)
  func anUnchangedReplayRejectsTheRowAgainWithItsIssueAndAFixedOneLoads(_ input: Case) throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("devices.\(input.format)", input.bytes)
    let spec = try scratch.write(
      "devices.json",
      #"{"dataset": "devices", "input": "\#(file)", "format": "\#(input.format)", "database": "devices.sqlite", "policy": "lenient""#
        + (input.dialect.map { #", "dialect": \#($0)"# } ?? "") + "}")
    let database = scratch.file("devices.sqlite")
    let rejects = scratch.file("rejects.ndjson")
    let run = try SluiceCommand.run(["run", spec, "--rejects", rejects, "--report", scratch.file("run.json")])
    #expect(run.status == 0, "\(run.stderr)")
    let first = try #require(
      try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("run.json")))).issues.first)
    #expect(first.stage == .read && first.code == .syntax, "\(first)")

    // The rejects file holds the bad bytes as escapes, no U+FFFD.
    let written = try String(contentsOfFile: rejects, encoding: .utf8)
    #expect(written.contains(input.escape), "\(written)")
    #expect(!written.contains("\u{FFFD}"), "\(written)")

    // Replayed unchanged: the row is rejected again, as the first run rejected it, and nothing
    // of it reaches the database.
    let again = try SluiceCommand.run(["replay", spec, "--rejects", rejects, "--report", scratch.file("again.json")])
    #expect(again.status == 65, "\(again.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("again.json"))))
    let issue = try #require(report.issues.first)
    #expect(report.issues.count == 1)
    #expect(issue.stage == .read && issue.code == first.code && issue.path == first.path, "\(issue)")
    #expect(issue.message == first.message && issue.location?.line == 1, "\(issue)")
    #expect(try names(in: database) == ["good"])

    // Fixed by hand — the escape replaced by the character meant — it loads.
    let fixed = try scratch.write("fixed.ndjson", written.replacingOccurrences(of: input.escape, with: "ü"))
    let replay = try SluiceCommand.run(["replay", spec, "--rejects", fixed])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(try names(in: database) == ["good", "badü"])
  }

  /// A rejects file written before the escapes kept the row with U+FFFD in place of the bad
  /// bytes: replayed unchanged, such a row is refused with its original issue rather than loaded.
  @Test func anOldRejectsLineWithReplacementCharactersIsRefusedWithItsIssue() throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write(
      "devices.json",
      #"{"dataset": "devices", "input": "devices.csv", "format": "csv", "database": "devices.sqlite", "policy": "lenient", "dialect": {"encoding": "windows-1252"}}"#
    )
    let old =
      #"{"byteOffset":43,"csv":{"columns":["id","name","latitude","longitude"],"delimiter":",","empty":"text","quote":"\""},"format":"csv","input":"devices.csv","issues":[{"code":"syntax","location":{"byteOffset":46,"column":2,"line":3,"ordinal":2},"message":"a byte windows-1252 does not define, at byte 3 of the field","path":"name","severity":"error","stage":"read"}],"line":3,"ordinal":2,"record":"d2,bad\#u{FFFD},1.5,2.5"}"#
    let rejects = try scratch.write("old.ndjson", old + "\n")
    let replay = try SluiceCommand.run(["replay", spec, "--rejects", rejects, "--report", scratch.file("old.json")])
    #expect(replay.status == 65, "\(replay.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("old.json"))))
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .read && issue.code == .syntax && issue.path == "name", "\(issue)")
    #expect(issue.message == "a byte windows-1252 does not define, at byte 3 of the field")
    // Fixed (the U+FFFD replaced), the old line loads.
    let fixed = try scratch.write("fixed.ndjson", old.replacingOccurrences(of: "\u{FFFD}", with: "ü") + "\n")
    #expect(try SluiceCommand.run(["replay", spec, "--rejects", fixed]).status == 0)
    #expect(try names(in: scratch.file("devices.sqlite")) == ["badü"])
  }
}
