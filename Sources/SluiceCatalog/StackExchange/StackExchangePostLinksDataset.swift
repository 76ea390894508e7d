@_spi(Internals) import SluiceCore

/// PostLinks.xml → `post_links`. A link from or to a post the dump lacks is an `orphanReference`.
public struct StackExchangePostLinksDataset: Dataset {
  public init() {}

  public var name: String { "stackexchange-postlinks" }
  public var summary: String { "Stack Exchange dump PostLinks.xml → post_links" }
  public var schema: Schema { StackExchange.Tables.schema }

  public func validate(_ link: StackExchange.PostLinkDTO, into validation: inout Validation) {}

  /// What the mapping reads the dump's text as.
  public var recordConstraints: [FieldConstraint] {
    StackExchange.timestampConstraints(at: "CreationDate")
  }
  public func map(_ link: StackExchange.PostLinkDTO, context _: inout MappingContext) throws(MappingError)
    -> StackExchange.PostLink
  {
    StackExchange.PostLink(
      id: link.id, creationDate: try StackExchange.timestamp(link.creationDate, at: "CreationDate"),
      postID: link.postID,
      relatedPostID: link.relatedPostID, linkTypeID: link.linkTypeID)
  }

  public func rows(for link: StackExchange.PostLink, into rows: inout RecordRows) {
    rows.add(
      StackExchange.Tables.postLinks, link.id, link.creationDate, link.postID, link.relatedPostID, link.linkTypeID)
  }
}
