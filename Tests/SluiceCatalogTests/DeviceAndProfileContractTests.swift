import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The contracts of the device feeds and the profile feeds (seeds 000 and 002): every fixture
/// under `Fixtures/<dataset>/valid` passes every stage and loads; every fixture under `invalid/`
/// fails at its stage with its code and field path — in a dry run where the problem needs no
/// database, and in a strict load, which leaves the database as it was, in every case. The
/// load-stage fixtures (an alert's unknown device, a patch's unknown profile, a patch clearing
/// the nickname) load into a database that holds the fixtures' device and profile.
@Suite("Device and profile contract fixtures")
struct DeviceAndProfileContractTests {
  struct Expectation: Sendable, CustomTestStringConvertible {
    var dataset: String
    var file: String
    var stage: Stage
    var code: IssueCode
    var path: String
    var testDescription: String { "\(dataset)/\(file)" }
  }

  static let invalid: [Expectation] = [
    .init(dataset: "devices", file: "001-missing-name.json", stage: .decode, code: .missingField, path: "name"),
    .init(dataset: "devices", file: "002-latitude-as-text.json", stage: .decode, code: .typeMismatch, path: "latitude"),
    .init(dataset: "devices", file: "003-latitude-beyond-90.json", stage: .validate, code: .outOfRange, path: "latitude"),
    .init(
      dataset: "devices", file: "004-longitude-below-minus-180.json", stage: .validate, code: .outOfRange,
      path: "longitude"),
    .init(dataset: "devices", file: "005-blank-name.json", stage: .validate, code: .invalidValue, path: "name"),
    .init(dataset: "devices", file: "006-null-longitude.json", stage: .decode, code: .nullValue, path: "longitude"),
    .init(dataset: "devices", file: "007-numeric-id.json", stage: .decode, code: .typeMismatch, path: "id"),
    .init(dataset: "devices", file: "008-missing-id.json", stage: .decode, code: .missingField, path: "id"),
    .init(dataset: "alerts", file: "001-missing-device-id.json", stage: .decode, code: .missingField, path: "deviceId"),
    .init(dataset: "alerts", file: "002-code-as-text.json", stage: .decode, code: .typeMismatch, path: "code"),
    .init(dataset: "alerts", file: "003-code-beyond-9999.json", stage: .validate, code: .outOfRange, path: "code"),
    .init(dataset: "alerts", file: "004-negative-code.json", stage: .validate, code: .outOfRange, path: "code"),
    .init(dataset: "alerts", file: "005-expires-before-created.json", stage: .validate, code: .invalidValue, path: "expire"),
    .init(dataset: "alerts", file: "006-expires-when-created.json", stage: .validate, code: .invalidValue, path: "expire"),
    .init(dataset: "alerts", file: "007-fractional-code.json", stage: .decode, code: .typeMismatch, path: "code"),
    .init(dataset: "alerts", file: "008-impossible-date.json", stage: .decode, code: .invalidDate, path: "createdAt"),
    .init(dataset: "alerts", file: "009-orphan-device.json", stage: .load, code: .orphanReference, path: "deviceId"),
    .init(dataset: "alerts", file: "010-null-title.json", stage: .decode, code: .nullValue, path: "title"),
    .init(dataset: "alerts", file: "011-numeric-device-id.json", stage: .decode, code: .typeMismatch, path: "deviceId"),
    .init(dataset: "profiles", file: "001-missing-nickname.json", stage: .decode, code: .missingField, path: "nickname"),
    .init(dataset: "profiles", file: "002-null-nickname.json", stage: .decode, code: .nullValue, path: "nickname"),
    .init(
      dataset: "profiles", file: "003-introduction-as-number.json", stage: .decode, code: .typeMismatch,
      path: "introduction"),
    .init(dataset: "profiles", file: "004-blank-nickname.json", stage: .validate, code: .invalidValue, path: "nickname"),
    .init(dataset: "profiles", file: "005-missing-id.json", stage: .decode, code: .missingField, path: "id"),
    .init(dataset: "profile-patches", file: "001-null-nickname.json", stage: .load, code: .nullValue, path: "nickname"),
    .init(dataset: "profile-patches", file: "002-missing-id.json", stage: .decode, code: .missingField, path: "id"),
    .init(
      dataset: "profile-patches", file: "003-nickname-as-number.json", stage: .decode, code: .typeMismatch,
      path: "nickname"),
    .init(
      dataset: "profile-patches", file: "004-blank-nickname.json", stage: .validate, code: .invalidValue, path: "nickname"
    ),
    .init(dataset: "profile-patches", file: "005-orphan-profile.json", stage: .load, code: .orphanReference, path: "id"),
    .init(dataset: "profile-patches", file: "006-null-id.json", stage: .decode, code: .nullValue, path: "id"),
    .init(
      dataset: "profile-patches", file: "007-introduction-as-object.json", stage: .decode, code: .typeMismatch,
      path: "introduction"),
  ]

  static let datasets = ["devices", "alerts", "profiles", "profile-patches"]

  static let valid: [String] = datasets.flatMap { dataset in
    ((try? ContractFixtures.files(ContractFixtures.directory(dataset).appendingPathComponent("valid"))) ?? []).map {
      "\(dataset)/\($0)"
    }
  }

  /// Values the fixtures carry, none of which an issue, a failure or a summary may quote.
  static let privateValues = [
    "dev-0042", "dev-9999", "Müllerstraße", "52.5321", "13.3849", "Wasserstand", "Pegel", "2101", "p-0042", "p-9999",
    "Zoë", "Kartiert", "90.5", "-180.25", "10000",
  ]

  static func fixture(_ dataset: String, _ folder: String, _ file: String) -> URL {
    ContractFixtures.directory(dataset).appendingPathComponent("\(folder)/\(file)")
  }

  static func dataset(_ name: String) throws -> AnyDataset { try #require(Catalog.dataset(named: name)) }

  /// A scratch database holding what the load-stage fixtures are checked against: the device
  /// `dev-0042` and the profile `p-0042`, loaded from the valid fixtures.
  static func seededDatabase() throws -> (String, TemporaryDirectory) {
    let directory = try TemporaryDirectory()
    let database = directory.file("contract.sqlite")
    for (dataset, file) in [("devices", "001-device.json"), ("profiles", "001-profile.json")] {
      let report = try load(fixture(dataset, "valid", file), dataset: dataset, into: database, in: directory)
      #expect(report.status == .succeeded, "\(report.issues)")
    }
    return (database, directory)
  }

  /// Loads one fixture as a one-record array into `database` under the strict policy.
  static func load(_ file: URL, dataset: String, into database: String, in directory: TemporaryDirectory) throws
    -> RunReport
  {
    let bytes = Array("[".utf8) + Array(try Data(contentsOf: file)) + Array("]".utf8)
    let input = try directory.write("fixture-\(dataset)-\(file.lastPathComponent)", bytes)
    let configuration = PipelineConfiguration(
      name: file.lastPathComponent, input: input, policy: ContractFixtures.strictRejectingUnknownFields,
      database: .sqlite(database))
    return try Self.dataset(dataset).run(configuration)
  }

  /// Every table the four datasets write, for snapshots.
  static let tables = ["devices", "alerts", "profiles"]

  @Test func everyInvalidFixtureHasAnExpectation() throws {
    for dataset in Self.datasets {
      let files = try ContractFixtures.files(ContractFixtures.directory(dataset).appendingPathComponent("invalid"))
      #expect(Set(files) == Set(Self.invalid.filter { $0.dataset == dataset }.map(\.file)), "\(dataset)")
    }
    #expect(Self.valid.count >= 12)
  }

  @Test(arguments: valid)
  func validFixturePassesEveryStageAndLoads(fixture: String) throws {
    let (dataset, file) = (String(fixture.split(separator: "/")[0]), String(fixture.split(separator: "/")[1]))
    let url = Self.fixture(dataset, "valid", file)
    let dry = try ContractFixtures.validate(
      url, with: try Self.dataset(dataset), policy: ContractFixtures.strictRejectingUnknownFields)
    #expect(dry.status == .succeeded, "\(dry.issues)")
    #expect(dry.issues.isEmpty)

    let (database, directory) = try Self.seededDatabase()
    let report = try Self.load(url, dataset: dataset, into: database, in: directory)
    #expect(report.status == .succeeded, "\(report.issues)")
    #expect(report.statistics(for: .load).recordsOut == 1)
  }

  @Test(arguments: invalid)
  func invalidFixtureFailsAtItsStageWithItsCodeAndPath(expectation: Expectation) throws {
    let url = Self.fixture(expectation.dataset, "invalid", expectation.file)
    // A decoding issue points at its field's line; a record's other issues at the record's.
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    let fieldLine = lines.firstIndex { $0.contains("\"\(expectation.path)\":") }.map { $0 + 1 }
    let line = expectation.stage == .decode ? fieldLine ?? 1 : 1
    func check(_ report: RunReport) throws {
      #expect(report.status == .failed)
      #expect(report.exitCode == 65)
      let errors = report.issues.filter { $0.severity == .error }
      #expect(errors.count == 1, "\(errors)")
      let issue = try #require(errors.first)
      #expect(issue.stage == expectation.stage)
      #expect(issue.code == expectation.code)
      #expect(issue.path == expectation.path)
      #expect(issue.location?.ordinal == 1)
      #expect(issue.location?.line == line)
      #expect(report.statistics(for: expectation.stage).rejected == 1)
      for text in report.issues.map(\.description) + [report.failure?.message ?? "", report.summary()] {
        for value in Self.privateValues {
          #expect(!OrdersContractTests.quotes(text, value), "\(expectation.file) quotes \(value): \(text)")
        }
      }
    }
    // A dry run finds everything but what only the database knows: a row that does not exist.
    if expectation.code != .orphanReference {
      try check(
        try ContractFixtures.validate(
          url, with: try Self.dataset(expectation.dataset), policy: ContractFixtures.strictRejectingUnknownFields))
    }
    // A strict load fails the same way and leaves the database as it was.
    let (database, directory) = try Self.seededDatabase()
    let before = try DatabaseSnapshot(of: database, tables: Self.tables)
    try check(try Self.load(url, dataset: expectation.dataset, into: database, in: directory))
    #expect(try DatabaseSnapshot(of: database, tables: Self.tables) == before)
  }
}
