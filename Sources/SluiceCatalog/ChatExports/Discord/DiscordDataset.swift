import Foundation
import SluiceCore

/// A channel exported by DiscordChatExporter as JSON (records at `messages`) → the shared
/// message tables.
///
/// **The conversation comes from the file's name.** The channel object precedes `messages`, but
/// it is an object, and the map stage sees only the input's path and the enclosing objects'
/// scalar fields. DCE names a file `<Guild> - <Category> - <Channel> [<channel id>].json`, so
/// the id in brackets is the conversation (`discord:100`) and the part before it its name; a
/// file renamed without the brackets is a conversation of its own, keyed by its file name's
/// stem and left without a name.
///
/// Kinds follow DCE's own rule (`MessageKind.IsSystemMessage`): `Default` and `Reply` are text,
/// DCE's other kinds (`GuildMemberJoin`, `ChannelPinnedMessage`, `RecipientAdd`, `Call`, …)
/// are system, the kind being the event; any other is `unsupportedEnumValue` at `type`. A reply
/// keeps the id of the message it answers. Attachments become image or file attachments by
/// their file name's extension (DCE gives no content type). Discord's ids are global, so a
/// message's key is its id (`discord:…`).
public struct DiscordDataset: Dataset {
  public init() {}

  public var name: String { "discord" }
  public var summary: String { "DiscordChatExporter JSON channel export → messages, by kind" }
  public var schema: Schema { MessageTables.schema }

  static let export = "discord"
  static let textKinds: Set<String> = ["Default", "Reply"]
  static let systemKinds: Set<String> = [
    "RecipientAdd", "RecipientRemove", "Call", "ChannelNameChange", "ChannelIconChange", "ChannelPinnedMessage",
    "GuildMemberJoin", "ThreadCreated",
  ]

  static let idNotBlank = ValidationRule("Discord message ids are not blank", message: "must not be blank")
  static let authorIDNotBlank = ValidationRule("Discord author ids are not blank", message: "must not be blank")
  static let attachmentSize = ValidationRule(
    "Discord attachment sizes are not negative", code: .outOfRange, message: "must not be negative")

  public var rules: [ValidationRule] { [Self.idNotBlank, Self.authorIDNotBlank, Self.attachmentSize] }

  public func validate(_ message: Discord.MessageDTO, into validation: inout Validation) {
    validation.checkNotBlank(Self.idNotBlank, message.id, at: "id")
    validation.checkNotBlank(Self.authorIDNotBlank, message.author.id, at: "author.id")
    for (index, attachment) in message.attachments.enumerated() {
      validation.check(Self.attachmentSize, attachment.fileSizeBytes >= 0, at: "attachments[\(index)].fileSizeBytes")
    }
  }

  public func map(_ message: Discord.MessageDTO, context: inout MappingContext) throws(MappingError) -> Message {
    let content: MessageContent
    if Self.textKinds.contains(message.type) {
      content = .text(message.content)
    } else if Self.systemKinds.contains(message.type) {
      content = .system(SystemContent(event: message.type, text: ChatExport.nonEmpty(message.content)))
    } else {
      throw ChatExport.unsupported(
        message.type, at: "type", known: (Self.textKinds.sorted() + Self.systemKinds.sorted()).joined(separator: ", "))
    }
    let channel = Self.channel(fromPath: context.inputPath)
    return Message(
      id: ChatExport.key(Self.export, message.id),
      conversation: Conversation(id: ChatExport.key(Self.export, channel.id), name: channel.name),
      sender: ChatExport.sender(
        Self.export, message.author.id, name: ChatExport.nonEmpty(message.author.nickname) ?? message.author.name),
      sentAt: Timestamp(message.timestamp),
      // A pin's `reference` names the pinned message, which it does not reply to.
      replyTo: message.type == "Reply" ? message.reference?.messageId.map { ChatExport.key(Self.export, $0) } : nil,
      content: content,
      attachments: message.attachments.map(Self.attachment))
  }

  public func rows(for message: Message, into rows: inout RecordRows) {
    MessageTables.rows(for: message, into: &rows)
  }

  static func attachment(_ attachment: Discord.AttachmentDTO) -> MessageAttachment {
    if ChatExport.isImage(fileName: attachment.fileName) {
      return .image(ImageContent(url: attachment.url, caption: nil))
    }
    return .file(FileContent(name: attachment.fileName, url: attachment.url, sizeBytes: attachment.fileSizeBytes))
  }

  /// The channel a DCE file holds, from its name: `Test Server - Text - general [100].json` is
  /// channel `100`, named `Test Server - Text - general`; a name without a bracketed id at its
  /// end is a channel of its own, keyed by the stem (`zulip_dce_general_100`), name unknown.
  public static func channel(fromPath path: String) -> (id: String, name: String?) {
    let stem = ChatExport.fileStem(path)
    guard stem.hasSuffix("]"), let open = stem.lastIndex(of: "[") else { return (stem, nil) }
    let id = stem[stem.index(after: open)..<stem.index(before: stem.endIndex)]
    guard !id.isEmpty, id.allSatisfy(\.isASCII), id.allSatisfy(\.isNumber) else { return (stem, nil) }
    let name = stem[..<open].trimmingCharacters(in: .whitespaces)
    return (String(id), name.isEmpty ? nil : name)
  }
}
