@_spi(Internals) import SluiceCore

/// A chat message in the domain, whichever export it came from (Sluice's own message format,
/// Slack, Discord, Mattermost, Messenger and Telegram are different DTOs mapped to this one
/// type). `MessageTables.rows(for:into:)` writes it.
///
/// **Keys.** `id` is the message's key in `messages.message_id` and must be unique across every
/// conversation of a database. An export whose ids are only unique within a conversation (most
/// are: a Slack `ts`, a Telegram message number) builds it with `Message.scopedID(_:in:)`, which
/// gives `<conversation>/<id>`; an export whose ids are global (Discord snowflakes) may use them
/// as they are. `replyTo` follows the same rule, so `reply_to` joins `message_id`.
public struct Message: Sendable, Hashable {
  /// The key of the message, unique across conversations (see above).
  public var id: String
  public var conversation: Conversation
  /// Who sent it; nil for a message nobody sent (most system messages).
  public var sender: Sender?
  public var sentAt: Timestamp
  /// The key of the message this one replies to, built like `id`. It need not be in the same
  /// import (a reply to an older message), so it is not a foreign key.
  public var replyTo: String?
  /// What the message is — its kind and that kind's fields.
  public var content: MessageContent
  /// Images and files attached to the message, in order.
  public var attachments: [MessageAttachment]
  /// Links the message shares (a post, a reel, a web page), in order: attachments of kind
  /// `link`, after its images and files.
  public var links: [LinkContent]

  public init(
    id: String, conversation: Conversation, sender: Sender?, sentAt: Timestamp, replyTo: String? = nil,
    content: MessageContent, attachments: [MessageAttachment] = [], links: [LinkContent] = []
  ) {
    self.id = id
    self.conversation = conversation
    self.sender = sender
    self.sentAt = sentAt
    self.replyTo = replyTo
    self.content = content
    self.attachments = attachments
    self.links = links
  }

  public var kind: MessageKind { content.kind }

  /// The key of message `id` of `conversation`, for exports whose ids are unique only within a
  /// conversation: `<conversation>/<id>` (`general/1458980525.000012`). A `%` or `/` in the
  /// conversation is escaped (`%25`, `%2F`), so the first `/` always ends the conversation and
  /// no two (conversation, id) pairs share a key.
  public static func scopedID(_ id: String, in conversation: String) -> String {
    guard conversation.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "%") }) else {
      return conversation + "/" + id
    }
    var escaped = ""
    escaped.reserveCapacity(conversation.utf8.count + 8)
    for character in conversation.unicodeScalars {
      switch character {
      case "%": escaped += "%25"
      case "/": escaped += "%2F"
      default: escaped.unicodeScalars.append(character)
      }
    }
    return escaped + "/" + id
  }
}

/// A conversation — a channel, a group, a direct chat — shared by its messages.
public struct Conversation: Sendable, Hashable {
  /// Unique among the conversations of a database.
  public var id: String
  /// Nil when the record does not say: the name another record (or the export's channel list)
  /// gave is kept, never cleared.
  public var name: String?

  public init(id: String, name: String? = nil) {
    self.id = id
    self.name = name
  }
}

/// Who sent a message, shared by their messages.
public struct Sender: Sendable, Hashable {
  /// Unique among the senders of a database.
  public var id: String
  /// Nil when the record does not say: the name another record (or the export's user list)
  /// gave is kept, never cleared.
  public var name: String?

  public init(id: String, name: String? = nil) {
    self.id = id
    self.name = name
  }
}

/// A message's kind with that kind's fields: one case per `MessageKind`.
public enum MessageContent: Sendable, Hashable {
  /// Plain text.
  case text(String)
  case image(ImageContent)
  case file(FileContent)
  /// An event the service recorded: someone joined, a message was pinned, a call started.
  case system(SystemContent)

  public var kind: MessageKind {
    switch self {
    case .text: return .text
    case .image: return .image
    case .file: return .file
    case .system: return .system
    }
  }
}

/// An image: a message of kind image, or an attachment.
public struct ImageContent: Sendable, Hashable {
  /// Where the image is: a URL, or a path inside the export.
  public var url: String
  public var caption: String?
  /// In pixels, when the export says; at least 1.
  public var width: Int?
  public var height: Int?

  public init(url: String, caption: String? = nil, width: Int? = nil, height: Int? = nil) {
    self.url = url
    self.caption = caption
    self.width = width
    self.height = height
  }
}

/// A file: a message of kind file, or an attachment.
public struct FileContent: Sendable, Hashable {
  public var name: String
  /// Where the file is, when the export includes or links it.
  public var url: String?
  public var mimeType: String?
  /// At least 0.
  public var sizeBytes: Int64?

  public init(name: String, url: String? = nil, mimeType: String? = nil, sizeBytes: Int64? = nil) {
    self.name = name
    self.url = url
    self.mimeType = mimeType
    self.sizeBytes = sizeBytes
  }
}

/// What a system message records.
public struct SystemContent: Sendable, Hashable {
  /// The event, as the export names it (`join`, `pin`, `channel_join`, `GuildMemberJoin`).
  public var event: String
  /// The text the service shows for it, when the export has one.
  public var text: String?

  public init(event: String, text: String? = nil) {
    self.event = event
    self.text = text
  }
}

/// A link a message shares: a post, a reel, a web page. An attachment of kind `link`, never a
/// message of its own.
public struct LinkContent: Sendable, Hashable {
  public var url: String
  /// The text the service shows with the link (a preview's title), when the export has one.
  public var caption: String?

  public init(url: String, caption: String? = nil) {
    self.url = url
    self.caption = caption
  }
}

/// An image or file attached to a message. Only these two kinds (and links, `Message.links`)
/// can be attachments.
public enum MessageAttachment: Sendable, Hashable {
  case image(ImageContent)
  case file(FileContent)

  public var kind: MessageKind {
    switch self {
    case .image: return .image
    case .file: return .file
    }
  }
}
