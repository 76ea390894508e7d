import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The real `sluice` binary on the committed message sample (SampleData/messages.ndjson.gz: 38
/// messages of every kind, 4 of kinds Sluice does not know — `sticker` 3, `poll` 1 — and 2
/// attachments of the unknown kind `location`) with Pipelines/messages.json (strict) and
/// Pipelines/messages-lenient.json (lenient, lenientArrays).
@Suite("sluice command line on messages, end to end")
struct MessagesCommandTests {
  static let tables = [
    "conversations", "senders", "messages", "text_messages", "image_messages", "file_messages", "system_messages",
    "message_attachments", "message_kinds",
  ]
  static let kindCounts =
    "SELECT k.name || ' ' || count(*) FROM messages m JOIN message_kinds k ON k.id = m.kind_id GROUP BY k.name ORDER BY k.name"
  /// The unknown kinds as the summary, the drift summary and JUnit list them: by count, then path.
  static let unknownKinds = ["type sticker 3", "attachments[].type location 2", "type poll 1"]

  private func strings(_ database: String, _ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var rows: [String] = []
    while try statement.step() { rows.append(statement.columnText(0) ?? "NULL") }
    return rows
  }

  private func report(_ path: String) throws -> RunReport {
    try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test func lenientPipelineImportsEveryKnownKindAndNamesTheUnknownOnesWithTheirCounts() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("messages.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/messages-lenient.json", "--db", database, "--report", scratch.file("r.json"), "--junit",
      scratch.file("junit.xml"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("  messages: 34 rows"), "\(result.stdout)")
    #expect(try strings(database, Self.kindCounts) == ["file 5", "image 5", "system 6", "text 18"])
    #expect(try strings(database, "SELECT count(*) FROM message_attachments") == ["6"])
    #expect(
      try strings(database, "SELECT name FROM conversations ORDER BY conversation_id") == [
        "Ana & Bo", "General", "Coffee",
      ])
    #expect(try strings(database, "SELECT count(*) FROM senders WHERE name IS NULL") == ["0"])

    // The stderr summary, the drift summary and the JUnit file name each unknown kind and count.
    #expect(
      result.stderr.contains("unknown values: type 'sticker' 3, attachments[].type 'location' 2, type 'poll' 1"),
      "\(result.stderr)")
    let report = try report(scratch.file("r.json"))
    #expect(report.drift.unsupportedEnumValues.map { "\($0.path) \($0.value ?? "-") \($0.count)" } == Self.unknownKinds)
    #expect(report.statistics(for: .map).rejected == 4)
    #expect(report.statistics(for: .map).warnings == 2)
    let drops = report.issues.filter { $0.stage == .map && $0.severity == .warning }
    #expect(drops.map(\.path) == ["attachments[1].type", "attachments[0].type"])
    #expect(drops.map { $0.location?.line } == [10, 20])
    let junit = try String(contentsOfFile: scratch.file("junit.xml"), encoding: .utf8)
    #expect(
      junit.contains(
        "unknown values: type &apos;sticker&apos;: 3, attachments[].type &apos;location&apos;: 2, type &apos;poll&apos;: 1"
      )
        || junit.contains("unknown values: type 'sticker': 3, attachments[].type 'location': 2, type 'poll': 1"),
      "\(junit)")
    #expect(
      junit.contains(
        #"<failure message="4 record(s) failed: records map to domain values" type="unsupportedEnumValue">"#))
  }

  @Test func reimportingTheSampleChangesNothing() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("messages.sqlite")
    let arguments = ["run", "Pipelines/messages-lenient.json", "--db", database, "--junit", scratch.file("j.xml")]
    let first = try SluiceCommand.run(arguments + ["--report", scratch.file("r1.json")])
    #expect(first.status == 0, "\(first.stderr)")
    let before = try DatabaseSnapshot(of: database, tables: Self.tables)
    #expect(before.count("messages") == 34)
    let second = try SluiceCommand.run(arguments + ["--report", scratch.file("r2.json")])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(try DatabaseSnapshot(of: database, tables: Self.tables) == before)
    let report = try report(scratch.file("r2.json"))
    // Shared rows are written only where they change: every sender is as it was; #random is
    // renamed twice on the way (Random, then Coffee), as the sample replays its rename.
    #expect(report.rowsWritten["senders"] == 0)
    #expect(report.rowsWritten["conversations"] == 2)
    #expect(try strings(database, "SELECT count(*) FROM pragma_foreign_key_check") == ["0"])
  }

  @Test func strictPipelineFailsAtTheFirstUnknownKindAndWritesNothing() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("messages.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/messages.json", "--db", database, "--report", scratch.file("r.json"),
    ])
    #expect(result.status == 65)
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderr.contains("strict policy: map rejected record 9 (line 9): type: unsupportedEnumValue"),
      "\(result.stderr)")
    #expect(result.stderr.contains("unknown values: type 'poll' 1"))
    #expect(try DatabaseSnapshot(of: database, tables: Self.tables).tables.isEmpty)
    #expect(try strings(database, "SELECT status FROM sluice_runs") == ["failed"])
  }

  @Test func validatingWithTheStrictPipelineListsEveryUnknownKindInTheDriftAndJUnit() throws {
    let scratch = try TemporaryDirectory()
    let result = try SluiceCommand.run([
      "validate", "Pipelines/messages.json", "--report", scratch.file("r.json"), "--junit",
      scratch.file("junit.xml"),
    ])
    #expect(result.status == 65, "\(result.stderr)")
    let report = try report(scratch.file("r.json"))
    #expect(report.drift.unsupportedEnumValues.map { "\($0.path) \($0.value ?? "-") \($0.count)" } == Self.unknownKinds)
    // Strict: the unknown attachments reject their records too (no lenientArrays).
    #expect(report.statistics(for: .map).rejected == 6)
    #expect(
      report.issues.filter { $0.severity == .error }.map(\.path) == [
        "type", "attachments[1].type", "type", "attachments[0].type", "type", "type",
      ])
    let junit = try String(contentsOfFile: scratch.file("junit.xml"), encoding: .utf8)
    #expect(junit.contains("6 record(s) failed: records map to domain values"))
    #expect(junit.contains("sticker") && junit.contains(": 3,"))
  }

  @Test func schemaPrintsATablePerKind() throws {
    let result = try SluiceCommand.run(["schema", "messages"])
    #expect(result.status == 0, "\(result.stderr)")
    for table in Self.tables {
      #expect(result.stdout.contains("CREATE TABLE \(table) ("), "\(table)")
    }
    #expect(result.stdout.contains("FOREIGN KEY (message_id) REFERENCES messages (message_id) ON DELETE CASCADE"))
  }
}
