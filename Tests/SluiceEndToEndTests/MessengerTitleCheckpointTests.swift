import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// A Messenger thread's `title` follows its messages and names the conversation once they are
/// read (`Dataset.rowsAfterRecords`): rows no record of the input brings. A checkpointed run
/// counts only records in its chunks, so one killed after any chunk and resumed ends with the
/// tables of the run that was never interrupted — the title included.
@Suite("Messenger titles in checkpointed runs, killed and resumed", .tags(.slow))
struct MessengerTitleCheckpointTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  static let tables = [
    "conversations", "senders", "messages", "text_messages", "system_messages", "message_attachments",
  ]

  /// A Messenger thread of `count` messages, shaped exactly like the Wordle thread of the
  /// catalog's fixtures (itself shaped like a real 2022 export: typed `Generic` messages, newest
  /// first, then `"title"` and the rest of the top level), with the Latin-1 escapes Meta writes.
  func thread(count: Int) throws -> String {
    let messages = (0..<count).map { index in
      """
          {
            "sender_name": "\(index % 3 == 0 ? "Zo\\u00c3\\u00a9" : "Bo")",
            "timestamp_ms": \(1_656_501_726_482 - Int64(index) * 60_000),
            "content": "Wordle \(376 - index / 4) \(index % 6 + 1)/6",
            "type": "Generic",
            "is_unsent": false,
            "is_taken_down": false,
            "bumped_message_metadata": {
              "bumped_message": "",
              "is_bumped": false
            }
          }
      """
    }
    try FileManager.default.createDirectory(
      atPath: scratch.file("inbox/wordlescores_5120"), withIntermediateDirectories: true)
    return try scratch.write(
      "inbox/wordlescores_5120/message_1.json",
      """
      {
        "participants": [
          {
            "name": "Zo\\u00c3\\u00a9"
          },
          {
            "name": "Bo"
          }
        ],
        "messages": [
      \(messages.joined(separator: ",\n"))
        ],
        "title": "Wordle Scores \\u00f0\\u009f\\u009f\\u00a9",
        "is_still_participant": true,
        "thread_type": "RegularGroup",
        "thread_path": "inbox/wordlescores_5120",
        "magic_words": [],
        "joinable_mode": {
          "mode": 1,
          "link": ""
        }
      }

      """)
  }

  func spec(input: String) throws -> String {
    try scratch.write(
      "messenger.json",
      #"""
      {"dataset": "messenger", "input": "\#(input)", "format": "json", "recordPath": "messages",
       "policy": "strict", "onConflict": "upsert"}
      """#)
  }

  /// 700 messages in chunks of 100: the decoding side hands them over 256 at a time, so the run
  /// commits after 256, 512 and 700 records — the last chunk with the title's row — and then
  /// ends. Killed after each of the three commits and resumed, it leaves the tables of the run
  /// that was never interrupted (and of the one that was never chunked), the title included.
  @Test func aRunKilledAfterAnyChunkAndResumedStoresTheTitleAsAnUninterruptedRun() throws {
    let spec = try spec(input: try thread(count: 700))
    let reference = scratch.file("reference.sqlite")
    let plain = try SluiceCommand.run(["run", spec, "--db", reference])
    #expect(plain.status == 0, "\(plain.stderr)")
    let expected = try TableRows(sqlite: reference, tables: Self.tables)
    #expect(expected.tables["conversations"]?.contains("'messenger:wordlescores_5120' | 'Wordle Scores 🟩'") == true)
    #expect(expected.count("messages") == 700)

    let chunked = scratch.file("chunked.sqlite")
    let whole = try SluiceCommand.run(["run", spec, "--db", chunked, "--checkpoint-every", "100"])
    #expect(whole.status == 0, "\(whole.stderr)")
    #expect(try TableRows(sqlite: chunked, tables: Self.tables) == expected)

    for chunk in 1...3 {
      let database = scratch.file("killed-\(chunk).sqlite")
      let killed = try SluiceBinary.run([
        "run", spec, "--db", database, "--checkpoint-every", "100", "--test-kill-at", "chunk-\(chunk)",
      ])
      #expect(killed.status != 0, "chunk \(chunk): the run was not killed")
      let resumed = try SluiceCommand.run(["run", spec, "--db", database, "--checkpoint-every", "100", "--resume"])
      #expect(resumed.status == 0, "chunk \(chunk): \(resumed.stderr)")
      #expect(try TableRows(sqlite: database, tables: Self.tables) == expected, "killed after chunk \(chunk)")
      let left = try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt(
        "SELECT count(*) FROM sluice_checkpoints")
      #expect(left == 0, "chunk \(chunk): the checkpoint is left")
    }
  }
}
