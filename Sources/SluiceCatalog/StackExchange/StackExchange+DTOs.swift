// The dump's rows as they are written: one DTO per file, one property per attribute, the
// attribute's name as the coding key. Optional exactly where the dump leaves an attribute out:
// on some kinds of rows (`Title` only on questions), for deleted users (`OwnerUserId`), or in
// older dumps (`ContentLicense`, absent from the 2015 ones). Attributes older dumps wrote and
// newer ones dropped are declared `Unmapped` (Users' `Age` and `EmailHash`), so a dump of any
// vintage loads without drift warnings and an attribute no vintage had still is one. Timestamps stay strings until the
// mapper reads them as UTC (`StackExchange.timestamp(from:)`); ids and counts are integers and
// `True`/`False` booleans, which the XML decoder reads from attribute text.

extension StackExchange {
  /// A row of Users.xml.
  public struct UserDTO: Decodable, Sendable {
    public let id: Int64
    public let accountID: Int64?
    public let reputation: Int64
    public let creationDate: String
    public let displayName: String
    public let lastAccessDate: String
    public let websiteURL: String?
    public let location: String?
    public let aboutMe: String?
    public let views: Int64
    public let upVotes: Int64
    public let downVotes: Int64
    public let profileImageURL: String?
    /// In the dumps until 2019 (`Age`) and the early ones (`EmailHash`); not imported.
    public let age, emailHash: Unmapped?

    enum CodingKeys: String, CodingKey {
      case id = "Id"
      case accountID = "AccountId"
      case reputation = "Reputation"
      case creationDate = "CreationDate"
      case displayName = "DisplayName"
      case lastAccessDate = "LastAccessDate"
      case websiteURL = "WebsiteUrl"
      case location = "Location"
      case aboutMe = "AboutMe"
      case views = "Views"
      case upVotes = "UpVotes"
      case downVotes = "DownVotes"
      case profileImageURL = "ProfileImageUrl"
      case age = "Age"
      case emailHash = "EmailHash"
    }
  }

  /// A row of Posts.xml: questions, answers, tag wikis and the site's other posts.
  public struct PostDTO: Decodable, Sendable {
    public let id: Int64
    public let postTypeID: Int64
    public let acceptedAnswerID: Int64?
    public let parentID: Int64?
    public let creationDate: String
    public let score: Int64
    public let viewCount: Int64?
    public let body: String
    public let ownerUserID: Int64?
    public let ownerDisplayName: String?
    public let lastEditorUserID: Int64?
    public let lastEditorDisplayName: String?
    public let lastEditDate: String?
    public let lastActivityDate: String
    public let title: String?
    public let tags: String?
    public let answerCount: Int64?
    public let commentCount: Int64?
    public let favoriteCount: Int64?
    public let closedDate: String?
    public let communityOwnedDate: String?
    public let contentLicense: String?

    enum CodingKeys: String, CodingKey {
      case id = "Id"
      case postTypeID = "PostTypeId"
      case acceptedAnswerID = "AcceptedAnswerId"
      case parentID = "ParentId"
      case creationDate = "CreationDate"
      case score = "Score"
      case viewCount = "ViewCount"
      case body = "Body"
      case ownerUserID = "OwnerUserId"
      case ownerDisplayName = "OwnerDisplayName"
      case lastEditorUserID = "LastEditorUserId"
      case lastEditorDisplayName = "LastEditorDisplayName"
      case lastEditDate = "LastEditDate"
      case lastActivityDate = "LastActivityDate"
      case title = "Title"
      case tags = "Tags"
      case answerCount = "AnswerCount"
      case commentCount = "CommentCount"
      case favoriteCount = "FavoriteCount"
      case closedDate = "ClosedDate"
      case communityOwnedDate = "CommunityOwnedDate"
      case contentLicense = "ContentLicense"
    }
  }

  /// A row of Tags.xml. `IsModeratorOnly` and `IsRequired` appear only in newer dumps.
  public struct TagDTO: Decodable, Sendable {
    public let id: Int64
    public let tagName: String
    public let count: Int64
    public let excerptPostID: Int64?
    public let wikiPostID: Int64?
    public let isModeratorOnly: Bool?
    public let isRequired: Bool?

    enum CodingKeys: String, CodingKey {
      case id = "Id"
      case tagName = "TagName"
      case count = "Count"
      case excerptPostID = "ExcerptPostId"
      case wikiPostID = "WikiPostId"
      case isModeratorOnly = "IsModeratorOnly"
      case isRequired = "IsRequired"
    }
  }

  /// A row of Comments.xml. A deleted user's comment has `UserDisplayName` instead of `UserId`.
  public struct CommentDTO: Decodable, Sendable {
    public let id: Int64
    public let postID: Int64
    public let score: Int64
    public let text: String
    public let creationDate: String
    public let userID: Int64?
    public let userDisplayName: String?
    public let contentLicense: String?

    enum CodingKeys: String, CodingKey {
      case id = "Id"
      case postID = "PostId"
      case score = "Score"
      case text = "Text"
      case creationDate = "CreationDate"
      case userID = "UserId"
      case userDisplayName = "UserDisplayName"
      case contentLicense = "ContentLicense"
    }
  }

  /// A row of Votes.xml. The voter is public only for favorites and bounties; `BountyAmount`
  /// only on bounty votes.
  public struct VoteDTO: Decodable, Sendable {
    public let id: Int64
    public let postID: Int64
    public let voteTypeID: Int64
    public let userID: Int64?
    public let creationDate: String
    public let bountyAmount: Int64?

    enum CodingKeys: String, CodingKey {
      case id = "Id"
      case postID = "PostId"
      case voteTypeID = "VoteTypeId"
      case userID = "UserId"
      case creationDate = "CreationDate"
      case bountyAmount = "BountyAmount"
    }
  }

  /// A row of Badges.xml.
  public struct BadgeDTO: Decodable, Sendable {
    public let id: Int64
    public let userID: Int64
    public let name: String
    public let date: String
    public let badgeClass: Int64
    public let tagBased: Bool

    enum CodingKeys: String, CodingKey {
      case id = "Id"
      case userID = "UserId"
      case name = "Name"
      case date = "Date"
      case badgeClass = "Class"
      case tagBased = "TagBased"
    }
  }

  /// A row of PostLinks.xml.
  public struct PostLinkDTO: Decodable, Sendable {
    public let id: Int64
    public let creationDate: String
    public let postID: Int64
    public let relatedPostID: Int64
    public let linkTypeID: Int64

    enum CodingKeys: String, CodingKey {
      case id = "Id"
      case creationDate = "CreationDate"
      case postID = "PostId"
      case relatedPostID = "RelatedPostId"
      case linkTypeID = "LinkTypeId"
    }
  }

  /// A row of PostHistory.xml: one revision or event of a post.
  public struct PostHistoryDTO: Decodable, Sendable {
    public let id: Int64
    public let postHistoryTypeID: Int64
    public let postID: Int64
    public let revisionGUID: String
    public let creationDate: String
    public let userID: Int64?
    public let userDisplayName: String?
    public let comment: String?
    public let text: String?
    public let contentLicense: String?

    enum CodingKeys: String, CodingKey {
      case id = "Id"
      case postHistoryTypeID = "PostHistoryTypeId"
      case postID = "PostId"
      case revisionGUID = "RevisionGUID"
      case creationDate = "CreationDate"
      case userID = "UserId"
      case userDisplayName = "UserDisplayName"
      case comment = "Comment"
      case text = "Text"
      case contentLicense = "ContentLicense"
    }
  }
}
