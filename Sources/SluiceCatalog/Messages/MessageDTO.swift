import Foundation

/// A message in Sluice's own format, as the wire carries it (seed 002, section 5): the fields
/// every kind has, then `type`, which selects the fields that follow.
///
/// ```json
/// {"id": "42", "conversationId": "general", "type": "image", "sender": "u1", "sentAt": "2024-05-01T09:30:00Z",
///  "url": "photos/42.jpg", "width": 640, "height": 480,
///  "attachments": [{"type": "file", "name": "notes.pdf", "sizeBytes": 1234}]}
/// ```
///
/// The kind's fields are decoded by the kind's own DTO from the same record, so a missing or
/// wrongly typed field fails the decode at its path (`url`, `attachments[0].name`). A `type`
/// this version does not know decodes as `.unknown` with its name and no fields, and the map
/// stage rejects it as `unsupportedEnumValue` — where the policy decides and
/// the drift summary counts it by name — never as a normal kind.
public struct MessageDTO: Decodable, Sendable {
  /// Unique within the conversation (the message's key is `<conversationId>/<id>`).
  public let id: String
  public let conversationId: String
  public let conversationName: String?
  public let type: String
  /// The sender's id; absent or null for a message nobody sent.
  public let sender: String?
  public let senderName: String?
  public let sentAt: Date
  /// The id of the message replied to, in the same conversation.
  public let replyTo: String?
  public let content: MessageContentDTO
  public let attachments: [AttachmentDTO]?

  enum CodingKeys: String, CodingKey {
    case id, conversationId, conversationName, type, sender, senderName, sentAt, replyTo, attachments
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(String.self, forKey: .id)
    conversationId = try container.decode(String.self, forKey: .conversationId)
    conversationName = try container.decodeIfPresent(String.self, forKey: .conversationName)
    type = try container.decode(String.self, forKey: .type)
    sender = try container.decodeIfPresent(String.self, forKey: .sender)
    senderName = try container.decodeIfPresent(String.self, forKey: .senderName)
    sentAt = try container.decode(Date.self, forKey: .sentAt)
    replyTo = try container.decodeIfPresent(String.self, forKey: .replyTo)
    content = try MessageContentDTO(type: type, from: decoder)
    attachments = try container.decodeIfPresent([AttachmentDTO].self, forKey: .attachments)
  }
}

/// The fields of a message's kind, chosen by its `type`.
public enum MessageContentDTO: Sendable {
  case text(TextMessageDTO)
  case image(ImageDTO)
  case file(FileDTO)
  case system(SystemMessageDTO)
  /// A `type` this version does not know, by name.
  case unknown(String)

  init(type: String, from decoder: any Decoder) throws {
    switch type {
    case "text": self = .text(try TextMessageDTO(from: decoder))
    case "image": self = .image(try ImageDTO(from: decoder))
    case "file": self = .file(try FileDTO(from: decoder))
    case "system": self = .system(try SystemMessageDTO(from: decoder))
    default: self = .unknown(type)
    }
  }
}

public struct TextMessageDTO: Decodable, Sendable {
  public let text: String
}

/// An image: the fields of a message of type `image`, or an attachment of type `image`.
public struct ImageDTO: Decodable, Sendable {
  public let url: String
  public let caption: String?
  public let width: Int?
  public let height: Int?
}

/// A file: the fields of a message of type `file`, or an attachment of type `file`.
public struct FileDTO: Decodable, Sendable {
  public let name: String
  public let url: String?
  public let mimeType: String?
  public let sizeBytes: Int64?
}

public struct SystemMessageDTO: Decodable, Sendable {
  /// What happened (`join`, `pin`, `rename`).
  public let event: String
  public let text: String?
}

/// An element of a message's `attachments`, chosen by its own `type`. A type this version does
/// not know decodes as `.unknown`; the map stage rejects the record at its path, or, with the
/// policy's `lenientArrays`, drops the element and reports it.
public enum AttachmentDTO: Decodable, Sendable {
  case image(ImageDTO)
  case file(FileDTO)
  case unknown(String)

  enum CodingKeys: String, CodingKey { case type }

  public init(from decoder: any Decoder) throws {
    let type = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .type)
    switch type {
    case "image": self = .image(try ImageDTO(from: decoder))
    case "file": self = .file(try FileDTO(from: decoder))
    default: self = .unknown(type)
    }
  }
}
