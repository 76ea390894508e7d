@_spi(Internals) import SluiceCore

/// Badges.xml → `badges`. A badge of a user the dump lacks is an `orphanReference`.
public struct StackExchangeBadgesDataset: Dataset {
  public init() {}

  public var name: String { "stackexchange-badges" }
  public var summary: String { "Stack Exchange dump Badges.xml → badges" }
  public var schema: Schema { StackExchange.Tables.schema }

  static let classIsKnown = ValidationRule(
    "badge classes are 1 (gold), 2 (silver) or 3 (bronze)", code: .outOfRange, message: "must be 1, 2 or 3",
    constraints: [.range(1...3, at: "Class")])
  public var rules: [ValidationRule] { [Self.classIsKnown] }

  public func validate(_ badge: StackExchange.BadgeDTO, into validation: inout Validation) {
    validation.checkRange(Self.classIsKnown, badge.badgeClass, 1...3, at: "Class")
  }

  /// What the mapping reads the dump's text as.
  public var recordConstraints: [FieldConstraint] {
    StackExchange.timestampConstraints(at: "Date")
  }
  public func map(_ badge: StackExchange.BadgeDTO, context _: inout MappingContext) throws(MappingError)
    -> StackExchange.Badge
  {
    StackExchange.Badge(
      id: badge.id, userID: badge.userID, name: badge.name, date: try StackExchange.timestamp(badge.date, at: "Date"),
      badgeClass: badge.badgeClass, isTagBased: badge.tagBased)
  }

  public func rows(for badge: StackExchange.Badge, into rows: inout RecordRows) {
    rows.add(
      StackExchange.Tables.badges, badge.id, badge.userID, badge.name, badge.date, badge.badgeClass, badge.isTagBased)
  }
}
