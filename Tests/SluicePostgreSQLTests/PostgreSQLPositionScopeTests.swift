import Foundation
import SluiceCatalog
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// A Messenger thread split in two files (`Tests/Corpus/messages/facebook/split-thread`), keyed
/// by input and position, into SQLite and PostgreSQL: every message of both files, the same rows
/// in both stores, and a second run changes nothing (issue 58; `PositionScopeTests` has SQLite's
/// refusals).
@Suite(
  "PostgreSQL: positions scoped by their input",
  .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"))
struct PostgreSQLPositionScopeTests {
  static let dataset = """
    { "name": "thread",
      "fields": [
        { "name": "sender_name", "type": "text" }, { "name": "timestamp_ms", "type": "integer" },
        { "name": "content", "type": "text", "optional": true },
        { "name": "photos", "type": "array", "optional": true, "items": { "type": "object", "fields": [
          { "name": "uri", "type": "text" }, { "name": "creation_timestamp", "type": "integer" }] } }
      ],
      "tables": [
        { "name": "thread_messages", "key": ["record_input", "record_position"],
          "columns": [{ "name": "record_input", "field": "$input" }, { "name": "record_position", "field": "$position" },
                      { "name": "sender_name" }, { "name": "timestamp_ms" }, { "name": "content" }] },
        { "name": "thread_photos", "parent": "thread_messages", "field": "photos", "position": "photo_position",
          "columns": [{ "name": "uri" }] }
      ] }
    """

  @Test func bothFilesOfAThreadLoadEveryMessageIntoSQLiteAndPostgreSQL() throws {
    let twins = try TwinStores()
    let scratch = twins.directory
    try FileManager.default.copyItem(
      atPath: Repository.path("Tests/Corpus/messages/facebook/split-thread/inbox"), toPath: scratch.file("inbox"))
    _ = try scratch.write("thread.dataset.json", Self.dataset)
    let path = try scratch.write(
      "thread.json",
      #"{"dataset": "thread.dataset.json", "input": "inbox/*/message_*.json", "format": "json", "recordPath": "messages", "database": "unused.sqlite"}"#
    )
    let spec = try PipelineSpec(contentsOf: path)
    let configuration = try spec.configuration(drivers: .all)
    #expect(
      configuration.inputs.map(\.name)
        == ["1", "2"].map { "inbox/user1andusers2_10153923148213829/message_\($0).json" })
    let datasets = try spec.datasets(for: configuration, in: Catalog.datasets)
    for run in 0..<2 {
      let reports = try twins.run(configuration, datasets: datasets)
      #expect(reports.sqlite.status == .succeeded, "\(run): \(reports.sqlite.failure?.message ?? "")")
      #expect(reports.postgreSQL.outcome == reports.sqlite.outcome, "\(run)")
    }
    let (sqlite, postgreSQL) = try twins.tables(["thread_messages", "thread_photos"])
    #expect(postgreSQL == sqlite)
    #expect(postgreSQL.count("thread_messages") == 11)
    #expect(postgreSQL.count("thread_photos") == 1)
  }
}
