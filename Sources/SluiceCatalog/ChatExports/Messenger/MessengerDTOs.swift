// A Facebook Messenger conversation as "Download your information" writes it (JSON):
// `{participants, messages, title, is_still_participant, thread_path, …}`, newest message first.
// A message has `sender_name` and `timestamp_ms`, and its content: `content` (text) or `photos`
// — whichever it has; the other key is absent. The export's text is mojibake: every non-ASCII
// character is written as its UTF-8 bytes, each escaped as a Latin-1 character (`"Ã©"`, i.e.
// `\u00c3\u00a9`, for `é`); the mapper repairs it (`MessengerDataset.repaired(_:)`).

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
    public let isUnsent, reactions, share, isGeoblockedForViewer, isTakenDown, ip, callDuration, missed: Unmapped?
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
