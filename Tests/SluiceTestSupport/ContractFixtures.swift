import Foundation
@_spi(Internals) import SluiceCore

/// Runs a dataset's contract fixtures (seed 002, item 10): each fixture file holds one record,
/// run through every stage but the load — a JSON record as a one-record array, an XML record as
/// the one element under its document's root.
public enum ContractFixtures {
  /// The fixture directory of a dataset, beside the test file that asks.
  public static func directory(_ dataset: String, testFile: String = #filePath) -> URL {
    URL(fileURLWithPath: testFile).deletingLastPathComponent().appendingPathComponent("Fixtures/\(dataset)")
  }

  /// The file names in one of a dataset's fixture folders (`valid`, `invalid`), sorted.
  public static func files(_ folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
  }

  /// The strict preset, with unknown fields as errors: a contract that admits no drift.
  public static var strictRejectingUnknownFields: Policy {
    var policy = Policy.strict
    policy.unknownFields = .reject
    return policy
  }

  /// Whether `text` quotes `value` as a whole number or word (so an Int64 bound such as
  /// `-9223372036854775808` in a message does not count as quoting `9223372036854775808`).
  public static func quotes(_ text: String, _ value: String) -> Bool {
    let edge = "[-+.0-9A-Za-z]"
    return text.range(
      of: "(?<!\(edge))\(NSRegularExpression.escapedPattern(for: value))(?!\(edge))", options: .regularExpression)
      != nil
  }

  /// Validates one fixture (a dry run: no database is opened) and returns the run's report.
  public static func validate<D: Dataset>(_ fixture: URL, with dataset: D, policy: Policy) throws -> RunReport {
    try validate(fixture, with: AnyDataset(dataset), policy: policy)
  }

  /// Validates one fixture with a dataset picked by name (a dry run) and returns the run's report.
  /// A `.json` fixture is one record, read as a one-record array; an `.xml` fixture is a document
  /// whose root holds the record elements, read with `--format xml` at the root's children.
  public static func validate(_ fixture: URL, with dataset: AnyDataset, policy: Policy) throws -> RunReport {
    let directory = try TemporaryDirectory()
    let input: String
    var format = PipelineConfiguration.Format.json
    if fixture.pathExtension == "xml" {
      input = try directory.write("fixture.xml", Array(try Data(contentsOf: fixture)))
      format = .xml
    } else {
      input = try directory.write(
        "fixture.json", Array("[".utf8) + Array(try Data(contentsOf: fixture)) + Array("]".utf8))
    }
    var configuration = PipelineConfiguration(
      name: fixture.lastPathComponent, input: input, format: format, policy: policy,
      database: .sqlite(directory.file("unused.sqlite")))
    configuration.mode = .validate
    let report = try dataset.run(configuration)
    if FileManager.default.fileExists(atPath: directory.file("unused.sqlite")) {
      throw DryRunWroteDatabase(fixture: fixture.lastPathComponent)
    }
    return report
  }

  /// A dry run must never create its database; a test that sees this has found a bug.
  public struct DryRunWroteDatabase: Error, CustomStringConvertible {
    public var fixture: String
    public var description: String { "validating \(fixture) created a database" }
  }
}
