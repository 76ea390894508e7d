import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluiceInspect

/// Drift from a baseline, kind by kind: an inspection saved as JSON, read back, against the
/// inspection of another small dump.
@Suite("Baseline drift: what breaks a dataset and what does not")
struct BaselineDriftTests {
  private func changes(from before: String, to after: String, recordPath: [String]? = nil) throws -> [String] {
    let directory = try TemporaryDirectory()
    let old = try Inspector.inspect(
      path: try directory.write("before.json", before), options: InspectOptions(sampleSize: nil))
    let baseline = try InspectionBaseline.read(try directory.write("baseline.json", old.json()))
    let new = try Inspector.inspect(
      path: try directory.write("after.json", after), options: InspectOptions(recordPath: recordPath, sampleSize: nil))
    return BaselineDrift.changes(from: baseline, to: new).map(\.description)
  }

  @Test func integersWithFractionsAreAWideningAndTextWhereNumbersWereIsAChange() throws {
    let before = #"[{"id": 1, "price": 10, "code": 7}, {"id": 2, "price": 12, "code": 8}]"#
    let after = #"[{"id": 1, "price": 10.5, "code": "7"}, {"id": 2, "price": 12, "code": 8}]"#
    #expect(
      try changes(from: before, to: after) == [
        "non-breaking numberWidened price: was integers; tonight numbers with fractions too",
        "breaking typeChanged code: was integer; tonight also string",
      ])
  }

  @Test func aKindGoneIsANarrowingAndAnOptionalFieldGoneIsNot() throws {
    let before = #"[{"id": 1, "tag": "a", "note": "x"}, {"id": 2, "tag": 3}]"#
    let after = #"[{"id": 1, "tag": "a"}, {"id": 2, "tag": "b"}]"#
    #expect(
      try changes(from: before, to: after) == [
        "breaking typeNarrowed tag: was integer, string; tonight only string",
        "non-breaking optionalFieldGone note: was in 1 of 2; tonight in none",
      ])
  }

  @Test func recordsThatMovedAndARequiredFieldGoneAreBreaking() throws {
    let before = #"[{"id": 1, "name": "a"}]"#
    let after = #"{"data": [{"id": 1}]}"#
    #expect(
      try changes(from: before, to: after, recordPath: ["data"]) == [
        "breaking recordPathMoved: the records were at ''; tonight they are at data",
        "breaking requiredFieldGone name: was in all 1 holders; tonight in none",
      ])
  }

  @Test func aBaselineThatIsNoInspectionSaysWhy() throws {
    let directory = try TemporaryDirectory()
    let path = try directory.write("bad.json", #"{"inspectVersion": 1, "recordPathKeys": []}"#)
    #expect(throws: BaselineError.self) { try InspectionBaseline.read(path) }
    do {
      _ = try InspectionBaseline.read(path)
    } catch {
      #expect(error.description.contains("missing key 'fields'"))
    }
    let newer = try directory.write("newer.json", #"{"inspectVersion": 99, "recordPathKeys": [], "fields": []}"#)
    #expect(throws: BaselineError.self) { try InspectionBaseline.read(newer) }
  }
}
