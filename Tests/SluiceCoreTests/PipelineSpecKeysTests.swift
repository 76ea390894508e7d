import Foundation
import Testing

@_spi(Internals) @testable import SluiceCore

/// The keys an unknown-key message lists are the keys the spec's documents decode: one
/// declaration (`CodingKeys`), so a key added to a document is listed without a second edit.
@Suite("pipeline spec keys")
struct PipelineSpecKeysTests {
  private func labels(_ value: Any) -> [String] { Mirror(reflecting: value).children.compactMap(\.label) }

  private func listed(_ keys: String) -> [String] { keys.components(separatedBy: ", ") }

  @Test func theListedKeysAreTheDocumentsKeys() throws {
    let spec = try JSONDecoder().decode(SpecDocument.self, from: Data("{}".utf8))
    #expect(Set(listed(SpecDocument.knownKeys)) == Set(labels(spec)))
    let input = try JSONDecoder().decode(
      SpecDocument.InputDocument.self, from: Data(#"{"dataset": "d", "input": "i"}"#.utf8))
    #expect(listed(SpecDocument.knownInputKeys) == labels(input))
    let dialect = try JSONDecoder().decode(SpecDocument.DialectDocument.self, from: Data("{}".utf8))
    #expect(listed(SpecDocument.knownDialectKeys) == labels(dialect))
    let storage = try JSONDecoder().decode(SpecDocument.StorageDocument.self, from: Data("{}".utf8))
    #expect(listed(SpecDocument.knownStorageKeys) == labels(storage))
  }

  @Test func anUnknownKeyIsRefusedListingTheKnownKeysInTheirOrder() throws {
    let error = #expect(throws: SpecError.self) {
      try PipelineSpec(data: Data(#"{"dataset": "fruits", "input": "f.json", "stages": true}"#.utf8), path: "s.json")
    }
    #expect(
      error?.message
        == "unknown key 'stages'; known keys: description, dataset, input, format, recordPath, dialect, xmlNames, inputs, policy, database, databaseSchema, connectTimeout, jobs, onConflict, busyTimeout, memoryBudget, report, junit, html, rejects, countRows, incremental, snapshot, maxDeleteRate, checkpointEvery, stage, storage, retries, caBundle, metrics"
    )
  }

  @Test func anUnknownStorageKeyIsRefusedListingTheStorageKeys() throws {
    let error = #expect(throws: SpecError.self) {
      try PipelineSpec(
        data: Data(#"{"dataset": "fruits", "input": "s3://b/f.json", "storage": {"bucket": "b"}}"#.utf8), path: "s.json"
      )
    }
    #expect(error?.message == "unknown key 'storage.bucket'; known keys: endpoint, region, pathStyle")
  }
}
