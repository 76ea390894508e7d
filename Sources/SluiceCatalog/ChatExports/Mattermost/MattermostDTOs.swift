// A Mattermost bulk export: NDJSON, one object per line, whose `type` names the key holding
// the line's payload — `{"type": "post", "post": {…}}`. `version` (with the exporting server's
// `info`), `role`, `scheme`, `team`, `channel`, `user`, `bot`, `post`, `direct_channel`,
// `direct_post` and `emoji` lines are declared, as Mattermost's importer declares them
// (mattermost/mattermost @ `3f5b97b933277adca560c0c0338c26f5ae0d823a`,
// `server/channels/app/imports/import_types.go`: `LineImportData`), with every key its exporter
// writes (`server/channels/app/export_converters.go`); the payloads and keys the import does
// not read are `Unmapped`.

/// Mattermost's bulk-export wire format.
public enum Mattermost {}

extension Mattermost {
  /// One line of the export.
  public struct LineDTO: Decodable, Sendable {
    public let type: String
    public let version: Int64?
    /// The exporting server (`generator`, `version`, `created`), on the version line of newer
    /// exports.
    public let info: Unmapped?
    public let role, scheme: Unmapped?
    public let team: Unmapped?
    public let channel: ChannelDTO?
    public let user: UserDTO?
    /// A bot account (newer exports): a sender whose posts are ordinary `post` lines.
    public let bot: BotDTO?
    public let post: PostDTO?
    /// A direct or group message channel, named by its members.
    public let directChannel: DirectChannelDTO?
    /// A post in a direct or group message channel.
    public let directPost: DirectPostDTO?
    public let emoji: Unmapped?

    enum CodingKeys: String, CodingKey {
      case type, version, info, role, scheme, team, channel, user, bot, post
      case directChannel = "direct_channel"
      case directPost = "direct_post"
      case emoji
    }
  }

  /// A direct (two people, or one with themself) or group (three to eight) message channel. It
  /// has no name: its members are its identity (`DirectChannelImportData`). Older exports list
  /// them as `members` (usernames); newer ones (the exporter of 2025) as `participants`, objects
  /// with a `username` and that member's channel state.
  public struct DirectChannelDTO: Decodable, Sendable {
    /// Usernames (older exports).
    public let members: [String]?
    /// Members with their channel state (newer exports).
    public let participants: [ParticipantDTO]?
    public let favoritedBy, shownBy, header: Unmapped?

    enum CodingKeys: String, CodingKey {
      case members, participants
      case favoritedBy = "favorited_by"
      case shownBy = "shown_by"
      case header
    }

    /// The members' usernames, whichever way the export lists them.
    public var memberNames: [String] { members ?? participants?.map(\.username) ?? [] }
  }

  /// A member of a direct channel in a newer export (`DirectChannelMemberImportData`).
  public struct ParticipantDTO: Decodable, Sendable {
    public let username: String
    public let notifyProps, schemeUser, schemeAdmin, schemeGuest, mentionCount, mentionCountRoot: Unmapped?
    public let urgentMentionCount, msgCount, msgCountRoot, lastViewedAt: Unmapped?

    enum CodingKeys: String, CodingKey {
      case username
      case notifyProps = "notify_props"
      case schemeUser = "scheme_user"
      case schemeAdmin = "scheme_admin"
      case schemeGuest = "scheme_guest"
      case mentionCount = "mention_count"
      case mentionCountRoot = "mention_count_root"
      // Mattermost's own spelling.
      case urgentMentionCount = "urgend_mention_count"
      case msgCount = "msg_count"
      case msgCountRoot = "msg_count_root"
      case lastViewedAt = "last_viewed_at"
    }
  }

  /// A bot account (`BotImportData`): keyed by its username like a user.
  public struct BotDTO: Decodable, Sendable {
    public let username: String
    public let displayName: String?
    public let owner, description, deleteAt, profileImage: Unmapped?

    enum CodingKeys: String, CodingKey {
      case username
      case displayName = "display_name"
      case owner, description
      case deleteAt = "delete_at"
      case profileImage = "profile_image"
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
    public let reactions, flaggedBy, props, editAt, isPinned, threadFollowers: Unmapped?

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
      case threadFollowers = "thread_followers"
    }
  }

  /// A channel of a team; its `name` is unique within the team.
  public struct ChannelDTO: Decodable, Sendable {
    public let team: String
    public let name: String
    public let displayName: String
    /// `O` open, `P` private.
    public let type: String
    public let header, purpose, scheme, deletedAt: Unmapped?

    enum CodingKeys: String, CodingKey {
      case team, name
      case displayName = "display_name"
      case type, header, purpose, scheme
      case deletedAt = "deleted_at"
    }
  }

  public struct UserDTO: Decodable, Sendable {
    public let username: String
    public let firstName: String?
    public let lastName: String?
    public let nickname: String?
    public let email, authService, position, roles, locale, teams, notifyProps: Unmapped?
    /// Account state and the preferences newer exports carry, none of them read.
    public let authData, password, deleteAt, profileImage, customStatus: Unmapped?
    public let useMarkdownPreview, useFormatting, showUnreadSection, sendOnCtrlEnter, codeBlockCtrlEnter: Unmapped?
    public let showJoinLeave, showUnreadScrollPosition, syncDrafts, limitVisibleDmsGms, nameFormat: Unmapped?
    public let theme, useMilitaryTime, collapsePreviews, messageDisplay, collapseConsecutive: Unmapped?
    public let colorizeUsernames, channelDisplayMode, tutorialStep, emailInterval: Unmapped?

    enum CodingKeys: String, CodingKey {
      case username
      case firstName = "first_name"
      case lastName = "last_name"
      case nickname
      case email
      case authService = "auth_service"
      case position, roles, locale, teams
      case notifyProps = "notify_props"
      case authData = "auth_data"
      case password
      case deleteAt = "delete_at"
      case profileImage = "profile_image"
      case customStatus = "custom_status"
      case useMarkdownPreview = "feature_enabled_markdown_preview"
      case useFormatting = "formatting"
      case showUnreadSection = "show_unread_section"
      case sendOnCtrlEnter = "send_on_ctrl_enter"
      case codeBlockCtrlEnter = "code_block_ctrl_enter"
      case showJoinLeave = "show_join_leave"
      case showUnreadScrollPosition = "show_unread_scroll_position"
      case syncDrafts = "sync_drafts"
      case limitVisibleDmsGms = "limit_visible_dms_gms"
      case nameFormat = "name_format"
      case theme
      case useMilitaryTime = "military_time"
      case collapsePreviews = "link_previews"
      case messageDisplay = "message_display"
      case collapseConsecutive = "collapse_consecutive_messages"
      case colorizeUsernames = "colorize_usernames"
      case channelDisplayMode = "channel_display_mode"
      case tutorialStep = "tutorial_step"
      case emailInterval = "email_interval"
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
    public let reactions, flaggedBy, props, editAt, isPinned, threadFollowers: Unmapped?

    enum CodingKeys: String, CodingKey {
      case team, channel, user, message, type
      case createAt = "create_at"
      case replies, reactions, attachments
      case flaggedBy = "flagged_by"
      case props
      case editAt = "edit_at"
      case isPinned = "is_pinned"
      case threadFollowers = "thread_followers"
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
    public let reactions, flaggedBy, props, editAt, isPinned: Unmapped?

    enum CodingKeys: String, CodingKey {
      case user, message, type
      case createAt = "create_at"
      case reactions, attachments
      case flaggedBy = "flagged_by"
      case props
      case editAt = "edit_at"
      case isPinned = "is_pinned"
    }
  }
}
