import Foundation
@_spi(Internals) import SluiceCore

// The real chat exports — Slack, Discord, Mattermost, Messenger, Telegram — each decode their
// own wire format (a DTO per export) and map it to the one `Message` domain, written through
// `MessageTables`. What they share is here: how their keys are spelled in the
// shared tables, and how a file's kind is told.

/// What the real chat exports share.
public enum ChatExport {
  /// The key of an export's conversation or sender in the shared tables: `slack:general`,
  /// `telegram:user123`. The export's name comes first so that two exports loaded into one
  /// database never merge their rows: Slack's `general` and Mattermost's are different
  /// conversations, a Messenger sender named `harry` is not Mattermost's user `harry`.
  public static func key(_ export: String, _ id: String) -> String {
    export + ":" + id
  }

  /// A sender row the record names: the export's key, and the name if the record knows it.
  static func sender(_ export: String, _ id: String, name: String? = nil) -> Sender {
    Sender(id: key(export, id), name: nonEmpty(name))
  }

  static func nonEmpty(_ text: String?) -> String? {
    guard let text, !text.isEmpty else { return nil }
    return text
  }

  /// File name extensions of images, for exports that give no content type (Discord's
  /// attachments, Messenger's and Mattermost's paths).
  static let imageExtensions: Set<String> = [
    "png", "jpg", "jpeg", "gif", "webp", "bmp", "heic", "heif", "tif", "tiff", "avif",
  ]

  /// Whether a file name or path names an image, by its extension (case-insensitive).
  static func isImage(fileName: String) -> Bool {
    let name = fileName.split(separator: "/").last.map(String.init) ?? fileName
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
    return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
  }

  /// Whether a MIME type is an image's (`image/png`).
  static func isImage(mimeType: String) -> Bool {
    mimeType.lowercased().hasPrefix("image/")
  }

  /// The last path component without its extension: `langchain_facebook_chat` for
  /// `…/facebook/langchain_facebook_chat.json`.
  static func fileStem(_ path: String) -> String {
    FilePaths.deletingExtension(FilePaths.lastComponent(of: path))
  }

  /// The mapping error for a discriminator value the export's mapping does not know: its path,
  /// the values it knows, and the value by name for the drift summary — a kind's name, cut to
  /// `longestKindName` characters so that a record's content can never ride along in its place.
  static func unsupported(
    _ value: String, at path: String, known: String, what: String = "a message kind"
  ) -> MappingError {
    MappingError(
      code: .unsupportedEnumValue, path: path, message: "not \(what) this version knows (\(known))",
      value: String(value.prefix(longestKindName)))
  }

  /// The longest kind name an issue carries.
  static let longestKindName = 64

  /// An instant from whole seconds since 1970 and a fraction in microseconds.
  static func timestamp(seconds: Int64, microseconds: Int64 = 0) -> Timestamp {
    Timestamp(Date(timeIntervalSince1970: Double(seconds) + Double(microseconds) / 1_000_000))
  }

  /// An instant from milliseconds since 1970.
  static func timestamp(milliseconds: Int64) -> Timestamp {
    let (seconds, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
    return timestamp(seconds: seconds, microseconds: remainder * 1000)
  }

  /// The range of epoch seconds a `Timestamp` may hold: years 1…9999, as for decoded dates.
  static let epochSeconds: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

  /// Whether epoch milliseconds fall in years 1…9999.
  static func isEpochMilliseconds(_ milliseconds: Int64) -> Bool {
    epochSeconds.contains(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient)
  }
}
