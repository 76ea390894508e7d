@_spi(Internals) import SluiceCore

/// A Slack export's `file_conversations.json` (2024 on) → `conversations`: the conversations
/// about one file each — a canvas's comments — whose day files sit in a folder named
/// `FC_<file id>_<title>`, listed the way `channels.json` lists channels (`id`, `name`,
/// `created`, `creator`, `members`, `topic`, `purpose`).
///
/// Like a channel, such a conversation is keyed by its `name`, the folder its day files sit in
/// (`slack:FC_F05JM5XK9SL_My notes`), and named by it. Exports without file conversations have
/// no such file, so `Pipelines/slack.json` lists it as an optional input.
public struct SlackFileConversationsDataset: Dataset {
  public init() {}

  public var name: String { "slack-file-conversations" }
  public var summary: String { "Slack export file_conversations.json → conversations" }
  public var schema: Schema { MessageTables.schema }

  public var rules: [ValidationRule] { [SlackChannelsDataset.nameNotBlank] }

  public func validate(_ conversation: Slack.ChannelDTO, into validation: inout Validation) {
    SlackChannelsDataset().validate(conversation, into: &validation)
  }

  public func map(_ conversation: Slack.ChannelDTO, context: inout MappingContext) throws(MappingError)
    -> Conversation
  {
    try SlackChannelsDataset().map(conversation, context: &context)
  }

  public func rows(for conversation: Conversation, into rows: inout RecordRows) {
    SlackChannelsDataset().rows(for: conversation, into: &rows)
  }
}
