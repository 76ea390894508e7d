@_spi(Internals) import SluiceCore

extension StackExchange {
  /// The tables every Stack Exchange dataset shares, declared once so that references work
  /// across files: a comment names its post, a post its owner, by the dump's ids.
  ///
  /// Orphans follow what the dump means. Rows *about* a post or a user (comments, votes, post
  /// history and links on a post; badges of a user) are meaningless without it: `reject`, so a
  /// lenient run reports them and a strict one fails. Rows merely *naming* a user (an owner, an
  /// editor, a voter) keep the row: the dump drops deleted users, so an id it does not hold is
  /// stored as NULL with a warning (`setNull`) and the display name, where the dump gives one,
  /// stays.
  ///
  /// References that point forward are plain integers, indexed where queries join on them: the
  /// writer resolves a reference only against rows written before it, and a question's
  /// `AcceptedAnswerId` names an answer that comes after it, and a tag's `WikiPostId` a post
  /// of Posts.xml, which loads after Tags.xml so that posts can name their tags. An answer's
  /// `ParentId` is stored the same way, with the other references inside Posts.xml.
  public enum Tables {
    public static let users = Table(
      "users", key: ["user_id"],
      columns: [
        .integer("user_id", field: "Id"),
        .integer("account_id", field: "AccountId", nullable: true),
        .integer("reputation", field: "Reputation"),
        .text("display_name", field: "DisplayName"),
        .timestamp("creation_date", field: "CreationDate"),
        .timestamp("last_access_date", field: "LastAccessDate"),
        .text("location", field: "Location", nullable: true),
        .text("website_url", field: "WebsiteUrl", nullable: true),
        .text("about_me", field: "AboutMe", nullable: true),
        .text("profile_image_url", field: "ProfileImageUrl", nullable: true),
        .integer("views", field: "Views", checks: [.atLeast(0)]),
        .integer("up_votes", field: "UpVotes", checks: [.atLeast(0)]),
        .integer("down_votes", field: "DownVotes", checks: [.atLeast(0)]),
      ])

    /// Keyed by name, the key posts name tags by; the dump's own id is a column.
    public static let tags = Table(
      "tags", key: ["tag_name"],
      columns: [
        .text("tag_name", field: "TagName", checks: [.notEmpty]),
        .integer("tag_id", field: "Id"),
        .integer("count", field: "Count", checks: [.atLeast(0)]),
        .integer("excerpt_post_id", field: "ExcerptPostId", nullable: true),
        .integer("wiki_post_id", field: "WikiPostId", nullable: true),
        .boolean("is_moderator_only", field: "IsModeratorOnly", nullable: true),
        .boolean("is_required", field: "IsRequired", nullable: true),
      ],
      indexes: [Index("tags_by_id", on: ["tag_id"])])

    public static let posts = Table(
      "posts", key: ["post_id"],
      columns: [
        .integer("post_id", field: "Id"),
        .lookup("post_type_id", PostType.self, field: "PostTypeId"),
        .integer("parent_id", field: "ParentId", nullable: true),
        .integer("accepted_answer_id", field: "AcceptedAnswerId", nullable: true),
        .timestamp("creation_date", field: "CreationDate"),
        .integer("score", field: "Score"),
        .integer("view_count", field: "ViewCount", nullable: true),
        .text("body", field: "Body"),
        .reference("owner_user_id", to: users, field: "OwnerUserId", orphans: .setNull),
        .text("owner_display_name", field: "OwnerDisplayName", nullable: true),
        .reference("last_editor_user_id", to: users, field: "LastEditorUserId", orphans: .setNull),
        .text("last_editor_display_name", field: "LastEditorDisplayName", nullable: true),
        .timestamp("last_edit_date", field: "LastEditDate", nullable: true),
        .timestamp("last_activity_date", field: "LastActivityDate"),
        .text("title", field: "Title", nullable: true),
        .integer("answer_count", field: "AnswerCount", nullable: true),
        .integer("comment_count", field: "CommentCount", nullable: true),
        .integer("favorite_count", field: "FavoriteCount", nullable: true),
        .timestamp("closed_date", field: "ClosedDate", nullable: true),
        .timestamp("community_owned_date", field: "CommunityOwnedDate", nullable: true),
        .text("content_license", field: "ContentLicense", nullable: true),
      ],
      indexes: [
        Index("posts_by_parent", on: ["parent_id"], deferrable: true),
        Index("posts_by_owner", on: ["owner_user_id"], deferrable: true),
      ])

    /// A post's tags in the order it lists them, replaced with the post. A name `tags` does not
    /// hold keeps the post: the link is stored with a NULL tag and a warning at `Tags[n]`.
    public static let postTags = Table(
      "post_tags", childOf: posts, position: "position", startingAt: 1, field: "Tags",
      columns: [.reference("tag_name", to: tags, field: "", orphans: .setNull)],
      indexes: [Index("post_tags_by_tag", on: ["tag_name"], deferrable: true)])

    public static let comments = Table(
      "comments", key: ["comment_id"],
      columns: [
        .integer("comment_id", field: "Id"),
        .reference("post_id", to: posts, field: "PostId"),
        .integer("score", field: "Score"),
        .text("text", field: "Text"),
        .timestamp("creation_date", field: "CreationDate"),
        .reference("user_id", to: users, field: "UserId", orphans: .setNull),
        .text("user_display_name", field: "UserDisplayName", nullable: true),
        .text("content_license", field: "ContentLicense", nullable: true),
      ],
      indexes: [
        Index("comments_by_post", on: ["post_id"], deferrable: true),
        Index("comments_by_user", on: ["user_id"], deferrable: true),
      ])

    public static let votes = Table(
      "votes", key: ["vote_id"],
      columns: [
        .integer("vote_id", field: "Id"),
        .reference("post_id", to: posts, field: "PostId"),
        .lookup("vote_type_id", VoteType.self, field: "VoteTypeId"),
        .reference("user_id", to: users, field: "UserId", orphans: .setNull),
        .timestamp("creation_date", field: "CreationDate"),
        .integer("bounty_amount", field: "BountyAmount", nullable: true, checks: [.atLeast(0)]),
      ],
      indexes: [Index("votes_by_post", on: ["post_id"], deferrable: true)])

    public static let badges = Table(
      "badges", key: ["badge_id"],
      columns: [
        .integer("badge_id", field: "Id"),
        .reference("user_id", to: users, field: "UserId"),
        .text("name", field: "Name"),
        .timestamp("date", field: "Date"),
        // 1 gold, 2 silver, 3 bronze.
        .integer("class", field: "Class", checks: [.atLeast(1), .atMost(3)]),
        .boolean("tag_based", field: "TagBased"),
      ],
      indexes: [Index("badges_by_user", on: ["user_id"], deferrable: true)])

    public static let postLinks = Table(
      "post_links", key: ["post_link_id"],
      columns: [
        .integer("post_link_id", field: "Id"),
        .timestamp("creation_date", field: "CreationDate"),
        .reference("post_id", to: posts, field: "PostId"),
        .reference("related_post_id", to: posts, field: "RelatedPostId"),
        // 1 linked, 3 duplicate.
        .integer("link_type_id", field: "LinkTypeId"),
      ],
      indexes: [Index("post_links_by_post", on: ["post_id"], deferrable: true)])

    public static let postHistory = Table(
      "post_history", key: ["post_history_id"],
      columns: [
        .integer("post_history_id", field: "Id"),
        .integer("post_history_type_id", field: "PostHistoryTypeId"),
        .reference("post_id", to: posts, field: "PostId"),
        .text("revision_guid", field: "RevisionGUID"),
        .timestamp("creation_date", field: "CreationDate"),
        .reference("user_id", to: users, field: "UserId", orphans: .setNull),
        .text("user_display_name", field: "UserDisplayName", nullable: true),
        .text("comment", field: "Comment", nullable: true),
        .text("text", field: "Text", nullable: true),
        .text("content_license", field: "ContentLicense", nullable: true),
      ],
      indexes: [Index("post_history_by_post", on: ["post_id"], deferrable: true)])

    /// Every table, referenced ones first: each dataset declares all of them, so whichever file
    /// loads first creates the whole schema and every reference has its table.
    public static let schema = Schema([
      users, tags, posts, postTags, comments, votes, badges, postLinks, postHistory,
    ])
  }
}
