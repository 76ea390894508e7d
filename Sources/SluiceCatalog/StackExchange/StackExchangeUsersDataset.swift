@_spi(Internals) import SluiceCore

/// Users.xml → `users`. Loads first: every other file names users.
public struct StackExchangeUsersDataset: Dataset {
  public init() {}

  public var name: String { "stackexchange-users" }
  public var summary: String { "Stack Exchange dump Users.xml → users" }
  public var schema: Schema { StackExchange.Tables.schema }

  static let displayNameNotBlank = ValidationRule(
    "user display names are not blank", message: "must not be blank", constraints: [.notBlank(at: "DisplayName")])
  public var rules: [ValidationRule] { [Self.displayNameNotBlank] }

  public func validate(_ user: StackExchange.UserDTO, into validation: inout Validation) {
    validation.checkNotBlank(Self.displayNameNotBlank, user.displayName, at: "DisplayName")
  }

  /// What the mapping reads the dump's text as.
  public var recordConstraints: [FieldConstraint] {
    StackExchange.timestampConstraints(at: "CreationDate", "LastAccessDate")
  }
  public func map(_ user: StackExchange.UserDTO, context _: inout MappingContext) throws(MappingError)
    -> StackExchange.User
  {
    StackExchange.User(
      id: user.id, accountID: user.accountID, reputation: user.reputation, displayName: user.displayName,
      creationDate: try StackExchange.timestamp(user.creationDate, at: "CreationDate"),
      lastAccessDate: try StackExchange.timestamp(user.lastAccessDate, at: "LastAccessDate"),
      location: user.location, websiteURL: user.websiteURL, aboutMe: user.aboutMe,
      profileImageURL: user.profileImageURL, views: user.views, upVotes: user.upVotes, downVotes: user.downVotes)
  }

  public func rows(for user: StackExchange.User, into rows: inout RecordRows) {
    rows.add(
      StackExchange.Tables.users, user.id, user.accountID, user.reputation, user.displayName, user.creationDate,
      user.lastAccessDate, user.location, user.websiteURL, user.aboutMe, user.profileImageURL, user.views,
      user.upVotes, user.downVotes)
  }
}
