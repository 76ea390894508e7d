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

  @Test func recordPathMayBeAnArrayOfKeys() throws {
    let parsed = try spec(#"{"dataset": "fruits", "input": "i", "database": "d", "recordPath": ["a.b", "c"]}"#)
    #expect(parsed.recordPath == ["a.b", "c"])
  }

  @Test(arguments: [
    (#"{"input": "i", "database": "d"}"#, "missing required key 'dataset'"),
    (#"{"dataset": "fruits", "database": "d"}"#, "missing required key 'input'"),
    (#"{"dataset": "fruits", "input": "i"}"#, "missing required key 'database'"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "format": "xml"}"#, "'format' is 'xml', expected one of: json, ndjson"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "policy": "loose"}"#, "'policy' is 'loose', expected one of: strict, lenient"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "onConflict": "merge"}"#, "'onConflict' is 'merge'"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "recordpath": "x"}"#, "unknown key 'recordpath'"),
    (#"{"dataset": 3, "input": "i", "database": "d"}"#, "'dataset' must be a string"),
    (#"{"dataset": "", "input": "i", "database": "d"}"#, "'dataset' must not be empty"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "format": "ndjson", "recordPath": "x"}"#, "'recordPath' applies to format json"),
    (#"["dataset"]"#, "expected a JSON object"),
    (#"{"dataset": "fruits",}"#, "not valid JSON"),
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
