#if canImport(Glibc)
  import Glibc
#endif

/// An iconv converter from a multi-byte encoding that keeps ASCII (Big5, Shift_JIS, GB18030,
/// EUC-JP, EUC-KR) to UTF-8, owned by one reader on one thread: each field is converted on its
/// own, from the converter's initial state, so that a field's offsets are the file's and a byte
/// sequence the encoding does not define is an issue at its field — never a replacement.
package final class CSVMultiByteConverter {
  package let name: String
  private let handle: iconv_t

  /// Nil when iconv cannot open the conversion (`CSVEncoding` checked that it can).
  package init?(name: String) {
    guard let handle = iconv_open("UTF-8", name), handle != iconv_t(bitPattern: -1) else { return nil }
    self.name = name
    self.handle = handle
  }

  deinit { iconv_close(handle) }

  /// `text` in UTF-8, into `output`; or the index of the first byte that starts no character of
  /// the encoding (a sequence it does not define, or one the field's end cuts).
  package func utf8(_ text: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> Int? {
    output.removeAll(keepingCapacity: true)
    guard let base = text.baseAddress, !text.isEmpty else { return nil }
    // Each character of these encodings takes at most four UTF-8 bytes for each two of its own
    // (GB18030's four-byte ones take four), an ASCII byte one: twice the input, and a margin.
    let capacity = text.count * 2 + 8
    output = [UInt8](repeating: 0, count: capacity)
    // "iconv() ... with inbuf or *inbuf being NULL ... sets cd's conversion state to the initial
    // state": each field starts clean.
    iconv(handle, nil, nil, nil, nil)
    var failedAt: Int?
    let written = output.withUnsafeMutableBufferPointer { out -> Int in
      var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(mutating: base)
        .assumingMemoryBound(to: CChar.self)
      var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(out.baseAddress)?
        .assumingMemoryBound(to: CChar.self)
      var inLeft = text.count
      var outLeft = capacity
      // EILSEQ: "An invalid multibyte sequence has been encountered in the input"; EINVAL: "An
      // incomplete multibyte sequence has been encountered in the input" — *inbuf is left at it.
      if iconv(handle, &inPointer, &inLeft, &outPointer, &outLeft) == -1 {
        failedAt = text.count - inLeft
      }
      return capacity - outLeft
    }
    output.removeSubrange(written...)
    return failedAt
  }

  /// `text` in UTF-8 but for each byte that starts no character, which stays a byte no UTF-8
  /// can read (itself when it is 0x80…0xBF, 0xFF otherwise), as `CSVEncoding` keeps a
  /// single-byte encoding's undefined bytes: only for the copy of a row a rejects file keeps.
  package func utf8KeepingUndefined(_ text: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(text.count * 2)
    var start = 0
    var piece: [UInt8] = []
    while start < text.count {
      let bad = text[start...].withUnsafeBufferPointer { utf8($0, into: &piece) }
      result += piece
      guard let bad else { break }
      let byte = text[start + bad]
      result.append(byte >= 0x80 && byte <= 0xBF ? byte : byte >= 0x80 ? 0xFF : byte)
      start += bad + 1
    }
    return result
  }
}
