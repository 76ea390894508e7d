@_spi(Internals) import SluiceCore

/// A Facebook Messenger conversation export (JSON, records at `messages`) → the shared message
/// tables.
///
/// **The conversation comes from the file's place.** The file's `title` comes after
/// `messages` (a stream cannot look ahead), so Messenger's own layout decides the key: a thread
/// is a folder (`inbox/<thread>/message_1.json`, `message_2.json`, …), so a file named
/// `message_<n>.json` belongs to the conversation of its folder; a file named otherwise is a
/// conversation of its own, keyed by its stem (`messenger:langchain_facebook_chat`). The
/// `title` names the conversation once the messages are read (`rowsAfterRecords`): a file
/// without one leaves the name as it is.
///
/// Messages have no ids and no sender ids: a sender is keyed by the name the export shows, a
/// message by its time and sender in its conversation (`…/1675597571851:User 2`) — stable
/// across re-exports, which prepend newer messages and so shift positions.
///
/// Kinds: `photos`, `gifs` or a `sticker` → image (the first; the rest are attachments, with the
/// text as the caption); `videos`, `audio_files` or `files` → file; otherwise text: `content`,
/// or a share's link (or, a live location, its `share_text`) when there is no `content`, or ""
/// when there is neither (a message with only `reactions`, or an empty one: it was sent, so it
/// is kept). A `share`'s link is always a `link` attachment too, with its `share_text` as the
/// caption, so a reel shared with words keeps both. Messenger's `type` `Call`, `Subscribe` and
/// `Unsubscribe` are system events, and so is a message without a `type` (Instagram, newest
/// Messenger) that has a `call_duration` (event `Call`); an unsent message (`is_unsent: true`)
/// is the event `unsent`, its text gone. `Generic` and `Share` (or none) are decided by
/// content; any other type is `unsupportedEnumValue` at `type`.
///
/// **Text is stored as it was written.** Facebook's and Instagram's JSON exports write UTF-8 as
/// Latin-1 escapes (`"Ã©"` for `é`, four escapes for an emoji); names, text and file paths
/// are repaired (`repaired(_:)`) before they become keys or rows.
public struct MessengerDataset: Dataset {
  public init() {}

  public var name: String { "messenger" }
  public var summary: String { "Facebook Messenger JSON conversation export → messages, by kind" }
  public var schema: Schema { MessageTables.schema }

  static let export = "messenger"
  static let contentTypes: Set<String> = ["Generic", "Share"]
  static let systemTypes: Set<String> = ["Call", "Subscribe", "Unsubscribe"]
  /// The event of an unsent message.
  static let unsentEvent = "unsent"
  static let timeInRange = ValidationRule(
    "Messenger timestamp_ms values are milliseconds in years 1…9999", code: .outOfRange,
    message: "must be milliseconds since 1970 within years 1…9999",
    constraints: [.range(-62_135_596_800_999...253_402_300_799_999, at: "timestamp_ms")])
  static let senderNotBlank = ValidationRule(
    "Messenger sender names are not blank", message: "must not be blank", constraints: [.notBlank(at: "sender_name")])

  /// The map stage knows these types (a message without one is content).
  public var recordConstraints: [FieldConstraint] {
    [.oneOf(Self.contentTypes.sorted() + Self.systemTypes.sorted(), at: "type")]
  }

  public var rules: [ValidationRule] { [Self.timeInRange, Self.senderNotBlank] }

  public func validate(_ message: Messenger.MessageDTO, into validation: inout Validation) {
    validation.checkNotBlank(Self.senderNotBlank, message.senderName, at: "sender_name")
    validation.check(Self.timeInRange, ChatExport.isEpochMilliseconds(message.timestampMs), at: "timestamp_ms")
  }

  public func map(_ message: Messenger.MessageDTO, context: inout MappingContext) throws(MappingError) -> Message {
    let conversation = Conversation(
      id: ChatExport.key(Self.export, Self.conversation(path: context.inputPath, folder: context.folder)))
    let senderName = Self.repaired(message.senderName)
    let text = message.content.map(Self.repaired)
    let link = ChatExport.nonEmpty(message.share?.link.map(Self.repaired))
    let shareText = ChatExport.nonEmpty(message.share?.shareText.map(Self.repaired))
    let content: MessageContent
    var attachments: [MessageAttachment] = []
    switch message.type {
    case let type? where Self.systemTypes.contains(type):
      content = .system(SystemContent(event: type, text: ChatExport.nonEmpty(text)))
    case let type? where !Self.contentTypes.contains(type):
      throw ChatExport.unsupported(
        type, at: "type", known: (Self.contentTypes.sorted() + Self.systemTypes.sorted()).joined(separator: ", "))
    case _ where message.isUnsent == true:
      content = .system(SystemContent(event: Self.unsentEvent, text: ChatExport.nonEmpty(text)))
    case nil where message.callDuration != nil:
      content = .system(SystemContent(event: "Call", text: ChatExport.nonEmpty(text)))
    default:
      let media = Self.media(of: message)
      switch media.first {
      case .image(var image)?:
        image.caption = ChatExport.nonEmpty(text)
        content = .image(image)
        attachments = Array(media.dropFirst())
      case .file(let file)?:
        content = .file(file)
        attachments = Array(media.dropFirst())
      case nil:
        content = .text(text ?? link ?? shareText ?? "")
      }
    }
    return Message(
      id: Message.scopedID("\(message.timestampMs):\(senderName)", in: conversation.id),
      conversation: conversation, sender: ChatExport.sender(Self.export, senderName, name: senderName),
      sentAt: ChatExport.timestamp(milliseconds: message.timestampMs), content: content, attachments: attachments,
      links: link.map { [LinkContent(url: $0, caption: shareText)] } ?? [])
  }

  public func rows(for message: Message, into rows: inout RecordRows) {
    MessageTables.rows(for: message, into: &rows)
  }

  /// The conversation's name: the file's `title`, which follows its `messages`, repaired as
  /// its text is. Nothing when the file has no title (or an empty one); a `title` that holds no
  /// text (null, an object, an unpaired surrogate) is an `invalidValue` at it (`text(of:)`), and
  /// one given twice a `duplicateKey` the reader reports, names nothing.
  public func rowsAfterRecords(context: inout MappingContext, into rows: inout RecordRows) {
    guard let title = ChatExport.nonEmpty(context.text(of: "title").map(Self.repaired)) else { return }
    let key = ChatExport.key(Self.export, Self.conversation(path: context.inputPath, folder: context.folder))
    MessageTables.rows(for: Conversation(id: key, name: title), into: &rows)
  }

  /// The message's photos, GIFs and sticker (images), then its videos, audio files and files.
  static func media(of message: Messenger.MessageDTO) -> [MessageAttachment] {
    var media: [MessageAttachment] = (message.photos ?? []).map { .image(ImageContent(url: repaired($0.uri))) }
    media += (message.gifs ?? []).map { .image(ImageContent(url: repaired($0.uri))) }
    if let sticker = message.sticker { media.append(.image(ImageContent(url: repaired(sticker.uri)))) }
    let files = (message.videos ?? []) + (message.audioFiles ?? []) + (message.files ?? [])
    media += files.map { file in
      let uri = repaired(file.uri)
      return .file(FileContent(name: uri.split(separator: "/").last.map(String.init) ?? uri, url: uri))
    }
    return media
  }

  /// The text an export meant: Facebook writes each UTF-8 byte of a non-ASCII character as the
  /// Latin-1 character of that value (`"J\u00e2\u009d\u00a4\u00ef\u00b8\u008fhn"` for `J❤️hn`),
  /// so when every character of `text` is at most U+00FF and, taken as bytes, they are valid
  /// UTF-8, those bytes are the text. Anything else is returned unchanged: text with a character
  /// above U+00FF (an export that wrote real UTF-8), or bytes that are not UTF-8 (a real `é`
  /// alone, U+00E9, is no UTF-8 sequence). ASCII is both, and unchanged.
  public static func repaired(_ text: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var isASCII = true
    for scalar in text.unicodeScalars {
      guard scalar.value <= 0xFF else { return text }
      if scalar.value >= 0x80 { isASCII = false }
      bytes.append(UInt8(scalar.value))
    }
    guard !isASCII, let decoded = String(validating: bytes, as: UTF8.self) else { return text }
    return decoded
  }

  /// `inbox/<thread>/message_3.json` → `<thread>`; any other file → its stem.
  public static func conversation(path: String, folder: String) -> String {
    let stem = ChatExport.fileStem(path)
    let number = stem.dropFirst("message_".count)
    if stem.hasPrefix("message_"), !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber }), !folder.isEmpty {
      return folder
    }
    return stem
  }
}
