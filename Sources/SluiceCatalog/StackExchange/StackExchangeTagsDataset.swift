@_spi(Internals) import SluiceCore

/// Tags.xml → `tags`. Loads before Posts.xml, whose `post_tags` name tags by name.
public struct StackExchangeTagsDataset: Dataset {
  public init() {}

  public var name: String { "stackexchange-tags" }
  public var summary: String { "Stack Exchange dump Tags.xml → tags" }
  public var schema: Schema { StackExchange.Tables.schema }

  static let nameIsTagName = ValidationRule(
    "tag names are not blank and hold no angle brackets",
    message: "must be a tag name: not blank, no < or > (posts list their tags in angle brackets)",
    constraints: [.pattern("^[^<>\\s]+$", at: "TagName")])
  public var rules: [ValidationRule] { [Self.nameIsTagName] }

  public func validate(_ tag: StackExchange.TagDTO, into validation: inout Validation) {
    validation.checkCharacters(
      Self.nameIsTagName, tag.tagName, length: 1...Int.max,
      where: { $0 != "<" && $0 != ">" && !$0.properties.isWhitespace },
      at: "TagName")
  }

  public func map(_ tag: StackExchange.TagDTO, context _: inout MappingContext) throws(MappingError)
    -> StackExchange.Tag
  {
    StackExchange.Tag(
      id: tag.id, name: tag.tagName, count: tag.count, excerptPostID: tag.excerptPostID, wikiPostID: tag.wikiPostID,
      isModeratorOnly: tag.isModeratorOnly, isRequired: tag.isRequired)
  }

  public func rows(for tag: StackExchange.Tag, into rows: inout RecordRows) {
    rows.add(
      StackExchange.Tables.tags, tag.name, tag.id, tag.count, tag.excerptPostID, tag.wikiPostID, tag.isModeratorOnly,
      tag.isRequired)
  }
}
