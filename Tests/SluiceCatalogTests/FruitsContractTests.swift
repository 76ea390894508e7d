import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The fruits contract (seed 002, item 10): every fixture under Fixtures/fruits/valid passes
/// every stage; every fixture under invalid/ fails at the expected stage with the expected code
/// and field path.
@Suite("Fruits contract fixtures")
struct FruitsContractTests {
  static let fixtures = ContractFixtures.directory("fruits")

  struct Expectation: Sendable, CustomTestStringConvertible {
    var file: String
    var stage: Stage
    var code: IssueCode
    var path: String
    var policy: Policy = .strict
    var testDescription: String { file }
  }

  static var rejectUnknown: Policy { ContractFixtures.strictRejectingUnknownFields }

  static let invalid: [Expectation] = [
    .init(file: "001-null-name.json", stage: .decode, code: .nullValue, path: "name"),
    .init(file: "002-missing-color.json", stage: .decode, code: .missingField, path: "color"),
    .init(file: "003-recipe-title-is-a-number.json", stage: .decode, code: .typeMismatch, path: "recipes[0].title"),
    .init(file: "004-unknown-field.json", stage: .decode, code: .unknownField, path: "recipes[0].calories", policy: rejectUnknown),
    .init(file: "005-malformed.json", stage: .read, code: .syntax, path: ""),
    .init(file: "006-bad-video-url.json", stage: .validate, code: .invalidValue, path: "recipes[1].videoTutorial"),
    .init(file: "007-duplicate-recipe-titles.json", stage: .validate, code: .invalidValue, path: "recipes[1].title"),
    .init(file: "008-blank-id.json", stage: .validate, code: .invalidValue, path: "fruitID"),
    .init(file: "009-recipes-not-an-array.json", stage: .decode, code: .typeMismatch, path: "recipes"),
    .init(file: "010-duplicate-key.json", stage: .decode, code: .duplicateKey, path: "name"),
    .init(file: "011-missing-recipe-field.json", stage: .decode, code: .missingField, path: "recipes[1].description"),
    .init(file: "012-invalid-utf8.json", stage: .read, code: .syntax, path: ""),
    .init(file: "013-lone-surrogate.json", stage: .decode, code: .invalidValue, path: "name"),
  ]

  /// Runs one fixture as a one-record NDJSON-free array through every stage but the load.
  private func validate(_ file: URL, policy: Policy) throws -> RunReport {
    try ContractFixtures.validate(file, with: FruitsDataset(), policy: policy)
  }


  @Test func everyInvalidFixtureHasAnExpectation() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.appendingPathComponent("invalid").path)
    #expect(Set(files) == Set(Self.invalid.map(\.file)))
  }

  @Test(arguments: try FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent("valid").path).sorted())
  func validFixturePassesEveryStage(file: String) throws {
    let report = try validate(Self.fixtures.appendingPathComponent("valid/\(file)"), policy: Self.rejectUnknown)
    #expect(report.status == .succeeded, "\(report.issues)")
    #expect(report.statistics(for: .map).recordsOut == 1)
    #expect(report.issues.isEmpty)
  }

  @Test(arguments: invalid)
  func invalidFixtureFailsAtItsStageWithItsCode(expectation: Expectation) throws {
    let report = try validate(Self.fixtures.appendingPathComponent("invalid/\(expectation.file)"), policy: expectation.policy)
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    let issue = try #require(report.issues.first { $0.severity == .error })
    #expect(issue.stage == expectation.stage)
    #expect(issue.code == expectation.code)
    #expect(issue.path == expectation.path)
    #expect(issue.location?.ordinal == 1)
  }

  @Test func unknownFieldIsOnlyAWarningUnderTheDefaultPolicy() throws {
    let report = try validate(Self.fixtures.appendingPathComponent("invalid/004-unknown-field.json"), policy: .strict)
    #expect(report.status == .succeeded)
    let warning = try #require(report.issues.first)
    #expect(warning.severity == .warning)
    #expect(warning.code == .unknownField)
    #expect(warning.path == "recipes[0].calories")
    #expect(report.statistics(for: .decode).warnings == 1)
    #expect(report.drift.unknownFields == [.init(path: "recipes[].calories", count: 1, firstRecord: 1)])
  }

  @Test func valuesNeverAppearInIssues() throws {
    for expectation in Self.invalid {
      let url = Self.fixtures.appendingPathComponent("invalid/\(expectation.file)")
      let report = try validate(url, policy: expectation.policy)
      for issue in report.issues {
        for value in ["Apple", "Pear", "Tart", "www.example.com", "120"] {
          #expect(!issue.description.contains(value), "\(expectation.file): \(issue)")
        }
      }
    }
  }
}
