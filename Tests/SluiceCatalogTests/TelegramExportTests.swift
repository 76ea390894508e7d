import Foundation
import SluiceCatalog
import SluiceCore
import SluiceTestSupport
import Testing

/// The corpus's single-chat Telegram exports — langchain's (4 messages), its fork with mixed
/// text (6), the legacy one (3, bare-number `from_id`, no `date_unixtime`, mojibake) and
/// chat-miner's minimal one (2, no ids) — and the committed sample.
///
/// The reader does not report a chat's fields to the map stage yet, so each file is its own
/// conversation, keyed by its stem (`telegram:langchain_result`); once it does, the chat's id is.
/// chat-miner's full-account export (`chats.list[].messages`) needs a record path through an
/// array and is left to that change.
@Suite("Telegram export: Telegram Desktop result.json")
struct TelegramExportTests {
  func load(_ file: String, into workspace: ChatExportWorkspace, policy: Policy = .strict) throws -> RunReport {
    try workspace.run("telegram", ChatCorpus.path("telegram/\(file)"), recordPath: ["messages"], policy: policy)
  }

  /// The text a Telegram `text` flattens to, computed with Foundation: a string, or the
  /// strings and entities' texts of an array, joined.
  static func plainText(_ value: Any?) -> String {
    if let text = value as? String { return text }
    return (value as? [Any] ?? []).map { ($0 as? String) ?? (($0 as? [String: Any])?["text"] as? String ?? "") }.joined()
  }

  @Test(arguments: [
    ("langchain_result.json", 4), ("langchain_fork_result_mixed_text.json", 6), ("langchain_legacy_telegram.json", 3),
  ])
  func everyMessageOfASingleChatFileIsImportedWithItsFlattenedText(file: String, count: Int) throws {
    let messages = try ChatCorpus.array("telegram/\(file)", at: ["messages"])
    #expect(messages.count == count)
    let workspace = try ChatExportWorkspace()
    let report = try load(file, into: workspace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(report.recordsRead == count && report.recordsLoaded == count)
    #expect(try workspace.kinds() == ["text": count])
    let conversation = "telegram:" + (file as NSString).deletingPathExtension
    let expected = messages.map { message in
      let sender = message["from_id"].map { "telegram:\($0)" } ?? "∅"
      return "\(conversation)/\(message["id"] ?? "")|\(sender)|\(Self.plainText(message["text"]))"
    }
    #expect(
      try workspace.rows(
        "SELECT m.message_id, m.sender_id, t.text FROM messages m JOIN text_messages t USING (message_id) ORDER BY m.rowid")
        == expected)

    let before = try workspace.snapshot()
    #expect(try load(file, into: workspace).status == .succeeded)
    #expect(try workspace.snapshot() == before)
  }

  @Test func mixedTextIsFlattenedAndTimesComeFromDateUnixtime() throws {
    let workspace = try ChatExportWorkspace()
    #expect(try load("langchain_fork_result_mixed_text.json", into: workspace).status == .succeeded)
    #expect(
      try workspace.rows("SELECT text FROM text_messages WHERE message_id LIKE '%/5' OR message_id LIKE '%/6' ORDER BY 1") == [
        "this is an email: admin@example.com", "this is bold text: BOLD TEXT",
      ])
    // date_unixtime 1692821483; `date` (13:11:23) is the exporting computer's local time.
    #expect(
      try workspace.rows("SELECT sent_at FROM messages WHERE message_id = 'telegram:langchain_fork_result_mixed_text/1'")
        == ["2023-08-23T20:11:23.000Z"])
    #expect(
      try workspace.rows("SELECT sender_id, name FROM senders ORDER BY 1") == [
        "telegram:user123450513|Jimmeny Marvelton", "telegram:user6565661032|Batman & Robin",
      ])
  }

  @Test func theLegacyExportsBareNumberIDsAndZonelessDatesAreReadAsTheyAre() throws {
    let grace = try #require(try ChatCorpus.array("telegram/langchain_legacy_telegram.json", at: ["messages"])[2]["from"] as? String)
    #expect(grace.hasPrefix("Grace ðŸ§¤"))
    let workspace = try ChatExportWorkspace()
    #expect(try load("langchain_legacy_telegram.json", into: workspace).status == .succeeded)
    // `from_id` 4325636679 is the key "4325636679"; `date` is read as UTC; the mojibake of the
    // names is stored as written (repairing it would be a guess).
    #expect(
      try workspace.rows("SELECT m.message_id, m.sent_at, s.name FROM messages m JOIN senders s USING (sender_id) ORDER BY 1") == [
        "telegram:langchain_legacy_telegram/1980499|2020-01-01T00:00:02.000Z|Henry",
        "telegram:langchain_legacy_telegram/1980500|2020-01-01T00:00:04.000Z|Henry",
        "telegram:langchain_legacy_telegram/1980501|2020-01-01T00:00:05.000Z|\(grace)",
      ])
    #expect(try workspace.rows("SELECT sender_id FROM senders ORDER BY 1") == ["telegram:4325636679", "telegram:4720225552"])
  }

  /// chat-miner's messages have no `id`: a key that a re-import repeats needs each message's
  /// position in its chat, which the map stage does not see. They are rejected at `id`, not
  /// keyed by something a later version would key differently.
  @Test func messagesWithoutIDsAreAccountedForAsRejectedAtID() throws {
    let workspace = try ChatExportWorkspace()
    let strict = try load("chat-miner_single_export.json", into: workspace)
    #expect(strict.status == .failed)
    let first = try #require(strict.issues.first)
    #expect(first.stage == .map && first.code == .missingField && first.path == "id" && first.location?.ordinal == 1)
    var lenient = Policy.lenient
    lenient.allowsNothingLoaded = true
    let report = try load("chat-miner_single_export.json", into: workspace, policy: lenient)
    #expect(report.status == .succeeded)
    #expect(report.recordsRead == 2 && report.recordsRejected == 2 && report.recordsLoaded == 0)
    #expect(report.issues.map { "\($0.stage) \($0.code) \($0.path)" } == ["map missingField id", "map missingField id"])
  }

  @Test func theCommittedSampleHasEveryKind() throws {
    let workspace = try ChatExportWorkspace()
    let (report, _) = try workspace.runSpec("telegram.json")
    #expect(report.status == .succeeded && report.issueCounts.isEmpty, "\(report.issues.map(\.description))")
    #expect(try workspace.kinds() == ["text": 2, "image": 1, "file": 1, "system": 1])
    #expect(try workspace.rows("SELECT event, coalesce(text, '∅') FROM system_messages") == ["join_group_by_link|∅"])
    #expect(try workspace.rows("SELECT url, caption, width, height FROM image_messages") == ["photos/photo_1@02-11-2026_10-00-00.jpg|The funnel|1280|720"])
    #expect(
      try workspace.rows("SELECT name, url, mime_type, size_bytes FROM file_messages") == [
        "report-run-7.json|files/report-run-7.json|application/json|9120"
      ])
    #expect(
      try workspace.rows("SELECT text, reply_to FROM messages JOIN text_messages USING (message_id) WHERE reply_to IS NOT NULL") == [
        "Report: 48 fruits, see https://example.org/runs/7|telegram:result/102"
      ])
  }
}
