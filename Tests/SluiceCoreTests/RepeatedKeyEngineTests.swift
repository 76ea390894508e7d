import Foundation
import SluiceSQLite
import SluiceTestSupport
import Testing

@testable import SluiceCore

/// Natural keys written more than once in one run (`duplicateKey` at the load stage), through the
/// engine with a dataset of its own (`ShipmentsDataset`: shipments keyed by `id`, their parcels a
/// child table whose weight must be at least 1).
@Suite("Repeated keys in one run, through the engine")
struct RepeatedKeyEngineTests {
  private struct Run {
    var report: RunReport
    var database: SQLiteConnection
    var directory: TemporaryDirectory
  }

  private static func shipment(_ id: String, mode: String = "air", parcels: [Int] = [1]) -> String {
    #"{"id": "\#(id)", "mode": "\#(mode)", "parcels": [\#(parcels.map(String.init).joined(separator: ", "))]}"#
  }

  private func run(
    _ lines: [String], policy: Policy, mode: RunMode = .run, limits: KeyRegistry.Limits = .init(),
    in directory: TemporaryDirectory? = nil
  ) throws -> Run {
    let directory = try directory ?? TemporaryDirectory()
    let input = try directory.write("shipments.ndjson", lines.joined(separator: "\n") + "\n")
    var configuration = PipelineConfiguration(
      name: "shipments", input: input, format: .ndjson, policy: policy, database: .sqlite(directory.file("s.sqlite")),
      issueSampleLimit: 10_000)
    configuration.mode = mode
    configuration.keyRegistryLimits = limits
    let report = try Pipeline(dataset: ShipmentsDataset(), configuration: configuration).run()
    return Run(report: report, database: try SQLiteConnection(path: directory.file("s.sqlite")), directory: directory)
  }

  /// `validate --db --on-conflict fail` keeps the keys the run itself would write in a registry
  /// that spills past its limit (here 4 KiB): memory stays bounded, and a key an earlier record
  /// of the run wrote long before — spilled by then — is still found, as are the database's.
  @Test func validateAgainstADatabaseFindsKeysTheRunWroteLongAgoWithBoundedMemory() throws {
    let directory = try TemporaryDirectory()
    _ = try run([Self.shipment("held-1"), Self.shipment("held-2")], policy: .strict, in: directory)
    var ids = (0..<1500).map { String(format: "s%05d", $0) }
    ids += ["s00007", "held-2", "s01234"]
    let input = try directory.write("tonight.ndjson", ids.map { Self.shipment($0) }.joined(separator: "\n") + "\n")
    var configuration = PipelineConfiguration(
      name: "shipments", input: input, format: .ndjson, policy: .lenient,
      database: .sqlite(directory.file("s.sqlite")), issueSampleLimit: 10_000)
    configuration.mode = .validate
    configuration.checksDatabase = true
    configuration.conflict = .fail
    configuration.policy.duplicateKeys = .ignore
    configuration.keyRegistryLimits = KeyRegistry.Limits(recentBytes: 4 << 10, filterBytes: 256)
    let report = try Pipeline(dataset: ShipmentsDataset(), configuration: configuration).run()
    let constraints = report.issues.filter { $0.code == .constraint }
    #expect(constraints.map(\.location?.ordinal) == [1501, 1502, 1503])
    #expect(constraints.allSatisfy { $0.message.hasPrefix("shipments: a row with this key exists already") })
  }

  private static func policy(_ preset: Policy.Preset, _ duplicates: Policy.DuplicateKeyAction) -> Policy {
    var policy = Policy(preset: preset)
    policy.duplicateKeys = duplicates
    return policy
  }

  private func repeats(_ report: RunReport) -> [SluiceCore.Issue] { report.issues.filter { $0.code == .duplicateKey } }

  @Test func aRepeatedKeyIsAWarningAtItsPathNamingTheFirstRecordAndTheLaterRecordWins() throws {
    let run = try run(
      [Self.shipment("a"), Self.shipment("b"), Self.shipment("a", mode: "sea", parcels: [4, 5])], policy: .strict)
    #expect(run.report.status == .succeeded)
    #expect(run.report.duplicateKeys == ["shipments": 1])
    let issue = try #require(repeats(run.report).first)
    #expect(issue.stage == .load)
    #expect(issue.severity == .warning)
    #expect(issue.path == "id")
    #expect(issue.location?.ordinal == 3)
    #expect(issue.location?.line == 3)
    #expect(issue.message == "shipments: record 1 wrote a row with this key earlier in the run")
    #expect(run.report.statistics(for: .load).warnings == 1)
    #expect(run.report.statistics(for: .load).recordsOut == 3)
    #expect(run.report.summary().contains("\n  duplicate keys: shipments 1\n"))
    #expect(try run.database.scalarInt("SELECT count(*) FROM shipments") == 2)
    #expect(try run.database.scalarInt("SELECT count(*) FROM parcels WHERE id = 'a'") == 2)
    #expect(try run.database.scalarInt("SELECT count(*) FROM shipments WHERE id = 'a' AND mode = 'sea'") == 1)
  }

  /// `ignore`: no check — the later record wins as it did before repeats were told apart, and
  /// nothing says so (under `reject` the same input fails a strict run).
  @Test func ignoreLoadsTheRepeatWithoutAWord() throws {
    let lines = [Self.shipment("a"), Self.shipment("b"), Self.shipment("a", mode: "sea", parcels: [4, 5])]
    let run = try run(lines, policy: Self.policy(.strict, .ignore))
    #expect(run.report.status == .succeeded)
    #expect(run.report.duplicateKeys == nil)
    #expect(repeats(run.report).isEmpty && run.report.issues.isEmpty)
    #expect(try run.database.scalarInt("SELECT count(*) FROM shipments WHERE id = 'a' AND mode = 'sea'") == 1)
    #expect(try self.run(lines, policy: Self.policy(.strict, .reject)).report.status == .failed)
  }

  @Test func rejectSkipsTheLaterRecordUnderLenientAndFailsAStrictRunWithNothingWritten() throws {
    let lines = [Self.shipment("a"), Self.shipment("b"), Self.shipment("a", mode: "sea"), Self.shipment("c")]
    let lenient = try run(lines, policy: Self.policy(.lenient, .reject))
    #expect(lenient.report.status == .succeeded)
    #expect(lenient.report.duplicateKeys == ["shipments": 1])
    let issue = try #require(repeats(lenient.report).first)
    #expect(issue.severity == .error)
    #expect(issue.stage == .load && issue.path == "id" && issue.location?.ordinal == 3)
    #expect(issue.message.hasSuffix("; rejected (duplicateKeys: reject)"))
    #expect(lenient.report.statistics(for: .load).rejected == 1)
    #expect(lenient.report.statistics(for: .load).recordsOut == 3)
    #expect(try lenient.database.scalarInt("SELECT count(*) FROM shipments WHERE mode = 'air'") == 3)

    let strict = try run(lines, policy: Self.policy(.strict, .reject))
    #expect(strict.report.status == .failed)
    #expect(strict.report.exitCode == 65)
    #expect(strict.report.failure?.message.contains("load rejected record 3 (line 3): id: duplicateKey") == true)
    #expect(!strict.report.committed)
    #expect((try? strict.database.scalarInt("SELECT count(*) FROM shipments")) ?? 0 == 0)
  }

  /// Under a lenient `reject` a repeat is a rejected record like any other: quarantined with
  /// `--rejects` (its raw text and its issue), and counted against the error budget.
  @Test func aRejectedRepeatIsQuarantinedAndSpendsTheErrorBudget() throws {
    let directory = try TemporaryDirectory()
    let lines = [Self.shipment("a"), Self.shipment("a", mode: "sea"), Self.shipment("b"), Self.shipment("b")]
    let input = try directory.write("shipments.ndjson", lines.joined(separator: "\n") + "\n")
    var configuration = PipelineConfiguration(
      name: "shipments", input: input, format: .ndjson, policy: Self.policy(.lenient, .reject),
      database: .sqlite(directory.file("s.sqlite")), rejectsPath: directory.file("rejects.ndjson"))
    let report = try Pipeline(dataset: ShipmentsDataset(), configuration: configuration).run()
    #expect(report.status == .succeeded)
    #expect(report.quarantined == 2)
    let quarantined = try String(contentsOfFile: directory.file("rejects.ndjson"), encoding: .utf8)
      .split(separator: "\n")
    #expect(quarantined.count == 2)
    #expect(quarantined.allSatisfy { $0.contains(#""code":"duplicateKey""#) && $0.contains(#""stage":"load""#) })
    #expect(quarantined.first?.contains(#"\"mode\": \"sea\""#) == true)

    configuration.policy.maxRejects = 1
    configuration.rejectsPath = nil
    configuration.database = .sqlite(directory.file("budget.sqlite"))
    let spent = try Pipeline(dataset: ShipmentsDataset(), configuration: configuration).run()
    #expect(spent.status == .failed && spent.exitCode == 65)
    #expect(spent.failure?.message.hasPrefix("error budget exceeded: more than 1 rejected record(s)") == true)
  }

  /// The first "a" breaks its parcel's CHECK and is rejected by the writer: it never wrote "a",
  /// so the second is the key's first writer and only the third repeats it.
  @Test func aKeyWhoseFirstRecordTheWriterRejectedIsNoRepeatForTheNext() throws {
    let run = try run(
      [Self.shipment("a", parcels: [0]), Self.shipment("a", mode: "sea"), Self.shipment("a")],
      policy: Self.policy(.lenient, .warn))
    #expect(run.report.status == .succeeded)
    #expect(run.report.issueCounts["constraint"] == 1)
    #expect(run.report.duplicateKeys == ["shipments": 1])
    let issue = try #require(repeats(run.report).first)
    #expect(issue.location?.ordinal == 3)
    #expect(issue.message == "shipments: record 2 wrote a row with this key earlier in the run")
  }

  @Test func aReRunOfTheSameDumpReportsNoRepeats() throws {
    let directory = try TemporaryDirectory()
    let lines = (0..<300).map { Self.shipment("s\($0)") }
    #expect(try run(lines, policy: .strict, in: directory).report.duplicateKeys == nil)
    let again = try run(lines, policy: Self.policy(.strict, .reject), in: directory)
    #expect(again.report.status == .succeeded)
    #expect(again.report.duplicateKeys == nil)
    #expect(repeats(again.report).isEmpty)
  }

  /// Small limits move the keys to the temporary database every few dozen records: repeats of
  /// keys long gone from memory — in order and out of it — are found, each naming its first
  /// record; a validate run finds the same.
  @Test(arguments: [RunMode.run, .validate])
  func repeatsOfKeysInTheTemporaryDatabaseAreFoundExactly(mode: RunMode) throws {
    var ids = (0..<1500).map { String(format: "s%05d", $0) }
    ids += ["s00007", "s01234", "s00007", "x", "s00999"]
    ids += (0..<300).map { String(format: "r%05d", ($0 * 7919) % 300) }
    ids += ["r00001", "x"]
    let run = try run(
      ids.map { Self.shipment($0) }, policy: .strict, mode: mode,
      limits: KeyRegistry.Limits(recentBytes: 4 << 10, filterBytes: 256))
    #expect(run.report.status == .succeeded)
    var firsts: [String: Int] = [:]
    var expected: [String] = []
    for (index, id) in ids.enumerated() {
      if let first = firsts[id] {
        expected.append("\(index + 1): record \(first)")
      } else {
        firsts[id] = index + 1
      }
    }
    let found = repeats(run.report).map { issue in
      "\(issue.location?.ordinal ?? 0): "
        + issue.message.replacingOccurrences(of: "shipments: ", with: "")
        .replacingOccurrences(of: " wrote a row with this key earlier in the run", with: "")
    }
    #expect(found == expected)
    #expect(run.report.duplicateKeys == ["shipments": expected.count])
  }
}
