import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The chat-export pipelines as a user runs them: each committed spec on its committed sample,
/// from the repository, and the Slack spec on a real export folder through `--input-dir`, whose
/// glob input becomes one input per day file.
@Suite("sluice on the chat exports, end to end")
struct ChatExportCommandTests {
  private func count(_ database: String, _ sql: String) throws -> Int64? {
    try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt(sql)
  }

  @Test(arguments: [
    ("slack.json", 10), ("discord.json", 6), ("mattermost.json", 6), ("messenger.json", 5), ("telegram.json", 5),
    ("telegram-account.json", 5),
  ])
  func eachSpecImportsItsCommittedSample(spec: String, messages: Int64) throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("messages.sqlite")
    let arguments = ["run", "Pipelines/\(spec)", "--db", database, "--report", scratch.file("report.json")]
    let result = try SluiceCommand.run(arguments)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("  messages: \(messages) rows"), "\(result.stdout)")
    #expect(!result.stderr.contains("unknownField"), "\(result.stderr)")
    // A second run changes no message.
    let again = try SluiceCommand.run(arguments)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try count(database, "SELECT count(*) FROM messages") == messages)
    #expect(try count(database, "SELECT count(*) FROM sluice_runs") == 2)
  }

  /// A glob input is one input per file it matches, each read as the glob's dataset (the run
  /// used to trap here: one dataset per spec input, one input per matching file).
  @Test func theSlackSpecImportsARealExportFolderThroughItsGlob() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("slack.sqlite")
    let export = (Corpus.root as NSString).appendingPathComponent("messages/slack/slack-export-viewer")
    let result = try SluiceCommand.run([
      "run", "Pipelines/slack.json", "--input-dir", export, "--db", database, "--report", scratch.file("r.json"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("  messages: 158 rows"), "\(result.stdout)")
    #expect(result.stderr.contains("\(export)/users.json (slack-users, json): 4 read"), "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "\(export)/traveling-sailor/2016-03-27.json (slack-messages, json): 8 read, 0 rejected, 8 loaded"),
      "\(result.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("r.json"))))
    // users, channels, the optional file_conversations.json this 2016 export has not (a warning),
    // and the 17 day files.
    #expect(report.inputs.count == 3 + 17)
    #expect(report.issueCounts == ["missingInput": 1])
    #expect(result.stderr.contains("missingInput"), "\(result.stderr)")
    #expect(try count(database, "SELECT count(*) FROM senders") == 7)

    let validated = try SluiceCommand.run(["validate", "Pipelines/slack.json", "--input-dir", export])
    #expect(validated.status == 0, "\(validated.stderr)")
    #expect(validated.stdout.contains("valid: 164 record(s)"), "\(validated.stdout)")
  }

  /// A 2025-shaped export (SampleData/slack-2025: a canvas beside the day files, a file
  /// conversation named in file_conversations.json, slackdump's text-less file message; the
  /// real sources of each shape are in SlackExportTests) loads under strict with the shipped
  /// spec, and the canvas it did not read is named on stderr and in the report, not in silence.
  @Test func theSlackSpecLoadsA2025ExportUnderStrictAndNamesTheCanvasItLeftOut() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("slack.sqlite")
    let export = Repository.path("SampleData/slack-2025")
    let result = try SluiceCommand.run([
      "run", "Pipelines/slack.json", "--input-dir", export, "--db", database, "--report", scratch.file("r.json"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("  messages: 8 rows"), "\(result.stdout)")
    #expect(result.stderr.contains("excludedInput"), "\(result.stderr)")
    #expect(!result.stderr.contains("unknownField"), "\(result.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("r.json"))))
    #expect(report.issueCounts == ["excludedInput": 1])
    #expect(report.issues.map(\.input) == ["\(export)/general/canvas_in_the_conversation.json"])
    #expect(try count(database, "SELECT count(*) FROM conversations WHERE name IS NOT NULL") == 2)
  }

  /// A file conversation's folder no `file_conversations.json` entry names (the 2025 sample with
  /// a second `FC_…` folder) fails the shipped strict spec with exit 65, stderr naming the folder's
  /// day file; nothing is written (issue 58).
  @Test func theSlackSpecRefusesAFileConversationFolderTheExportDoesNotList() throws {
    let scratch = try TemporaryDirectory()
    let export = scratch.file("export")
    try FileManager.default.copyItem(atPath: Repository.path("SampleData/slack-2025"), toPath: export)
    try FileManager.default.createDirectory(atPath: export + "/FC_F07UNLISTED_Draft", withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: export + "/FC_F05JM5XK9SL_My notes/2025-04-01.json",
      toPath: export + "/FC_F07UNLISTED_Draft/2025-04-01.json")
    let database = scratch.file("slack.sqlite")
    let result = try SluiceCommand.run(["run", "Pipelines/slack.json", "--input-dir", export, "--db", database])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("FC_F07UNLISTED_Draft/2025-04-01.json"), "\(result.stderr)")
    #expect(result.stderr.contains("orphanReference"), "\(result.stderr)")
    #expect(try DatabaseSnapshot(of: database, tables: ["messages"]).count("messages") == 0)
  }

  /// A Discord thread's file repeats the message the thread was started from (DCE 2.48): the
  /// user sees a warning naming the thread's file, the run exits 0, and the message stays in
  /// its channel whichever file comes first. The files are the catalog suite's, shaped as DCE
  /// 2.48 writes them (`Fixtures/discord/dce-2.48/SOURCE.md`).
  @Test func aDiscordThreadFileRepeatingItsStarterIsReportedAndMovesNothing() throws {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("SluiceCatalogTests/Fixtures/discord/dce-2.48").path
    let channel = fixtures + "/Sluice Test - general [1700000000000000100].json"
    let thread = fixtures + "/Sluice Test - general - Release thread [1700000000000000102].json"
    var placements: [[Int64]] = []
    for order in [[thread, channel], [channel, thread]] {
      let scratch = try TemporaryDirectory()
      let database = scratch.file("discord.sqlite")
      for file in order {
        let result = try SluiceCommand.run(["run", "Pipelines/discord.json", "--input", file, "--db", database])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("threadStarterRepeated") == (file == thread), "\(result.stderr)")
      }
      let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
      #expect(
        try connection.scalarInt(
          "SELECT count(*) FROM messages WHERE message_id = 'discord:1700000000000000102' AND conversation_id = 'discord:1700000000000000100'"
        ) == 1)
      // The channel's four messages (its starter among them) and the thread's reply.
      placements.append(
        try ["discord:1700000000000000100", "discord:1700000000000000102"].map { conversation in
          try connection.scalarInt("SELECT count(*) FROM messages WHERE conversation_id = '\(conversation)'") ?? -1
        })
    }
    #expect(placements == [[4, 1], [4, 1]])
  }
}
