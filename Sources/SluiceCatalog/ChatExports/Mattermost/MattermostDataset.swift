@_spi(Internals) import SluiceCore

/// A Mattermost bulk export (NDJSON) → the shared message tables. Each line's `type` names the
/// key of its payload:
///
/// - `post`: a message, and each of its `replies` a message replying to it — one record, several
///   messages. Posts have no ids: a message's key is its time and author in its channel
///   (`mattermost:gryffindor:general/1553166657086:harry`), which a re-export keeps.
/// - `channel`: a conversation, keyed by team and name (a channel's name is unique within its
///   team), named by its display name.
/// - `user`: a sender, keyed by username, named by first and last name; `bot` (newer exports)
///   a sender keyed by its username too, named by its display name.
/// - `direct_channel`: a direct or group message conversation. It has no name of its own, only
///   its members (`members`, or in newer exports `participants`' usernames), so its key is their usernames, sorted, each percent-escaped and joined by `,`
///   (`mattermost:@harry,ron`; see `directConversation(members:)`), and its name is theirs
///   (`harry, ron`).
/// - `direct_post`: a message in the conversation its `channel_members` name, keyed like a
///   post, with its `replies` — so a direct post and its channel line meet whatever the order.
/// - `version`, `role`, `scheme`, `team`, `emoji`: skipped by design (`MappingError.skipped`),
///   counted as such.
///
/// A post's `type` is empty for a person's post (or `slack_attachment`); Mattermost's own
/// events are `system_…` (`system_join_channel`), mapped to system messages with the type as the
/// event. Any other line or post type is `unsupportedEnumValue` at its path.
///
/// Line types and payloads follow Mattermost's importer (`server/channels/app/imports/
/// import_types.go`); the format is documented at docs.mattermost.com, "Bulk loading data".
public struct MattermostDataset: Dataset {
  public init() {}

  public var name: String { "mattermost" }
  public var summary: String { "Mattermost bulk export (NDJSON) → messages, senders, conversations" }
  public var schema: Schema { MessageTables.schema }

  static let export = "mattermost"
  static let skippedLines: Set<String> = ["version", "role", "scheme", "team", "emoji"]
  static let lineTypes = "bot, channel, direct_channel, direct_post, emoji, post, role, scheme, team, user, version"

  /// What one line becomes.
  public enum Record: Sendable {
    /// A post and its replies.
    case messages([Message])
    case sender(Sender)
    case conversation(Conversation)
  }

  static let payloadPresent = ValidationRule(
    "Mattermost lines carry the payload their type names", code: .missingField,
    message: "the line's type names this key, which the line lacks",
    constraints: [
      "post", "direct_post", "direct_channel", "user", "bot", "channel", "version", "role", "scheme", "team", "emoji",
    ].map {
      .present(at: $0).when("type", is: $0)
    })
  /// Milliseconds whose whole seconds (rounded toward zero) are in `ChatExport.epochSeconds`.
  static let timeInRange = ValidationRule(
    "Mattermost create_at values are milliseconds in years 1…9999", code: .outOfRange,
    message: "must be milliseconds since 1970 within years 1…9999",
    constraints: ["post", "direct_post"].flatMap { kind in
      ["\(kind).create_at", "\(kind).replies[].create_at"].map {
        .range(-62_135_596_800_999...253_402_300_799_999, at: $0).when("type", is: kind)
      }
    })

  static let membersNamed = ValidationRule(
    "Mattermost direct channels name their members", code: .missingField,
    message: "a direct channel or direct post must name at least one member, none blank",
    constraints: [("direct_post", "channel_members"), ("direct_channel", "members")].flatMap { kind, key in
      [
        .nonEmpty(at: "\(kind).\(key)").when("type", is: kind),
        .notBlank(at: "\(kind).\(key)[]").when("type", is: kind),
      ]
    })

  public var rules: [ValidationRule] { [Self.payloadPresent, Self.timeInRange, Self.membersNamed] }

  /// The map stage knows these line types, and a post's `type` only when it is none,
  /// `slack_attachment` or a `system_` event.
  public var recordConstraints: [FieldConstraint] {
    [.oneOf(Self.lineTypes.components(separatedBy: ", "), at: "type")]
      + ["post", "direct_post"].flatMap { kind in
        ["\(kind).type", "\(kind).replies[].type"].map { .pattern("^(slack_attachment|system_.*)?$", at: $0) }
      }
  }

  public func validate(_ line: Mattermost.LineDTO, into validation: inout Validation) {
    switch line.type {
    case "post":
      guard let post = line.post else { return validation.check(Self.payloadPresent, false, at: "post") }
      validation.check(Self.timeInRange, ChatExport.isEpochMilliseconds(post.createAt), at: "post.create_at")
      for (index, reply) in (post.replies ?? []).enumerated() {
        validation.check(
          Self.timeInRange, ChatExport.isEpochMilliseconds(reply.createAt), at: "post.replies[\(index)].create_at")
      }
    case "direct_post":
      guard let post = line.directPost else { return validation.check(Self.payloadPresent, false, at: "direct_post") }
      validation.check(Self.membersNamed, Self.areMembers(post.channelMembers), at: "direct_post.channel_members")
      validation.check(Self.timeInRange, ChatExport.isEpochMilliseconds(post.createAt), at: "direct_post.create_at")
      for (index, reply) in (post.replies ?? []).enumerated() {
        validation.check(
          Self.timeInRange, ChatExport.isEpochMilliseconds(reply.createAt),
          at: "direct_post.replies[\(index)].create_at")
      }
    case "direct_channel":
      guard let channel = line.directChannel else {
        return validation.check(Self.payloadPresent, false, at: "direct_channel")
      }
      validation.check(
        Self.membersNamed, Self.areMembers(channel.memberNames),
        at: channel.members == nil && channel.participants != nil
          ? "direct_channel.participants" : "direct_channel.members")
    case "user": validation.check(Self.payloadPresent, line.user != nil, at: "user")
    case "bot": validation.check(Self.payloadPresent, line.bot != nil, at: "bot")
    case "role": validation.check(Self.payloadPresent, line.role != nil, at: "role")
    case "scheme": validation.check(Self.payloadPresent, line.scheme != nil, at: "scheme")
    case "channel": validation.check(Self.payloadPresent, line.channel != nil, at: "channel")
    case "version": validation.check(Self.payloadPresent, line.version != nil, at: "version")
    case "team": validation.check(Self.payloadPresent, line.team != nil, at: "team")
    case "emoji": validation.check(Self.payloadPresent, line.emoji != nil, at: "emoji")
    default: break
    }
  }

  public func map(_ line: Mattermost.LineDTO, context _: inout MappingContext) throws(MappingError) -> Record {
    if Self.skippedLines.contains(line.type) { throw .skipped("\(line.type) line") }
    switch (line.type, line.post, line.user, line.channel) {
    case ("post", let post?, _, _):
      return .messages(try Self.messages(of: post))
    case ("direct_post", _, _, _):
      guard let post = line.directPost else {
        throw MappingError(code: .missingField, path: line.type, message: Self.payloadPresent.message)
      }
      return .messages(try Self.messages(of: post))
    case ("direct_channel", _, _, _):
      guard let channel = line.directChannel else {
        throw MappingError(code: .missingField, path: line.type, message: Self.payloadPresent.message)
      }
      return .conversation(Self.directConversation(members: channel.memberNames))
    case ("user", _, let user?, _):
      let fullName = [user.firstName ?? "", user.lastName ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
      return .sender(
        ChatExport.sender(
          Self.export, user.username,
          name: ChatExport.nonEmpty(fullName) ?? ChatExport.nonEmpty(user.nickname) ?? user.username))
    case ("bot", _, _, _):
      guard let bot = line.bot else {
        throw MappingError(code: .missingField, path: line.type, message: Self.payloadPresent.message)
      }
      return .sender(
        ChatExport.sender(Self.export, bot.username, name: ChatExport.nonEmpty(bot.displayName) ?? bot.username))
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

  /// Whether a member list names someone, and no one blank.
  static func areMembers(_ members: [String]) -> Bool {
    !members.isEmpty && members.allSatisfy { !$0.allSatisfy(\.isWhitespace) }
  }

  /// A direct or group message conversation, by its members, in any order and counted once (a
  /// direct message with oneself lists the user twice): `mattermost:@ginny,harry,ron`, named
  /// `ginny, harry, ron`.
  ///
  /// Collision-free: Mattermost usernames are lowercase letters, digits, `.`, `-` and `_`, but
  /// the key does not rely on it — `%`, `,` and `:` in a username are percent-escaped, so `,`
  /// always separates members, and the `@` (which no team name holds) keeps these keys apart
  /// from channels' `mattermost:<team>:<channel>`.
  public static func directConversation(members: [String]) -> Conversation {
    let sorted = Set(members).sorted()
    let escaped = sorted.map { member in
      member.unicodeScalars.map { scalar in
        switch scalar {
        case "%": "%25"
        case ",": "%2C"
        case ":": "%3A"
        default: String(scalar)
        }
      }.joined()
    }
    return Conversation(
      id: ChatExport.key(export, "@" + escaped.joined(separator: ",")), name: sorted.joined(separator: ", "))
  }

  /// The post, then its replies, each replying to the post.
  static func messages(of post: Mattermost.PostDTO) throws(MappingError) -> [Message] {
    try messages(
      in: Conversation(id: conversation(team: post.team, channel: post.channel)), user: post.user,
      message: post.message, type: post.type, createAt: post.createAt, attachments: post.attachments,
      replies: post.replies, at: "post")
  }

  /// A direct post, then its replies, in the conversation its members make. The conversation's
  /// name comes with it, so a direct post whose `direct_channel` line is missing is still named.
  static func messages(of post: Mattermost.DirectPostDTO) throws(MappingError) -> [Message] {
    try messages(
      in: directConversation(members: post.channelMembers), user: post.user, message: post.message, type: post.type,
      createAt: post.createAt, attachments: post.attachments, replies: post.replies, at: "direct_post")
  }

  private static func messages(
    in conversation: Conversation, user: String, message: String, type: String?, createAt: Int64,
    attachments: [Mattermost.AttachmentDTO]?, replies: [Mattermost.ReplyDTO]?, at path: String
  ) throws(MappingError) -> [Message] {
    let root = Message(
      id: Message.scopedID("\(createAt):\(user)", in: conversation.id), conversation: conversation,
      sender: ChatExport.sender(export, user), sentAt: ChatExport.timestamp(milliseconds: createAt),
      content: try content(message, type: type, at: path + ".type"), attachments: (attachments ?? []).map(attachment))
    var messages = [root]
    for (index, reply) in (replies ?? []).enumerated() {
      messages.append(
        Message(
          id: Message.scopedID("\(reply.createAt):\(reply.user)", in: conversation.id), conversation: conversation,
          sender: ChatExport.sender(export, reply.user), sentAt: ChatExport.timestamp(milliseconds: reply.createAt),
          replyTo: root.id, content: try content(reply.message, type: reply.type, at: "\(path).replies[\(index)].type"),
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
