// A Mattermost bulk export: NDJSON, one object per line, whose `type` names the key holding
// the line's payload — `{"type": "post", "post": {…}}`. `version`, `team`, `channel`, `user`,
// `post`, `direct_channel`, `direct_post` and `emoji` lines are declared, as Mattermost's
// importer declares them (`server/channels/app/imports/import_types.go`: `LineImportData`); the
// payloads the import does not read are `Unmapped`.

/// Mattermost's bulk-export wire format.
public enum Mattermost {}

extension Mattermost {
  /// One line of the export.
  public struct LineDTO: Decodable, Sendable {
    public let type: String
    public let version: Int64?
    public let team: Unmapped?
    public let channel: ChannelDTO?
    public let user: UserDTO?
    public let post: PostDTO?
    /// A direct or group message channel, named by its members.
    public let directChannel: DirectChannelDTO?
    /// A post in a direct or group message channel.
    public let directPost: DirectPostDTO?
    public let emoji: Unmapped?

    enum CodingKeys: String, CodingKey {
      case type, version, team, channel, user, post
      case directChannel = "direct_channel"
      case directPost = "direct_post"
      case emoji
    }
  }

  /// A direct (two people, or one with themself) or group (three to eight) message channel. It
  /// has no name: its members are its identity (`DirectChannelImportData`).
  public struct DirectChannelDTO: Decodable, Sendable {
    /// Usernames.
    public let members: [String]
    public let favoritedBy, header: Unmapped?

    enum CodingKeys: String, CodingKey {
      case members
      case favoritedBy = "favorited_by"
      case header
    }
  }

  /// A post in a direct or group message channel, named by the channel's members
  /// (`DirectPostImportData`), with its thread's replies.
  public struct DirectPostDTO: Decodable, Sendable {
    /// Usernames: the members of the channel the post is in.
    public let channelMembers: [String]
    public let user: String
    public let message: String
    public let type: String?
    /// Epoch milliseconds.
    public let createAt: Int64
    public let replies: [ReplyDTO]?
    public let attachments: [AttachmentDTO]?
    public let reactions, flaggedBy, props, editAt, isPinned: Unmapped?

    enum CodingKeys: String, CodingKey {
      case channelMembers = "channel_members"
      case user, message, type
      case createAt = "create_at"
      case replies, attachments
      case reactions
      case flaggedBy = "flagged_by"
      case props
      case editAt = "edit_at"
      case isPinned = "is_pinned"
    }
  }

  /// A channel of a team; its `name` is unique within the team.
  public struct ChannelDTO: Decodable, Sendable {
    public let team: String
    public let name: String
    public let displayName: String
    /// `O` open, `P` private.
    public let type: String
    public let header, purpose: Unmapped?

    enum CodingKeys: String, CodingKey {
      case team, name
      case displayName = "display_name"
      case type, header, purpose
    }
  }

  public struct UserDTO: Decodable, Sendable {
    public let username: String
    public let firstName: String?
    public let lastName: String?
    public let nickname: String?
    public let email, authService, position, roles, locale, teams, notifyProps: Unmapped?

    enum CodingKeys: String, CodingKey {
      case username
      case firstName = "first_name"
      case lastName = "last_name"
      case nickname
      case email
      case authService = "auth_service"
      case position, roles, locale, teams
      case notifyProps = "notify_props"
    }
  }

  /// A post in a channel, with its thread's replies.
  public struct PostDTO: Decodable, Sendable {
    public let team: String
    public let channel: String
    public let user: String
    public let message: String
    /// Empty or absent for a person's post; `system_…` for an event Mattermost recorded.
    public let type: String?
    /// Epoch milliseconds.
    public let createAt: Int64
    /// `null` or an array.
    public let replies: [ReplyDTO]?
    /// Files uploaded with the post, by their path in the export.
    public let attachments: [AttachmentDTO]?
    public let reactions, flaggedBy, props, editAt, isPinned: Unmapped?

    enum CodingKeys: String, CodingKey {
      case team, channel, user, message, type
      case createAt = "create_at"
      case replies, reactions, attachments
      case flaggedBy = "flagged_by"
      case props
      case editAt = "edit_at"
      case isPinned = "is_pinned"
    }
  }

  /// A file of a post or reply: its path inside the export.
  public struct AttachmentDTO: Decodable, Sendable {
    public let path: String
  }

  /// A reply in a post's thread.
  public struct ReplyDTO: Decodable, Sendable {
    public let user: String
    public let message: String
    public let type: String?
    public let createAt: Int64
    public let attachments: [AttachmentDTO]?
    public let reactions, flaggedBy, props, editAt: Unmapped?

    enum CodingKeys: String, CodingKey {
      case user, message, type
      case createAt = "create_at"
      case reactions, attachments
      case flaggedBy = "flagged_by"
      case props
      case editAt = "edit_at"
    }
  }
}
