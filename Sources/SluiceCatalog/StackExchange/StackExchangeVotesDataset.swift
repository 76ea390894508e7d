@_spi(Internals) import SluiceCore

/// Votes.xml → `votes`, with the enum-owned `vote_types`. A vote on a post the dump lacks (a
/// deleted post's votes stay in Votes.xml) is an `orphanReference`.
public struct StackExchangeVotesDataset: Dataset {
  public init() {}

  public var name: String { "stackexchange-votes" }
  public var summary: String { "Stack Exchange dump Votes.xml → votes" }
  public var schema: Schema { StackExchange.Tables.schema }

  public func validate(_ vote: StackExchange.VoteDTO, into validation: inout Validation) {}

  /// What the mapping reads the dump's text as.
  public var recordConstraints: [FieldConstraint] {
    StackExchange.timestampConstraints(at: "CreationDate") + [StackExchange.typeIDs(VoteType.self, at: "VoteTypeId")]
  }
  public func map(_ vote: StackExchange.VoteDTO, context _: inout MappingContext) throws(MappingError)
    -> StackExchange.Vote
  {
    guard let type = VoteType(dumpID: vote.voteTypeID) else {
      throw MappingError(
        code: .unsupportedEnumValue, path: "VoteTypeId", message: StackExchange.unknownType(VoteType.self))
    }
    return StackExchange.Vote(
      id: vote.id, postID: vote.postID, type: type, userID: vote.userID,
      creationDate: try StackExchange.timestamp(vote.creationDate, at: "CreationDate"), bountyAmount: vote.bountyAmount)
  }

  public func rows(for vote: StackExchange.Vote, into rows: inout RecordRows) {
    rows.add(
      StackExchange.Tables.votes, vote.id, vote.postID, vote.type, vote.userID, vote.creationDate, vote.bountyAmount)
  }
}
