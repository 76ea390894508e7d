@_spi(Internals) import SluiceCore

/// Tells JSON, NDJSON and XML apart from the first bytes of an (already decompressed) input.
///
/// After a UTF-8 byte order mark and whitespace, `<` starts XML, `[` or `{` JSON. JSON is
/// NDJSON when its first value ends within the first `prefixSize` bytes and another value
/// follows it, or when it is an object on one line nested past a record's depth (a line the
/// record pass reports, `nestingTooDeep`, rather than a document with no records); a document
/// whose first value runs past the prefix is taken as one JSON document (an NDJSON line that
/// long is rare; `--format ndjson` says otherwise). A file named `.csv` or
/// `.tsv` (gzip or not) is CSV or TSV; anything else that some delimiter splits into rows of the
/// same width (`CSVSniffer`) is CSV, or TSV when the delimiter is a tab. Only the prefix is read.
enum FormatSniffer {
  static let prefixSize = 1 << 20

  /// Up to `prefixSize` first bytes of `source`, and whether they are all of it.
  static func prefix(of source: any ByteSource) throws -> (bytes: [UInt8], isComplete: Bool) {
    var prefix = [UInt8](repeating: 0, count: prefixSize)
    var count = 0
    try prefix.withUnsafeMutableBytes { buffer in
      while count < buffer.count {
        let read = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
        if read == 0 { break }
        count += read
      }
    }
    prefix.removeSubrange(count...)
    return (prefix, count < prefixSize)
  }

  /// The format a file name says: `.csv` or `.tsv`, before a `.gz`; nil for any other.
  static func format(named path: String) -> PipelineConfiguration.Format? {
    var name = path.lowercased()
    if name.hasSuffix(".gz") { name.removeLast(3) }
    if name.hasSuffix(".csv") { return .csv }
    if name.hasSuffix(".tsv") || name.hasSuffix(".tab") { return .tsv }
    return nil
  }

  static func sniff(_ source: any ByteSource, path: String? = nil) throws -> PipelineConfiguration.Format {
    if let path, let format = format(named: path) { return format }
    let (prefix, isComplete) = try prefix(of: source)
    var start = 0
    if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
    var line = 1
    while start < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[start]) {
      if prefix[start] == 0x0A { line += 1 }
      start += 1
    }
    guard start < prefix.count else {
      throw RecordReadError(
        code: .syntax, message: "the input is empty; expected JSON, NDJSON or XML",
        location: .init(ordinal: 0, byteOffset: Int64(start), line: line), isRecoverable: false)
    }
    switch prefix[start] {
    case UInt8(ascii: "<"):
      return .xml
    case UInt8(ascii: "["), UInt8(ascii: "{"):
      return isLines(prefix) ? .ndjson : .json
    default:
      if let delimiter = CSVSniffer.delimiter(of: prefix, isComplete: isComplete) {
        return delimiter == 0x09 ? .tsv : .csv
      }
      let byte = prefix[start]
      let shown =
        byte >= 0x21 && byte < 0x7F
        ? "'\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
      throw RecordReadError(
        code: .syntax,
        message:
          "the input starts with \(shown); expected JSON ('[' or '{'), NDJSON, XML ('<') or delimited rows (CSV, TSV)"
          + (byte == 0xFE || byte == 0xFF || byte == 0 ? " (UTF-16 or UTF-32 text? Sluice reads UTF-8)" : ""),
        location: .init(ordinal: 0, byteOffset: Int64(start), line: line), isRecoverable: false)
    }
  }

  /// Whether the prefix holds a first JSON value followed by another.
  private static func isLines(_ prefix: [UInt8]) -> Bool {
    let scanner = JSONScanner(source: MemoryByteSource(prefix), limits: JSONRecordReader.Limits(), bufferSize: 1 << 16)
    do {
      try scanner.skipByteOrderMark()
      try scanner.skipWhitespace()
      try scanner.scanValue(depth: 0)
      try scanner.skipWhitespace()
      return try scanner.peek() != nil
    } catch let error as RecordReadError where error.code == .nestingTooDeep {
      // A first line nested past the record limit is still a line: one the record pass skips
      // and reports (`nestingTooDeep`, where), rather than a document with "unexpected '{'
      // after the end of the document" on line 2. Alone in the file, an object on one line is
      // such a line too, rather than a document "with no array of objects" (issue 55).
      guard let first = firstValue(prefix) else { return false }
      return first.isFollowed || (first.isObject && first.isOneLine)
    } catch {
      // Cut off by the prefix, or malformed: either way the outline reads it as one document
      // and reports what is wrong with it, where.
      return false
    }
  }

  /// The prefix's first value, counted by its brackets alone (strings skipped), for a value too
  /// deep for the scanner, without recursion: whether it is an object, holds no line break, and
  /// is followed by something; nil when it does not end within the prefix.
  private static func firstValue(_ prefix: [UInt8]) -> (isObject: Bool, isOneLine: Bool, isFollowed: Bool)? {
    var depth = 0
    var inString = false
    var escaped = false
    var index = prefix.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while index < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[index]) { index += 1 }
    let start = index
    var isOneLine = true
    while index < prefix.count {
      let byte = prefix[index]
      index += 1
      if inString {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""): inString = true
      case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        depth -= 1
        if depth == 0 {
          return (
            prefix[start] == UInt8(ascii: "{"), isOneLine,
            prefix[index...].contains { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
          )
        }
      case 0x0A, 0x0D: isOneLine = false
      default: break
      }
    }
    return nil
  }
}
