@_spi(Internals) import SluiceCore

/// Chat messages in Sluice's own format (`MessageDTO`; JSON array, NDJSON, or XML with
/// `--format xml --record-path messages.message`) → the shared `MessageTables`.
///
/// Ids are unique within a conversation: a message's key is `<conversationId>/<id>`
/// (`Message.scopedID`), and so is `replyTo`'s. A `type` this version does not know is
/// `unsupportedEnumValue` at `type`, with the type's name as the value: a strict run
/// fails, a lenient one skips the record, and the drift summary counts each new kind by name.
/// An attachment of an unknown type fails the record at `attachments[n].type`, or, with the
/// policy's `lenientArrays`, is dropped and reported as a warning at that path.
public struct MessagesDataset: Dataset {
  public init() {}

  public var name: String { "messages" }
  public var summary: String {
    "chat messages (text, image, file, system) → conversations, senders, messages, a table per kind"
  }
  public var schema: Schema { MessageTables.schema }

  /// The longest kind name an issue carries: a name, never a record's content.
  static let longestKindName = 64

  static let idNotBlank = ValidationRule(
    "id is not blank", message: "must not be blank", constraints: [.notBlank(at: "id")])
  static let conversationNotBlank = ValidationRule(
    "conversationId is not blank", message: "must not be blank", constraints: [.notBlank(at: "conversationId")])
  static let senderNotBlank = ValidationRule(
    "sender, when given, is not blank", message: "must not be blank", constraints: [.notBlank(at: "sender")])
  static let senderNameHasSender = ValidationRule(
    "senderName comes with a sender", message: "names a sender the message does not give (no sender)",
    constraints: [.unexpressed("a cross-field rule: a senderName needs a sender that is not null", at: "senderName")])
  static let replyToNotBlank = ValidationRule(
    "replyTo, when given, is not blank", message: "must not be blank", constraints: [.notBlank(at: "replyTo")])
  static let textNotBlank = ValidationRule(
    "text messages have text", message: "must not be blank",
    constraints: [.notBlank(at: "text").when("type", is: "text")])
  static let urlNotBlank = ValidationRule(
    "images have a URL", message: "must not be blank",
    constraints: [
      .notBlank(at: "url").when("type", is: "image"),
      .notBlank(at: "attachments[].url").when("attachments[].type", is: "image"),
    ])
  static let dimensionsPositive = ValidationRule(
    "image dimensions are at least 1", code: .outOfRange, message: "must be at least 1",
    constraints: ["width", "height"].flatMap {
      [
        .atLeast(1, at: $0).when("type", is: "image"),
        .atLeast(1, at: "attachments[].\($0)").when("attachments[].type", is: "image"),
      ]
    })
  static let fileNameNotBlank = ValidationRule(
    "files have a name", message: "must not be blank",
    constraints: [
      .notBlank(at: "name").when("type", is: "file"),
      .notBlank(at: "attachments[].name").when("attachments[].type", is: "file"),
    ])
  static let sizeNotNegative = ValidationRule(
    "file sizes are not negative", code: .outOfRange, message: "must not be negative",
    constraints: [
      .atLeast(0, at: "sizeBytes").when("type", is: "file"),
      .atLeast(0, at: "attachments[].sizeBytes").when("attachments[].type", is: "file"),
    ])
  static let eventNotBlank = ValidationRule(
    "system messages name their event", message: "must not be blank",
    constraints: [.notBlank(at: "event").when("type", is: "system")])

  public var rules: [ValidationRule] {
    [
      Self.idNotBlank, Self.conversationNotBlank, Self.senderNotBlank, Self.senderNameHasSender, Self.replyToNotBlank,
      Self.textNotBlank,
      Self.urlNotBlank, Self.dimensionsPositive, Self.fileNameNotBlank, Self.sizeNotNegative, Self.eventNotBlank,
    ]
  }

  /// The map stage reads `type` as a message's `MessageKind`, and an attachment's as image or
  /// file.
  public var recordConstraints: [FieldConstraint] {
    [
      .oneOf(MessageKind.messageKinds.map(\.rawValue), at: "type"),
      .oneOf(["image", "file"], at: "attachments[].type"),
    ]
  }

  public func validate(_ message: MessageDTO, into validation: inout Validation) {
    validation.checkNotBlank(Self.idNotBlank, message.id, at: "id")
    validation.checkNotBlank(Self.conversationNotBlank, message.conversationId, at: "conversationId")
    if let sender = message.sender { validation.checkNotBlank(Self.senderNotBlank, sender, at: "sender") }
    validation.check(Self.senderNameHasSender, message.senderName == nil || message.sender != nil, at: "senderName")
    if let replyTo = message.replyTo { validation.checkNotBlank(Self.replyToNotBlank, replyTo, at: "replyTo") }
    switch message.content {
    case .text(let text): validation.checkNotBlank(Self.textNotBlank, text.text, at: "text")
    case .image(let image): validate(image, at: "", into: &validation)
    case .file(let file): validate(file, at: "", into: &validation)
    case .system(let system): validation.checkNotBlank(Self.eventNotBlank, system.event, at: "event")
    case .unknown: break  // the map stage names it
    }
    for (index, attachment) in (message.attachments ?? []).enumerated() {
      switch attachment {
      case .image(let image): validate(image, at: "attachments[\(index)].", into: &validation)
      case .file(let file): validate(file, at: "attachments[\(index)].", into: &validation)
      case .unknown: break
      }
    }
  }

  private func validate(_ image: ImageDTO, at prefix: String, into validation: inout Validation) {
    validation.checkNotBlank(Self.urlNotBlank, image.url, at: prefix + "url")
    if let width = image.width { validation.check(Self.dimensionsPositive, width >= 1, at: prefix + "width") }
    if let height = image.height { validation.check(Self.dimensionsPositive, height >= 1, at: prefix + "height") }
  }

  private func validate(_ file: FileDTO, at prefix: String, into validation: inout Validation) {
    validation.checkNotBlank(Self.fileNameNotBlank, file.name, at: prefix + "name")
    if let size = file.sizeBytes { validation.check(Self.sizeNotNegative, size >= 0, at: prefix + "sizeBytes") }
  }

  public func map(_ message: MessageDTO, context: inout MappingContext) throws(MappingError) -> Message {
    let content: MessageContent
    switch message.content {
    case .text(let text): content = .text(text.text)
    case .image(let image): content = .image(Self.image(image))
    case .file(let file): content = .file(Self.file(file))
    case .system(let system): content = .system(SystemContent(event: system.event, text: system.text))
    case .unknown(let type):
      throw MappingError(
        code: .unsupportedEnumValue, path: "type",
        message: "not a message kind this version knows (\(MessageKind.names))",
        value: String(type.prefix(Self.longestKindName)))
    }
    var attachments: [MessageAttachment] = []
    for (index, attachment) in (message.attachments ?? []).enumerated() {
      switch attachment {
      case .image(let image): attachments.append(.image(Self.image(image)))
      case .file(let file): attachments.append(.file(Self.file(file)))
      case .unknown(let type):
        try context.drop(
          at: "attachments[\(index)].type", "not an attachment kind this version knows (image, file)",
          value: String(type.prefix(Self.longestKindName)))
      }
    }
    let conversation = message.conversationId
    return Message(
      id: Message.scopedID(message.id, in: conversation),
      conversation: Conversation(id: conversation, name: message.conversationName),
      sender: message.sender.map { Sender(id: $0, name: message.senderName) }, sentAt: Timestamp(message.sentAt),
      replyTo: message.replyTo.map { Message.scopedID($0, in: conversation) }, content: content,
      attachments: attachments)
  }

  public func rows(for message: Message, into rows: inout RecordRows) {
    MessageTables.rows(for: message, into: &rows)
  }

  private static func image(_ image: ImageDTO) -> ImageContent {
    ImageContent(url: image.url, caption: image.caption, width: image.width, height: image.height)
  }

  private static func file(_ file: FileDTO) -> FileContent {
    FileContent(name: file.name, url: file.url, mimeType: file.mimeType, sizeBytes: file.sizeBytes)
  }
}
