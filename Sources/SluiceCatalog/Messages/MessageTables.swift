@_spi(Internals) import SluiceCore

/// The tables every chat dataset writes — Sluice's own `messages` format and each real export
/// alike — so a database holds one shape of messages whatever they were imported from.
///
/// - `conversations(conversation_id PK, name NULL)` and `senders(sender_id PK, name NULL)`:
///   shared by their messages (upsert). A message whose export does not name its conversation
///   or sender creates the row with a NULL name and never clears a name another record gave.
/// - `messages(message_id PK, conversation_id → conversations, sender_id → senders NULL,
///   kind_id → message_kinds, sent_at, reply_to NULL)`: the columns every kind has.
/// - One extension table per kind, keyed by the message's key alone and replaced with it:
///   `text_messages(text)`, `image_messages(url, caption, width, height)`,
///   `file_messages(name, url, mime_type, size_bytes)`, `system_messages(event, text)`.
///   Every message has exactly one row in its kind's table; a re-imported message that changed
///   kind loses its old kind's row.
/// - `message_attachments(message_id, position, kind_id, …)`: images, files and links attached
///   to a message, in order from 0, replaced with it. A link (kind `link`) has its `url` and,
///   when the export shows one, its `caption`.
/// - `message_kinds`: owned by `MessageKind`, a `LookupEnum`.
///
/// A dataset lists `MessageTables.schema` as its schema and calls `rows(for:into:)` from its
/// own `rows(for:into:)`. The columns' `field`s — the paths of load-stage issues — are those of
/// Sluice's own message format; another export's validation should catch bad values first,
/// with its own paths.
public enum MessageTables {
  public static let conversations = Table(
    "conversations", key: ["conversation_id"],
    columns: [
      .text("conversation_id", field: "conversationId"), .text("name", field: "conversationName", nullable: true),
    ],
    onConflict: .upsert)
  public static let senders = Table(
    "senders", key: ["sender_id"],
    columns: [.text("sender_id", field: "sender"), .text("name", field: "senderName", nullable: true)],
    onConflict: .upsert)
  public static let messages = Table(
    "messages", key: ["message_id"],
    columns: [
      .text("message_id", field: "id"),
      .reference("conversation_id", to: conversations, field: "conversationId"),
      .reference("sender_id", to: senders, field: "sender", nullable: true),
      .lookup("kind_id", MessageKind.self, field: "type"),
      .timestamp("sent_at", field: "sentAt"),
      .text("reply_to", field: "replyTo", nullable: true),
    ],
    indexes: [Index("messages_by_conversation", on: ["conversation_id", "sent_at"], deferrable: true)])
  public static let textMessages = Table("text_messages", extending: messages, columns: [.text("text")])
  public static let imageMessages = Table(
    "image_messages", extending: messages,
    columns: [
      .text("url"), .text("caption", nullable: true),
      .integer("width", nullable: true, checks: [.atLeast(1)]),
      .integer("height", nullable: true, checks: [.atLeast(1)]),
    ])
  public static let fileMessages = Table(
    "file_messages", extending: messages,
    columns: [
      .text("name"), .text("url", nullable: true), .text("mime_type", field: "mimeType", nullable: true),
      .integer("size_bytes", field: "sizeBytes", nullable: true, checks: [.atLeast(0)]),
    ])
  public static let systemMessages = Table(
    "system_messages", extending: messages, columns: [.text("event"), .text("text", nullable: true)])
  /// Attachments, numbered from 0 in the order the message lists those it keeps.
  public static let attachments = Table(
    "message_attachments", childOf: messages, position: "position", field: "attachments",
    columns: [
      .lookup("kind_id", MessageKind.self, field: "type"),
      .text("url", nullable: true), .text("name", nullable: true), .text("caption", nullable: true),
      .text("mime_type", field: "mimeType", nullable: true),
      .integer("size_bytes", field: "sizeBytes", nullable: true, checks: [.atLeast(0)]),
      .integer("width", nullable: true, checks: [.atLeast(1)]),
      .integer("height", nullable: true, checks: [.atLeast(1)]),
    ])

  /// Every table, parents and referenced tables first; `message_kinds` comes with `kind_id`.
  public static let schema = Schema([
    conversations, senders, messages, textMessages, imageMessages, fileMessages, systemMessages, attachments,
  ])

  /// The table holding the fields of messages of `kind`; nil for `link`, an attachment's kind
  /// only.
  public static func table(for kind: MessageKind) -> Table? {
    switch kind {
    case .text: return textMessages
    case .image: return imageMessages
    case .file: return fileMessages
    case .system: return systemMessages
    case .link: return nil
    }
  }

  /// Turns a message into its rows: its conversation and sender (merged: a name the message
  /// does not know is left as it is), the message, its kind's row and its attachments, links
  /// last. Without `mergingConversation` the conversation must exist already — listed by the
  /// export, earlier in the run or in the database — or the message is an `orphanReference`.
  public static func rows(for message: Message, mergingConversation: Bool = true, into rows: inout RecordRows) {
    if mergingConversation {
      rows.merge(conversations, message.conversation.id, patch(message.conversation.name))
    }
    if let sender = message.sender {
      rows.merge(senders, sender.id, patch(sender.name))
    }
    rows.add(
      messages, message.id, message.conversation.id, message.sender?.id, message.kind, message.sentAt, message.replyTo)
    switch message.content {
    case .text(let text):
      rows.add(textMessages, text)
    case .image(let image):
      rows.add(imageMessages, image.url, image.caption, image.width, image.height)
    case .file(let file):
      rows.add(fileMessages, file.name, file.url, file.mimeType, file.sizeBytes)
    case .system(let system):
      rows.add(systemMessages, system.event, system.text)
    }
    for attachment in message.attachments {
      switch attachment {
      case .image(let image):
        rows.add(
          attachments, MessageKind.image, image.url, String?.none, image.caption, String?.none, Int64?.none,
          image.width,
          image.height)
      case .file(let file):
        rows.add(
          attachments, MessageKind.file, file.url, file.name, String?.none, file.mimeType, file.sizeBytes, Int?.none,
          Int?.none)
      }
    }
    for link in message.links {
      rows.add(
        attachments, MessageKind.link, link.url, String?.none, link.caption, String?.none, Int64?.none, Int?.none,
        Int?.none)
    }
  }

  /// A conversation's row alone, merged as a message's is: for what an export says of the
  /// conversation apart from its messages (a Messenger `title`, after them).
  public static func rows(for conversation: Conversation, into rows: inout RecordRows) {
    rows.merge(conversations, conversation.id, patch(conversation.name))
  }

  /// A name the record gives is set; one it does not know leaves the stored one.
  private static func patch(_ name: String?) -> Patch<String> {
    name.map(Patch.set) ?? .unchanged
  }
}
