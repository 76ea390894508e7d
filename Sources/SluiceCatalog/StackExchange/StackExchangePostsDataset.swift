@_spi(Internals) import SluiceCore

/// Posts.xml → `posts` and `post_tags`, with the enum-owned `post_types`. Loads after users and
/// tags, which its rows name, and before every file about posts.
public struct StackExchangePostsDataset: Dataset {
  public init() {}

  public var name: String { "stackexchange-posts" }
  public var summary: String { "Stack Exchange dump Posts.xml → posts, post_tags" }
  public var schema: Schema { StackExchange.Tables.schema }

  static let answersHaveParent = ValidationRule(
    "answers and only answers name a parent",
    message: "an answer (PostTypeId 2) names its question, no other post does",
    constraints: [.unexpressed("a cross-field rule: ParentId is given exactly when PostTypeId is 2", at: "ParentId")])
  public var rules: [ValidationRule] { [Self.answersHaveParent] }

  public func validate(_ post: StackExchange.PostDTO, into validation: inout Validation) {
    let isAnswer = post.postTypeID == PostType.answer.lookupID
    validation.check(Self.answersHaveParent, isAnswer == (post.parentID != nil), at: "ParentId")
  }

  /// What the mapping reads the dump's text as.
  public var recordConstraints: [FieldConstraint] {
    StackExchange.timestampConstraints(
      at: "CreationDate", "LastEditDate", "LastActivityDate", "ClosedDate", "CommunityOwnedDate")
      + [
        StackExchange.typeIDs(PostType.self, at: "PostTypeId"),
        .unexpressed("Tags is <tag><tag>… or |tag|tag|…, names without spaces", at: "Tags"),
      ]
  }
  public func map(_ post: StackExchange.PostDTO, context _: inout MappingContext) throws(MappingError)
    -> StackExchange.Post
  {
    guard let type = PostType(dumpID: post.postTypeID) else {
      throw MappingError(
        code: .unsupportedEnumValue, path: "PostTypeId", message: StackExchange.unknownType(PostType.self))
    }
    return StackExchange.Post(
      id: post.id, type: type, parentID: post.parentID, acceptedAnswerID: post.acceptedAnswerID,
      creationDate: try StackExchange.timestamp(post.creationDate, at: "CreationDate"), score: post.score,
      viewCount: post.viewCount, body: post.body, ownerUserID: post.ownerUserID,
      ownerDisplayName: post.ownerDisplayName,
      lastEditorUserID: post.lastEditorUserID, lastEditorDisplayName: post.lastEditorDisplayName,
      lastEditDate: try StackExchange.optionalTimestamp(post.lastEditDate, at: "LastEditDate"),
      lastActivityDate: try StackExchange.timestamp(post.lastActivityDate, at: "LastActivityDate"),
      title: post.title, tags: try StackExchange.tagNames(post.tags, at: "Tags"), answerCount: post.answerCount,
      commentCount: post.commentCount, favoriteCount: post.favoriteCount,
      closedDate: try StackExchange.optionalTimestamp(post.closedDate, at: "ClosedDate"),
      communityOwnedDate: try StackExchange.optionalTimestamp(post.communityOwnedDate, at: "CommunityOwnedDate"),
      contentLicense: post.contentLicense)
  }

  public func rows(for post: StackExchange.Post, into rows: inout RecordRows) {
    rows.add(
      StackExchange.Tables.posts, post.id, post.type, post.parentID, post.acceptedAnswerID, post.creationDate,
      post.score, post.viewCount, post.body, post.ownerUserID, post.ownerDisplayName, post.lastEditorUserID,
      post.lastEditorDisplayName, post.lastEditDate, post.lastActivityDate, post.title, post.answerCount,
      post.commentCount, post.favoriteCount, post.closedDate, post.communityOwnedDate, post.contentLicense)
    for tag in post.tags {
      rows.add(StackExchange.Tables.postTags, tag)
    }
  }
}
