import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@Suite("Pipeline specs")
struct PipelineSpecTests {
  private func spec(_ text: String, at path: String = "/specs/nightly/fruits.json") throws(SpecError) -> PipelineSpec {
    try PipelineSpec(data: Data(text.utf8), path: path)
  }

  private func specError(_ text: String) -> String {
    do {
      _ = try spec(text)
      return "no error"
    } catch {
      return error.message
    }
  }

  @Test func fullSpecIsReadAndRelativePathsResolveAgainstItsDirectory() throws {
    let parsed = try spec(
      #"{"dataset": "fruits", "input": "../data/fruits.json.gz", "format": "json", "recordPath": "data.fruits", "policy": "lenient", "database": "out/fruits.sqlite", "onConflict": "ignore", "report": "/var/reports/fruits.json"}"#
    )
    let configuration = parsed.configuration()
    #expect(configuration.input == "/specs/data/fruits.json.gz")
    #expect(configuration.database == "/specs/nightly/out/fruits.sqlite")
    #expect(configuration.reportPath == "/var/reports/fruits.json")
    #expect(configuration.recordPath == ["data", "fruits"])
    #expect(configuration.policy == .lenient)
    #expect(configuration.conflict == .ignore)
    #expect(configuration.name == "fruits")
  }

  @Test func defaultsAreStrictUpsertTopLevelArray() throws {
    let parsed = try spec(#"{"dataset": "fruits", "input": "-", "database": "f.sqlite"}"#)
    #expect(parsed.policy == .strict)
    #expect(parsed.onConflict == .upsert)
    #expect(parsed.format == .json)
    #expect(parsed.recordPath.isEmpty)
    #expect(parsed.configuration().input == "-")
  }

  @Test func policyObjectOverridesThePreset() throws {
    let parsed = try spec(
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "lenient", "maxRejects": 10, "maxRejectRate": 0.05, "unknownFields": "reject", "legacyScalars": true, "dates": ["iso8601", "dd/MM/yyyy"]}}"#
    )
    #expect(parsed.policy.preset == .lenient)
    #expect(parsed.policy.invalidRecord == .skip)
    #expect(parsed.policy.maxRejects == 10)
    #expect(parsed.policy.maxRejectRate == 0.05)
    #expect(parsed.policy.unknownFields == .reject)
    #expect(parsed.policy.legacyScalars)
    #expect(parsed.policy.dateFormats == [.iso8601, .pattern("dd/MM/yyyy")])
    #expect(parsed.policy.summary.contains("maxRejects 10"))
  }

  @Test func recordPathMayBeAnArrayOfKeys() throws {
    let parsed = try spec(#"{"dataset": "fruits", "input": "i", "database": "d", "recordPath": ["a.b", "c"]}"#)
    #expect(parsed.recordPath == ["a.b", "c"])
  }

  @Test(arguments: [
    (#"{"input": "i", "database": "d"}"#, "'dataset': missing required key"),
    (#"{"dataset": "fruits", "database": "d"}"#, "'input': missing required key"),
    (#"{"dataset": "fruits", "input": "i"}"#, "'database': missing required key"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "format": "yaml"}"#, "'format' is 'yaml', expected one of: json, ndjson, xml"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "policy": "loose"}"#, "'policy' is 'loose', expected one of: strict, lenient"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "onConflict": "merge"}"#, "'onConflict' is 'merge'"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "recordpath": "x"}"#, "unknown key 'recordpath'"),
    (#"{"dataset": 3, "input": "i", "database": "d"}"#, "'dataset': expected a string, found a number"),
    (#"{"dataset": "", "input": "i", "database": "d"}"#, "'dataset' must not be empty"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "format": "ndjson", "recordPath": "x"}"#, "'recordPath' applies to format json"),
    (#"["dataset"]"#, "expected an object, found an array"),
    (#"{"dataset": "fruits",}"#, "not valid JSON"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "strict", "legacyScalars": true}}"#, "legacyScalars needs the lenient preset"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "strict", "maxRejects": 3}}"#, "error budget of 0"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "strict", "dates": ["iso8601", "epochSeconds"]}}"#, "exactly one date format"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "lenient", "maxRejects": "ten"}}"#, "'policy.maxRejects': expected an integer, found a string"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "lenient", "maxRejectRate": 2}}"#, "maxRejectRate must be between 0 and 1"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "lenient", "unknownFields": "shout"}}"#, "'policy.unknownFields' is 'shout'"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "lenient", "legacyScalar": true}}"#, "unknown key 'policy.legacyScalar'"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"maxRejects": 3}}"#, "'policy.preset': missing required key"),
  ])
  func badSpecNamesTheProblem(text: String, expected: String) {
    let message = specError(text)
    #expect(message.contains(expected), "\(message)")
  }

  @Test func missingSpecFileIsReported() {
    #expect(throws: SpecError.self) { try PipelineSpec(contentsOf: "/nonexistent/spec.json") }
  }

  @Test func committedSpecsAreValidAndPointAtCommittedFiles() throws {
    for name in ["fruits.json", "fruits-lenient.json"] {
      let parsed = try PipelineSpec(contentsOf: Repository.path("Pipelines/\(name)"))
      #expect(FileManager.default.fileExists(atPath: parsed.configuration().input), "\(name)")
    }
  }
}
