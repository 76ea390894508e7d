@_spi(Internals) import SluiceCore

/// Comments.xml → `comments`. A comment on a post the dump lacks is an `orphanReference`; one by
/// a deleted user keeps its `UserDisplayName`.
public struct StackExchangeCommentsDataset: Dataset {
  public init() {}

  public var name: String { "stackexchange-comments" }
  public var summary: String { "Stack Exchange dump Comments.xml → comments" }
  public var schema: Schema { StackExchange.Tables.schema }

  public func validate(_ comment: StackExchange.CommentDTO, into validation: inout Validation) {}

  /// What the mapping reads the dump's text as.
  public var recordConstraints: [FieldConstraint] {
    StackExchange.timestampConstraints(at: "CreationDate")
  }
  public func map(_ comment: StackExchange.CommentDTO, context _: inout MappingContext) throws(MappingError)
    -> StackExchange.Comment
  {
    StackExchange.Comment(
      id: comment.id, postID: comment.postID, score: comment.score, text: comment.text,
      creationDate: try StackExchange.timestamp(comment.creationDate, at: "CreationDate"), userID: comment.userID,
      userDisplayName: comment.userDisplayName, contentLicense: comment.contentLicense)
  }

  public func rows(for comment: StackExchange.Comment, into rows: inout RecordRows) {
    rows.add(
      StackExchange.Tables.comments, comment.id, comment.postID, comment.score, comment.text, comment.creationDate,
      comment.userID, comment.userDisplayName, comment.contentLicense)
  }
}
