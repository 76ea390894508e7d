import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// Posts with polymorphic attachments and metadata lines: a dataset that maps with its context —
/// drops unknown attachment kinds under `lenientArrays`, skips metadata by design, names the
/// unknown kinds it meets, and reads the folder its input sits in.
private struct BoardDataset: Dataset {
  struct AttachmentDTO: Decodable { var type: String, url: String? }
  struct DTO: Decodable { var kind: String, id: String?, attachments: [AttachmentDTO]? }
  struct Post { var id: String, board: String, urls: [String] }

  static let posts = Table(
    "posts", key: ["post_id"], columns: [.text("post_id", field: "id"), .text("board"), .integer("attachments")])

  var name: String { "board" }
  var summary: String { "posts with attachments" }
  var schema: Schema { Schema([Self.posts]) }
  func validate(_ dto: DTO, into validation: inout Validation) {}

  func map(_ dto: DTO, context: inout MappingContext) throws(MappingError) -> Post {
    switch dto.kind {
    case "post": break
    case "version", "emoji": throw .skipped("\(dto.kind) line")
    default:
      throw MappingError(code: .unsupportedEnumValue, path: "kind", message: "not a line kind", value: dto.kind)
    }
    var urls: [String] = []
    for (index, attachment) in (dto.attachments ?? []).enumerated() {
      guard attachment.type == "image", let url = attachment.url else {
        try context.drop(at: "attachments[\(index)].type", "not an attachment kind", value: attachment.type)
        continue
      }
      urls.append(url)
    }
    return Post(id: dto.id ?? "", board: context.folder, urls: urls)
  }

  func rows(for post: Post, into rows: inout RecordRows) {
    rows.add(Self.posts, post.id, post.board, Int64(post.urls.count))
  }
}

@Suite("The map stage's context: drops, skips, unknown values by name, the input's folder")
struct MappingContextTests {
  static let lines = [
    #"{"kind": "version"}"#,
    #"{"kind": "post", "id": "1", "attachments": [{"type": "image", "url": "u"}, {"type": "poll"}]}"#,
    #"{"kind": "emoji"}"#,
    #"{"kind": "post", "id": "2", "attachments": [{"type": "poll"}, {"type": "sticker"}]}"#,
    #"{"kind": "story", "id": "3"}"#,
    #"{"kind": "version"}"#,
  ]

  private func run(_ policy: Policy) throws -> (RunReport, TemporaryDirectory) {
    let directory = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: directory.file("cats"), withIntermediateDirectories: true)
    let input = try directory.write("cats/2026-11-30.ndjson", Self.lines.joined(separator: "\n") + "\n")
    var configuration = PipelineConfiguration(
      name: "board", input: input, format: .ndjson, policy: policy, database: .sqlite(directory.file("b.sqlite")),
      junitPath: directory.file("junit.xml"))
    configuration.issueSampleLimit = 100
    return (try Pipeline(dataset: BoardDataset(), configuration: configuration).run(), directory)
  }

  @Test func strictRejectsTheFirstUnknownAttachmentAtItsPath() throws {
    let (report, directory) = try run(.strict)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .failed)
    let issue = try #require(report.issues.first { $0.severity == .error })
    #expect(issue.stage == .map && issue.code == .unsupportedEnumValue)
    #expect(issue.path == "attachments[1].type")
    #expect(issue.location?.ordinal == 2)
  }

  @Test func lenientArraysDropsEveryUnknownElementAndKeepsTheRecord() throws {
    var policy = Policy.lenient
    policy.lenientArrays = true
    let (report, directory) = try run(policy)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    // Three drops, each a warning with its path; the unknown line kind is the one rejection.
    let drops = report.issues.filter { $0.severity == .warning && $0.stage == .map }
    #expect(drops.map(\.path) == ["attachments[1].type", "attachments[0].type", "attachments[1].type"])
    #expect(drops.allSatisfy { $0.message.hasSuffix("(dropped: lenientArrays)") })
    #expect(report.statistics(for: .map).warnings == 3)
    #expect(report.statistics(for: .map).rejected == 1)
    // Metadata lines are skipped by design: counted by reason, neither passed on nor rejected.
    #expect(report.skippedByDesign == ["version line": 2, "emoji line": 1])
    #expect(report.statistics(for: .map).skipped == 3)
    #expect(report.statistics(for: .map).recordsIn == 6)
    #expect(report.statistics(for: .map).recordsOut == 2)
    #expect(report.statistics(for: .load).recordsOut == 2)
    #expect(report.summary().contains("skipped by design: 3 — version line 2, emoji line 1"))
    // Unknown values by name and count: the drift summary, the summary and the JUnit file.
    let named = report.drift.unsupportedEnumValues.map { "\($0.path) \($0.value ?? "-") \($0.count)" }
    #expect(named == ["attachments[].type poll 2", "attachments[].type sticker 1", "kind story 1"])
    #expect(report.summary().contains("unknown values: attachments[].type 'poll' 2"))
    let junit = try String(contentsOfFile: directory.file("junit.xml"), encoding: .utf8)
    #expect(junit.contains("kind &apos;story&apos;: 1") || junit.contains("kind 'story': 1"))
    // The mapping read the folder the input sits in.
    let db = try SQLiteConnection(path: directory.file("b.sqlite"), options: .init(readOnly: true))
    #expect(try db.scalarInt("SELECT count(*) FROM posts WHERE board = 'cats'") == 2)
  }

  @Test func lenientArraysNeedsTheLenientPreset() {
    var policy = Policy.strict
    policy.lenientArrays = true
    #expect(policy.inconsistency == "lenientArrays needs the lenient preset")
    #expect(Policy.lenient.summary == "lenient")
    var lenient = Policy.lenient
    lenient.lenientArrays = true
    #expect(lenient.summary == "lenient (lenientArrays)")
  }
}
