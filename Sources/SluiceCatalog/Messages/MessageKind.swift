@_spi(Internals) import SluiceCore

/// The kinds of chat message Sluice knows. It owns the `message_kinds` table (design rule 12):
/// ids are fixed per case and never reused; a case removed from the enum stays in the table,
/// marked retired, so older messages still join.
///
/// A kind an export names that is not here is an error (`unsupportedEnumValue` at the export's
/// discriminator, with the kind's name as the value), never mapped to a known one.
public enum MessageKind: String, LookupEnum {
  case text
  case image
  case file
  case system

  public static var lookupTable: String { "message_kinds" }

  public var lookupID: Int64 {
    switch self {
    case .text: return 1
    case .image: return 2
    case .file: return 3
    case .system: return 4
    }
  }

  /// The kinds by name, for error messages: `text, image, file, system`.
  public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
