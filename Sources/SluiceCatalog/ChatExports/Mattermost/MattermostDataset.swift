import SluiceCore

/// A Mattermost bulk export (NDJSON) → the shared message tables. Each line's `type` names the
/// key of its payload:
///
/// - `post`: a message, and each of its `replies` a message replying to it — one record, several
///   messages. Posts have no ids: a message's key is its time and author in its channel
///   (`mattermost:gryffindor:general/1553166657086:harry`), which a re-export keeps.
/// - `channel`: a conversation, keyed by team and name (a channel's name is unique within its
///   team), named by its display name.
/// - `user`: a sender, keyed by username, named by first and last name.
/// - `version`, `team`, `emoji`: skipped by design (`MappingError.skipped`), counted as such.
///
/// A post's `type` is empty for a person's post (or `slack_attachment`); Mattermost's own
/// events are `system_…` (`system_join_channel`), mapped to system messages with the type as the
/// event. Any other line or post type is `unsupportedEnumValue` at its path.
public struct MattermostDataset: Dataset {
  public init() {}

  public var name: String { "mattermost" }
  public var summary: String { "Mattermost bulk export (NDJSON) → messages, senders, conversations" }
  public var schema: Schema { MessageTables.schema }

  static let export = "mattermost"
  static let skippedLines: Set<String> = ["version", "team", "emoji"]
  static let lineTypes = "channel, emoji, post, team, user, version"

  /// What one line becomes.
  public enum Record: Sendable {
    /// A post and its replies.
    case messages([Message])
    case sender(Sender)
    case conversation(Conversation)
  }

  static let payloadPresent = ValidationRule(
    "Mattermost lines carry the payload their type names", code: .missingField,
    message: "the line's type names this key, which the line lacks")
  static let timeInRange = ValidationRule(
    "Mattermost create_at values are milliseconds in years 1…9999", code: .outOfRange,
    message: "must be milliseconds since 1970 within years 1…9999")

  public var rules: [ValidationRule] { [Self.payloadPresent, Self.timeInRange] }

  public func validate(_ line: Mattermost.LineDTO, into validation: inout Validation) {
    switch line.type {
    case "post":
      guard let post = line.post else { return validation.check(Self.payloadPresent, false, at: "post") }
      validation.check(Self.timeInRange, ChatExport.isEpochMilliseconds(post.createAt), at: "post.create_at")
      for (index, reply) in (post.replies ?? []).enumerated() {
        validation.check(Self.timeInRange, ChatExport.isEpochMilliseconds(reply.createAt), at: "post.replies[\(index)].create_at")
      }
    case "user": validation.check(Self.payloadPresent, line.user != nil, at: "user")
    case "channel": validation.check(Self.payloadPresent, line.channel != nil, at: "channel")
    case "version": validation.check(Self.payloadPresent, line.version != nil, at: "version")
    case "team": validation.check(Self.payloadPresent, line.team != nil, at: "team")
    case "emoji": validation.check(Self.payloadPresent, line.emoji != nil, at: "emoji")
    default: break
    }
  }

  public func map(_ line: Mattermost.LineDTO) throws(MappingError) -> Record {
    if Self.skippedLines.contains(line.type) { throw .skipped("\(line.type) line") }
    switch (line.type, line.post, line.user, line.channel) {
    case ("post", let post?, _, _):
      return .messages(try Self.messages(of: post))
    case ("user", _, let user?, _):
      let fullName = [user.firstName ?? "", user.lastName ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
      return .sender(
        ChatExport.sender(
          Self.export, user.username,
          name: ChatExport.nonEmpty(fullName) ?? ChatExport.nonEmpty(user.nickname) ?? user.username))
    case ("channel", _, _, let channel?):
      return .conversation(
        Conversation(id: Self.conversation(team: channel.team, channel: channel.name), name: channel.displayName))
    case ("post", _, _, _), ("user", _, _, _), ("channel", _, _, _):
      throw MappingError(code: .missingField, path: line.type, message: Self.payloadPresent.message)
    default:
      throw ChatExport.unsupported(line.type, at: "type", known: Self.lineTypes, what: "a Mattermost line type")
    }
  }

  public func rows(for record: Record, into rows: inout RecordRows) {
    switch record {
    case .messages(let messages):
      for message in messages { MessageTables.rows(for: message, into: &rows) }
    case .sender(let sender):
      rows.merge(MessageTables.senders, sender.id, sender.name.map(Patch.set) ?? .unchanged)
    case .conversation(let conversation):
      rows.merge(MessageTables.conversations, conversation.id, conversation.name.map(Patch.set) ?? .unchanged)
    }
  }

  /// `mattermost:<team>:<channel>`: Mattermost's names are lowercase letters, digits, `-` and
  /// `_`, so the colon cannot occur in either.
  static func conversation(team: String, channel: String) -> String {
    ChatExport.key(export, team + ":" + channel)
  }

  /// The post, then its replies, each replying to the post.
  static func messages(of post: Mattermost.PostDTO) throws(MappingError) -> [Message] {
    let conversation = Conversation(id: conversation(team: post.team, channel: post.channel))
    let root = Message(
      id: Message.scopedID("\(post.createAt):\(post.user)", in: conversation.id), conversation: conversation,
      sender: ChatExport.sender(export, post.user), sentAt: ChatExport.timestamp(milliseconds: post.createAt),
      content: try content(post.message, type: post.type, at: "post.type"),
      attachments: (post.attachments ?? []).map(attachment))
    var messages = [root]
    for (index, reply) in (post.replies ?? []).enumerated() {
      messages.append(
        Message(
          id: Message.scopedID("\(reply.createAt):\(reply.user)", in: conversation.id), conversation: conversation,
          sender: ChatExport.sender(export, reply.user), sentAt: ChatExport.timestamp(milliseconds: reply.createAt),
          replyTo: root.id, content: try content(reply.message, type: reply.type, at: "post.replies[\(index)].type"),
          attachments: (reply.attachments ?? []).map(attachment)))
    }
    return messages
  }

  static func content(_ message: String, type: String?, at path: String) throws(MappingError) -> MessageContent {
    switch type {
    case nil, "", "slack_attachment":
      return .text(message)
    case let event? where event.hasPrefix("system_"):
      return .system(SystemContent(event: event, text: ChatExport.nonEmpty(message)))
    case let other?:
      throw ChatExport.unsupported(other, at: path, known: "none, slack_attachment, system_…")
    }
  }

  static func attachment(_ attachment: Mattermost.AttachmentDTO) -> MessageAttachment {
    if ChatExport.isImage(fileName: attachment.path) {
      return .image(ImageContent(url: attachment.path))
    }
    let name = attachment.path.split(separator: "/").last.map(String.init) ?? attachment.path
    return .file(FileContent(name: name, url: attachment.path))
  }
}
