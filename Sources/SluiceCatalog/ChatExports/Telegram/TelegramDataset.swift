@_spi(Internals) import SluiceCore

/// Telegram Desktop's JSON export (`result.json`, records at `messages`; a whole account's at
/// `chats.list[].messages`) → the shared message tables.
///
/// - **Conversation**: the enclosing chat's `id` (`telegram:5965280513`) and `name`, which the map
///   stage finds in `MappingContext.fields` — the top-level ones of a one-chat `result.json`, each
///   chat's in a whole account at `chats.list[].messages` — so the same chat exported alone, in a
///   later export or inside a whole account is one conversation. Only a chat with no `id`
///   (chat-miner's minimal exports) falls back to the input file: `telegram:<file stem>`, with
///   `#<name>` when the chat has a name, so that the id-less chats of one account file stay apart.
/// - **Kind**: `type` `service` → system (the `action` is the event); `message` with a `photo` →
///   image (the text is the caption), with a `file` or `media_type` → file — or, when it has
///   text (a captioned document, audio or video), text with the file as its attachment —
///   otherwise text; any other `type` is `unsupportedEnumValue` at `type`. `text` — a string, or
///   strings and entity objects — is flattened to plain text, and so is every other text of
///   that shape (a poll's question and answers, a to-do list's title and tasks, a gift's
///   words). A poll (a `message` with `poll` and an empty `text`) is text: its question, then
///   its answers, one per line; so is a to-do list (its title, then its tasks), a shared contact
///   (its name, then its phone number) and a shared location (a geo URI,
///   `geo:<latitude>,<longitude>`). A `todo_append_tasks` service message's text is the tasks it
///   added; a `send_star_gift` one's its `gift_text`.
/// - **Replies**: `reply_to` is the message replied to, in this chat — or, when
///   `reply_to_peer_id` names another (`"channel9876543210"`: a discussion group's reply to its
///   channel's post), in that chat's conversation (`telegram:9876543210/…`).
/// - **Key**: the message's `id` within its chat (`telegram:5965280513/42`). A message without an
///   `id` (chat-miner's minimal exports) is keyed by its 0-based position in its chat's
///   `messages` (`telegram:chat-miner_single_export/@0`; `@` never starts an id, which is a
///   number). That key is stable: Telegram exports a chat's history in order, oldest first, and
///   appends new messages at the end, so the same file gives the same positions and a re-import
///   changes nothing. (A later export of a chat whose earlier messages were deleted shifts them;
///   exports that have ids — every Telegram Desktop one — are keyed by id and never do.)
/// - **Media left out of the export** (`"(File not included. Change data exporting settings to
///   download.)"`, `"(File exceeds maximum size. …)"`, `"(File unavailable, please try again
///   later)"`): a file has no `url` and is named by its `file_name` or `media_type` (or `file`); a
///   photo keeps the sentence as its `url`.
/// - **Time**: `date_unixtime` (a number in a string); older exports have only `date`, the
///   exporting computer's local time without a zone, read as UTC.
/// - **Sender**: `from_id` (`user123…`, or a bare number in older exports — the same key either
///   way), named by `from`; a service message's `actor_id` and `actor`; a minimal export's `from`
///   alone is keyed by that name.
public struct TelegramDataset: Dataset {
  public init() {}

  public var name: String { "telegram" }
  public var summary: String { "Telegram Desktop JSON export (result.json) → messages, by kind" }
  public var schema: Schema { MessageTables.schema }

  static let export = "telegram"
  static let types = "message, service"

  static let hasDate = ValidationRule(
    "Telegram messages have date_unixtime or date", code: .missingField,
    message: "a message needs date_unixtime (or, in older exports, date)",
    constraints: [.unexpressed("a cross-field rule: date_unixtime, or else date, is present", at: "date_unixtime")])
  static let dateInRange = ValidationRule(
    "Telegram dates are in years 1…9999", code: .outOfRange, message: "must be seconds since 1970 within years 1…9999",
    constraints: [
      .range(-62_135_596_800...253_402_300_799, at: "date_unixtime"),
      .unexpressed("the range of a number written as a string", at: "date_unixtime"),
    ])
  /// `StackExchange.timestamp(from:)`'s layout; whether the day exists is not in the pattern.
  static let dateFormat = ValidationRule(
    "Telegram date values are yyyy-MM-ddTHH:mm:ss", message: "must be yyyy-MM-ddTHH:mm:ss (local time, no zone)",
    constraints: [
      .pattern(StackExchange.timestampLayout, at: "date"),
      .unexpressed("a real calendar day in years 1…9999", at: "date"),
    ])
  static let mediaDimensions = ValidationRule(
    "Telegram photo dimensions are at least 1", code: .outOfRange, message: "must be at least 1",
    constraints: [.atLeast(1, at: "width"), .atLeast(1, at: "height")])

  /// The map stage knows these message types.
  public var recordConstraints: [FieldConstraint] { [.oneOf(Self.types.components(separatedBy: ", "), at: "type")] }

  public var rules: [ValidationRule] { [Self.hasDate, Self.dateInRange, Self.dateFormat, Self.mediaDimensions] }

  public func validate(_ message: Telegram.MessageDTO, into validation: inout Validation) {
    if let unixtime = message.dateUnixtime {
      validation.check(Self.dateInRange, ChatExport.epochSeconds.contains(unixtime.value), at: "date_unixtime")
    } else if let date = message.date {
      validation.check(Self.dateFormat, StackExchange.timestamp(from: date) != nil, at: "date")
    } else {
      validation.check(Self.hasDate, false, at: "date_unixtime")
    }
    if let width = message.width { validation.check(Self.mediaDimensions, width >= 1, at: "width") }
    if let height = message.height { validation.check(Self.mediaDimensions, height >= 1, at: "height") }
  }

  public func map(_ message: Telegram.MessageDTO, context: inout MappingContext) throws(MappingError) -> Message {
    let content: MessageContent
    var attachments: [MessageAttachment] = []
    let sender: Sender?
    let text = message.text.plainText
    switch message.type {
    case "message":
      sender = Self.sender(id: message.fromID, name: message.from)
      if let photo = message.photo {
        content = .image(
          ImageContent(url: photo, caption: ChatExport.nonEmpty(text), width: message.width, height: message.height))
      } else if message.file != nil || message.mediaType != nil {
        let file = message.file.flatMap { Self.placeholders.contains($0) ? nil : $0 }
        let name = message.fileName ?? file.map(Self.lastComponent) ?? message.mediaType ?? "file"
        let document = FileContent(name: name, url: file, mimeType: message.mimeType, sizeBytes: message.fileSize)
        // A document, audio or video sent with text: the text is the message, the file its
        // attachment (as a Slack file shared with a comment), so neither is lost.
        if text.isEmpty {
          content = .file(document)
        } else {
          content = .text(text)
          attachments = [.file(document)]
        }
      } else if let poll = message.poll, text.isEmpty {
        content = .text(poll.plainText)
      } else if let todoList = message.todoList, text.isEmpty {
        content = .text(todoList.plainText)
      } else if let contact = message.contactInformation, text.isEmpty {
        content = .text(contact.plainText)
      } else if let location = message.locationInformation, text.isEmpty {
        content = .text(location.plainText)
      } else {
        content = .text(text)
      }
    case "service":
      sender = Self.sender(id: message.actorID, name: message.actor)
      // Tasks added to a to-do list are the service message's text, one per line; a star
      // gift's words are its text.
      let added = (message.items ?? []).map(\.text.plainText).joined(separator: "\n")
      content = .system(
        SystemContent(
          event: message.action ?? "service",
          text: ChatExport.nonEmpty(text) ?? ChatExport.nonEmpty(added)
            ?? ChatExport.nonEmpty(message.giftText?.plainText)
        ))
    default:
      throw ChatExport.unsupported(message.type, at: "type", known: Self.types, what: "a Telegram message type")
    }
    let conversation = Self.conversation(context)
    let key = message.id.map { String($0) } ?? "@\(context.position)"
    return Message(
      id: Message.scopedID(key, in: conversation.id), conversation: conversation, sender: sender,
      sentAt: try Self.sentAt(message),
      replyTo: message.replyToMessageID.map { id in
        Message.scopedID(String(id), in: message.replyToPeerID.map(Self.peerConversation) ?? conversation.id)
      },
      content: content, attachments: attachments)
  }

  public func rows(for message: Message, into rows: inout RecordRows) {
    MessageTables.rows(for: message, into: &rows)
  }

  /// The enclosing chat, by its `id`. A chat without one — chat-miner's minimal exports; Telegram
  /// Desktop always writes it — falls back to the input file, and to the chat's `name` within it:
  /// a name alone is no identity across files (two exports' "Chatname" need not be one chat),
  /// and the file alone would merge an account file's id-less chats, whose positional keys
  /// (`@0`, `@1`, …) would then overwrite each other.
  static func conversation(_ context: MappingContext) -> Conversation {
    let name = ChatExport.nonEmpty(context.fields["name"])
    if let id = ChatExport.nonEmpty(context.fields["id"]) {
      return Conversation(id: ChatExport.key(export, id), name: name)
    }
    let file = ChatExport.fileStem(context.inputPath)
    return Conversation(id: ChatExport.key(export, name.map { file + "#" + $0 } ?? file), name: name)
  }

  /// The conversation of a peer as `reply_to_peer_id` names it (`"channel9876543210"`,
  /// `"chat…"`, `"user…"`): the chat's bare id, as its own export writes it in `id`.
  static func peerConversation(_ peer: String) -> String {
    let bare = peer.drop { $0.isLetter }
    return ChatExport.key(export, bare.isEmpty ? peer : String(bare))
  }

  static func sender(id: IdentifierText?, name: String?) -> Sender? {
    if let id { return ChatExport.sender(export, id.text, name: name) }
    if let name = ChatExport.nonEmpty(name) { return ChatExport.sender(export, name, name: name) }
    return nil
  }

  static func sentAt(_ message: Telegram.MessageDTO) throws(MappingError) -> Timestamp {
    if let unixtime = message.dateUnixtime, ChatExport.epochSeconds.contains(unixtime.value) {
      return ChatExport.timestamp(seconds: unixtime.value)
    }
    // Zoneless ISO 8601 read as UTC, as the Stack Exchange dump's timestamps are.
    if message.dateUnixtime == nil, let date = message.date, let timestamp = StackExchange.timestamp(from: date) {
      return timestamp
    }
    throw MappingError(code: .invalidValue, path: "date_unixtime", message: hasDate.message)
  }

  /// What Telegram Desktop writes for `file`, `photo` and `thumbnail` when the export left the
  /// media out (`export_output_json.cpp`, by `SkipReason`): a type the settings excluded, a file
  /// over their size limit, or one Telegram could not serve (`Unavailable`, also a
  /// self-destructing one). A file of that kind has no path (its name is its `file_name`, its
  /// `media_type`, or `file`); a photo keeps the sentence as its `url`, which an image must have.
  static let placeholders: Set<String> = [
    "(File not included. Change data exporting settings to download.)",
    "(File exceeds maximum size. Change data exporting settings to download.)",
    "(File unavailable, please try again later)",
  ]

  static func lastComponent(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }
}
