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
    public let timestampEdited, callEndedTimestamp, isPinned, embeds, stickers, reactions, mentions: Unmapped?
    public let interaction, inlineEmojis: Unmapped?
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

  public struct AttachmentDTO: Decodable, Sendable {
    public let id: String
    public let url: String
    public let fileName: String
    public let fileSizeBytes: Int64
  }
}
