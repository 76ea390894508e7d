// A Facebook Messenger or Instagram conversation as Meta's "Download your information" writes it
// (JSON): `{participants, messages, title, is_still_participant, thread_path, …}`, newest message
// first. A message has `sender_name` and `timestamp_ms`, and its content: `content` (text),
// `photos`, `videos`, `share` (a link), … — whichever it has; the others are absent. Older
// Messenger exports give each message a `type` (`Generic`, `Share`, `Call`, …); Instagram's and
// the newest Messenger's give none. The export's text is mojibake: every non-ASCII character is
// written as its UTF-8 bytes, each escaped as a Latin-1 character (`"Ã©"`, i.e. `\u00c3\u00a9`,
// for `é`); the mapper repairs it (`MessengerDataset.repaired(_:)`).

/// Facebook Messenger's JSON wire format.
public enum Messenger {}

extension Messenger {
  /// An element of `messages`.
  public struct MessageDTO: Decodable, Sendable {
    public let senderName: String
    /// Epoch milliseconds.
    public let timestampMs: Int64
    public let content: String?
    public let photos: [PhotoDTO]?
    public let videos: [MediaDTO]?
    public let files: [MediaDTO]?
    public let audioFiles: [MediaDTO]?
    public let gifs: [MediaDTO]?
    public let sticker: MediaDTO?
    public let type: String?
    /// True on a message its sender unsent: it has no `content` then.
    public let isUnsent: Bool?
    /// A shared link (a post, a reel, a web page), or a live location's text.
    public let share: ShareDTO?
    /// Seconds, on a call; the one sign of a call where messages have no `type`.
    public let callDuration: Int64?
    public let reactions, isGeoblockedForViewer, isTakenDown, ip, missed: Unmapped?
    public let isUnsentImageByMessengerKidParent, bumpedMessageMetadata: Unmapped?
    /// Who joined or left, on `Subscribe` and `Unsubscribe` messages.
    public let users: Unmapped?

    enum CodingKeys: String, CodingKey {
      case senderName = "sender_name"
      case timestampMs = "timestamp_ms"
      case content, photos, videos, files
      case audioFiles = "audio_files"
      case gifs, sticker, type
      case isUnsent = "is_unsent"
      case reactions, share
      case isGeoblockedForViewer = "is_geoblocked_for_viewer"
      case isTakenDown = "is_taken_down"
      case ip
      case callDuration = "call_duration"
      case missed, users
      case isUnsentImageByMessengerKidParent = "is_unsent_image_by_messenger_kid_parent"
      case bumpedMessageMetadata = "bumped_message_metadata"
    }
  }

  /// A message's `share`: a link with the text Meta shows for it, or (a live location) only
  /// that text.
  public struct ShareDTO: Decodable, Sendable {
    public let link: String?
    public let shareText: String?
    public let originalContentOwner, profileShareUsername, profileShareName: Unmapped?

    enum CodingKeys: String, CodingKey {
      case link
      case shareText = "share_text"
      case originalContentOwner = "original_content_owner"
      case profileShareUsername = "profile_share_username"
      case profileShareName = "profile_share_name"
    }
  }

  /// A photo of a message: where the export put the file.
  public struct PhotoDTO: Decodable, Sendable {
    public let uri: String
    public let creationTimestamp: Int64?

    enum CodingKeys: String, CodingKey {
      case uri
      case creationTimestamp = "creation_timestamp"
    }
  }

  /// A video, an audio file, a file, a GIF or a sticker of a message.
  public struct MediaDTO: Decodable, Sendable {
    public let uri: String
    public let creationTimestamp: Int64?
    public let thumbnail: Unmapped?

    enum CodingKeys: String, CodingKey {
      case uri
      case creationTimestamp = "creation_timestamp"
      case thumbnail
    }
  }
}
