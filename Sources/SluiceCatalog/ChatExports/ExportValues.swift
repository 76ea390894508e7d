// Wire values the real chat exports share: fields a DTO acknowledges without mapping, and
// scalars that one export version writes as a number and another as a string.
//
// The exports' DTOs declare every field the export is known to write, so that a field a newer
// version adds is an `unknownField` warning (drift) and not lost among the ones nobody maps.
// The ones the import does not use are `Unmapped`: the decoder counts the key as asked for and
// skips its value, whatever its shape.

/// A field the export is known to carry and the import does not map (Slack's `blocks`,
/// Discord's `embeds`): its key is part of the contract, its value is not read.
public struct Unmapped: Decodable, Sendable, Hashable {
  public init() {}
  public init(from decoder: any Decoder) throws {}
}

/// An integer written as a JSON number or as a string of decimal digits: Slack's `created` is
/// `"1452837318"` in older workspace exports and `1679934994` in newer ones; Telegram's
/// `date_unixtime` is always a string. Anything else is a type mismatch, and a string that is
/// not an integer an invalid value — never a guess.
public struct FlexibleInteger: Decodable, Sendable, Hashable {
  public let value: Int64

  public init(_ value: Int64) { self.value = value }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    do {
      value = try container.decode(Int64.self)
    } catch DecodingError.typeMismatch {
      let text = try container.decode(String.self)
      guard let parsed = Self.parse(text) else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an integer")
      }
      value = parsed
    }
  }

  /// Optional sign, then ASCII digits only: no blanks, no fraction, no exponent; nil when it
  /// does not fit `Int64`.
  static func parse(_ text: String) -> Int64? {
    let digits = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
    guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
    return Int64(text)
  }
}

/// An identifier written as a string or as a bare integer — Telegram's `from_id` is `"user123"`
/// in current exports and `4325636679` in older ones — kept as text, so both spell the same key
/// (`4325636679` and `"4325636679"` are one sender).
public struct IdentifierText: Decodable, Sendable, Hashable {
  public let text: String

  public init(_ text: String) { self.text = text }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    do {
      text = try container.decode(String.self)
    } catch DecodingError.typeMismatch {
      text = String(try container.decode(Int64.self))
    }
  }
}
