@_spi(Internals) import SluiceCore

/// The kinds of chat message Sluice knows. It owns the `message_kinds` table (a `LookupEnum`):
/// ids are fixed per case and never reused; a case removed from the enum stays in the table,
/// marked retired, so older messages still join.
///
/// A kind an export names that is not here is an error (`unsupportedEnumValue` at the export's
/// discriminator, with the kind's name as the value), never mapped to a known one.
///
/// `link` is an attachment's kind only — a URL a message shares (a Messenger or Instagram
/// `share`), kept in `message_attachments` — so no message is of kind `link` and it has no
/// table of its own; `messageKinds` lists the others.
public enum MessageKind: String, LookupEnum {
  case text
  case image
  case file
  case system
  case link

  public static var lookupTable: String { "message_kinds" }

  public var lookupID: Int64 {
    switch self {
    case .text: return 1
    case .image: return 2
    case .file: return 3
    case .system: return 4
    case .link: return 5
    }
  }

  /// The kinds a message can be (every kind but `link`), each with its table.
  public static let messageKinds: [MessageKind] = [.text, .image, .file, .system]

  /// The kinds a message can be, by name, for error messages: `text, image, file, system`.
  public static var names: String { messageKinds.map(\.rawValue).joined(separator: ", ") }
}
