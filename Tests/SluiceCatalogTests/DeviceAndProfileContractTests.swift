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
  /// Their expectations, from Fixtures/contracts.json.
  static var invalid: [ContractManifestTests.Expectation] {
    ContractManifestTests.invalid.filter { datasets.contains($0.dataset) }
  }

  static let datasets = ["devices", "alerts", "profiles", "profile-patches"]

  static let valid: [String] = datasets.flatMap { dataset in
    ((try? ContractFixtures.files(ContractFixtures.directory(dataset).appendingPathComponent("valid"))) ?? []).map {
      "\(dataset)/\($0)"
    }
  }

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

  @Test(arguments: valid)
  func validFixtureLoadsBesideTheSeededRows(fixture: String) throws {
    let (dataset, file) = (String(fixture.split(separator: "/")[0]), String(fixture.split(separator: "/")[1]))
    let url = Self.fixture(dataset, "valid", file)
    let (database, directory) = try Self.seededDatabase()
    let report = try Self.load(url, dataset: dataset, into: database, in: directory)
    #expect(report.status == .succeeded, "\(report.issues)")
    #expect(report.statistics(for: .load).recordsOut == 1)
  }

  @Test(arguments: invalid)
  func invalidFixtureFailsAtItsStageWithItsCodeAndPath(expectation: ContractManifestTests.Expectation) throws {
    let url = Self.fixture(expectation.dataset, "invalid", expectation.file)
    // A decoding issue points at its field's line; a record's other issues at the record's.
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    let fieldLine = lines.firstIndex { $0.contains("\"\(expectation.path)\":") }.map { $0 + 1 }
    let line = expectation.stage == .decode ? fieldLine ?? 1 : 1
    func check(_ report: RunReport) throws {
      let issue = try ContractManifestTests.checkFailure(report, as: expectation)
      #expect(issue.location?.line == line)
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
