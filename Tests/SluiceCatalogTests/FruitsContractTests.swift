import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The fruits contract beyond the shape every dataset's has (`ContractManifestTests`, which runs
/// Fixtures/fruits against Fixtures/contracts.json).
@Suite("Fruits contract fixtures")
struct FruitsContractTests {
  static let fixtures = ContractFixtures.directory("fruits")

  /// Runs one fixture as a one-record NDJSON-free array through every stage but the load.
  private func validate(_ file: URL, policy: Policy) throws -> RunReport {
    try ContractFixtures.validate(file, with: FruitsDataset(), policy: policy)
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

}
