import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The contract of Sluice's own message format (seed 002, items 5, 6 and 10): one valid fixture
/// per kind, and invalid ones — an unknown type, a kind's missing field, a wrongly typed field,
/// an unknown element of the polymorphic `attachments` — each failing at its stage with its code
/// and path; the unknown kinds named in the drift summary, `lenientArrays` dropping elements.
@Suite("Messages contract fixtures")
struct MessagesContractTests {
  static let fixtures = ContractFixtures.directory("messages")

  struct Expectation: Sendable, CustomTestStringConvertible {
    var file: String
    var stage: Stage
    var code: IssueCode
    var path: String
    var policy: Policy = .strict
    /// The unknown kind the issue names (its `value`), for `unsupportedEnumValue`.
    var kind: String? = nil
    var testDescription: String { file }
  }

  static let invalid: [Expectation] = [
    .init(file: "001-unknown-type.json", stage: .map, code: .unsupportedEnumValue, path: "type", kind: "poll"),
    .init(file: "002-image-missing-url.json", stage: .decode, code: .missingField, path: "url"),
    .init(file: "003-file-missing-name.json", stage: .decode, code: .missingField, path: "name"),
    .init(file: "004-text-missing-text.json", stage: .decode, code: .missingField, path: "text"),
    .init(file: "005-system-missing-event.json", stage: .decode, code: .missingField, path: "event"),
    .init(file: "006-width-as-text.json", stage: .decode, code: .typeMismatch, path: "width"),
    .init(file: "007-fractional-size.json", stage: .decode, code: .typeMismatch, path: "sizeBytes"),
    .init(
      file: "008-unknown-attachment-type.json", stage: .map, code: .unsupportedEnumValue, path: "attachments[2].type",
      kind: "location"),
    .init(file: "009-attachment-missing-url.json", stage: .decode, code: .missingField, path: "attachments[1].url"),
    .init(file: "010-missing-sent-at.json", stage: .decode, code: .missingField, path: "sentAt"),
    .init(file: "011-null-type.json", stage: .decode, code: .nullValue, path: "type"),
    .init(file: "012-blank-id.json", stage: .validate, code: .invalidValue, path: "id"),
    .init(file: "013-negative-size.json", stage: .validate, code: .outOfRange, path: "sizeBytes"),
    .init(file: "014-zero-width-attachment.json", stage: .validate, code: .outOfRange, path: "attachments[0].width"),
    .init(file: "015-numeric-conversation-id.json", stage: .decode, code: .typeMismatch, path: "conversationId"),
    .init(file: "016-sender-name-without-sender.json", stage: .validate, code: .invalidValue, path: "senderName"),
    .init(file: "017-impossible-date.json", stage: .decode, code: .invalidDate, path: "sentAt"),
    .init(
      file: "018-unknown-field-of-a-kind.json", stage: .decode, code: .unknownField, path: "altText",
      policy: ContractFixtures.strictRejectingUnknownFields),
    .init(file: "019-attachment-size-beyond-int64.json", stage: .decode, code: .outOfRange, path: "attachments[0].sizeBytes"),
    .init(file: "020-missing-type.json", stage: .decode, code: .missingField, path: "type"),
  ]

  /// Values the fixtures carry, none of which an issue, a failure or a summary may quote. (The
  /// unknown kinds' names — `poll`, `location` — are the documented exception: the drift summary
  /// counts them by name.)
  static let privateValues = [
    "Zoë", "Müller", "0042", "u1", "general", "files.example.org", "Sunrise", "Héllo", "agenda", "Lunch", "52.52",
    "1280", "48213", "Dessert", "directions", "9223372036854775808",
  ]

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
    let configuration = PipelineConfiguration(name: file.lastPathComponent, input: input, policy: policy, database: .sqlite(database))
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

  @Test func everyInvalidFixtureHasAnExpectation() throws {
    let files = try ContractFixtures.files(fixture("invalid"))
    #expect(Set(files) == Set(Self.invalid.map(\.file)))
    #expect(Self.invalid.count == Set(Self.invalid.map(\.file)).count)
  }

  @Test func thereIsAValidFixtureOfEveryKind() throws {
    var kinds = Set<String>()
    for file in try ContractFixtures.files(fixture("valid")) {
      let object = try JSONSerialization.jsonObject(with: Data(contentsOf: fixture("valid/\(file)"))) as? [String: Any]
      if let type = object?["type"] as? String { kinds.insert(type) }
    }
    #expect(kinds == Set(MessageKind.allCases.map(\.rawValue)))
  }

  @Test(arguments: try ContractFixtures.files(fixtures.appendingPathComponent("valid")))
  func validFixturePassesEveryStage(file: String) throws {
    let report = try validate(fixture("valid/\(file)"), policy: ContractFixtures.strictRejectingUnknownFields)
    #expect(report.status == .succeeded, "\(report.issues)")
    #expect(report.statistics(for: .map).recordsOut == 1)
    #expect(report.issues.isEmpty)
  }

  @Test(arguments: invalid)
  func invalidFixtureFailsAtItsStageWithItsCode(expectation: Expectation) throws {
    let report = try validate(fixture("invalid/\(expectation.file)"), policy: expectation.policy)
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    let errors = report.issues.filter { $0.severity == .error }
    #expect(errors.count == 1, "\(errors)")
    let issue = try #require(errors.first)
    #expect(issue.stage == expectation.stage)
    #expect(issue.code == expectation.code)
    #expect(issue.path == expectation.path)
    #expect(issue.location?.ordinal == 1)
    #expect(issue.value == expectation.kind)
    #expect(report.statistics(for: expectation.stage).rejected == 1)
  }

  @Test func valuesNeverAppearInIssues() throws {
    for expectation in Self.invalid {
      let report = try validate(fixture("invalid/\(expectation.file)"), policy: expectation.policy)
      let texts = report.issues.map(\.description) + [report.failure?.message ?? "", report.summary()]
      #expect(!report.issues.isEmpty)
      for text in texts {
        for value in Self.privateValues {
          #expect(!OrdersContractTests.quotes(text, value), "\(expectation.file) quotes \(value): \(text)")
        }
      }
    }
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
    let (report, database, directory) = try load(fixture("invalid/008-unknown-attachment-type.json"), policy: Self.lenientArrays)
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
      report.drift.unsupportedEnumValues == [.init(path: "attachments[].type", value: "location", count: 1, firstRecord: 1)])
    // The element's own fields are unknown fields too: what the new kind carries.
    #expect(report.drift.unknownFields.map(\.path) == ["attachments[].latitude", "attachments[].longitude"])
    #expect(try rows(database, "SELECT count(*) FROM messages") == ["1"])
    #expect(
      try rows(database, "SELECT position, k.name FROM message_attachments a JOIN message_kinds k ON k.id = a.kind_id ORDER BY position")
        == ["0|image", "1|file"])
  }

  @Test func unknownTypeIsSkippedUnderLenientAndNamedInTheDrift() throws {
    let (report, database, directory) = try load(fixture("invalid/001-unknown-type.json"), policy: Self.lenientAllowingNothingLoaded)
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
    #expect(try rows(minimal, "SELECT message_id, conversation_id, sender_id FROM messages") == ["dm%2Fu1-u2/0042|dm/u1-u2|∅"])
    #expect(try rows(minimal, "SELECT * FROM image_messages") == ["dm%2Fu1-u2/0042|photos/0042.jpg|∅|∅|∅"])
    #expect(try rows(minimal, "SELECT * FROM conversations") == ["dm/u1-u2|∅"])
    withExtendedLifetime((d1, d2, d3, d4, d5, d6)) {}
  }
}
