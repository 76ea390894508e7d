@_spi(Internals) import SluiceCore

/// A Slack export's `channels.json` → `conversations`, keyed by the channel's name
/// (`slack:general`) — the name of the folder its day files sit in, which is all a day file's
/// messages know of their channel.
public struct SlackChannelsDataset: Dataset {
  public init() {}

  public var name: String { "slack-channels" }
  public var summary: String { "Slack export channels.json → conversations" }
  public var schema: Schema { MessageTables.schema }

  static let nameNotBlank = ValidationRule(
    "Slack channel names are not blank", message: "must not be blank", constraints: [.notBlank(at: "name")])
  public var rules: [ValidationRule] { [Self.nameNotBlank] }

  public func validate(_ channel: Slack.ChannelDTO, into validation: inout Validation) {
    validation.checkNotBlank(Self.nameNotBlank, channel.name, at: "name")
  }

  public func map(_ channel: Slack.ChannelDTO, context _: inout MappingContext) throws(MappingError) -> Conversation {
    Conversation(id: ChatExport.key(Slack.export, channel.name), name: channel.name)
  }

  public func rows(for conversation: Conversation, into rows: inout RecordRows) {
    rows.merge(MessageTables.conversations, conversation.id, conversation.name.map(Patch.set) ?? .unchanged)
  }
}
