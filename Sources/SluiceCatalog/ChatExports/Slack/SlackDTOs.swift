// A Slack workspace export as Slack writes it: `users.json` and `channels.json` (top-level
// arrays), and one folder per channel of `<YYYY-MM-DD>.json` day files (top-level arrays of
// messages). Every key the 2016, 2023 and 2025 exports (Slack's and slackdump's) carry is
// declared; the ones the import does not map are `Unmapped`. Which fields a message has depends
// on its `subtype`, so nearly all are optional; `ts` is always there, and so is `text` in
// Slack's own exports (slackdump leaves it out of a message that is only files).

/// The Slack export's wire format.
public enum Slack {}

extension Slack {
  /// An element of `users.json`.
  public struct UserDTO: Decodable, Sendable {
    public let id: String
    public let name: String
    public let realName: String?
    public let deleted: Bool?
    public let isBot: Bool?
    public let teamID, color, tz, tzLabel, tzOffset, profile, isAdmin, isOwner, isPrimaryOwner: Unmapped?
    public let isRestricted, isUltraRestricted, isAppUser, updated, isEmailConfirmed: Unmapped?
    public let whoCanShareContactCard: Unmapped?

    enum CodingKeys: String, CodingKey {
      case id, name
      case realName = "real_name"
      case deleted
      case isBot = "is_bot"
      case teamID = "team_id"
      case color, tz
      case tzLabel = "tz_label"
      case tzOffset = "tz_offset"
      case profile
      case isAdmin = "is_admin"
      case isOwner = "is_owner"
      case isPrimaryOwner = "is_primary_owner"
      case isRestricted = "is_restricted"
      case isUltraRestricted = "is_ultra_restricted"
      case isAppUser = "is_app_user"
      case updated
      case isEmailConfirmed = "is_email_confirmed"
      case whoCanShareContactCard = "who_can_share_contact_card"
    }
  }

  /// An element of `channels.json`. `created` and the `last_set` of topic and purpose are
  /// strings in older exports and numbers in newer ones.
  public struct ChannelDTO: Decodable, Sendable {
    public let id: String
    public let name: String
    public let created: FlexibleInteger
    public let creator: String?
    public let isArchived: Bool?
    public let isGeneral: Bool?
    public let members: [String]?
    public let topic: TopicDTO?
    public let purpose: TopicDTO?
    public let pins: Unmapped?

    enum CodingKeys: String, CodingKey {
      case id, name, created, creator
      case isArchived = "is_archived"
      case isGeneral = "is_general"
      case members, topic, purpose
      case pins
    }
  }

  /// A channel's `topic` or `purpose`.
  public struct TopicDTO: Decodable, Sendable {
    public let value: String
    public let creator: String
    public let lastSet: FlexibleInteger

    enum CodingKeys: String, CodingKey {
      case value, creator
      case lastSet = "last_set"
    }
  }

  /// An element of a day file. Its kind comes from `subtype`: none for a person's message,
  /// `bot_message`, `channel_join`, `file_share`, ….
  public struct MessageDTO: Decodable, Sendable {
    public let type: String
    public let subtype: String?
    /// Seconds since 1970 with a six-digit sequence (`"1458980525.000012"`): the message's key
    /// in its channel, and its time.
    public let ts: String
    /// The text; absent (not empty) in a slackdump export's message that is only files.
    public let text: String?
    public let user: String?
    public let botID: String?
    public let username: String?
    public let inviter: String?
    /// The file a `file_share` or `file_comment` message is about.
    public let file: FileDTO?
    /// The comment of a `file_comment` message, with its author.
    public let comment: CommentDTO?
    /// The author's profile, which newer exports copy into each message.
    public let userProfile: UserProfileDTO?
    public let threadTS: String?
    /// Bot messages' rich attachments; the import reads their plain-text `fallback`.
    public let attachments: [AttachmentDTO]?
    /// The files of a message in newer exports (which dropped the `file_share` subtype).
    public let files: [FileDTO]?
    public let blocks, reactions, edited, upload, displayAsBot, isIntro, clientMessageID: Unmapped?
    public let team, userTeam, sourceTeam, replyCount, replyUsersCount, latestReply, replyUsers, replies: Unmapped?
    public let subscribed, lastRead, parentUserID, icons: Unmapped?
    /// Keys of 2025 exports: a locked thread, a hidden tombstone, and what slackdump copies from
    /// the API's message (`replace_original`, `delete_original`, `metadata`).
    public let isLocked, hidden, replaceOriginal, deleteOriginal, metadata: Unmapped?
    /// The comment thread a file conversation's `document_comment_root` anchors (`thread_id`).
    public let documentComment: Unmapped?
    /// A `message_changed` record's editor and the message as it was (which the day file also
    /// holds as a record of its own).
    public let editorID, editedBy, original: Unmapped?

    enum CodingKeys: String, CodingKey {
      case type, subtype, ts, text, user
      case botID = "bot_id"
      case username, inviter, file, comment
      case userProfile = "user_profile"
      case threadTS = "thread_ts"
      case attachments, files, blocks, reactions, edited, upload
      case displayAsBot = "display_as_bot"
      case isIntro = "is_intro"
      case clientMessageID = "client_msg_id"
      case team
      case userTeam = "user_team"
      case sourceTeam = "source_team"
      case replyCount = "reply_count"
      case replyUsersCount = "reply_users_count"
      case latestReply = "latest_reply"
      case replyUsers = "reply_users"
      case replies, subscribed
      case lastRead = "last_read"
      case parentUserID = "parent_user_id"
      case icons
      case isLocked = "is_locked"
      case hidden
      case replaceOriginal = "replace_original"
      case deleteOriginal = "delete_original"
      case metadata
      case documentComment = "document_comment"
      case editorID = "editor_id"
      case editedBy = "edited_by"
      case original
    }
  }

  /// A shared file, as `file_share` and `file_comment` messages carry it, and as newer exports
  /// list it in a message's `files`.
  public struct FileDTO: Decodable, Sendable {
    public let id: String
    public let name: String?
    public let title: String?
    public let mimetype: String?
    public let filetype: String?
    public let size: Int64?
    public let urlPrivate: String?
    public let created, timestamp, prettyType, user, editable, mode, isExternal, externalType, isPublic: Unmapped?
    public let publicURLShared, displayAsBot, username, urlPrivateDownload, permalink, permalinkPublic: Unmapped?
    public let editLink, preview, previewHighlight, lines, linesMore, previewIsTruncated, channels, groups,
      ims: Unmapped?
    public let commentsCount, thumb64, thumb80, thumb160, thumb360, thumb360W, thumb360H, originalW,
      originalH: Unmapped?
    /// The comment an upload was shared with (2018 exports).
    public let initialComment: Unmapped?
    /// Keys of newer exports' files (2020 on): the uploader's team, preview and access flags.
    public let userTeam, fileAccess, isStarred, skippedShares, hasRichPreview, mediaDisplayType, updated: Unmapped?
    /// Keys slackdump writes for every file (2025): more thumbnails and their sizes, empty
    /// `url`/`url_download`, stars and shares.
    public let imageExifRotation, url, urlDownload, thumb360Gif, thumb480, thumb480W, thumb480H: Unmapped?
    public let thumb720, thumb720W, thumb720H, thumb960, thumb960W, thumb960H, thumb1024, thumb1024W,
      thumb1024H: Unmapped?
    public let numStars, shares: Unmapped?

    enum CodingKeys: String, CodingKey {
      case id, name, title, mimetype, filetype, size
      case urlPrivate = "url_private"
      case created, timestamp
      case prettyType = "pretty_type"
      case user, editable, mode
      case isExternal = "is_external"
      case externalType = "external_type"
      case isPublic = "is_public"
      case publicURLShared = "public_url_shared"
      case displayAsBot = "display_as_bot"
      case username
      case urlPrivateDownload = "url_private_download"
      case permalink
      case permalinkPublic = "permalink_public"
      case editLink = "edit_link"
      case preview
      case previewHighlight = "preview_highlight"
      case lines
      case linesMore = "lines_more"
      case previewIsTruncated = "preview_is_truncated"
      case channels, groups, ims
      case commentsCount = "comments_count"
      case thumb64 = "thumb_64"
      case thumb80 = "thumb_80"
      case thumb160 = "thumb_160"
      case thumb360 = "thumb_360"
      case thumb360W = "thumb_360_w"
      case thumb360H = "thumb_360_h"
      case originalW = "original_w"
      case originalH = "original_h"
      case initialComment = "initial_comment"
      case userTeam = "user_team"
      case fileAccess = "file_access"
      case isStarred = "is_starred"
      case skippedShares = "skipped_shares"
      case hasRichPreview = "has_rich_preview"
      case mediaDisplayType = "media_display_type"
      case updated
      case imageExifRotation = "image_exif_rotation"
      case url
      case urlDownload = "url_download"
      case thumb360Gif = "thumb_360_gif"
      case thumb480 = "thumb_480"
      case thumb480W = "thumb_480_w"
      case thumb480H = "thumb_480_h"
      case thumb720 = "thumb_720"
      case thumb720W = "thumb_720_w"
      case thumb720H = "thumb_720_h"
      case thumb960 = "thumb_960"
      case thumb960W = "thumb_960_w"
      case thumb960H = "thumb_960_h"
      case thumb1024 = "thumb_1024"
      case thumb1024W = "thumb_1024_w"
      case thumb1024H = "thumb_1024_h"
      case numStars = "num_stars"
      case shares
    }
  }

  /// A bot message's attachment (a commit summary, a link preview).
  public struct AttachmentDTO: Decodable, Sendable {
    /// The attachment as plain text, for clients that cannot show it.
    public let fallback: String?
    public let id, text, pretext, color, mrkdwnIn, title, titleLink, fromURL, thumbURL, thumbWidth,
      thumbHeight: Unmapped?
    public let serviceName, serviceURL, serviceIcon, authorName, authorLink, authorIcon, videoHTML,
      videoHTMLWidth: Unmapped?
    public let videoHTMLHeight, imageURL, imageWidth, imageHeight, imageBytes, fields, footer, footerIcon, ts: Unmapped?
    /// An app's unfurl of a link (2025 exports: GitHub's preview of a repository).
    public let botID, botTeamID, appUnfurlURL, isAppUnfurl, appID: Unmapped?

    enum CodingKeys: String, CodingKey {
      case fallback, id, text, pretext, color
      case mrkdwnIn = "mrkdwn_in"
      case title
      case titleLink = "title_link"
      case fromURL = "from_url"
      case thumbURL = "thumb_url"
      case thumbWidth = "thumb_width"
      case thumbHeight = "thumb_height"
      case serviceName = "service_name"
      case serviceURL = "service_url"
      case serviceIcon = "service_icon"
      case authorName = "author_name"
      case authorLink = "author_link"
      case authorIcon = "author_icon"
      case videoHTML = "video_html"
      case videoHTMLWidth = "video_html_width"
      case videoHTMLHeight = "video_html_height"
      case imageURL = "image_url"
      case imageWidth = "image_width"
      case imageHeight = "image_height"
      case imageBytes = "image_bytes"
      case fields, footer
      case footerIcon = "footer_icon"
      case ts
      case botID = "bot_id"
      case botTeamID = "bot_team_id"
      case appUnfurlURL = "app_unfurl_url"
      case isAppUnfurl = "is_app_unfurl"
      case appID = "app_id"
    }
  }

  /// The comment a `file_comment` message posts.
  public struct CommentDTO: Decodable, Sendable {
    public let id: String
    public let user: String
    public let comment: String
    public let created, timestamp, isIntro: Unmapped?

    enum CodingKeys: String, CodingKey {
      case id, user, comment, created, timestamp
      case isIntro = "is_intro"
    }
  }

  /// The author's profile copied into a message (`user_profile`, newer exports).
  public struct UserProfileDTO: Decodable, Sendable {
    public let name: String?
    public let realName: String?
    public let displayName: String?
    public let avatarHash, image72, firstName, team, isRestricted, isUltraRestricted: Unmapped?

    enum CodingKeys: String, CodingKey {
      case name
      case realName = "real_name"
      case displayName = "display_name"
      case avatarHash = "avatar_hash"
      case image72 = "image_72"
      case firstName = "first_name"
      case team
      case isRestricted = "is_restricted"
      case isUltraRestricted = "is_ultra_restricted"
    }
  }
}
