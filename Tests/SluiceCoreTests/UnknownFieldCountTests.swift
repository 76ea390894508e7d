import Foundation
import Testing

@_spi(Internals) @testable import SluiceCore

/// A record with a million unknown fields, or a run with twenty million, must not keep each one
/// (issue 55): the decoder lists the first of a record's and counts the rest, and the run's
/// collector counts issues it keeps no sample of.
@Suite("Unknown fields counted, not kept one by one")
struct UnknownFieldCountTests {
  /// A record with more unknown fields than the decoder lists keeps the first ones, each with its
  /// path and offset, and counts the rest.
  @Test func aRecordsUnknownFieldsPastTheListedOnesAreCountedNotKept() throws {
    struct Known: Decodable { var id: String }
    let keys = (0..<5_000).map { #""k\#($0)":0"# }.joined(separator: ",")
    let record = RawRecord(
      location: .init(ordinal: 1, byteOffset: 0, line: 1), bytes: Array(#"{"id":"1",\#(keys)}"#.utf8))
    var diagnostics = DecodeDiagnostics()
    let decoded = try SluiceDecoder().decode(Known.self, from: record, diagnostics: &diagnostics)
    #expect(decoded.id == "1")
    #expect(diagnostics.unknownFields.count == DecodeDiagnostics.listedUnknownFields)
    #expect(diagnostics.unlistedUnknownFields == 5_000 - DecodeDiagnostics.listedUnknownFields)
    #expect(diagnostics.unknownFields.first?.path == "k0")
    #expect(diagnostics.unknownFields.first?.byteOffset == 10)
    diagnostics.reset()
    #expect(diagnostics.unknownFields.isEmpty && diagnostics.unlistedUnknownFields == 0)
  }

  /// Counted issues add to every count a kept one does, and keep nothing.
  @Test func countedIssuesAddToTheCountsWithoutSamples() {
    var collector = IssueCollector(sampleLimit: 2)
    let issue = Issue(
      stage: .decode, severity: .warning, code: .unknownField, location: nil, path: "k0",
      message: "not part of the contract")
    collector.add(issue)
    collector.count(.unknownField, severity: .warning, times: 1_000_000)
    #expect(collector.counts[.unknownField] == 1_000_001)
    #expect(collector.warningCount == 1_000_001)
    #expect(collector.samples == [issue])
  }
}
