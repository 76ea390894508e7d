import Foundation
@_spi(Internals) import SluiceCLI
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// What a spec and the command line say about remote inputs, read without any server.
@Suite("Remote inputs in specs and on the command line")
struct RemoteSpecTests {
  let drivers = StoreDrivers([SQLiteDriver()])

  func spec(_ text: String) throws(SpecError) -> PipelineSpec {
    try PipelineSpec(data: Data(text.utf8), path: "/specs/nightly.json")
  }

  @Test func storageRetriesAndCABundleBecomeTheRunsRemoteOptions() throws {
    let configuration = try spec(
      """
      {"dataset": "notes", "input": "s3://exports/drops/*.ndjson.gz", "database": "n.sqlite", "retries": 2,
       "caBundle": "certs/ca.pem", "storage": {"endpoint": "http://127.0.0.1:9000", "region": "eu-west-1", "pathStyle": false}}
      """
    ).configuration(drivers: drivers)
    #expect(configuration.remote.options.retries == 2)
    #expect(configuration.remote.options.caBundle == "/specs/certs/ca.pem")
    #expect(configuration.remote.options.endpoint == "http://127.0.0.1:9000")
    #expect(configuration.remote.options.region == "eu-west-1")
    #expect(configuration.remote.options.pathStyle == false)
    #expect(configuration.inputs.map(\.path) == ["s3://exports/drops/*.ndjson.gz"])
    #expect(!configuration.inputs[0].isUnmatchedPattern)
  }

  @Test func aURLInputIsShownWithoutItsQueryAndOpenedWithIt() throws {
    let configuration = try spec(
      #"{"dataset": "notes", "input": "https://partner.example/export.xml.gz?X-Amz-Signature=abc", "database": "n.sqlite"}"#
    ).configuration(drivers: drivers)
    #expect(configuration.inputs[0].path == "https://partner.example/export.xml.gz")
    #expect(configuration.inputs[0].location == "https://partner.example/export.xml.gz?X-Amz-Signature=abc")
  }

  @Test func anInputDirectoryInABucketHoldsTheSpecsRelativeNames() throws {
    let configuration = try spec(
      #"{"inputs": [{"dataset": "a", "input": "../dumps/a.json"}, {"dataset": "b", "input": "../dumps/sub/b.json"}], "database": "n.sqlite"}"#
    ).configuration(inputDirectory: "s3://exports/2026-12-07", drivers: drivers)
    #expect(
      configuration.inputs.map(\.path) == ["s3://exports/2026-12-07/a.json", "s3://exports/2026-12-07/sub/b.json"])
  }

  @Test(arguments: [
    (#"{"dataset": "n", "input": "a.json", "retries": 101}"#, "'retries' must be a whole number from 0 to 100"),
    (
      #"{"dataset": "n", "input": "a.json", "storage": {"endpoint": "127.0.0.1:9000"}}"#,
      "'storage.endpoint' must be an http:// or https:// URL, not '127.0.0.1:9000'"
    ),
    (
      #"{"dataset": "n", "input": "a.json", "storage": {"bucket": "x"}}"#,
      "unknown key 'storage.bucket'; known keys: endpoint, region, pathStyle"
    ),
  ])
  func aBadRemoteKeyIsRefusedNamingIt(text: String, message: String) {
    let error = #expect(throws: SpecError.self) { _ = try spec(text) }
    #expect(error?.message == message)
  }

  @Test func aBadRetriesOptionIsAUsageError() throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write("n.json", #"{"dataset": "notes", "input": "https://example.com/a.json"}"#)
    let io = CommandIO(capturingIn: scratch.path)
    let status = Sluice.run(
      arguments: ["validate", spec, "--retries", "many"], datasets: [AnyDataset(RemoteRunTests.NotesDataset())],
      drivers: [SQLiteDriver()], io: io)
    #expect(status == 64)
    #expect(io.error.hasPrefix("sluice: --retries must be a whole number from 0 to 100, not 'many'"))
  }
}
