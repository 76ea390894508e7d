@_spi(Internals) import SluiceCore

/// A Slack export's `users.json` → `senders` (`slack:U0BMYT2FL`), named by the user's
/// `real_name`, or by their `name` (the handle) when that is empty. It loads before the day
/// files, whose messages name their senders by id only.
public struct SlackUsersDataset: Dataset {
  public init() {}

  public var name: String { "slack-users" }
  public var summary: String { "Slack export users.json → senders" }
  public var schema: Schema { MessageTables.schema }

  public func validate(_ user: Slack.UserDTO, into validation: inout Validation) {}

  public func map(_ user: Slack.UserDTO, context _: inout MappingContext) throws(MappingError) -> Sender {
    ChatExport.sender(Slack.export, user.id, name: ChatExport.nonEmpty(user.realName) ?? user.name)
  }

  public func rows(for sender: Sender, into rows: inout RecordRows) {
    rows.merge(MessageTables.senders, sender.id, sender.name.map(Patch.set) ?? .unchanged)
  }
}
