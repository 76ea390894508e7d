import Foundation

// A channel exported by DiscordChatExporter as JSON: `{guild, channel, dateRange, messages,
// messageCount}`, the records at `messages`. Every key of DCE's message object is declared; the
// ones the import does not map are `Unmapped`. Only a `Reply` has a `reference`.

/// DiscordChatExporter's JSON wire format.
public enum Discord {}

extension Discord {
  /// An element of `messages`.
  public struct MessageDTO: Decodable, Sendable {
    public let id: String
    /// DCE's message kind: `Default`, `Reply`, `GuildMemberJoin`, `ChannelPinnedMessage`, ….
    public let type: String
    public let timestamp: Date
    public let content: String
    public let author: AuthorDTO
    public let reference: ReferenceDTO?
    public let attachments: [AttachmentDTO]
    /// Stickers sent with (or as) the message; absent from exports older than DCE's stickers.
    public let stickers: [StickerDTO]?
    /// The message a forward carries (DCE since February 2026, `reference.type` `Forward`): the
    /// forward's own `content` is empty, the words and files are here.
    public let forwardedMessage: ForwardedMessageDTO?
    public let timestampEdited, callEndedTimestamp, isPinned, embeds, reactions, mentions: Unmapped?
    public let interaction, inlineEmojis: Unmapped?
  }

  /// A forwarded message's snapshot as `JsonMessageWriter` writes it: `{timestamp,
  /// timestampEdited, content, attachments, embeds, stickers}` — no author, no id of its own.
  public struct ForwardedMessageDTO: Decodable, Sendable {
    public let content: String
    public let attachments: [AttachmentDTO]
    public let stickers: [StickerDTO]?
    public let timestamp, timestampEdited, embeds: Unmapped?
  }

  public struct AuthorDTO: Decodable, Sendable {
    public let id: String
    public let name: String
    public let nickname: String?
    public let isBot: Bool
    public let discriminator, color, roles, avatarUrl: Unmapped?
  }

  /// What a `Reply` answers (or a pin pins). Newer DCE versions add the reference's own `type`
  /// (`Default`, `Forward`).
  public struct ReferenceDTO: Decodable, Sendable {
    public let messageId: String?
    public let channelId: String?
    public let guildId: String?
    public let type: Unmapped?
  }

  /// A sticker as `JsonMessageWriter.WriteStickerAsync` writes it: `{id, name, format,
  /// sourceUrl}`, `format` one of DCE's `StickerFormat` (`Png`, `Apng`, `Lottie`, `Gif`); a
  /// Lottie sticker is a JSON animation, not an image.
  public struct StickerDTO: Decodable, Sendable {
    public let id: String
    public let name: String
    public let format: String
    public let sourceUrl: String
  }

  public struct AttachmentDTO: Decodable, Sendable {
    public let id: String
    public let url: String
    public let fileName: String
    public let fileSizeBytes: Int64
  }
}
