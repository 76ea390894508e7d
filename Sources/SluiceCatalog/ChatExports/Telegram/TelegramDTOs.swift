// Telegram Desktop's "Export chat history → JSON" (`result.json`): one chat
// `{name, type, id, messages: […]}`, or a whole account `{…, chats: {list: [chat, …]}}`.
//
// What varies between exports, and how the DTO holds it:
// - `text` is a string, or an array mixing strings and entity objects `{type, text}`
//   (`TextDTO`);
// - `date_unixtime` is a number in a string (`FlexibleInteger`); older exports have only `date`,
//   local time without a zone;
// - `from_id` is `"user123…"` or, in older exports, a bare number (`IdentifierText`);
// - minimal exports (chat-miner's) have no `id`, `date`, `from_id` or `text_entities`;
// - a poll is a `message` with a `poll` object and an empty `text` (`PollDTO`); its question
//   and answers are texts like `text` (a string, or parts);
// - `from` is `null` for a deleted account, which keeps its `from_id`;
// - a shared contact is a `message` with `contact_information` (and often `contact_vcard`) and
//   an empty `text`; a shared location one with `location_information` (`ContactDTO`,
//   `LocationDTO`); a call is a `service` message `phone_call` with `discard_reason`;
// - a to-do list (layer 205, 2025) is a `message` with `todo_list` `{title, others_can_append,
//   others_can_complete, answers: [{text, id}]}` and an empty `text` (`TodoListDTO`); tasks added
//   later are a `service` message `todo_append_tasks` with `items: [{text, id}]`, ticks one
//   `todo_completions` with `completed` and `incompleted` (task ids);
// - a reply to another chat's message (a channel post, from its discussion group) names that
//   chat in `reply_to_peer_id` (`"channel9876543210"`);
// - a star gift is a `service` message `send_star_gift` whose words are `gift_text`, a text;
// - media the export left out is a sentence in place of the path (`Telegram.placeholders`).

/// Telegram Desktop's JSON wire format.
public enum Telegram {}

extension Telegram {
  /// An element of a chat's `messages`.
  public struct MessageDTO: Decodable, Sendable {
    public let id: Int64?
    /// `message` or `service`.
    public let type: String
    public let date: String?
    public let dateUnixtime: FlexibleInteger?
    public let from: String?
    public let fromID: IdentifierText?
    /// A service message's doer and what it did (`actor`, `action`: `"join_group_by_link"`, …).
    public let actor: String?
    public let actorID: IdentifierText?
    public let action: String?
    public let text: TextDTO
    public let photo: String?
    public let file: String?
    public let fileName: String?
    public let mediaType: String?
    public let mimeType: String?
    public let replyToMessageID: Int64?
    /// The chat of the message replied to, when it is another chat's (a reply to a channel's
    /// post from its discussion group): `"channel9876543210"`, `"chat…"` or `"user…"`.
    public let replyToPeerID: String?
    /// A photo's size in pixels.
    public let width: Int?
    public let height: Int?
    public let fileSize: Int64?
    /// A poll: its question and answers (the message's own `text` is empty).
    public let poll: PollDTO?
    /// A shared contact (the message's own `text` is empty).
    public let contactInformation: ContactDTO?
    /// A shared location, live for `live_location_period_seconds` (the message's `text` is empty).
    public let locationInformation: LocationDTO?
    /// A to-do list: its title and tasks (the message's own `text` is empty).
    public let todoList: TodoListDTO?
    /// The tasks a `todo_append_tasks` service message added.
    public let items: [TodoListDTO.TaskDTO]?
    /// The words sent with a star gift (a `send_star_gift` service message), a text.
    public let giftText: TextDTO?
    public let contactVcard, liveLocationPeriodSeconds, discardReason: Unmapped?
    public let textEntities, edited, editedUnixtime, forwardedFrom, viaBot, photoFileSize: Unmapped?
    public let thumbnail, durationSeconds, stickerEmoji, reactions, members, title, inlineBotButtons, inviter: Unmapped?
    public let messageID: Unmapped?
    public let performer, selfDestructPeriodSeconds, forwardedFromID, completed, incompleted: Unmapped?
    public let priceStars, isBroadcastMessagesAllowed: Unmapped?
    /// A channel post's `author` (its signature), a `saved_from`, a TTL's `period`, a boost's
    /// `boosts`, a file's `thumbnail_file_size`: written by newer exports, not read.
    public let author, savedFrom, period, boosts, thumbnailFileSize: Unmapped?

    enum CodingKeys: String, CodingKey {
      case id, type, date
      case dateUnixtime = "date_unixtime"
      case from
      case fromID = "from_id"
      case actor
      case actorID = "actor_id"
      case action, text, photo, file
      case fileName = "file_name"
      case mediaType = "media_type"
      case mimeType = "mime_type"
      case replyToMessageID = "reply_to_message_id"
      case replyToPeerID = "reply_to_peer_id"
      case textEntities = "text_entities"
      case edited
      case editedUnixtime = "edited_unixtime"
      case forwardedFrom = "forwarded_from"
      case viaBot = "via_bot"
      case width, height
      case photoFileSize = "photo_file_size"
      case fileSize = "file_size"
      case thumbnail
      case durationSeconds = "duration_seconds"
      case stickerEmoji = "sticker_emoji"
      case reactions, members, title
      case inlineBotButtons = "inline_bot_buttons"
      case inviter
      case messageID = "message_id"
      case poll
      case contactInformation = "contact_information"
      case contactVcard = "contact_vcard"
      case locationInformation = "location_information"
      case liveLocationPeriodSeconds = "live_location_period_seconds"
      case discardReason = "discard_reason"
      case todoList = "todo_list"
      case items, performer
      case giftText = "gift_text"
      case selfDestructPeriodSeconds = "self_destruct_period_seconds"
      case forwardedFromID = "forwarded_from_id"
      case completed, incompleted
      case priceStars = "price_stars"
      case author
      case savedFrom = "saved_from"
      case period, boosts
      case thumbnailFileSize = "thumbnail_file_size"
      case isBroadcastMessagesAllowed = "is_broadcast_messages_allowed"
    }
  }

  /// A message's `contact_information`: `{first_name, last_name, phone_number}`, any of them
  /// possibly empty.
  public struct ContactDTO: Decodable, Sendable {
    public let firstName, lastName, phoneNumber: String?

    enum CodingKeys: String, CodingKey {
      case firstName = "first_name"
      case lastName = "last_name"
      case phoneNumber = "phone_number"
    }

    /// The contact as a reader sees it: the name, then the phone number, each line only when
    /// it is not empty.
    public var plainText: String {
      let name = [firstName, lastName].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
      return [name, phoneNumber ?? ""].filter { !$0.isEmpty }.joined(separator: "\n")
    }
  }

  /// A message's `location_information`: `{latitude, longitude}` in degrees.
  public struct LocationDTO: Decodable, Sendable {
    public let latitude, longitude: Double

    /// The place as a geo URI (RFC 5870): `geo:41.311194,69.279725`.
    public var plainText: String { "geo:\(latitude),\(longitude)" }
  }

  /// A message's `todo_list`, as Telegram Desktop writes it since layer 205 (`export_output_json.cpp`):
  /// `{title, others_can_append, others_can_complete, answers: [{text, id}]}` — the tasks are
  /// under `answers`, as a poll's are; titles and tasks are texts (a string, or parts).
  public struct TodoListDTO: Decodable, Sendable {
    public let title: TextDTO
    public let answers: [TaskDTO]?
    public let othersCanAppend, othersCanComplete: Unmapped?

    enum CodingKeys: String, CodingKey {
      case title, answers
      case othersCanAppend = "others_can_append"
      case othersCanComplete = "others_can_complete"
    }

    /// A task of a to-do list, numbered by `id` within it.
    public struct TaskDTO: Decodable, Sendable {
      public let text: TextDTO
      public let id: Unmapped?
    }

    /// The list as a reader sees it: the title, then each task, one per line.
    public var plainText: String {
      ([title.plainText] + (answers ?? []).map(\.text.plainText)).joined(separator: "\n")
    }
  }

  /// A message's `poll`: `{question, closed, total_voters, answers: [{text, voters, chosen}]}`;
  /// the counts are the exporting account's view when it exported. The question and the
  /// answers are texts (a string, or parts): Telegram Desktop writes them with `SerializeText`
  /// since polls took formatted text (TextWithEntities, 2024), and as plain strings before.
  public struct PollDTO: Decodable, Sendable {
    public let question: TextDTO
    public let answers: [AnswerDTO]?
    public let closed, totalVoters: Unmapped?

    enum CodingKeys: String, CodingKey {
      case question, answers, closed
      case totalVoters = "total_voters"
    }

    /// An answer of a poll, with how many voted for it and whether the exporting account did.
    public struct AnswerDTO: Decodable, Sendable {
      public let text: TextDTO
      public let voters, chosen: Unmapped?
    }

    /// The poll as a reader sees it: the question, then each answer, one per line.
    public var plainText: String {
      ([question.plainText] + (answers ?? []).map(\.text.plainText)).joined(separator: "\n")
    }
  }

  /// A message's `text`: a plain string, or parts — strings and entity objects
  /// (`{"type": "bold", "text": "…"}`) — whose texts, joined, are the message's text.
  public struct TextDTO: Decodable, Sendable {
    public let parts: [Part]

    public enum Part: Decodable, Sendable {
      case plain(String)
      case entity(EntityDTO)

      public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
          self = .plain(try container.decode(String.self))
        } catch DecodingError.typeMismatch {
          self = .entity(try container.decode(EntityDTO.self))
        }
      }

      public var text: String {
        switch self {
        case .plain(let text): text
        case .entity(let entity): entity.text
        }
      }
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      do {
        parts = [.plain(try container.decode(String.self))]
      } catch DecodingError.typeMismatch {
        parts = try container.decode([Part].self)
      }
    }

    /// The text as a reader sees it: the parts' texts, in order.
    public var plainText: String { parts.map(\.text).joined() }
  }

  /// A formatted piece of a message's text: `bold`, `link`, `email`, `mention`, ….
  public struct EntityDTO: Decodable, Sendable {
    public let type: String
    public let text: String
    public let href, userID, language, documentID, collapsed: Unmapped?

    enum CodingKeys: String, CodingKey {
      case type, text, href
      case userID = "user_id"
      case language
      case documentID = "document_id"
      case collapsed
    }
  }
}
