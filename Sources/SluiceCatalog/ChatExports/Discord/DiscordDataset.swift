import Foundation
@_spi(Internals) import SluiceCore

/// A channel exported by DiscordChatExporter as JSON (records at `messages`) → the shared
/// message tables.
///
/// **The conversation is the channel the file says it holds.** DCE writes `guild` and `channel`
/// objects before `messages` (`JsonMessageWriter.WritePreambleAsync`), whose scalars the map
/// stage sees as `channel.id`, `guild.name`, …: the channel's id is the conversation
/// (`discord:1519311538035490958`) and `Guild - Category - Channel` its name — the name DCE
/// gives the file by default (`ExportRequest.GetDefaultOutputFileName`; for a thread the
/// "category" is its parent channel, for a direct message the guild is `Direct Messages`). So
/// every part of a partitioned export (`… [part 2].json`), a thread, and a file renamed by
/// `--output` land in their channel, and a re-import never moves a message. Only a file without
/// a channel id falls back to its name: `<Guild> - <Category> - <Channel> [<id>]`, with DCE's
/// ` (after … to …)` date range and ` [part N]` suffixes set aside; a name without a bracketed
/// id is a conversation of its own, keyed by its stem (parts of one file still together),
/// unnamed.
///
/// **A thread's starter message belongs to the channel it was posted in.** Discord gives a
/// thread started from a message that message's id, and DCE (since 2.48, PR #1557) writes the
/// message both in its channel's file and first in the thread's file. In a thread's file
/// (`channel.type` `Guild…Thread`), the message whose id is the thread's is kept in the parent
/// channel (`channel.categoryId`), where Discord shows it, whichever file is loaded first; the
/// run notes it (`threadStarterRepeated`, a map-stage warning at `id`). DCE before 2.48
/// wrote a placeholder in its place instead (type `21`, later `ThreadStarterMessage`, no
/// content): skipped by design.
///
/// **A thread or forum post is a conversation of its own, titled.** At the end of a thread's
/// file (`rowsAfterRecords`) its conversation is written even when its only message was kept in
/// the parent — named `Guild - Parent - Title` — and `discord_threads` holds its parent's
/// conversation and its title, the thread's `channel.name` (a forum post's title). A forum
/// post's opening message has the post's id, as a thread's starter has, and DCE's JSON does not
/// say whether the parent is a forum (`channel.type` is `GuildPublicThread` for both; forums
/// cannot be exported themselves): the opening message is kept in the parent like any starter,
/// and `discord_threads.conversation_id` names it (`discord:<id>`, the message's key too).
///
/// Kinds follow DCE's own rule (`MessageKind.IsSystemMessage`): `Default` and `Reply` are text,
/// DCE's other kinds (`GuildMemberJoin`, `ChannelPinnedMessage`, `RecipientAdd`, `Call`, …)
/// are system, the kind being the event; any other is `unsupportedEnumValue` at `type`. A reply
/// keeps the id of the message it answers. Attachments become image or file attachments by
/// their file name's extension (DCE gives no content type); stickers follow them, images by
/// their `sourceUrl` (a Lottie sticker, a JSON animation, is a file). A `Default` or `Reply`
/// without text is its first attachment or sticker — an image or file message, as the other
/// exports make an upload — the rest its attachments. A forward (DCE's `forwardedMessage`, its
/// own `content` empty) is the forwarded message's text and files, so the words a user passed
/// on are not lost. Discord's ids are global, so a message's key is its id (`discord:…`).
public struct DiscordDataset: Dataset {
  public init() {}

  public var name: String { "discord" }
  public var summary: String { "DiscordChatExporter JSON channel export → messages, by kind" }
  public var schema: Schema { Self.schema }

  /// Threads and forum posts: the conversation, its parent's conversation, its title. A table
  /// of Discord's own beside the shared message tables, so no other export's database changes.
  public static let threads = Table(
    "discord_threads", key: ["conversation_id"],
    columns: [
      .text("conversation_id", field: "channel.id"), .text("parent_id", field: "channel.categoryId", nullable: true),
      .text("title", field: "channel.name"),
    ],
    onConflict: .upsert)
  static let schema = Schema(MessageTables.schema.tables + [threads])

  static let export = "discord"
  static let textKinds: Set<String> = ["Default", "Reply"]
  /// DCE's placeholder for a thread's starter message before 2.48: its number, then its name.
  static let starterPlaceholders: Set<String> = ["21", "ThreadStarterMessage"]
  /// The warning that a thread's file repeated the message its thread was started from.
  public static let threadStarterRepeated: IssueCode = "threadStarterRepeated"
  static let systemKinds: Set<String> = [
    "RecipientAdd", "RecipientRemove", "Call", "ChannelNameChange", "ChannelIconChange", "ChannelPinnedMessage",
    "GuildMemberJoin", "ThreadCreated",
  ]

  static let idNotBlank = ValidationRule(
    "Discord message ids are not blank", message: "must not be blank", constraints: [.notBlank(at: "id")])
  static let authorIDNotBlank = ValidationRule(
    "Discord author ids are not blank", message: "must not be blank", constraints: [.notBlank(at: "author.id")])
  static let attachmentSize = ValidationRule(
    "Discord attachment sizes are not negative", code: .outOfRange, message: "must not be negative",
    constraints: [.atLeast(0, at: "attachments[].fileSizeBytes")])

  /// The map stage knows these message types (and skips the starter placeholders).
  public var recordConstraints: [FieldConstraint] {
    [.oneOf(Self.textKinds.sorted() + Self.systemKinds.sorted() + Self.starterPlaceholders.sorted(), at: "type")]
  }

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
    var attachments = message.attachments.map(Self.attachment) + (message.stickers ?? []).map(Self.sticker)
    // A forward's words and files are the forwarded message's: its text follows the message's
    // own (which Discord leaves empty), its files follow the message's.
    var text = message.content
    if let forwarded = message.forwardedMessage {
      text = [message.content, forwarded.content].filter { !$0.isEmpty }.joined(separator: "\n")
      attachments += forwarded.attachments.map(Self.attachment) + (forwarded.stickers ?? []).map(Self.sticker)
    }
    if Self.textKinds.contains(message.type) {
      if text.isEmpty, let first = attachments.first {
        attachments.removeFirst()
        switch first {
        case .image(let image): content = .image(image)
        case .file(let file): content = .file(file)
        }
      } else {
        content = .text(text)
      }
    } else if Self.systemKinds.contains(message.type) {
      content = .system(SystemContent(event: message.type, text: ChatExport.nonEmpty(text)))
    } else if Self.starterPlaceholders.contains(message.type) {
      throw MappingError.skipped("a thread's starter placeholder (DCE before 2.48); the message is its channel's")
    } else {
      throw ChatExport.unsupported(
        message.type, at: "type", known: (Self.textKinds.sorted() + Self.systemKinds.sorted()).joined(separator: ", "))
    }
    let conversation: Conversation
    if let parent = Self.parentOfStarter(message.id, fields: context.fields) {
      // The parent's name is not in this file (only its own, without its category): left as
      // the parent's own file gives it, so the load order changes nothing.
      conversation = Conversation(id: ChatExport.key(Self.export, parent))
      context.note(
        at: "id", code: Self.threadStarterRepeated,
        "the thread's file repeats the message the thread was started from; it is kept in the parent channel (channel.categoryId), where it was posted"
      )
    } else {
      let channel = Self.channel(fields: context.fields, path: context.inputPath)
      conversation = Conversation(id: ChatExport.key(Self.export, channel.id), name: channel.name)
    }
    return Message(
      id: ChatExport.key(Self.export, message.id),
      conversation: conversation,
      sender: ChatExport.sender(
        Self.export, message.author.id, name: ChatExport.nonEmpty(message.author.nickname) ?? message.author.name),
      sentAt: Timestamp(message.timestamp),
      // A pin's `reference` names the pinned message, which it does not reply to.
      replyTo: message.type == "Reply" ? message.reference?.messageId.map { ChatExport.key(Self.export, $0) } : nil,
      content: content,
      attachments: attachments)
  }

  /// The parent channel of a thread whose file this message starts: a thread's file
  /// (`channel.type` `GuildPublicThread`, `GuildPrivateThread`, `GuildNewsThread`) whose message
  /// has the thread's own id, with the parent's id in `channel.categoryId`.
  static func parentOfStarter(_ id: String, fields: [String: String]) -> String? {
    guard let type = fields["channel.type"], type.hasPrefix("Guild"), type.hasSuffix("Thread"),
      fields["channel.id"] == id, let parent = ChatExport.nonEmpty(fields["channel.categoryId"]),
      !parent.allSatisfy(\.isWhitespace), parent != id
    else { return nil }
    return parent
  }

  /// A sticker: an image at its `sourceUrl`, or, for a Lottie animation, a file named after it.
  static func sticker(_ sticker: Discord.StickerDTO) -> MessageAttachment {
    if sticker.format == "Lottie" {
      return .file(FileContent(name: sticker.name, url: sticker.sourceUrl, mimeType: "application/json"))
    }
    return .image(ImageContent(url: sticker.sourceUrl))
  }

  public func rows(for message: Message, into rows: inout RecordRows) {
    MessageTables.rows(for: message, into: &rows)
  }

  /// A thread's file (`channel.type` `Guild…Thread`) ends with its conversation, named, and its
  /// `discord_threads` row: its parent and its title.
  public func rowsAfterRecords(context: inout MappingContext, into rows: inout RecordRows) {
    guard let type = context.text(of: "channel.type"), type.hasPrefix("Guild"), type.hasSuffix("Thread"),
      let id = ChatExport.nonEmpty(context.text(of: "channel.id")), !id.allSatisfy(\.isWhitespace),
      let title = ChatExport.nonEmpty(context.text(of: "channel.name"))
    else { return }
    let channel = Self.channel(fields: context.fields, path: context.inputPath)
    let key = ChatExport.key(Self.export, id)
    MessageTables.rows(for: Conversation(id: key, name: channel.name), into: &rows)
    let parent = ChatExport.nonEmpty(context.text(of: "channel.categoryId")).map { ChatExport.key(Self.export, $0) }
    rows.add(Self.threads, key, parent, title)
  }

  static func attachment(_ attachment: Discord.AttachmentDTO) -> MessageAttachment {
    if ChatExport.isImage(fileName: attachment.fileName) {
      return .image(ImageContent(url: attachment.url, caption: nil))
    }
    return .file(FileContent(name: attachment.fileName, url: attachment.url, sizeBytes: attachment.fileSizeBytes))
  }

  /// The channel a DCE file holds: its own `channel` object's id, named like DCE's default file
  /// name from the `guild` and `channel` objects' names; else `channel(fromPath:)`.
  public static func channel(fields: [String: String], path: String) -> (id: String, name: String?) {
    guard let id = fields["channel.id"], !id.allSatisfy(\.isWhitespace) else { return channel(fromPath: path) }
    guard let channelName = ChatExport.nonEmpty(fields["channel.name"]) else { return (id, nil) }
    let parts = [fields["guild.name"], fields["channel.category"], channelName].compactMap { ChatExport.nonEmpty($0) }
    return (id, parts.joined(separator: " - "))
  }

  /// The channel a DCE file holds, from its name: `Test Server - Text - general [100].json` is
  /// channel `100`, named `Test Server - Text - general`, and so are its parts
  /// (`… [100] [part 2].json`) and date-ranged exports (`… [100] (after 2024-01-01).json`); a
  /// name without a bracketed id at its end is a channel of its own, keyed by the stem without
  /// its part (`zulip_dce_general_100`), name unknown.
  public static func channel(fromPath path: String) -> (id: String, name: String?) {
    let stem = withoutDateRange(withoutPart(Substring(ChatExport.fileStem(path))))
    guard stem.hasSuffix("]"), let open = stem.lastIndex(of: "[") else { return (String(stem), nil) }
    let id = stem[stem.index(after: open)..<stem.index(before: stem.endIndex)]
    guard !id.isEmpty, id.allSatisfy(\.isASCII), id.allSatisfy(\.isNumber) else { return (String(stem), nil) }
    let name = stem[..<open].trimmingCharacters(in: .whitespaces)
    return (String(id), name.isEmpty ? nil : name)
  }

  /// `… [part 2]` → `…` (`MessageExporter.GetPartitionFilePath`: the first part has no suffix).
  static func withoutPart(_ stem: Substring) -> Substring {
    guard stem.hasSuffix("]"), let open = stem.lastIndex(of: "["), open > stem.startIndex,
      stem[stem.index(before: open)] == " "
    else { return stem }
    let inside = stem[stem.index(after: open)..<stem.index(before: stem.endIndex)]
    guard inside.hasPrefix("part "), let number = Int(inside.dropFirst(5)), number > 0 else { return stem }
    return stem[..<stem.index(before: open)]
  }

  /// `… (after 2024-01-01)`, `… (before …)`, `… (2024-01-01 to 2024-02-01)` → `…`.
  static func withoutDateRange(_ stem: Substring) -> Substring {
    guard stem.hasSuffix(")"), let open = stem.lastIndex(of: "("), open > stem.startIndex,
      stem[stem.index(before: open)] == " "
    else { return stem }
    let inside = stem[stem.index(after: open)..<stem.index(before: stem.endIndex)]
    let words = inside.split(separator: " ", omittingEmptySubsequences: false)
    let isDate = { (word: Substring) in
      word.utf8.count == 10
        && word.enumerated().allSatisfy { index, character in
          index == 4 || index == 7 ? character == "-" : character.isASCII && character.isNumber
        }
    }
    let isRange =
      (words.count == 2 && (words[0] == "after" || words[0] == "before") && isDate(words[1]))
      || (words.count == 3 && isDate(words[0]) && words[1] == "to" && isDate(words[2]))
    return isRange ? stem[..<stem.index(before: open)] : stem
  }
}
