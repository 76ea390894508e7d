@_spi(Internals) import SluiceCore

/// A Slack export's `file_conversations.json` (2024 on) → `conversations`: the conversations
/// about one file each — a canvas's comments — whose day files sit in a folder named
/// `FC_<file id>_<title>`, listed the way `channels.json` lists channels (`id`, `name`,
/// `created`, `creator`, `members`, `topic`, `purpose`).
///
/// Like a channel, such a conversation is keyed by the folder its day files sit in
/// (`slack:FC_F05JM5XK9SL_My notes`) and named by its listed `name` — which a 2025 export writes
/// `FC:F05JM5XK9SL:My notes`, its folder's name with `:` where the folder has `_`
/// (`Slack.folder(of:)`): keyed by the listed name, its messages went to another, unnamed
/// conversation. Exports without file conversations have no such file, so
/// `Pipelines/slack.json` lists it as an optional input.
public struct SlackFileConversationsDataset: Dataset {
  public init() {}

  public var name: String { "slack-file-conversations" }
  public var summary: String { "Slack export file_conversations.json → conversations" }
  public var schema: Schema { MessageTables.schema }

  public var rules: [ValidationRule] { [SlackChannelsDataset.nameNotBlank] }

  public func validate(_ conversation: Slack.ChannelDTO, into validation: inout Validation) {
    SlackChannelsDataset().validate(conversation, into: &validation)
  }

  public func map(_ conversation: Slack.ChannelDTO, context _: inout MappingContext) throws(MappingError)
    -> Conversation
  {
    Conversation(id: ChatExport.key(Slack.export, Slack.folder(of: conversation.name)), name: conversation.name)
  }

  public func rows(for conversation: Conversation, into rows: inout RecordRows) {
    SlackChannelsDataset().rows(for: conversation, into: &rows)
  }
}
