import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

@Suite("Policies: unknown fields, legacy scalars, error budgets")
struct PolicyTests {
  private func lenient(_ change: (inout Policy) -> Void = { _ in }) -> Policy {
    var policy = Policy.lenient
    change(&policy)
    return policy
  }

  private func withExtraField(_ index: Int) -> String {
    FruitsDump.fruit(index).replacingOccurrences(
      of: #""color": "red""#, with: #""color": "red", "origin": {"country": "NZ"}"#)
  }

  @Test(arguments: [Policy.UnknownFieldAction.ignore, .warn, .reject])
  func unknownFieldsFollowThePolicy(action: Policy.UnknownFieldAction) throws {
    let workspace = try FruitsWorkspace()
    var policy = Policy.lenient
    policy.unknownFields = action
    let report = try workspace.run(FruitsDump.array([withExtraField(1), FruitsDump.fruit(2)]), policy: policy)
    #expect(report.status == .succeeded)
    switch action {
    case .ignore:
      #expect(report.issues.isEmpty)
      #expect(try workspace.count("fruits") == 2)
    case .warn:
      #expect(report.issues.map(\.severity) == [.warning])
      #expect(report.issues.first?.path == "origin")
      #expect(report.statistics(for: .decode).warnings == 1)
      #expect(try workspace.count("fruits") == 2)
      #expect(report.drift.unknownFields.map(\.path) == ["origin"])
    case .reject:
      #expect(report.issues.map(\.severity) == [.error])
      #expect(report.statistics(for: .decode).rejected == 1)
      #expect(try workspace.count("fruits") == 1)
    }
  }

  @Test func legacyScalarsConvertANumericIDAndCountIt() throws {
    let records = [FruitsDump.fruit(1).replacingOccurrences(of: #""fruitID": "F1""#, with: #""fruitID": 1001"#)]
    let strict = try FruitsWorkspace().run(FruitsDump.array(records))
    #expect(strict.issues.first?.code == .typeMismatch)
    #expect(strict.issues.first?.path == "fruitID")

    let workspace = try FruitsWorkspace()
    let report = try workspace.run(FruitsDump.array(records), policy: lenient { $0.legacyScalars = true })
    #expect(report.status == .succeeded)
    #expect(report.coercions == 1)
    #expect(try workspace.dump().first == "1001|Frücht 1|red")
  }

  /// Ten records, `bad` of them with a wrong type.
  private func dump(bad: Int) -> String {
    FruitsDump.ndjson(
      (1...10).map { index in
        index <= bad
          ? FruitsDump.fruit(index).replacingOccurrences(of: #""color": "red""#, with: #""color": 5"#)
          : FruitsDump.fruit(index)
      })
  }

  @Test func rejectCountWithinTheBudgetCommits() throws {
    let workspace = try FruitsWorkspace()
    let report = try workspace.run(dump(bad: 2), format: .ndjson, policy: lenient { $0.maxRejects = 2 })
    #expect(report.status == .succeeded)
    #expect(try workspace.count("fruits") == 8)
  }

  @Test func rejectCountOverTheBudgetRollsEverythingBack() throws {
    let workspace = try FruitsWorkspace()
    _ = try workspace.run(FruitsDump.array([FruitsDump.fruit(100)]))
    let before = try workspace.dump()
    let report = try workspace.run(dump(bad: 3), format: .ndjson, policy: lenient { $0.maxRejects = 2 })
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    #expect(report.failure?.message.contains("error budget exceeded") == true)
    #expect(try workspace.dump() == before)
    #expect(try workspace.auditRuns() == ["succeeded", "failed"])
  }

  @Test func rejectRateOverTheBudgetRollsEverythingBack() throws {
    let workspace = try FruitsWorkspace()
    _ = try workspace.run(FruitsDump.array([FruitsDump.fruit(100)]))
    let before = try workspace.dump()
    let over = try workspace.run(dump(bad: 2), format: .ndjson, policy: lenient { $0.maxRejectRate = 0.1 })
    #expect(over.status == .failed)
    #expect(over.failure?.message.contains("2 of 10 records rejected") == true)
    #expect(try workspace.dump() == before)

    let within = try workspace.run(dump(bad: 1), format: .ndjson, policy: lenient { $0.maxRejectRate = 0.1 })
    #expect(within.status == .succeeded)
    #expect(try workspace.count("fruits") == 10)
  }

  @Test func datesFollowTheConfiguredFormats() throws {
    struct Stamped: Decodable { var at: Date }
    let record = RawRecord(
      location: .init(ordinal: 1, byteOffset: 0, line: 1), bytes: Array(#"{"at": "03/04/2023"}"#.utf8))
    var diagnostics = DecodeDiagnostics()
    #expect(throws: RecordDecodingError.self) {
      _ = try SluiceDecoder().decode(Stamped.self, from: record, diagnostics: &diagnostics)
    }
    let legacy = SluiceDecoder(options: .init(dateFormats: [.iso8601, .pattern("dd/MM/yyyy")]))
    let value = try legacy.decode(Stamped.self, from: record, diagnostics: &diagnostics)
    #expect(value.at == Date(timeIntervalSince1970: 1_680_480_000))  // 3 April 2023
  }
}
