import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The encoding a legacy CSV export is written in, when it is not UTF-8: a single-byte one
/// (Windows-1252, ISO-8859-1/15, KOI8-R, a DOS code page), read through a table of what each byte
/// is in UTF-8; a multi-byte one that keeps ASCII (Big5, GBK/GB18030, Shift_JIS, EUC-JP, EUC-KR),
/// whose fields iconv converts one by one (`CSVMultiByteConverter`); or UTF-16 of either byte
/// order, read through `CSVUTF16Source`.
///
/// A multi-byte encoding's second bytes are never below 0x40, so the delimiters `,` `;` tab, the
/// quote `"` and line breaks are never part of a character: the reader scans the file's own bytes
/// for them, as for a single-byte encoding. A delimiter or quote from 0x40 up (`|`) could be, and
/// is refused with such an encoding.
///
/// The table is made once, from glibc's iconv, so any single-byte encoding iconv knows works. The
/// reader scans the file's own bytes — the delimiter, quote and line breaks are ASCII in all of
/// them — and converts each field through the table: offsets stay the file's, and a byte the
/// encoding leaves undefined (0x81 in Windows-1252) is an issue at its field, never a guess.
public struct CSVEncoding: Sendable, Hashable {
  /// The name as given (`windows-1252`).
  public let name: String
  /// Per byte from 0x80: its UTF-8 bytes, or empty when the encoding does not define it; empty
  /// for UTF-16.
  let high: [[UInt8]]
  /// For UTF-16, the byte order: as its byte order mark says (`utf-16`, big-endian without one,
  /// as RFC 2781 says), or the one the name states (`utf-16le`, `utf-16be`); nil for a
  /// single-byte encoding.
  package let utf16: UTF16Order?

  package enum UTF16Order: Sendable, Hashable {
    case byMark, littleEndian, bigEndian
  }

  /// Whether this is a multi-byte encoding that keeps ASCII (Big5, Shift_JIS…), converted field
  /// by field through iconv.
  package let isMultiByte: Bool

  /// Whether this is a single-byte encoding, converted field by field through its table.
  package var isSingleByte: Bool { utf16 == nil && !isMultiByte }

  /// The multi-byte encodings that keep ASCII as it is and whose later bytes are 0x40 or more,
  /// by their names with case, `-` and `_` ignored: the legacy CJK encodings of spreadsheets and
  /// public-sector exports. Stateful ones (ISO-2022-JP) and EBCDIC are not among them.
  static let multiByteNames: Set<String> = [
    "big5", "big5hkscs", "cp950", "gbk", "gb2312", "gb18030", "cp936", "euccn", "shiftjis", "sjis", "cp932",
    "windows31j", "mskanji", "eucjp", "euckr", "cp949", "uhc", "euctw",
  ]

  /// The lowest byte a multi-byte encoding's later bytes take: a delimiter or quote must be below.
  package static let lowestTrailByte: UInt8 = 0x40

  /// Why `name` cannot be read this way: iconv does not know it, or it is not a single-byte
  /// encoding that keeps ASCII as it is (UTF-16, Shift_JIS, EBCDIC).
  public struct Problem: Error, Sendable {
    public var message: String
  }

  public init(name: String) throws(Problem) {
    self.name = name
    // iconv reads an empty name as the locale's own encoding: never what a file is in.
    guard name.contains(where: { !$0.isWhitespace }) else {
      throw Problem(message: "an encoding needs a name: utf-8, utf-16, windows-1252, iso-8859-1 (iconv -l lists them)")
    }
    isMultiByte = Self.multiByteNames.contains(Self.folded(name))
    switch name.lowercased().replacingOccurrences(of: "_", with: "-") {
    case "utf-16", "utf16":
      (high, utf16) = ([], .byMark)
      return
    case "utf-16le", "utf16le":
      (high, utf16) = ([], .littleEndian)
      return
    case "utf-16be", "utf16be":
      (high, utf16) = ([], .bigEndian)
      return
    default:
      utf16 = nil
    }
    let converter = iconv_open("UTF-8", name)
    guard let converter, converter != iconv_t(bitPattern: -1) else {
      throw Problem(message: "'\(name)' is not an encoding iconv knows (iconv -l lists them)")
    }
    defer { iconv_close(converter) }
    if isMultiByte {
      high = []
      return
    }
    var high: [[UInt8]] = []
    for byte in 0...255 {
      let converted = Self.convert(UInt8(byte), with: converter)
      if byte < 0x80 {
        guard case .some(let bytes) = converted, bytes == [UInt8(byte)] else {
          throw Problem(message: "'\(name)' does not keep ASCII as it is: not a single-byte encoding Sluice reads")
        }
      } else {
        guard let bytes = converted else {
          throw Problem(
            message: "'\(name)' is not a single-byte encoding, UTF-8, UTF-16 or one of the multi-byte encodings "
              + "Sluice reads (big5, gb18030, gbk, shift_jis, euc-jp, euc-kr, cp949…): convert the file to UTF-8 first")
        }
        high.append(bytes)
      }
    }
    self.high = high
  }

  /// A name with case, `-` and `_` ignored (`Shift_JIS` → `shiftjis`).
  static func folded(_ name: String) -> String {
    String(name.lowercased().filter { $0 != "-" && $0 != "_" })
  }

  /// One byte through iconv: its UTF-8 bytes, `[]` when the encoding leaves it undefined
  /// (EILSEQ), nil when the byte is only the start of a character (EINVAL: a multi-byte encoding).
  private static func convert(_ byte: UInt8, with converter: iconv_t) -> [UInt8]? {
    var input = [CChar(bitPattern: byte)]
    var output = [CChar](repeating: 0, count: 8)
    // "iconv() ... with inbuf or *inbuf being NULL ... sets cd's conversion state to the initial
    // state": each byte is converted from a clean state.
    iconv(converter, nil, nil, nil, nil)
    let written: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
      output.withUnsafeMutableBufferPointer { outBuffer in
        var inPointer = inBuffer.baseAddress
        var outPointer = outBuffer.baseAddress
        var inLeft = 1
        var outLeft = 8
        let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
        if result == -1 { return errno == EILSEQ ? 0 : nil }
        return 8 - outLeft
      }
    }
    guard let written else { return nil }
    return output.prefix(written).map { UInt8(bitPattern: $0) }
  }

  /// `text` in UTF-8, or the index of the first byte the encoding does not define.
  func utf8(_ text: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> Int? {
    output.removeAll(keepingCapacity: true)
    output.reserveCapacity(text.count)
    for (index, byte) in text.enumerated() {
      if byte < 0x80 {
        output.append(byte)
        continue
      }
      let bytes = high[Int(byte) - 0x80]
      if bytes.isEmpty { return index }
      output.append(contentsOf: bytes)
    }
    return nil
  }

  /// `text` in UTF-8 but for each byte the encoding does not define, which stays a byte no
  /// UTF-8 can read: itself when it is 0x80…0xBF (a lone continuation byte), 0xFF otherwise (a
  /// lead byte could join the next to make a character). Only for the copy of a row a rejects
  /// file keeps, escaped, so that replay refuses it rather than read other text.
  func utf8KeepingUndefined(_ text: [UInt8]) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(text.count)
    for byte in text {
      if byte < 0x80 {
        output.append(byte)
      } else {
        let bytes = high[Int(byte) - 0x80]
        if bytes.isEmpty {
          output.append(byte <= 0xBF ? byte : 0xFF)
        } else {
          output.append(contentsOf: bytes)
        }
      }
    }
    return output
  }
}
