/// The encodings, besides UTF-8, in which Sluice can tell where an XML record starts in the
/// input.
///
/// libxml2 parses a UTF-8 copy of a document in another encoding, and tells an offset in the
/// input by converting the copy's unparsed rest back and subtracting its length
/// (`xmlByteConsumed`). That is exact when every character has one spelling and no state
/// carries from one to the next — single-byte code pages, UTF-16 and UTF-32 of a stated byte
/// order, the CJK multi-byte encodings — and wrong otherwise: UTF-7 may spell `<` as itself or
/// as `+ADw-`, ISO-2022 and HZ switch character sets with escape sequences, Windows-1255 and
/// -1258, TCVN, Big5-HKSCS and the JIS X 0213 encodings compose characters across bytes, and
/// iconv's plain "UTF-32" and "UNICODE" begin each conversion with a byte order mark. The fuzz
/// target found a UTF-7 document whose records moved with the chunk size and one whose offsets
/// ran past the input's end.
///
/// No library says which encodings are stateless, so the list is kept here: names as libxml2
/// hands them to its converters (the document's own spelling, or libxml2's for what it
/// detects), compared upper-cased, without `-`, `_`, `.` and spaces.
enum XMLEncodings {
  /// Whether byte offsets are exact in the encoding of this name (`nil`: none, UTF-8).
  static func isLocatable(_ name: UnsafePointer<CChar>?) -> Bool {
    guard let name else { return true }
    var key: [UInt8] = []
    var cursor = UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self)
    while cursor.pointee != 0, key.count < 32 {
      let byte = cursor.pointee
      switch byte {
      case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: " "): break
      case UInt8(ascii: "a")...UInt8(ascii: "z"): key.append(byte - 32)
      default: key.append(byte)
      }
      cursor += 1
    }
    return isLocatable(key: String(decoding: key, as: UTF8.self))
  }

  static func isLocatable(key: String) -> Bool {
    if exact.contains(key) { return true }
    // ISO 8859 parts, Latin-n, and the numbered code pages (Windows, DOS, EBCDIC, CJK), but for
    // those that compose or shift.
    for prefix in ["ISO8859", "LATIN", "WINDOWS", "CP", "IBM", "MS"] where key.hasPrefix(prefix) {
      let number = key.dropFirst(prefix.count)
      guard !number.isEmpty, number.allSatisfy({ ("0"..."9").contains($0) }) else { continue }
      return !composing.contains(String(number)) && !shifting.contains(String(number))
    }
    return false
  }

  private static let exact: Set<String> = [
    "UTF8", "UTF16", "UTF16LE", "UTF16BE", "UCS2LE", "UCS2BE", "UTF32LE", "UTF32BE", "UCS4", "UCS4LE", "UCS4BE",
    "ISO10646UCS4", "ASCII", "USASCII", "ANSIX341968", "HTML", "KOI8R", "KOI8U", "MACINTOSH", "MACROMAN",
    "SHIFTJIS", "SJIS", "WINDOWS31J", "EUCJP", "EUCKR", "UHC", "JOHAB", "GBK", "GB2312", "EUCCN", "GB18030", "BIG5",
    "EUCTW", "TIS620", "ARMSCII8", "GEORGIANPS", "PT154", "KOI8T", "VISCII",
  ]
  /// Code pages whose iconv converters compose a base letter with a following accent.
  private static let composing: Set<String> = ["1255", "1258"]
  /// Code pages that switch character sets: EBCDIC ones with SO/SI, ISO-2022-JP's with escapes.
  private static let shifting: Set<String> = [
    "930", "933", "935", "937", "939", "1364", "1371", "1388", "1390", "1399", "50220", "50221", "50222",
  ]
}
