import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Every dataset's contract fixtures, from one manifest (`Fixtures/contracts.json`): the valid
/// ones pass every stage, each invalid one fails at its stage with its code and field path, and
/// no issue, failure or summary quotes a value the fixtures hold. A dataset's own suite keeps
/// only what goes beyond this shape (loading, drift, lenient policies).
@Suite("Contract fixtures, from the manifest")
struct ContractManifestTests {
  struct Manifest: Decodable {
    struct Dataset: Decodable {
      var privateValues: [String]
      var invalid: [Expectation]
      var validMayBeSkipped: Bool?
    }
    var datasets: [String: Dataset]
  }

  struct Expectation: Decodable, Sendable, CustomTestStringConvertible {
    var dataset = ""
    var file: String
    var stage: Stage
    var code: IssueCode
    var path: String
    /// `reject`: the fixture is run with unknown fields as errors.
    var unknownFields: String?
    /// For `unsupportedEnumValue`: the value the issue names, and the drift counts.
    var names: String?
    /// A value of this fixture no text may quote, beside the dataset's private values.
    var neverQuoted: String?
    var testDescription: String { "\(dataset)/\(file)" }

    private enum CodingKeys: String, CodingKey { case file, stage, code, path, unknownFields, names, neverQuoted }

    var policy: Policy { unknownFields == "reject" ? ContractFixtures.strictRejectingUnknownFields : .strict }
  }

  static let manifest: Manifest = {
    do {
      let url = ContractFixtures.directory("contracts.json")
      return try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: url))
    } catch {
      preconditionFailure("Fixtures/contracts.json: \(error)")
    }
  }()

  static var datasets: [String] { manifest.datasets.keys.sorted() }

  static var invalid: [Expectation] {
    datasets.flatMap { dataset in
      manifest.datasets[dataset, default: .init(privateValues: [], invalid: [])].invalid.map { expectation in
        var expectation = expectation
        expectation.dataset = dataset
        return expectation
      }
    }
  }

  /// `dataset/file` of every valid fixture.
  static var valid: [String] {
    datasets.flatMap { dataset in
      ((try? ContractFixtures.files(folder(dataset, "valid"))) ?? []).map { "\(dataset)/\($0)" }
    }
  }

  static func folder(_ dataset: String, _ kind: String) -> URL {
    ContractFixtures.directory(dataset).appendingPathComponent(kind)
  }

  static func validate(_ dataset: String, _ fixture: URL, policy: Policy) throws -> RunReport {
    try ContractFixtures.validate(fixture, with: try #require(Catalog.dataset(named: dataset)), policy: policy)
  }

  @Test func everyFixtureFolderIsInTheManifestAndEveryInvalidFixtureHasOneExpectation() throws {
    let folders = try FileManager.default.contentsOfDirectory(atPath: ContractFixtures.directory("").path)
      .filter { !$0.hasSuffix(".json") }
    #expect(Set(folders) == Set(Self.datasets))
    for dataset in Self.datasets {
      #expect(Catalog.dataset(named: dataset) != nil, "\(dataset) is no dataset of the catalog")
      let expected = Self.invalid.filter { $0.dataset == dataset }.map(\.file)
      #expect(expected.count == Set(expected).count, "\(dataset): a fixture with two expectations")
      #expect(Set(try ContractFixtures.files(Self.folder(dataset, "invalid"))) == Set(expected), "\(dataset)")
      #expect(!(try ContractFixtures.files(Self.folder(dataset, "valid"))).isEmpty, "\(dataset) has no valid fixture")
    }
  }

  @Test(arguments: valid)
  func validFixturePassesEveryStageWithNoUnknownField(fixture: String) throws {
    let (dataset, file) = (String(fixture.prefix { $0 != "/" }), String(fixture.drop { $0 != "/" }.dropFirst()))
    let report = try Self.validate(
      dataset, Self.folder(dataset, "valid").appendingPathComponent(file),
      policy: ContractFixtures.strictRejectingUnknownFields)
    #expect(report.status == .succeeded, "\(report.issues.map(\.description))")
    #expect(report.issues.isEmpty)
    let map = report.statistics(for: .map)
    if Self.manifest.datasets[dataset]?.validMayBeSkipped == true {
      #expect(map.recordsOut + map.skipped == 1)
    } else {
      #expect(map.recordsOut == 1)
    }
  }

  /// The load stage's fixtures need a database that holds what they reference: their
  /// dataset's suite checks them.
  @Test(arguments: invalid.filter { $0.stage != .load })
  func invalidFixtureFailsAtItsStageWithItsCodeAndPath(expectation: Expectation) throws {
    let report = try Self.validate(
      expectation.dataset, Self.folder(expectation.dataset, "invalid").appendingPathComponent(expectation.file),
      policy: expectation.policy)
    let issue = try Self.checkFailure(report, as: expectation)
    #expect(issue.value == expectation.names)
    if let names = expectation.names {
      #expect(report.drift.unsupportedEnumValues.map(\.value) == [names])
    }
  }

  /// A fixture's run failed as its expectation says: exit 65, exactly one error, at its stage with
  /// its code and field path, in record 1, counted as that stage's one reject — and no issue,
  /// failure or summary quotes a value the fixture holds (the unknown value an issue names is the
  /// documented exception: the drift counts it by name). Returns the error.
  @discardableResult
  static func checkFailure(_ report: RunReport, as expectation: Expectation) throws -> SluiceCore.Issue {
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    let errors = report.issues.filter { $0.severity == .error }
    #expect(errors.count == 1, "\(errors)")
    let issue = try #require(errors.first)
    #expect(issue.stage == expectation.stage)
    #expect(issue.code == expectation.code)
    #expect(issue.path == expectation.path)
    #expect(issue.location?.ordinal == 1)
    #expect(report.statistics(for: expectation.stage).rejected == 1)
    let texts = report.issues.map(\.description) + [report.failure?.message ?? "", report.summary()]
    let values =
      (manifest.datasets[expectation.dataset]?.privateValues ?? []) + (expectation.neverQuoted.map { [$0] } ?? [])
    for text in texts {
      for value in values {
        #expect(!ContractFixtures.quotes(text, value), "\(expectation.file) quotes \(value): \(text)")
      }
    }
    return issue
  }
}
