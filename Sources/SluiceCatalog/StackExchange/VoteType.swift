@_spi(Internals) import SluiceCore

/// What a vote is (`VoteTypeId`). It owns the `vote_types` table; the ids are the dump's own
/// (Meta Stack Exchange's schema documentation, which lists no 13 or 14). A type this version
/// does not know is `unsupportedEnumValue`.
public enum VoteType: String, LookupEnum {
  case acceptedByOriginator = "AcceptedByOriginator"
  case upMod = "UpMod"
  case downMod = "DownMod"
  case offensive = "Offensive"
  case favorite = "Favorite"
  case close = "Close"
  case reopen = "Reopen"
  case bountyStart = "BountyStart"
  case bountyClose = "BountyClose"
  case deletion = "Deletion"
  case undeletion = "Undeletion"
  case spam = "Spam"
  case moderatorReview = "ModeratorReview"
  case approveEditSuggestion = "ApproveEditSuggestion"

  public static var lookupTable: String { "vote_types" }

  public var lookupID: Int64 {
    switch self {
    case .acceptedByOriginator: 1
    case .upMod: 2
    case .downMod: 3
    case .offensive: 4
    case .favorite: 5
    case .close: 6
    case .reopen: 7
    case .bountyStart: 8
    case .bountyClose: 9
    case .deletion: 10
    case .undeletion: 11
    case .spam: 12
    case .moderatorReview: 15
    case .approveEditSuggestion: 16
    }
  }

  /// The case with the dump's id, or nil.
  public init?(dumpID: Int64) {
    guard let type = Self.allCases.first(where: { $0.lookupID == dumpID }) else { return nil }
    self = type
  }
}
