@_spi(Internals) import SluiceCore

/// What a post is (`PostTypeId`). It owns the `post_types` table; the ids are the dump's own, as
/// documented in "Database schema documentation for the public data dump and SEDE" on Meta Stack
/// Exchange: 1–8 in every dump, 9–15 in newer ones (articles, help articles, collections,
/// moderator questionnaires, announcements, collective discussions). A type this version does not
/// know (the documentation has named 16 and 17 for collective collections at different times) is
/// `unsupportedEnumValue`, never a guess.
public enum PostType: String, LookupEnum {
  case question = "Question"
  case answer = "Answer"
  case orphanedTagWiki = "OrphanedTagWiki"
  case tagWikiExcerpt = "TagWikiExcerpt"
  case tagWiki = "TagWiki"
  case moderatorNomination = "ModeratorNomination"
  case wikiPlaceholder = "WikiPlaceholder"
  case privilegeWiki = "PrivilegeWiki"
  case article = "Article"
  case helpArticle = "HelpArticle"
  case collection = "Collection"
  case moderatorQuestionnaireResponse = "ModeratorQuestionnaireResponse"
  case announcement = "Announcement"
  case collectiveDiscussion = "CollectiveDiscussion"

  public static var lookupTable: String { "post_types" }

  public var lookupID: Int64 {
    switch self {
    case .question: 1
    case .answer: 2
    case .orphanedTagWiki: 3
    case .tagWikiExcerpt: 4
    case .tagWiki: 5
    case .moderatorNomination: 6
    case .wikiPlaceholder: 7
    case .privilegeWiki: 8
    case .article: 9
    case .helpArticle: 10
    case .collection: 12
    case .moderatorQuestionnaireResponse: 13
    case .announcement: 14
    case .collectiveDiscussion: 15
    }
  }

  /// The case with the dump's id, or nil.
  public init?(dumpID: Int64) {
    guard let type = Self.allCases.first(where: { $0.lookupID == dumpID }) else { return nil }
    self = type
  }
}
