import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The contract of Sluice's own message format (seed 002, items 5, 6 and 10) beyond the shape
/// every dataset's has (`ContractManifestTests` runs Fixtures/messages against
/// Fixtures/contracts.json): a valid fixture per kind, the unknown kinds named in the drift
/// summary, `lenientArrays` dropping elements, and what the valid fixtures load.
@Suite("Messages contract fixtures")
struct MessagesContractTests {
  static let fixtures = ContractFixtures.directory("messages")

  private func fixture(_ name: String) -> URL { Self.fixtures.appendingPathComponent(name) }

  private func validate(_ file: URL, policy: Policy) throws -> RunReport {
    try ContractFixtures.validate(file, with: MessagesDataset(), policy: policy)
  }

  /// Loads one fixture into a fresh database; returns the report and the database's path, with
  /// the directory that keeps it.
  private func load(_ file: URL, policy: Policy = .strict) throws -> (RunReport, String, TemporaryDirectory) {
    let directory = try TemporaryDirectory()
    let bytes = Array("[".utf8) + Array(try Data(contentsOf: file)) + Array("]".utf8)
    let input = try directory.write("fixture.json", bytes)
    let database = directory.file("messages.sqlite")
    let configuration = PipelineConfiguration(
      name: file.lastPathComponent, input: input, policy: policy, database: .sqlite(database))
    return (try Pipeline(dataset: MessagesDataset(), configuration: configuration).run(), database, directory)
  }

  /// Each row of `sql` as its columns' text joined by `|`, NULL as `∅`.
  private func rows(_ database: String, _ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var rows: [String] = []
    while try statement.step() {
      rows.append(
        (0..<statement.columnCount).map { statement.columnIsNull($0) ? "∅" : statement.columnText($0) ?? "" }
          .joined(separator: "|"))
    }
    return rows
  }

  static var lenientArrays: Policy {
    var policy = Policy.lenient
    policy.lenientArrays = true
    return policy
  }

  /// A one-record fixture that is rejected leaves nothing to load.
  static var lenientAllowingNothingLoaded: Policy {
    var policy = Policy.lenient
    policy.allowsNothingLoaded = true
    return policy
  }

  @Test func thereIsAValidFixtureOfEveryKind() throws {
    var kinds = Set<String>()
    for file in try ContractFixtures.files(fixture("valid")) {
      let object = try JSONSerialization.jsonObject(with: Data(contentsOf: fixture("valid/\(file)"))) as? [String: Any]
      if let type = object?["type"] as? String { kinds.insert(type) }
    }
    #expect(kinds == Set(MessageKind.messageKinds.map(\.rawValue)))
  }

  @Test func strictRejectsTheRecordAtTheUnknownAttachment() throws {
    let (report, database, directory) = try load(fixture("invalid/008-unknown-attachment-type.json"))
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .failed)
    #expect(report.issues.filter { $0.severity == .error }.map(\.path) == ["attachments[2].type"])
    // Rolled back, down to the tables the run created.
    #expect(try DatabaseSnapshot(of: database, tables: MessageTables.schema.tableNames).tables.isEmpty)
  }

  @Test func lenientWithoutLenientArraysSkipsTheWholeRecord() throws {
    let (report, database, directory) = try load(
      fixture("invalid/008-unknown-attachment-type.json"), policy: Self.lenientAllowingNothingLoaded)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .succeeded)
    #expect(report.statistics(for: .map).rejected == 1)
    #expect(try rows(database, "SELECT count(*) FROM messages") == ["0"])
  }

  @Test func lenientArraysDropsTheUnknownAttachmentKeepsTheMessageAndReportsTheDrop() throws {
    let (report, database, directory) = try load(
      fixture("invalid/008-unknown-attachment-type.json"), policy: Self.lenientArrays)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .succeeded, "\(report.issues)")
    let drops = report.issues.filter { $0.stage == .map }
    #expect(drops.map(\.path) == ["attachments[2].type"])
    #expect(drops.map(\.severity) == [.warning])
    #expect(drops.map(\.code) == [.unsupportedEnumValue])
    #expect(drops.first?.message.hasSuffix("(dropped: lenientArrays)") == true)
    #expect(report.statistics(for: .map).warnings == 1)
    #expect(report.statistics(for: .map).rejected == 0)
    #expect(
      report.drift.unsupportedEnumValues == [
        .init(path: "attachments[].type", value: "location", count: 1, firstRecord: 1)
      ])
    // The element's own fields are unknown fields too: what the new kind carries.
    #expect(report.drift.unknownFields.map(\.path) == ["attachments[].latitude", "attachments[].longitude"])
    #expect(try rows(database, "SELECT count(*) FROM messages") == ["1"])
    #expect(
      try rows(
        database,
        "SELECT position, k.name FROM message_attachments a JOIN message_kinds k ON k.id = a.kind_id ORDER BY position")
        == ["0|image", "1|file"])
  }

  @Test func unknownTypeIsSkippedUnderLenientAndNamedInTheDrift() throws {
    let (report, database, directory) = try load(
      fixture("invalid/001-unknown-type.json"), policy: Self.lenientAllowingNothingLoaded)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .succeeded)
    #expect(report.statistics(for: .map).rejected == 1)
    #expect(report.drift.unsupportedEnumValues == [.init(path: "type", value: "poll", count: 1, firstRecord: 1)])
    #expect(report.summary().contains("unknown values: type 'poll' 1"))
    #expect(try rows(database, "SELECT count(*) FROM messages") == ["0"])
    #expect(try rows(database, "SELECT count(*) FROM message_kinds WHERE name = 'poll'") == ["0"])
  }

  @Test func validFixturesLoadWithTheirValuesIntact() throws {
    func loaded(_ file: String) throws -> (String, TemporaryDirectory) {
      let (report, database, directory) = try load(fixture("valid/\(file)"))
      #expect(report.status == .succeeded, "\(file): \(report.issues)")
      return (database, directory)
    }
    let (text, d1) = try loaded("001-text.json")
    #expect(
      try rows(text, "SELECT message_id, conversation_id, sender_id, kind_id, sent_at, reply_to FROM messages")
        == ["general/0042|general|u1|1|2024-05-01T09:30:00.000Z|general/0041"])
    #expect(try rows(text, "SELECT text FROM text_messages") == ["Héllo — see \"agenda\" 👋"])
    #expect(try rows(text, "SELECT * FROM conversations") == ["general|General"])
    #expect(try rows(text, "SELECT * FROM senders") == ["u1|Zoë Müller"])

    let (image, d2) = try loaded("002-image.json")
    #expect(
      try rows(image, "SELECT * FROM image_messages")
        == ["general/0042|https://files.example.org/0042/sunrise.jpg|Sunrise from the office|1280|720"])
    #expect(try rows(image, "SELECT * FROM senders") == ["u1|∅"])

    let (file, d3) = try loaded("003-file.json")
    #expect(
      try rows(file, "SELECT * FROM file_messages")
        == ["general/0042|agenda.pdf|https://files.example.org/0042/agenda.pdf|application/pdf|9223372036854775807"])

    let (system, d4) = try loaded("004-system-without-sender.json")
    #expect(try rows(system, "SELECT sender_id, kind_id FROM messages") == ["∅|4"])
    #expect(try rows(system, "SELECT * FROM system_messages") == ["general/0042|join|Zoë Müller joined #general"])
    #expect(try rows(system, "SELECT count(*) FROM senders") == ["0"])

    let (attached, d5) = try loaded("005-attachments.json")
    #expect(
      try rows(attached, "SELECT * FROM message_attachments ORDER BY position") == [
        "general/0042|0|3|∅|notes.md|∅|text/markdown|2210|∅|∅",
        "general/0042|1|2|https://files.example.org/0042/floor.png|∅|Floor|∅|∅|800|600",
      ])

    let (minimal, d6) = try loaded("006-only-required-fields.json")
    #expect(
      try rows(minimal, "SELECT message_id, conversation_id, sender_id FROM messages") == ["dm%2Fu1-u2/0042|dm/u1-u2|∅"]
    )
    #expect(try rows(minimal, "SELECT * FROM image_messages") == ["dm%2Fu1-u2/0042|photos/0042.jpg|∅|∅|∅"])
    #expect(try rows(minimal, "SELECT * FROM conversations") == ["dm/u1-u2|∅"])
    withExtendedLifetime((d1, d2, d3, d4, d5, d6)) {}
  }
}
