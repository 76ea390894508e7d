import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The messages benchmark's data, checked on a small N: the generator is deterministic, and
/// Pipelines/messages-lenient.json writes exactly the rows the generator says it must, skips its
/// unknown kinds and drops its unknown attachments — so the benchmark's messages contender does
/// the work it claims.
@Suite("Messages benchmark data")
struct MessagesGeneratorTests {
  static let generator = Tool.built("messages-generator")

  private func generate(_ arguments: [String]) throws -> SluiceBinary.Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.generator)
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    return try Tool.capture(process)
  }

  @Test func generatorIsDeterministicAndTheLenientPipelineWritesWhatItExpects() throws {
    let scratch = try TemporaryDirectory()
    for (directory, seed) in [("first", "7"), ("second", "7"), ("other", "8")] {
      let result = try generate(["--count", "3000", "--seed", seed, "--out", scratch.file(directory)])
      #expect(result.status == 0, "\(result.stderr)")
    }
    func bytes(_ directory: String, _ file: String) throws -> Data {
      try Data(contentsOf: URL(fileURLWithPath: scratch.file("\(directory)/\(file)")))
    }
    for file in ["messages.ndjson.gz", "expected.json"] {
      #expect(try bytes("first", file) == bytes("second", file), "\(file)")
    }
    #expect(try bytes("first", "messages.ndjson.gz") != bytes("other", "messages.ndjson.gz"))

    let expected = try #require(
      JSONSerialization.jsonObject(with: bytes("first", "expected.json")) as? [String: Int])
    #expect(expected["messages", default: 0] + expected["unknownKinds", default: 0] == 3000)
    // About 1 % of unknown kinds, and some unknown attachments to drop.
    #expect((10...60).contains(expected["unknownKinds", default: 0]), "\(expected)")
    #expect(expected["droppedAttachments", default: 0] > 0, "\(expected)")

    let database = scratch.file("m.sqlite")
    let run = try SluiceCommand.run([
      "run", "Pipelines/messages-lenient.json", "--input", scratch.file("first/messages.ndjson.gz"), "--db", database,
      "--report", scratch.file("r.json"), "--junit", scratch.file("j.xml"),
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let db = try SQLiteConnection(path: database, options: .init(readOnly: true))
    for table in [
      "messages", "text_messages", "image_messages", "file_messages", "system_messages", "message_attachments",
      "conversations", "senders",
    ] {
      #expect(try db.scalarInt("SELECT count(*) FROM \(table)") == Int64(expected[table] ?? -1), "\(table)")
    }
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("r.json"))))
    #expect(report.statistics(for: .map).rejected == expected["unknownKinds"])
    #expect(report.statistics(for: .map).warnings == expected["droppedAttachments"])
    let named = report.drift.unsupportedEnumValues
    #expect(named.filter { $0.path == "type" }.map(\.count).reduce(0, +) == expected["unknownKinds"])
    #expect(
      named.filter { $0.path == "attachments[].type" }.map(\.count).reduce(0, +) == expected["droppedAttachments"])
  }
}
