@_spi(Internals) import SluiceCore

/// The day files of a Slack workspace export (`<channel>/<YYYY-MM-DD>.json`, read through a
/// glob `*/*.json`) → the shared message tables.
///
/// A day file does not say which channel it belongs to: its folder does, so the conversation
/// is `MappingContext.folder` (`slack:general`). `ts` is the message's key within its channel
/// (`slack:general/1458980525.000012`) and its time; a thread reply's `thread_ts` names the
/// message it replies to. The kind comes from `subtype` (`Slack.Kind`). The sender is the
/// message's `user`, a bot's `bot_id`, or a file comment's author; its name comes from the
/// message's `user_profile` (newer exports) or a bot's `username`, and otherwise is left to
/// `users.json`.
///
/// **Uploads of every vintage are one kind.** Older exports write an upload as a `file_share`
/// message with its `file` (and a `text` that is Slack's rendering, "<@U…> uploaded a file:
/// …"); newer ones drop the subtype and write `files[]`, often with an empty text (slackdump:
/// no `text` key at all; a message with neither text nor files is `missingField` at `text`).
/// Either way a message whose only content is files is an image or a file by the first file's
/// MIME type (`content(of:)`), the other files its attachments; a message with text of its own
/// is a text message with its files as attachments.
public struct SlackMessagesDataset: Dataset {
  public init() {}

  public var name: String { "slack-messages" }
  public var summary: String { "Slack export day files (<channel>/<day>.json) → messages, by kind" }
  public var schema: Schema { MessageTables.schema }

  /// `Slack.instant` as a pattern: up to 12 digits of seconds, at most 253402300799 (the last
  /// second of year 9999), a dot, six digits.
  static let tsPattern =
    "^(?:[0-9]{1,11}|[01][0-9]{11}|2[0-4][0-9]{10}|25[0-2][0-9]{9}|253[0-3][0-9]{8}|25340[01][0-9]{6}|253402[0-2][0-9]{5}|253402300[0-6][0-9]{2}|2534023007[0-8][0-9]|25340230079[0-9])\\.[0-9]{6}$"
  static let tsFormat = ValidationRule(
    "Slack ts values are epoch seconds with six decimals",
    message: "must be whole seconds since 1970, a dot and six digits (1458980525.000012), in years 1…9999",
    constraints: [.pattern(tsPattern, at: "ts"), .pattern(tsPattern, at: "thread_ts")])
  static let fileMessagesHaveTheirFile = ValidationRule(
    "file_share and file_comment messages carry their file", code: .missingField,
    message: "a file_share or file_comment message must carry its file",
    constraints: [
      .present(at: "file").when("subtype", is: "file_comment"),
      .unexpressed("a file_share message carries file, or files with at least one element", at: "file"),
    ])
  static let textOrFiles = ValidationRule(
    "Slack messages carry text, or files", code: .missingField,
    message: "a Slack message must carry text, or files (slackdump leaves out the text of a file-only message)",
    constraints: [.unexpressed("text, unless files has at least one element", at: "text")])
  static let fileCommentsHaveTheirComment = ValidationRule(
    "file_comment messages carry their comment", code: .missingField,
    message: "a file_comment message must carry its comment",
    constraints: [.present(at: "comment").when("subtype", is: "file_comment")])

  /// The map stage reads only `message` records, and the subtypes `Slack.Kind` knows (or none).
  public var recordConstraints: [FieldConstraint] {
    [.oneOf(["message"], at: "type"), .oneOf(Slack.Kind.subtypes, at: "subtype")]
  }

  public var rules: [ValidationRule] {
    [Self.tsFormat, Self.textOrFiles, Self.fileMessagesHaveTheirFile, Self.fileCommentsHaveTheirComment]
  }

  public func validate(_ message: Slack.MessageDTO, into validation: inout Validation) {
    validation.check(Self.tsFormat, Slack.instant(message.ts) != nil, at: "ts")
    if let thread = message.threadTS {
      validation.check(Self.tsFormat, Slack.instant(thread) != nil, at: "thread_ts")
    }
    if message.text == nil {
      validation.check(Self.textOrFiles, !(message.files ?? []).isEmpty, at: "text")
    }
    if message.subtype == "file_share" {
      validation.check(
        Self.fileMessagesHaveTheirFile, message.file != nil || !(message.files ?? []).isEmpty, at: "file")
    }
    if message.subtype == "file_comment" {
      validation.check(Self.fileMessagesHaveTheirFile, message.file != nil, at: "file")
    }
    if message.subtype == "file_comment" {
      validation.check(Self.fileCommentsHaveTheirComment, message.comment != nil, at: "comment")
    }
  }

  public func map(_ message: Slack.MessageDTO, context: inout MappingContext) throws(MappingError) -> Message {
    guard message.type == "message" else {
      throw ChatExport.unsupported(message.type, at: "type", known: "message", what: "a Slack record type")
    }
    guard let kind = Slack.Kind(subtype: message.subtype) else {
      throw ChatExport.unsupported(message.subtype ?? "", at: "subtype", known: Slack.Kind.known)
    }
    let channel = context.folder
    guard !channel.isEmpty else {
      throw MappingError(
        code: .missingField, path: "",
        message: "a Slack day file must sit in its channel's folder (<channel>/<day>.json)")
    }
    guard let instant = Slack.instant(message.ts) else {
      throw MappingError(code: .invalidValue, path: "ts", message: Self.tsFormat.message)
    }
    let conversation = Conversation(id: ChatExport.key(Slack.export, channel))
    var sender = Self.sender(of: message)
    let files = message.files ?? []
    let content: MessageContent
    var attachments = files
    switch kind {
    case .text:
      let text = Self.text(of: message)
      if text.isEmpty, let first = files.first {
        // An upload as newer exports write it: no subtype, no text, `files[]`.
        content = Self.content(of: first)
        attachments = Array(files.dropFirst())
      } else {
        content = .text(text)
      }
    case .system:
      content = .system(SystemContent(event: message.subtype ?? "", text: message.text))
    case .fileComment:
      guard let comment = message.comment else {
        throw MappingError(code: .missingField, path: "comment", message: Self.fileCommentsHaveTheirComment.message)
      }
      content = .text(comment.comment)
      sender = ChatExport.sender(Slack.export, comment.user)
    case .fileShare:
      if let file = message.file {
        content = Self.content(of: file)
      } else if let first = files.first {
        content = Self.content(of: first)
        attachments = Array(files.dropFirst())
      } else {
        throw MappingError(code: .missingField, path: "file", message: Self.fileMessagesHaveTheirFile.message)
      }
    }
    var replyTo: String?
    // A thread at ts 0 is none: a `message_changed` record names "0000000000.000000".
    if let thread = message.threadTS, thread != message.ts, let start = Slack.instant(thread),
      start.seconds != 0 || start.microseconds != 0
    {
      replyTo = Message.scopedID(thread, in: conversation.id)
    }
    return Message(
      id: Message.scopedID(message.ts, in: conversation.id), conversation: conversation, sender: sender,
      sentAt: ChatExport.timestamp(seconds: instant.seconds, microseconds: instant.microseconds), replyTo: replyTo,
      content: content, attachments: attachments.map(Self.attachment))
  }

  /// A file conversation's messages (a folder `FC_…`) join the conversation
  /// `file_conversations.json` listed, never one of their own: an export lists every file
  /// conversation there, so a folder that matches none is an `orphanReference` (a strict run
  /// fails, naming the day file) rather than an unnamed conversation beside the listed one.
  /// A channel's day files make their conversation, as exports before `channels.json` held
  /// every channel did.
  public func rows(for message: Message, into rows: inout RecordRows) {
    let folder = message.conversation.id.dropFirst(Slack.export.count + 1)
    MessageTables.rows(for: message, mergingConversation: !folder.hasPrefix("FC_"), into: &rows)
  }

  /// A person's `user`, else a bot's `bot_id`; named by the message's copy of the author's
  /// profile, or a bot's `username`. Nil when the message names nobody.
  static func sender(of message: Slack.MessageDTO) -> Sender? {
    if let user = message.user {
      let profile = message.userProfile
      return ChatExport.sender(
        Slack.export, user,
        name: ChatExport.nonEmpty(profile?.realName) ?? ChatExport.nonEmpty(profile?.displayName) ?? profile?.name)
    }
    if let bot = message.botID {
      return ChatExport.sender(Slack.export, bot, name: message.username)
    }
    return nil
  }

  /// The message's text; a bot message whose text is empty says what it says in its
  /// attachments, whose plain-text `fallback`s (one per line) are then the text.
  static func text(of message: Slack.MessageDTO) -> String {
    let text = message.text ?? ""
    guard text.isEmpty, let attachments = message.attachments else { return text }
    return attachments.compactMap(\.fallback).joined(separator: "\n")
  }

  /// A shared file: an image if its MIME type says so and it has a URL, otherwise a file.
  static func content(of file: Slack.FileDTO) -> MessageContent {
    switch attachment(file) {
    case .image(let image): .image(image)
    case .file(let file): .file(file)
    }
  }

  static func attachment(_ file: Slack.FileDTO) -> MessageAttachment {
    if let mimeType = file.mimetype, ChatExport.isImage(mimeType: mimeType), let url = file.urlPrivate {
      return .image(ImageContent(url: url, caption: ChatExport.nonEmpty(file.title)))
    }
    return .file(
      FileContent(
        name: ChatExport.nonEmpty(file.name) ?? ChatExport.nonEmpty(file.title) ?? file.id, url: file.urlPrivate,
        mimeType: file.mimetype, sizeBytes: file.size))
  }
}
