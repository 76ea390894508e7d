@_spi(Internals) import SluiceCore

extension Slack {
  /// The export's name in the keys of its rows (`slack:general`).
  static let export = "slack"

  /// The folder a listed conversation's day files sit in, which is all a day file knows of its
  /// conversation: its name with `:` and `/` as `_`. A 2025 export lists a file conversation as
  /// `FC:F05JM5XK9SL:My notes` in `file_conversations.json` and writes its day files in
  /// `FC_F05JM5XK9SL_My notes/` (issue 58; `/` cannot be in a folder's name at all). A channel's
  /// name holds neither, so it is its folder unchanged.
  static func folder(of name: String) -> String {
    String(name.map { $0 == ":" || $0 == "/" ? "_" : $0 })
  }

  /// What a message is, by its `subtype`, as Slack defines them.
  ///
  /// - No subtype, `bot_message`, `me_message`, `thread_broadcast`: text someone (or a bot) wrote.
  /// - `file_comment`: text too — a person's comment on a shared file, by the comment's author,
  ///   with the comment as the text (the message's own `text` is Slack's rendering of it,
  ///   "<@U…> commented on <@U…>'s file <…>: …").
  /// - `file_share`: an image or a file, by the MIME type of its `file` (older exports) or of
  ///   the first of its `files` (newer ones); a message without subtype whose only content is
  ///   `files` is the same (`SlackMessagesDataset`).
  /// - Channel events (`channel_join`, `bot_add`, `pinned_item`, …): system, the subtype being
  ///   the event. So are the two events of a file conversation (an `FC_<file id>_<title>`
  ///   folder, 2024 on): `document_unfurl`, Slack showing the document the conversation is
  ///   about, and `document_comment_root`, the passage of the document a comment thread is on
  ///   (the comments are its thread's replies); their text is kept as the event's text. And
  ///   `message_changed` (2025 exports): an edit, at a `ts` of its own, the edited text as the
  ///   event's text; the message as it was is a record of its own in the same day file.
  /// Any other subtype is `unsupportedEnumValue` at `subtype`, never guessed.
  enum Kind {
    case text
    case fileComment
    case fileShare
    case system

    init?(subtype: String?) {
      guard let subtype else {
        self = .text
        return
      }
      if Self.textSubtypes.contains(subtype) {
        self = .text
      } else if Self.systemSubtypes.contains(subtype) {
        self = .system
      } else if subtype == "file_comment" {
        self = .fileComment
      } else if subtype == "file_share" {
        self = .fileShare
      } else {
        return nil
      }
    }

    static let textSubtypes: Set<String> = ["bot_message", "me_message", "thread_broadcast", "reply_broadcast"]
    static let systemSubtypes: Set<String> = [
      "channel_join", "channel_leave", "channel_topic", "channel_purpose", "channel_name", "channel_archive",
      "channel_unarchive", "channel_convert_to_private", "group_join", "group_leave", "group_topic",
      "group_purpose", "group_name", "group_archive", "group_unarchive", "bot_add", "bot_remove", "bot_enable",
      "bot_disable", "pinned_item", "unpinned_item", "reminder_add", "tombstone", "document_unfurl",
      "document_comment_root", "message_changed",
    ]

    /// Every subtype the mapping knows.
    static var subtypes: [String] {
      textSubtypes.sorted() + ["file_comment", "file_share"] + systemSubtypes.sorted()
    }

    /// Every subtype the mapping knows, for the message of an `unsupportedEnumValue`.
    static var known: String {
      "none, "
        + (textSubtypes.sorted() + ["file_comment", "file_share"] + systemSubtypes.sorted()).joined(separator: ", ")
    }
  }

  /// A `ts` (`"1458980525.000012"`): whole seconds since 1970, a dot, six digits of microseconds.
  /// Nil for any other spelling, or for an instant outside years 1…9999.
  public static func instant(_ ts: String) -> (seconds: Int64, microseconds: Int64)? {
    let parts = ts.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[1].utf8.count == 6, !parts[0].isEmpty, parts[0].utf8.count <= 12,
      parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }),
      let seconds = Int64(parts[0]), let microseconds = Int64(parts[1]),
      ChatExport.epochSeconds.contains(seconds)
    else { return nil }
    return (seconds, microseconds)
  }
}
