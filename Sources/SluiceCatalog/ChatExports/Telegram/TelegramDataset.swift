import SluiceCore

/// Telegram Desktop's JSON export (`result.json`, records at `messages`; a whole account's at
/// `chats.list[].messages`) → the shared message tables.
///
/// - **Conversation**: the enclosing chat's `id` (`telegram:5965280513`) and `name`, which the map
///   stage finds in `MappingContext.fields` when the reader steps through the chat; a chat with
///   a name but no id is keyed by its name; without either (a file the reader gives no fields
///   for, or a minimal export), the file is the conversation, keyed by its stem.
/// - **Kind**: `type` `service` → system (the `action` is the event); `message` with a `photo` →
///   image (the text is the caption), with a `file` or `media_type` → file, otherwise text; any
///   other `type` is `unsupportedEnumValue` at `type`. `text` — a string, or strings and entity
///   objects — is flattened to plain text.
/// - **Key**: the message's `id` within its chat (`telegram:5965280513/42`). A message without
///   an `id` (chat-miner's minimal exports) needs its position in its chat for a key that a
///   re-import repeats, which the map stage does not see yet: it is rejected, `missingField` at
///   `id`, rather than keyed by something a later version would key differently.
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
    message: "a message needs date_unixtime (or, in older exports, date)")
  static let dateInRange = ValidationRule(
    "Telegram dates are in years 1…9999", code: .outOfRange, message: "must be seconds since 1970 within years 1…9999")
  static let dateFormat = ValidationRule(
    "Telegram date values are yyyy-MM-ddTHH:mm:ss", message: "must be yyyy-MM-ddTHH:mm:ss (local time, no zone)")
  static let mediaDimensions = ValidationRule(
    "Telegram photo dimensions are at least 1", code: .outOfRange, message: "must be at least 1")

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
    let sender: Sender?
    let text = message.text.plainText
    switch message.type {
    case "message":
      sender = Self.sender(id: message.fromID, name: message.from)
      if let photo = message.photo {
        content = .image(ImageContent(url: photo, caption: ChatExport.nonEmpty(text), width: message.width, height: message.height))
      } else if message.file != nil || message.mediaType != nil {
        let name = message.fileName ?? message.file.map(Self.lastComponent) ?? message.mediaType ?? "file"
        content = .file(FileContent(name: name, url: message.file, mimeType: message.mimeType, sizeBytes: message.fileSize))
      } else {
        content = .text(text)
      }
    case "service":
      sender = Self.sender(id: message.actorID, name: message.actor)
      content = .system(SystemContent(event: message.action ?? "service", text: ChatExport.nonEmpty(text)))
    default:
      throw ChatExport.unsupported(message.type, at: "type", known: Self.types, what: "a Telegram message type")
    }
    let conversation = Self.conversation(context)
    guard let id = message.id else {
      throw MappingError(
        code: .missingField, path: "id",
        message: "a message without an id needs its position in its chat for a key, which this version does not see")
    }
    return Message(
      id: Message.scopedID(String(id), in: conversation.id), conversation: conversation, sender: sender,
      sentAt: try Self.sentAt(message),
      replyTo: message.replyToMessageID.map { Message.scopedID(String($0), in: conversation.id) },
      content: content)
  }

  public func rows(for message: Message, into rows: inout RecordRows) {
    MessageTables.rows(for: message, into: &rows)
  }

  /// The enclosing chat: by `id`, else by `name`; else the input file.
  static func conversation(_ context: MappingContext) -> Conversation {
    let name = ChatExport.nonEmpty(context.fields["name"])
    if let id = ChatExport.nonEmpty(context.fields["id"]) {
      return Conversation(id: ChatExport.key(export, id), name: name)
    }
    if let name {
      return Conversation(id: ChatExport.key(export, name), name: name)
    }
    return Conversation(id: ChatExport.key(export, ChatExport.fileStem(context.inputPath)))
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

  static func lastComponent(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }
}
