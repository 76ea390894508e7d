@_spi(Internals) import SluiceCore

// The dump's rows in the domain: dates are UTC instants, type ids are enum cases, a post's
// tags are a list of names. The loader writes these.

extension StackExchange {
  public struct User: Sendable, Hashable {
    public var id: Int64
    public var accountID: Int64?
    public var reputation: Int64
    public var displayName: String
    public var creationDate: Timestamp
    public var lastAccessDate: Timestamp
    public var location: String?
    public var websiteURL: String?
    public var aboutMe: String?
    public var profileImageURL: String?
    public var views: Int64
    public var upVotes: Int64
    public var downVotes: Int64
  }

  public struct Tag: Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var count: Int64
    public var excerptPostID: Int64?
    public var wikiPostID: Int64?
    public var isModeratorOnly: Bool?
    public var isRequired: Bool?
  }

  public struct Post: Sendable, Hashable {
    public var id: Int64
    public var type: PostType
    public var parentID: Int64?
    public var acceptedAnswerID: Int64?
    public var creationDate: Timestamp
    public var score: Int64
    public var viewCount: Int64?
    /// Rendered HTML, as the dump has it.
    public var body: String
    /// Nil for a deleted user, whose name is then in `ownerDisplayName`.
    public var ownerUserID: Int64?
    public var ownerDisplayName: String?
    public var lastEditorUserID: Int64?
    public var lastEditorDisplayName: String?
    public var lastEditDate: Timestamp?
    public var lastActivityDate: Timestamp
    public var title: String?
    /// Tag names in the post's order; empty for posts other than questions.
    public var tags: [String]
    public var answerCount: Int64?
    public var commentCount: Int64?
    public var favoriteCount: Int64?
    public var closedDate: Timestamp?
    public var communityOwnedDate: Timestamp?
    public var contentLicense: String?
  }

  public struct Comment: Sendable, Hashable {
    public var id: Int64
    public var postID: Int64
    public var score: Int64
    public var text: String
    public var creationDate: Timestamp
    public var userID: Int64?
    public var userDisplayName: String?
    public var contentLicense: String?
  }

  public struct Vote: Sendable, Hashable {
    public var id: Int64
    public var postID: Int64
    public var type: VoteType
    public var userID: Int64?
    public var creationDate: Timestamp
    public var bountyAmount: Int64?
  }

  public struct Badge: Sendable, Hashable {
    public var id: Int64
    public var userID: Int64
    public var name: String
    public var date: Timestamp
    /// 1 gold, 2 silver, 3 bronze.
    public var badgeClass: Int64
    public var isTagBased: Bool
  }

  public struct PostLink: Sendable, Hashable {
    public var id: Int64
    public var creationDate: Timestamp
    public var postID: Int64
    public var relatedPostID: Int64
    /// 1 linked, 3 duplicate.
    public var linkTypeID: Int64
  }

  public struct PostHistoryEntry: Sendable, Hashable {
    public var id: Int64
    public var typeID: Int64
    public var postID: Int64
    public var revisionGUID: String
    public var creationDate: Timestamp
    public var userID: Int64?
    public var userDisplayName: String?
    public var comment: String?
    public var text: String?
    public var contentLicense: String?
  }
}
