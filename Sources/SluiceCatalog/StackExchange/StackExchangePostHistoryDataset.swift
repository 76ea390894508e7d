@_spi(Internals) import SluiceCore

/// PostHistory.xml → `post_history`: every revision and event of a post. The type id stays an
/// integer: Stack Exchange keeps adding history types, and an unknown one is no reason to drop
/// a revision.
public struct StackExchangePostHistoryDataset: Dataset {
  public init() {}

  public var name: String { "stackexchange-posthistory" }
  public var summary: String { "Stack Exchange dump PostHistory.xml → post_history" }
  public var schema: Schema { StackExchange.Tables.schema }

  public func validate(_ entry: StackExchange.PostHistoryDTO, into validation: inout Validation) {}

  /// What the mapping reads the dump's text as.
  public var recordConstraints: [FieldConstraint] {
    StackExchange.timestampConstraints(at: "CreationDate")
  }
  public func map(_ entry: StackExchange.PostHistoryDTO, context _: inout MappingContext) throws(MappingError)
    -> StackExchange.PostHistoryEntry
  {
    StackExchange.PostHistoryEntry(
      id: entry.id, typeID: entry.postHistoryTypeID, postID: entry.postID, revisionGUID: entry.revisionGUID,
      creationDate: try StackExchange.timestamp(entry.creationDate, at: "CreationDate"), userID: entry.userID,
      userDisplayName: entry.userDisplayName, comment: entry.comment, text: entry.text,
      contentLicense: entry.contentLicense)
  }

  public func rows(for entry: StackExchange.PostHistoryEntry, into rows: inout RecordRows) {
    rows.add(
      StackExchange.Tables.postHistory, entry.id, entry.typeID, entry.postID, entry.revisionGUID, entry.creationDate,
      entry.userID, entry.userDisplayName, entry.comment, entry.text, entry.contentLicense)
  }
}
