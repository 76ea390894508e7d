import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The real exports' contracts (seed 002, item 10): under `Fixtures/<dataset>/valid/` one record
/// of each kind and each shape an export writes, which passes every stage with unknown fields
/// as errors (so the DTO declares every key the export writes); under `invalid/`, records that
/// fail at the expected stage, with the expected code, at the expected path — under the strict
/// preset, where an unknown field is only a warning, so each fails for its own reason.
@Suite("Chat export contract fixtures")
struct ChatExportContractTests {
  static let datasets = ["slack-users", "slack-channels", "slack-messages", "discord", "mattermost", "messenger", "telegram"]

  struct Expectation: Sendable, CustomTestStringConvertible {
    var dataset: String
    var file: String
    var stage: Stage
    var code: IssueCode
    var path: String
    /// For `unsupportedEnumValue`: the value the drift summary names.
    var value: String? = nil
    var testDescription: String { "\(dataset)/\(file)" }
  }

  static let invalid: [Expectation] = [
    .init(dataset: "slack-messages", file: "001-unknown-subtype.json", stage: .map, code: .unsupportedEnumValue, path: "subtype", value: "huddle_thread"),
    .init(dataset: "slack-messages", file: "002-ts-without-microseconds.json", stage: .validate, code: .invalidValue, path: "ts"),
    .init(dataset: "slack-messages", file: "003-file-share-without-file.json", stage: .validate, code: .missingField, path: "file"),
    .init(dataset: "slack-messages", file: "004-ts-a-number.json", stage: .decode, code: .typeMismatch, path: "ts"),
    .init(dataset: "slack-messages", file: "005-not-a-message.json", stage: .map, code: .unsupportedEnumValue, path: "type", value: "reminder"),
    .init(dataset: "slack-messages", file: "006-missing-text.json", stage: .decode, code: .missingField, path: "text"),
    .init(dataset: "slack-messages", file: "007-bad-thread-ts.json", stage: .validate, code: .invalidValue, path: "thread_ts"),
    .init(dataset: "slack-channels", file: "001-created-not-an-integer.json", stage: .decode, code: .invalidValue, path: "created"),
    .init(dataset: "slack-channels", file: "002-created-a-boolean.json", stage: .decode, code: .typeMismatch, path: "created"),
    .init(dataset: "slack-channels", file: "003-last-set-a-fraction.json", stage: .decode, code: .typeMismatch, path: "topic.last_set"),
    .init(dataset: "slack-channels", file: "004-blank-name.json", stage: .validate, code: .invalidValue, path: "name"),
    .init(dataset: "slack-users", file: "001-missing-id.json", stage: .decode, code: .missingField, path: "id"),
    .init(dataset: "discord", file: "001-unknown-type.json", stage: .map, code: .unsupportedEnumValue, path: "type", value: "GuildBoost"),
    .init(dataset: "discord", file: "002-negative-attachment-size.json", stage: .validate, code: .outOfRange, path: "attachments[1].fileSizeBytes"),
    .init(dataset: "discord", file: "003-missing-author.json", stage: .decode, code: .missingField, path: "author"),
    .init(dataset: "discord", file: "004-timestamp-not-a-date.json", stage: .decode, code: .invalidDate, path: "timestamp"),
    .init(dataset: "discord", file: "005-author-id-a-number.json", stage: .decode, code: .typeMismatch, path: "author.id"),
    .init(dataset: "mattermost", file: "001-unknown-line-type.json", stage: .map, code: .unsupportedEnumValue, path: "type", value: "bookmark"),
    .init(dataset: "mattermost", file: "002-post-without-its-payload.json", stage: .validate, code: .missingField, path: "post"),
    .init(dataset: "mattermost", file: "003-unknown-post-type.json", stage: .map, code: .unsupportedEnumValue, path: "post.type", value: "custom_poll"),
    .init(dataset: "mattermost", file: "004-reply-create-at-a-string.json", stage: .decode, code: .typeMismatch, path: "post.replies[0].create_at"),
    .init(dataset: "mattermost", file: "005-create-at-out-of-range.json", stage: .validate, code: .outOfRange, path: "post.create_at"),
    .init(dataset: "mattermost", file: "006-direct-post-without-members.json", stage: .validate, code: .missingField, path: "direct_post.channel_members"),
    .init(dataset: "messenger", file: "001-no-content.json", stage: .validate, code: .missingField, path: "content"),
    .init(dataset: "messenger", file: "002-unknown-type.json", stage: .map, code: .unsupportedEnumValue, path: "type", value: "Poll"),
    .init(dataset: "messenger", file: "003-timestamp-a-string.json", stage: .decode, code: .typeMismatch, path: "timestamp_ms"),
    .init(dataset: "messenger", file: "004-photo-without-uri.json", stage: .decode, code: .missingField, path: "photos[1].uri"),
    .init(dataset: "telegram", file: "001-unknown-type.json", stage: .map, code: .unsupportedEnumValue, path: "type", value: "story"),
    .init(dataset: "telegram", file: "002-text-a-number.json", stage: .decode, code: .typeMismatch, path: "text"),
    .init(dataset: "telegram", file: "003-date-unixtime-not-an-integer.json", stage: .decode, code: .invalidValue, path: "date_unixtime"),
    .init(dataset: "telegram", file: "004-no-date.json", stage: .validate, code: .missingField, path: "date_unixtime"),
    .init(dataset: "telegram", file: "005-from-id-a-boolean.json", stage: .decode, code: .typeMismatch, path: "from_id"),
    .init(dataset: "telegram", file: "006-entity-without-text.json", stage: .decode, code: .missingField, path: "text[1].text"),
    .init(dataset: "telegram", file: "007-legacy-date-with-zone.json", stage: .validate, code: .invalidValue, path: "date"),
    .init(dataset: "telegram", file: "008-photo-width-zero.json", stage: .validate, code: .outOfRange, path: "width"),
  ]

  static func fixtures(_ dataset: String, _ folder: String) -> URL {
    ContractFixtures.directory(dataset).appendingPathComponent(folder)
  }

  static var valid: [String] {
    datasets.flatMap { dataset in
      ((try? ContractFixtures.files(fixtures(dataset, "valid"))) ?? []).map { "\(dataset)/\($0)" }
    }
  }

  /// Validates one fixture — a one-record array — with the named dataset: every stage, no writes.
  private func validate(_ dataset: String, _ fixture: URL, policy: Policy) throws -> RunReport {
    let directory = try TemporaryDirectory()
    let input = try directory.write(
      "fixture.json", Array("[".utf8) + Array(try Data(contentsOf: fixture)) + Array("]".utf8))
    var configuration = PipelineConfiguration(
      name: fixture.lastPathComponent, input: input, policy: policy, database: .sqlite(directory.file("unused.sqlite")))
    configuration.mode = .validate
    let report = try #require(Catalog.dataset(named: dataset)).run(configuration)
    #expect(!FileManager.default.fileExists(atPath: directory.file("unused.sqlite")))
    return report
  }

  @Test func everyInvalidFixtureHasAnExpectationAndEveryDatasetValidOnes() throws {
    for dataset in Self.datasets {
      let files = try ContractFixtures.files(Self.fixtures(dataset, "invalid"))
      #expect(Set(files) == Set(Self.invalid.filter { $0.dataset == dataset }.map(\.file)), "\(dataset)")
      #expect(!(try ContractFixtures.files(Self.fixtures(dataset, "valid"))).isEmpty, "\(dataset)")
    }
  }

  @Test(arguments: valid)
  func validFixturePassesEveryStageWithNoUnknownField(fixture: String) throws {
    let (dataset, file) = (String(fixture.prefix { $0 != "/" }), String(fixture.drop { $0 != "/" }.dropFirst()))
    let report = try validate(
      dataset, Self.fixtures(dataset, "valid").appendingPathComponent(file), policy: ContractFixtures.strictRejectingUnknownFields)
    #expect(report.status == .succeeded, "\(report.issues.map(\.description))")
    #expect(report.issues.isEmpty)
    // Mattermost's version line passes by being skipped, by design.
    #expect(report.statistics(for: .map).recordsOut + report.statistics(for: .map).skipped == 1)
  }

  @Test(arguments: invalid)
  func invalidFixtureFailsAtItsStageWithItsCodeAndPath(expectation: Expectation) throws {
    let report = try validate(
      expectation.dataset, Self.fixtures(expectation.dataset, "invalid").appendingPathComponent(expectation.file),
      policy: .strict)
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    let issue = try #require(report.issues.first { $0.severity == .error })
    #expect(issue.stage == expectation.stage)
    #expect(issue.code == expectation.code)
    #expect(issue.path == expectation.path)
    #expect(issue.location?.ordinal == 1)
    if let value = expectation.value {
      #expect(report.drift.unsupportedEnumValues.map(\.value) == [value])
    }
  }
}
