import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The two real Slack workspace exports of the corpus, each loaded by `Pipelines/slack.json`
/// with `--input-dir` pointing at it: users, channels, then every day file through the glob.
/// The counts per file and kind were decided from SOURCE.md and checked with python; the test
/// reads each day file with Foundation to find its messages' keys and checks every one of them.
@Suite("Slack export: the real slack-export-viewer and langchain exports")
struct SlackExportTests {
  static let viewer = "slack/slack-export-viewer"
  static let langchain = "slack/langchain_slack_export"

  /// Messages per kind in each day file of slack-export-viewer: 158 in all — 49 without subtype
  /// and 94 `bot_message` (text), 1 `file_comment` (text, by the comment's author), 8
  /// `channel_join` and 3 `bot_add` (system), 3 `file_share` of `text/plain` files (file).
  static let viewerKinds: [String: [String: Int]] = [
    "enrique/2016-01-14.json": ["text": 2, "system": 4],
    "enrique/2016-01-15.json": ["text": 6],
    "enrique/2016-01-16.json": ["text": 1, "system": 1],
    "enrique/2016-02-07.json": ["text": 20],
    "enrique/2016-02-08.json": ["text": 9],
    "enrique/2016-03-17.json": ["text": 12],
    "enrique/2016-03-25.json": ["text": 9, "system": 1],
    "enrique/2016-03-26.json": ["text": 18],
    "enrique/2016-03-28.json": ["text": 19],
    "traveling-sailor/2016-01-16.json": ["system": 5],
    "traveling-sailor/2016-02-07.json": ["text": 3],
    "traveling-sailor/2016-02-08.json": ["text": 14],
    "traveling-sailor/2016-03-25.json": ["text": 9],
    "traveling-sailor/2016-03-26.json": ["text": 13, "file": 1],
    "traveling-sailor/2016-03-27.json": ["text": 7, "file": 1],
    "traveling-sailor/2016-03-28.json": ["text": 1, "file": 1],
    "traveling-sailor/2016-03-29.json": ["text": 1],
  ]

  /// The langchain export: 5 messages, one `channel_join`.
  static let langchainKinds: [String: [String: Int]] = [
    "example-channel/2023-04-13.json": ["text": 1, "system": 1],
    "general/2023-04-13.json": ["text": 2],
    "random/2023-04-13.json": ["text": 1],
  ]

  /// Loads an export folder with the committed spec and checks every day file: read, loaded,
  /// nothing rejected or unknown, and its messages — found by the `ts` Foundation reads — of
  /// the pinned kinds.
  func loadAndCheck(_ export: String, kinds: [String: [String: Int]]) throws -> ChatExportWorkspace {
    let workspace = try ChatExportWorkspace()
    let (report, configuration) = try workspace.runSpec("slack.json", inputDirectory: ChatCorpus.path(export))
    #expect(report.status == .succeeded && report.committed, "\(report.failure?.message ?? "")")
    // The glob */*.json is one input per day file, sorted; never users.json, channels.json or
    // integration_logs.json, which sit at the top of the export.
    let folder = ChatCorpus.path(export) + "/"
    #expect(
      configuration.inputs.map { String($0.path.dropFirst(folder.count)) }
        == ["users.json", "channels.json", "file_conversations.json"] + kinds.keys.sorted())
    // Exports before 2024 have no file_conversations.json: the optional input's one warning.
    #expect(report.issueCounts == ["missingInput": 1], "\(report.issues.map(\.description))")
    #expect(report.issues.map(\.input) == [folder + "file_conversations.json"])
    for (file, expected) in kinds {
      let messages = try ChatCorpus.array("\(export)/\(file)")
      let section = try #require(report.inputs(endingWith: "/" + file).first)
      #expect(section.dataset == "slack-messages")
      #expect(section.recordsRead == messages.count && section.recordsLoaded == messages.count, "\(file)")
      #expect(expected.values.reduce(0, +) == messages.count, "\(file)")
      let channel = String(file.prefix { $0 != "/" })
      let ids = messages.compactMap { $0["ts"] as? String }.map { "slack:\(channel)/\($0)" }
      #expect(try workspace.kinds(of: ids) == expected, "\(file)")
    }
    return workspace
  }

  @Test func slackExportViewerImportsEveryMessageOfEveryDayFileByKind() throws {
    let workspace = try loadAndCheck(Self.viewer, kinds: Self.viewerKinds)
    #expect(try workspace.kinds() == ["text": 144, "system": 11, "file": 3])
    // Four users from users.json, named by real_name or, without one, the handle; three bots
    // named by nothing (their messages carry no username).
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY sender_id") == [
        "slack:B0JL6RASU|∅", "slack:B0JL6UFSL|∅", "slack:B0VJZKVHC|∅", "slack:U0BMM2FEH|heroeshannibal",
        "slack:U0BMQB6JE|Hamza Faran", "slack:U0BMS113R|Hermione Granger", "slack:U0BMYT2FL|Harry Potter",
      ])
    #expect(
      try workspace.rows("SELECT conversation_id, name FROM conversations ORDER BY 1") == [
        "slack:enrique|enrique", "slack:traveling-sailor|traveling-sailor",
      ])
    // A ts is the key within the channel and the time (to the millisecond the column keeps).
    #expect(
      try workspace.rows("SELECT sent_at, sender_id FROM messages WHERE message_id = 'slack:enrique/1452837318.000002'")
        == ["2016-01-15T05:55:18.000Z|slack:U0BMQB6JE"])
    // The file comment is text by the comment's author; the file shares are the shared files.
    #expect(
      try workspace.rows(
        "SELECT m.sender_id, substr(t.text, 1, 12) FROM messages m JOIN text_messages t USING (message_id) WHERE m.message_id = 'slack:traveling-sailor/1459106048.000018'"
      ) == ["slack:U0BMS113R|```'cities':"])
    #expect(
      try workspace.rows("SELECT name, mime_type, size_bytes FROM file_messages ORDER BY name") == [
        "100_cities.js|text/plain|4163", "10_cities.js|text/plain|478", "cities1000.js|text/plain|40474",
      ])
    #expect(try workspace.count("SELECT count(*) FROM file_messages WHERE url LIKE 'https://files.slack.com/%'") == 3)
    // A bot's commit notice has no text of its own: its attachment's fallback is the text.
    #expect(try workspace.count("SELECT count(*) FROM text_messages WHERE text = ''") == 0)
    #expect(
      try workspace.rows("SELECT text FROM text_messages WHERE message_id = 'slack:enrique/1454892394.000004'") == [
        "[enrique:master] <https://github.com/mesos-magellan/enrique/commit/ed1acbe9837b5ddf91e93606b604df3c2b4e128f|1 new commit> by Anthony Bilinski"
      ])
    #expect(try workspace.rows("SELECT DISTINCT event FROM system_messages ORDER BY 1") == ["bot_add", "channel_join"])
  }

  @Test func langchainExportImportsWithNumbersInChannelsAndProfilesInMessages() throws {
    let workspace = try loadAndCheck(Self.langchain, kinds: Self.langchainKinds)
    #expect(try workspace.kinds() == ["text": 4, "system": 1])
    // Its one author is not in users.json: the messages' user_profile names them, and the
    // channel_join, which has no profile, does not clear the name.
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "slack:U0500003428|Example User", "slack:U050FRJNFQS|GitHub",
      ])
    // Four channels, one without a day file.
    #expect(try workspace.count("SELECT count(*) FROM conversations") == 4)
    #expect(
      try workspace.rows("SELECT conversation_id, count(*) FROM messages GROUP BY 1 ORDER BY 1") == [
        "slack:example-channel|2", "slack:general|2", "slack:random|1",
      ])
  }

  @Test func reimportingEitherExportChangesNothing() throws {
    for (export, kinds) in [(Self.viewer, Self.viewerKinds), (Self.langchain, Self.langchainKinds)] {
      let workspace = try loadAndCheck(export, kinds: kinds)
      let before = try workspace.snapshot()
      let (again, _) = try workspace.runSpec("slack.json", inputDirectory: ChatCorpus.path(export))
      #expect(again.status == .succeeded)
      #expect(try workspace.snapshot() == before, "\(export)")
    }
  }

  @Test func bothExportsShareOneDatabaseWithoutMixingTheirRows() throws {
    let workspace = try loadAndCheck(Self.viewer, kinds: Self.viewerKinds)
    let (report, _) = try workspace.runSpec("slack.json", inputDirectory: ChatCorpus.path(Self.langchain))
    #expect(report.status == .succeeded)
    #expect(try workspace.count("SELECT count(*) FROM messages") == 158 + 5)
    #expect(try workspace.count("SELECT count(*) FROM conversations") == 2 + 4)
    #expect(try workspace.count("SELECT count(*) FROM senders") == 7 + 2)
  }

  // MARK: - The committed sample and drift

  @Test func theCommittedSampleLoadsEveryKindWithThreadsAndAttachments() throws {
    let workspace = try ChatExportWorkspace()
    let (report, configuration) = try workspace.runSpec("slack.json")
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    // users, channels, an empty file_conversations.json (as Slack writes it without any), 3 day files.
    #expect(configuration.inputs.count == 6)
    #expect(try workspace.kinds() == ["text": 5, "image": 1, "file": 1, "system": 3])
    // A thread reply names its thread's first message; a message's files are its attachments,
    // an image only with a URL to show it by.
    #expect(
      try workspace.rows("SELECT message_id, reply_to FROM messages WHERE reply_to IS NOT NULL") == [
        "slack:general/1793610060.654321|slack:general/1793610000.123456"
      ])
    #expect(
      try workspace.rows(
        "SELECT position, k.name, coalesce(url, '-'), coalesce(a.name, '-') FROM message_attachments a JOIN message_kinds k ON k.id = a.kind_id ORDER BY position"
      )
        == ["0|image|https://files.example.org/F07DRAFTA0/draft-a.png|-", "1|file|-|draft-b.svg"])
    #expect(try workspace.rows("SELECT name FROM senders ORDER BY sender_id") == ["CI", "Ana Lima", "bo"])
  }

  /// A day file with a subtype the mapping does not know, in a channel folder of a scratch export.
  func exportWithUnknownSubtype() throws -> (ChatExportWorkspace, String) {
    let workspace = try ChatExportWorkspace()
    try FileManager.default.createDirectory(
      atPath: workspace.directory.file("general"), withIntermediateDirectories: true)
    let day = try workspace.directory.write(
      "general/2026-11-30.json",
      """
      [
        {"type": "message", "user": "U1", "text": "hello", "ts": "1764460800.000100"},
        {"type": "message", "subtype": "huddle_thread", "user": "U1", "text": "", "ts": "1764460801.000200"},
        {"type": "message", "subtype": "huddle_thread", "user": "U1", "text": "", "ts": "1764460802.000300"}
      ]
      """)
    return (workspace, day)
  }

  @Test func anUnknownSubtypeFailsAStrictRunAtSubtype() throws {
    let (workspace, day) = try exportWithUnknownSubtype()
    let report = try workspace.run("slack-messages", day)
    #expect(report.status == .failed && !report.committed)
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .map && issue.code == .unsupportedEnumValue && issue.path == "subtype")
    #expect(issue.location?.ordinal == 2 && issue.location?.line == 3)
    #expect(try workspace.snapshot().count("messages") == 0)
  }

  @Test func anUnknownSubtypeIsSkippedUnderLenientAndNamedInTheDrift() throws {
    let (workspace, day) = try exportWithUnknownSubtype()
    let report = try workspace.run("slack-messages", day, policy: .lenient)
    #expect(report.status == .succeeded)
    #expect(report.statistics(for: .map).rejected == 2)
    #expect(
      report.drift.unsupportedEnumValues.map { "\($0.path) \($0.value ?? "-") \($0.count)" } == [
        "subtype huddle_thread 2"
      ])
    #expect(try workspace.rows("SELECT message_id FROM messages") == ["slack:general/1764460800.000100"])
  }

  /// The drift names a kind, never carries content: a 200-character subtype is cut to 64.
  @Test func anUnknownKindIsNamedByAtMost64Characters() throws {
    let workspace = try ChatExportWorkspace()
    let subtype = String(repeating: "x", count: 200)
    let day = try workspace.directory.write(
      "day.json", #"[{"type": "message", "subtype": "\#(subtype)", "text": "", "ts": "1764460800.000100"}]"#)
    var policy = Policy.lenient
    policy.allowsNothingLoaded = true
    let report = try workspace.run("slack-messages", day, policy: policy)
    #expect(report.drift.unsupportedEnumValues.map(\.value) == [String(repeating: "x", count: 64)])
  }

  @Test(arguments: [
    ("1458980525.000012", true), ("0.000000", true), ("1458980525.00001", false), ("1458980525", false),
    ("1458980525.0000120", false), ("-1.000000", false), ("1458980525.00001a", false), (" 1458980525.000012", false),
    ("253402300800.000000", false), ("", false),
  ])
  func tsIsEpochSecondsAndSixDigits(ts: String, valid: Bool) {
    #expect((Slack.instant(ts) != nil) == valid)
  }

  // MARK: - Uploads of every vintage, newer export files (issue 23)

  /// A real 2018 day file (Zulip's Slack importer fixture): a `file_share` with `file`, its
  /// comment as `initial_comment`, 3 `channel_join`s and 7 plain messages.
  @Test func a2018DayFileWithAnUploadAndItsCommentImportsWithoutDrift() throws {
    let file = "slack/zulip_slack_importer/random/2018-01-20.json"
    let messages = try ChatCorpus.array(file)
    #expect(messages.count == 11)
    let workspace = try ChatExportWorkspace()
    let report = try workspace.run("slack-messages", ChatCorpus.path(file))
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 11 && report.recordsLoaded == 11 && report.recordsRejected == 0)
    #expect(try workspace.kinds() == ["text": 7, "system": 3, "file": 1])
    #expect(
      try workspace.rows("SELECT message_id, name, mime_type, size_bytes FROM file_messages") == [
        "slack:random/1516457078.000065|dirac72.md|text/plain|5755"
      ])
  }

  /// The other day file of the same real 2017–2018 workspace (Zulip's fixture): a
  /// `channel_join` and a plain message, both by U6006P1CN. With the 2018 day file, the
  /// channel's folder makes one conversation of 13 messages.
  @Test func a2017DayFileJoinsTheSameChannelAsThe2018One() throws {
    let file = "slack/zulip_slack_importer/random/2017-06-25.json"
    #expect(try ChatCorpus.array(file).count == 2)
    let workspace = try ChatExportWorkspace()
    let report = try workspace.run("slack-messages", ChatCorpus.path(file))
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 2 && report.recordsLoaded == 2 && report.recordsRejected == 0)
    #expect(report.statistics(for: .map).skipped == 0)
    #expect(try workspace.kinds() == ["text": 1, "system": 1])
    #expect(
      try workspace.rows(
        "SELECT m.message_id, m.sender_id, m.sent_at, t.text FROM messages m JOIN text_messages t USING (message_id)")
        == ["slack:random/1498401071.279035|slack:U6006P1CN|2017-06-25T14:31:11.279Z|edfadfa"])
    #expect(
      try workspace.rows("SELECT message_id, event, text FROM system_messages") == [
        "slack:random/1498401043.277604|channel_join|<@U6006P1CN> has joined the channel"
      ])

    let both = try ChatExportWorkspace()
    let run = try both.run(
      ["2017-06-25.json", "2018-01-20.json"].map {
        PipelineInput(
          dataset: "slack-messages", path: ChatCorpus.path("slack/zulip_slack_importer/random/\($0)"), format: .json)
      })
    #expect(run.status == .succeeded && run.recordsLoaded == 13)
    #expect(try both.rows("SELECT conversation_id, count(*) FROM messages GROUP BY 1") == ["slack:random|13"])
    #expect(try both.kinds() == ["text": 8, "system": 4, "file": 1])
  }

  /// One upload as each vintage writes it. Until about 2019 a `file_share` message carries
  /// `file` and Slack's rendering as `text` (slack-export-viewer's 2016 export, Zulip's 2018
  /// fixture); since then the message has no subtype, `files[]` and often no text (Zulip's 2024
  /// fixture `message_with_variety_files_and_rich_text.json`: `"upload": false`, `files`,
  /// `blocks`, no `subtype`). Both are the same kind, with the same fields.
  static let uploadFile = #"""
    {"id": "F0VNAKDE2", "created": 1458980525, "timestamp": 1458980525, "name": "photo.png", "title": "Photo",
     "mimetype": "image/png", "filetype": "png", "pretty_type": "PNG", "user": "U0BMS113R", "size": 2048,
     "url_private": "https://files.slack.com/files-pri/T0-F0VNAKDE2/photo.png"}
    """#
  static let reportFile = #"""
    {"id": "F0REPORT01", "name": "report.pdf", "title": "report.pdf", "mimetype": "application/pdf", "size": 99,
     "url_private": "https://files.slack.com/files-pri/T0-F0REPORT01/report.pdf", "user_team": "T0", "file_access": "visible",
     "is_starred": false, "skipped_shares": true, "has_rich_preview": false}
    """#

  func loadDay(_ messages: [String], in folder: String, into workspace: ChatExportWorkspace) throws -> RunReport {
    try FileManager.default.createDirectory(atPath: workspace.directory.file(folder), withIntermediateDirectories: true)
    let day = try workspace.directory.write("\(folder)/2016-03-26.json", "[" + messages.joined(separator: ",\n") + "]")
    return try workspace.run("slack-messages", day)
  }

  @Test func anUploadIsTheSameKindFromAnOldOrANewExport() throws {
    let old = #"""
      {"type": "message", "subtype": "file_share", "text": "<@U0BMS113R> uploaded a file: <https://x.slack.com/files/U0BMS113R/F0VNAKDE2/photo.png|Photo>",
       "file": \#(Self.uploadFile), "user": "U0BMS113R", "upload": true, "display_as_bot": false, "username": "enrique",
       "bot_id": null, "ts": "1458980525.000012"}
      """#
    let middle = #"""
      {"type": "message", "subtype": "file_share", "text": "", "files": [\#(Self.uploadFile)], "user": "U0BMS113R",
       "upload": true, "display_as_bot": false, "ts": "1458980525.000012"}
      """#
    let new = #"""
      {"text": "", "files": [\#(Self.uploadFile)], "upload": true, "user": "U0BMS113R", "display_as_bot": false,
       "blocks": [], "type": "message", "ts": "1458980525.000012", "client_msg_id": "54bea93c-8a96-4f6b-9b52-f64af8b8e6a9"}
      """#
    var tables: [DatabaseSnapshot] = []
    for message in [old, middle, new] {
      let workspace = try ChatExportWorkspace()
      let report = try loadDay([message], in: "general", into: workspace)
      #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
      #expect(try workspace.kinds() == ["image": 1])
      #expect(
        try workspace.rows("SELECT message_id, url, caption FROM image_messages") == [
          "slack:general/1458980525.000012|https://files.slack.com/files-pri/T0-F0VNAKDE2/photo.png|Photo"
        ])
      tables.append(try workspace.snapshot())
    }
    #expect(tables[0] == tables[1] && tables[1] == tables[2])
  }

  @Test func filesWithoutTextAreAnImageOrAFileByMIMETypeAndWithTextTheyAreAttachments() throws {
    let workspace = try ChatExportWorkspace()
    let report = try loadDay(
      [
        // Only files: the first is the message, by its MIME type; the others its attachments.
        #"{"type": "message", "text": "", "files": [\#(Self.reportFile), \#(Self.uploadFile)], "user": "U1", "ts": "1458980600.000001"}"#,
        #"{"type": "message", "text": "", "files": [\#(Self.uploadFile)], "user": "U1", "ts": "1458980600.000002"}"#,
        // Text of its own: a text message with its files.
        #"{"type": "message", "text": "the report", "files": [\#(Self.reportFile)], "user": "U1", "ts": "1458980600.000003"}"#,
        // A file newer exports list but no longer hold (`mode` `hidden_by_limit`): a file by its id.
        #"{"type": "message", "text": "", "files": [{"id": "F0HIDDEN01", "mode": "hidden_by_limit"}], "user": "U1", "ts": "1458980600.000004"}"#,
      ], in: "general", into: workspace)
    #expect(report.status == .succeeded, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == 4 && report.recordsLoaded == 4)
    #expect(
      try workspace.rows(
        "SELECT m.message_id, k.name FROM messages m JOIN message_kinds k ON k.id = m.kind_id ORDER BY 1") == [
          "slack:general/1458980600.000001|file", "slack:general/1458980600.000002|image",
          "slack:general/1458980600.000003|text", "slack:general/1458980600.000004|file",
        ])
    #expect(
      try workspace.rows(
        "SELECT message_id, name, coalesce(url, '∅'), coalesce(mime_type, '∅') FROM file_messages ORDER BY 1") == [
          "slack:general/1458980600.000001|report.pdf|https://files.slack.com/files-pri/T0-F0REPORT01/report.pdf|application/pdf",
          "slack:general/1458980600.000004|F0HIDDEN01|∅|∅",
        ])
    #expect(
      try workspace.rows("SELECT message_id, position, kind_id FROM message_attachments ORDER BY 1, 2") == [
        "slack:general/1458980600.000001|0|2", "slack:general/1458980600.000003|0|3",
      ])
    // The file keys newer exports add are known, not drift.
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
  }

  /// Newer exports put more files beside the channel folders (`canvases.json`, `lists.json`,
  /// `dms.json`, `mpims.json`, `huddles.json`), and a DM's folder is named by its id: the glob
  /// `*/*.json` reads only day files, so the import is the same.
  @Test func newerExportFilesBesideTheChannelFoldersDoNotBreakTheGlob() throws {
    let copy = try TemporaryDirectory()
    let source = ChatCorpus.path(Self.langchain)
    for item in try FileManager.default.contentsOfDirectory(atPath: source) {
      try FileManager.default.copyItem(
        atPath: (source as NSString).appendingPathComponent(item),
        toPath: (copy.path as NSString).appendingPathComponent(item))
    }
    for extra in ["canvases.json", "lists.json", "dms.json", "mpims.json", "huddles.json"] {
      _ = try copy.write(extra, #"[{"id": "F07A32DC2GG", "title": "Weekly Sync", "date_created": 1719212228}]"#)
    }
    let plain = try ChatExportWorkspace()
    let (expected, expectedConfiguration) = try plain.runSpec("slack.json", inputDirectory: source)
    let workspace = try ChatExportWorkspace()
    let (report, configuration) = try workspace.runSpec("slack.json", inputDirectory: copy.path)
    #expect(report.status == .succeeded, "\(report.issues.map(\.description))")
    #expect(report.issueCounts == expected.issueCounts, "\(report.issues.map(\.description))")
    #expect(configuration.inputs.count == expectedConfiguration.inputs.count)
    #expect(report.recordsRead == expected.recordsRead && report.recordsLoaded == expected.recordsLoaded)
    #expect(try workspace.snapshot() == plain.snapshot())
  }

  // MARK: - 2024–2025 exports: canvases, file conversations, slackdump (issue 39)

  /// The committed 2025-shaped export, every file shaped as a real one (sources below and in
  /// docs/datasets.md): a channel's day files beside its `canvas_in_the_conversation.json`, a
  /// file conversation's folder `FC_F05JM5XK9SL_My notes` named in `file_conversations.json`, and
  /// a file-only message as slackdump writes it, without `text`.
  ///
  /// - The canvas file: vjcitn/slackExportDemo @ d3e1b19215247c8eb5bd1705d7eb2b1b91654376 :
  ///   `developersForum/canvas_in_the_conversation.json` (Bioconductor's Slack, exported 2025-04):
  ///   an array of one file object (`filetype` `quip`, `pretty_type` `Canvas`) with no `type` and
  ///   no `ts`. The day file beside it (`2025-03-31.json`, same commit) gives the 2025 message keys:
  ///   `is_locked`, app unfurls in `attachments` (`bot_id`, `app_unfurl_url`, `is_app_unfurl`, …),
  ///   and a `message_changed` record (`editor_id`, `edited_by`, `original`, `thread_ts`
  ///   `"0000000000.000000"`).
  /// - The text-less file message: rusq/slackdump @ 1b2138950f9a73e154aa8bdaa9051a86cd77d023 :
  ///   `internal/fixtures/assets/source_export_dir/B75B4C7/2025-01-11.json` (ts 1736582524.607359):
  ///   `files` and no `text` key, every file key slackdump writes, `replace_original`,
  ///   `delete_original`, `metadata`.
  /// - `file_conversations.json` lists its conversations as `channels.json` lists channels
  ///   (gabrielmicro1/cdp-harness @ 3bbebcb4371ba169d6097ed0150b9997a821cbde :
  ///   `tests/fixtures/make_slack_export_mini.py`, "built to the schema observed on a real
  ///   Business+ compliance export"); `document_comment_root` with `document_comment.thread_id`
  ///   and `reply_count` as Slack's API returns it there. The folder name is issue 39's; the
  ///   listed name, `FC:F05JM5XK9SL:My notes`, is issue 58's, from a real 2025 export.
  static let export2025 = Repository.path("SampleData/slack-2025")

  @Test func a2025ExportLoadsUnderStrictWithItsCanvasExcludedAndNamed() throws {
    let workspace = try ChatExportWorkspace()
    let (report, configuration) = try workspace.runSpec("slack.json", inputDirectory: Self.export2025)
    #expect(report.status == .succeeded && report.committed, "\(report.failure?.message ?? "")")
    let folder = Self.export2025 + "/"
    #expect(
      configuration.inputs.map { String($0.path.dropFirst(folder.count)) } == [
        "users.json", "channels.json", "file_conversations.json", "FC_F05JM5XK9SL_My notes/2025-04-01.json",
        "general/2025-03-31.json", "general/2025-04-01.json",
      ])
    // The canvas is not read as messages: left out, and the one issue is the warning naming it.
    let canvas = folder + "general/canvas_in_the_conversation.json"
    #expect(configuration.excludedInputs.map(\.path) == [canvas])
    #expect(report.issueCounts == ["excludedInput": 1], "\(report.issues.map(\.description))")
    let warning = try #require(report.issues.first)
    #expect(warning.stage == .read && warning.severity == .warning && warning.input == canvas)
    #expect(warning.message.contains("canvas_in_the_conversation.json"))
    #expect(report.inputs(endingWith: "canvas_in_the_conversation.json").isEmpty)
    #expect(report.recordsRead == 2 + 1 + 1 + 3 + 4 + 1 && report.recordsRejected == 0)

    #expect(try workspace.kinds() == ["text": 3, "system": 4, "image": 1])
    // The file conversation is named by file_conversations.json, like a channel by channels.json,
    // though it lists it as `FC:F05JM5XK9SL:My notes` and its folder is `FC_F05JM5XK9SL_My notes`
    // (issue 58): one conversation, named, with its 3 messages — not a named one with none and
    // an unnamed one with the messages.
    #expect(
      try workspace.rows("SELECT conversation_id, coalesce(name, '∅') FROM conversations ORDER BY 1") == [
        "slack:FC_F05JM5XK9SL_My notes|FC:F05JM5XK9SL:My notes", "slack:general|general",
      ])
    #expect(
      try workspace.rows("SELECT conversation_id, count(*) FROM messages GROUP BY 1 ORDER BY 1") == [
        "slack:FC_F05JM5XK9SL_My notes|3", "slack:general|5",
      ])
    // Its document events are system messages that keep their text; the comment on the passage
    // is a reply to the comment thread's root.
    #expect(
      try workspace.rows("SELECT message_id, event, text FROM system_messages WHERE event LIKE 'document%' ORDER BY 1")
        == [
          "slack:FC_F05JM5XK9SL_My notes/1743510000.000100|document_unfurl|<https://sluice-example.slack.com/docs/T07SLUICE0/F05JM5XK9SL>",
          "slack:FC_F05JM5XK9SL_My notes/1743510284.332529|document_comment_root|Check list",
        ])
    #expect(
      try workspace.rows("SELECT message_id, reply_to, sender_id FROM messages WHERE reply_to LIKE '%FC_%'") == [
        "slack:FC_F05JM5XK9SL_My notes/1743510400.057089|slack:FC_F05JM5XK9SL_My notes/1743510284.332529|slack:U07BO00002"
      ])
    // An edit (`message_changed`, its thread_ts all zeros) is a system message with the edited
    // text, a reply to nothing; the message as it was keeps its own text.
    #expect(
      try workspace.rows(
        "SELECT m.message_id, coalesce(m.reply_to, '∅'), m.sender_id, s.text FROM messages m JOIN system_messages s USING (message_id) WHERE s.event = 'message_changed'"
      ) == [
        "slack:general/1743465458.000000|∅|slack:U07ANA0001|The import runs on 2025 exports now (canvases too): <https://github.com/example/sluice>"
      ])
    #expect(
      try workspace.rows("SELECT text FROM text_messages WHERE message_id = 'slack:general/1743465456.933089'") == [
        "The import runs on 2025 exports now: <https://github.com/example/sluice>"
      ])
    // slackdump's file-only message without text is the image it shares.
    #expect(
      try workspace.rows("SELECT message_id, url, caption FROM image_messages") == [
        "slack:general/1743500524.607359|https://files.slack.com/files-pri/T07SLUICE0-F07PHOTO01/whiteboard.jpg|Whiteboard"
      ])
  }

  /// A message without `text` is slackdump's file-only message; without files too it carries
  /// nothing, and is `missingField` at `text` (the validate stage), never an empty text message.
  /// A file conversation's folder that `file_conversations.json` does not list (here a copy of
  /// the 2025 export with a second `FC_…` folder, its day file the listed one's) is refused by a
  /// strict run, naming its day file, instead of landing in a conversation of its own, unnamed,
  /// beside the listed ones (issue 58).
  @Test func aFileConversationFolderNoListingNamesFailsAStrictRun() throws {
    let workspace = try ChatExportWorkspace()
    let export = workspace.directory.file("export")
    try FileManager.default.copyItem(atPath: Self.export2025, toPath: export)
    let unlisted = export + "/FC_F07UNLISTED_Draft"
    try FileManager.default.createDirectory(atPath: unlisted, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: export + "/FC_F05JM5XK9SL_My notes/2025-04-01.json", toPath: unlisted + "/2025-04-01.json")
    let (report, _) = try workspace.runSpec("slack.json", inputDirectory: export)
    #expect(report.status == .failed && !report.committed)
    #expect(report.failure?.kind == .data, "\(String(describing: report.failure))")
    let issue = try #require(report.issues.first { $0.code == .orphanReference })
    #expect(issue.stage == .load && issue.severity == .error)
    #expect(issue.input == unlisted + "/2025-04-01.json")
    #expect(issue.location?.ordinal == 1)
  }

  @Test func aMessageWithoutTextMustCarryFiles() throws {
    let messages = [
      #"{"type": "message", "user": "U1", "ts": "1743500524.607359", "files": [\#(Self.uploadFile)]}"#,
      #"{"type": "message", "user": "U1", "ts": "1743500525.000001"}"#,
      #"{"type": "message", "user": "U1", "ts": "1743500526.000001", "files": []}"#,
    ]
    let strict = try ChatExportWorkspace()
    let failed = try loadDay(messages, in: "general", into: strict)
    #expect(failed.status == .failed && !failed.committed)
    #expect(
      failed.issues.first.map { "\($0.stage) \($0.code) \($0.path) \($0.location?.ordinal ?? 0)" }
        == "validate missingField text 2")
    #expect(try strict.snapshot().count("messages") == 0)

    let lenient = try ChatExportWorkspace()
    try FileManager.default.createDirectory(
      atPath: lenient.directory.file("general"), withIntermediateDirectories: true)
    let day = try lenient.directory.write("general/2025-04-01.json", "[" + messages.joined(separator: ",\n") + "]")
    let report = try lenient.run("slack-messages", day, policy: .lenient)
    #expect(report.recordsLoaded == 1 && report.recordsRejected == 2)
    #expect(
      report.issues.map { "\($0.stage) \($0.code) \($0.path) \($0.location?.ordinal ?? 0)" } == [
        "validate missingField text 2", "validate missingField text 3",
      ])
    #expect(try lenient.kinds() == ["image": 1])
  }

  /// A canvas read as messages (a spec without `exclude`) is what 2024–2025 exports did to the
  /// shipped pipeline: its file object has no `type` and no `ts`, so strict fails at decode.
  @Test func aCanvasReadAsADayFileFailsAtDecodeWhichIsWhyTheSpecExcludesIt() throws {
    let workspace = try ChatExportWorkspace()
    let report = try workspace.run(
      "slack-messages", Self.export2025 + "/general/canvas_in_the_conversation.json")
    #expect(report.status == .failed)
    #expect(report.issues.first.map { "\($0.stage) \($0.code) \($0.path)" } == "decode missingField type")
    let spec = try String(contentsOfFile: Repository.path("Pipelines/slack.json"), encoding: .utf8)
    #expect(spec.contains(#""exclude": ["canvas_in_the_conversation.json"]"#))
  }
}
