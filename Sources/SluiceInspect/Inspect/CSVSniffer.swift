@_spi(Internals) import SluiceCore

/// What `inspect` found out about a CSV or TSV file's dialect, and how: each part given on the
/// command line, or sniffed from the file's first rows.
package struct CSVSniff: Sendable, Hashable {
  /// How sure the encoding is.
  package enum Confidence: String, Sendable, Hashable {
    /// Given (`--encoding`).
    case given
    /// A byte order mark, or valid UTF-8 with non-ASCII characters: no other encoding reads so.
    case certain
    /// ASCII only so far (UTF-8 reads it, as would any single-byte encoding), or a single-byte
    /// encoding chosen from the bytes 0x80–0xFF that are not UTF-8: review it.
    case guess
  }

  package var format: PipelineConfiguration.Format
  package var dialect: CSVDialect
  package var delimiterWasSniffed: Bool
  package var headerWasSniffed: Bool
  /// The encoding's name as a spec writes it (`utf-8`, `windows-1252`).
  package var encodingName: String
  package var encodingConfidence: Confidence
  /// Why the encoding is what it is, in a few words.
  package var encodingReason: String
  /// The column names were made up (`column1`…): the file has no header and none were given.
  package var columnsWereNamed: Bool
}

/// The dialect options `inspect` and `init` take (`--delimiter`, `--no-header`, `--columns`,
/// `--encoding`, `--empty`, `--quote`); what is not given is sniffed.
package struct CSVDialectOptions: Sendable, Hashable {
  package var delimiter: UInt8?
  package var quote: UInt8?
  /// False with `--no-header` (or `--columns`).
  package var hasHeader: Bool?
  package var columns: [String]?
  package var emptyIsNull: Bool?
  /// Set when `--encoding` is given: the encoding, nil for UTF-8.
  package var encoding: CSVEncoding??

  package init() {}

  package var isEmpty: Bool { self == CSVDialectOptions() }
}

/// Sniffs a CSV or TSV dialect from the first megabyte of a file (decompressed): the encoding,
/// the delimiter among `,` `;` tab `|` (the one that splits the rows into the same number of
/// fields, two or more, quotes respected), and whether the first row is a header.
package enum CSVSniffer {
  static let delimiters: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")]
  /// Rows looked at.
  static let maxRows = 200

  /// The dialect of the file whose first bytes are `prefix` (`isComplete`: the whole file);
  /// `format` is the one given, `hint` the one the file's name says (`.tsv`: a tab by default).
  package static func sniff(
    _ prefix: [UInt8], isComplete: Bool, format: PipelineConfiguration.Format?,
    hint: PipelineConfiguration.Format? = nil, options: CSVDialectOptions
  ) throws(CSVEncoding.Problem) -> CSVSniff {
    let preferred = format ?? hint
    let quote = options.quote ?? UInt8(ascii: "\"")
    // The encoding.
    var encoding: CSVEncoding?
    let name: String
    let confidence: CSVSniff.Confidence
    let reason: String
    var prefix = prefix
    let mark = utf16Mark(of: prefix)
    if let given = options.encoding {
      encoding = given
      name = given?.name ?? "utf-8"
      confidence = .given
      reason = "given"
      if let given, !given.isSingleByte {
        // What follows is sniffed in the text the reader will see: the prefix decoded.
        prefix = utf16Text(prefix, bigEndian: mark ?? (given.utf16 != .littleEndian))
      }
    } else if let mark {
      encoding = try CSVEncoding(name: "utf-16")
      (name, confidence, reason) = ("utf-16", .certain, "a UTF-16 byte order mark (\(mark ? "big" : "little")-endian)")
      prefix = utf16Text(prefix, bigEndian: mark)
    } else {
      let guess = guessEncoding(prefix, isComplete: isComplete)
      if guess.name != "utf-8" { encoding = try CSVEncoding(name: guess.name) }
      (name, confidence, reason) = guess
    }
    var body = prefix[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    // The delimiter.
    let delimiter: UInt8
    if let given = options.delimiter {
      delimiter = given
    } else if let sniffed = sniffDelimiter(body, quote: quote, isComplete: isComplete, prefer: preferred) {
      delimiter = sniffed
    } else {
      delimiter = preferred == .tsv ? 0x09 : UInt8(ascii: ",")
    }
    let rows = Self.rows(body, delimiter: delimiter, quote: quote, isComplete: isComplete).rows
    // The header.
    var hasHeader = options.hasHeader ?? (options.columns == nil ? looksLikeHeader(rows) : false)
    var columns = options.columns
    var named = false
    if !hasHeader && columns == nil {
      let width = rows.first?.count ?? 1
      columns = (1...max(width, 1)).map { "column\($0)" }
      named = true
    }
    if options.columns != nil && options.hasHeader == nil { hasHeader = false }
    let dialect = CSVDialect(
      delimiter: delimiter, quote: quote, hasHeader: hasHeader, columns: columns,
      emptyIsNull: options.emptyIsNull ?? true, encoding: encoding)
    return CSVSniff(
      format: format ?? (delimiter == 0x09 ? .tsv : .csv), dialect: dialect,
      delimiterWasSniffed: options.delimiter == nil,
      headerWasSniffed: options.hasHeader == nil && options.columns == nil,
      encodingName: name, encodingConfidence: confidence, encodingReason: reason, columnsWereNamed: named)
  }

  /// The delimiter of a prefix that is neither JSON nor XML, when it reads as delimited text:
  /// one that splits its rows alike into two or more fields (decoded first when it starts with
  /// a UTF-16 byte order mark, as the CSV reader reads such a file).
  static func delimiter(of prefix: [UInt8], isComplete: Bool) -> UInt8? {
    var body = utf16Mark(of: prefix).map { utf16Text(prefix, bigEndian: $0) }?[...] ?? prefix[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    return sniffDelimiter(body, quote: UInt8(ascii: "\""), isComplete: isComplete, prefer: nil)
  }

  // MARK: - Encoding

  /// Whether the prefix starts with a UTF-16 byte order mark: true for big-endian, false for
  /// little-endian, nil for none.
  static func utf16Mark(of prefix: [UInt8]) -> Bool? {
    if prefix.starts(with: [0xFE, 0xFF]) { return true }
    // FF FE 00 00 is UTF-32's mark, which the reader refuses.
    if prefix.starts(with: [0xFF, 0xFE]) && !prefix.starts(with: [0xFF, 0xFE, 0, 0]) { return false }
    return nil
  }

  /// A UTF-16 prefix as the UTF-8 text the CSV reader makes of it (its mark dropped), by the
  /// reader's own decoder; a unit the prefix's end cuts, or a malformed one, reads as U+FFFD.
  static func utf16Text(_ prefix: [UInt8], bigEndian: Bool) -> [UInt8] {
    let start = utf16Mark(of: prefix) == nil ? 0 : 2
    let decoder = CSVUTF16Source(
      source: MemoryByteSource(Array(prefix[start...])), bigEndian: bigEndian, head: [], offset: Int64(start))
    var text: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 15)
    while let read = try? chunk.withUnsafeMutableBytes({ try decoder.read(into: $0) }), read > 0 {
      text += chunk[..<read]
    }
    return CSVUTF16Source.replacingMalformed(text)
  }

  /// How many valid multi-byte UTF-8 characters the bytes sniffed must hold for each byte that
  /// is not UTF-8, at least, for the file to be UTF-8 with a few bad bytes (`guessEncoding`).
  static let utf8CharactersPerInvalidByte = 20

  /// UTF-8 when the prefix is valid UTF-8 (a character cut by the prefix's end aside), or when
  /// its non-ASCII bytes are overwhelmingly valid UTF-8: `utf8CharactersPerInvalidByte`
  /// multi-byte characters for each byte that is not one — a UTF-8 file with a stray byte, whose
  /// row the reader rejects at its field, rather than a whole file read as mojibake (issue 55).
  /// Text in a single-byte encoding makes valid UTF-8 only by accident (an accented capital
  /// followed by a symbol), far below that. Otherwise windows-1252 when bytes 0x80–0x9F appear
  /// and each is a character there (its quotes, dashes, €), else iso-8859-1.
  static func guessEncoding(_ prefix: [UInt8], isComplete: Bool) -> (
    name: String, confidence: CSVSniff.Confidence, reason: String
  ) {
    if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { return ("utf-8", .certain, "byte order mark") }
    var index = 0
    var characters = 0
    var invalid = 0
    var firstInvalid: Int?
    while index < prefix.count {
      let byte = prefix[index]
      if byte < 0x80 {
        index += 1
        continue
      }
      let length = byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 ? (byte <= 0xEF ? 3 : 0) : byte >= 0xC2 ? 2 : 0
      if length > 0 && index + length > prefix.count && !isComplete { break }  // Cut by the prefix.
      guard length > 0, index + length <= prefix.count,
        String(validating: prefix[index..<(index + length)], as: UTF8.self) != nil
      else {
        invalid += 1
        if firstInvalid == nil { firstInvalid = index }
        index += 1
        continue
      }
      characters += 1
      index += length
    }
    if invalid == 0 {
      return characters > 0
        ? ("utf-8", .certain, "valid UTF-8") : ("utf-8", .guess, "ASCII only in the bytes sniffed")
    }
    if characters >= invalid * utf8CharactersPerInvalidByte, let firstInvalid {
      let line = prefix[..<firstInvalid].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
      return (
        "utf-8", .guess,
        "mostly valid UTF-8: \(characters) multi-byte characters, \(invalid) byte(s) that are not UTF-8 "
          + "(the first at line \(line), byte \(firstInvalid)), whose rows are rejected as invalid UTF-8"
      )
    }
    let undefinedIn1252: Set<UInt8> = [0x81, 0x8D, 0x8F, 0x90, 0x9D]
    let controls = prefix.filter { $0 >= 0x80 && $0 <= 0x9F }
    if !controls.isEmpty && !controls.contains(where: undefinedIn1252.contains) {
      return ("windows-1252", .guess, "not UTF-8; bytes 0x80–0x9F read as Windows-1252 punctuation")
    }
    return ("iso-8859-1", .guess, "not UTF-8; no Windows-1252 punctuation")
  }

  // MARK: - Rows

  /// The prefix's rows split at `delimiter`, quotes respected (the last one dropped when the
  /// prefix may have cut it), at most `maxRows`; `broken`: the indices of the rows with a quote
  /// out of place (inside an unquoted field, or text after a closing quote).
  ///
  /// Why an RFC 4180 splitter of its own beside `CSVRecordReader` (issue 56 kept both): the
  /// sniffer splits the same prefix once per candidate delimiter, and must go on past a quote out
  /// of place — counting the row as broken, which is how a wrong delimiter shows — and leave out
  /// a last row the prefix cut. The reader is strict and streaming by design: it stops the file
  /// at a misplaced quote with an error naming its place, and never sees a prefix's end.
  static func rows(_ body: ArraySlice<UInt8>, delimiter: UInt8, quote: UInt8, isComplete: Bool) -> (
    rows: [[String]], broken: Set<Int>
  ) {
    var rows: [[String]] = []
    var row: [String] = []
    var field: [UInt8] = []
    var inQuotes = false
    var wasQuoted = false
    var broken = Set<Int>()
    var index = body.startIndex
    var rowHasContent = false
    func endField() {
      row.append(String(decoding: field, as: UTF8.self))
      field.removeAll(keepingCapacity: true)
      wasQuoted = false
    }
    while index < body.endIndex && rows.count < maxRows {
      let byte = body[index]
      index += 1
      if inQuotes {
        if byte == quote {
          if index < body.endIndex && body[index] == quote {
            field.append(quote)
            index += 1
          } else {
            inQuotes = false
          }
        } else {
          field.append(byte)
        }
        continue
      }
      switch byte {
      case quote:
        if field.isEmpty && !wasQuoted {
          inQuotes = true
          wasQuoted = true
          rowHasContent = true
        } else {
          broken.insert(rows.count)
          field.append(byte)
        }
      case delimiter:
        endField()
        rowHasContent = true
      case 0x0A, 0x0D:
        if byte == 0x0D && index < body.endIndex && body[index] == 0x0A { index += 1 }
        if rowHasContent || !field.isEmpty {
          endField()
          rows.append(row)
        }
        row = []
        rowHasContent = false
      default:
        if wasQuoted { broken.insert(rows.count) }
        field.append(byte)
        rowHasContent = true
      }
    }
    if isComplete && index == body.endIndex && !inQuotes && (rowHasContent || !field.isEmpty) {
      endField()
      rows.append(row)
    }
    return (rows, broken)
  }

  /// The delimiter that splits the rows into the same number of fields (at least two), without
  /// a quote out of place, most often — ties to the format's own (tab for TSV), then in the order `,` `;` tab `|`; nil when
  /// none splits them.
  static func sniffDelimiter(
    _ body: ArraySlice<UInt8>, quote: UInt8, isComplete: Bool, prefer format: PipelineConfiguration.Format?
  ) -> UInt8? {
    var best: (delimiter: UInt8, score: Double)?
    let ordered = format == .tsv ? [0x09] + delimiters.filter { $0 != 0x09 } : delimiters
    for delimiter in ordered {
      let (rows, broken) = rows(body, delimiter: delimiter, quote: quote, isComplete: isComplete)
      guard !rows.isEmpty, !broken.contains(0) else { continue }
      // A row with a quote out of place agrees with none: the wrong delimiter puts quotes inside
      // fields (`a;"b"` split at `,`), while a legacy export's few stray quotes are only a few.
      var counts: [Int: Int] = [:]
      for (index, row) in rows.enumerated() where !broken.contains(index) { counts[row.count, default: 0] += 1 }
      guard let (width, matching) = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key < $1.key }),
        width >= 2
      else { continue }
      let consistency = Double(matching) / Double(rows.count)
      // The header row must agree: a `;` export with decimal commas splits its rows alike at `,`
      // only by chance, and its header not at all.
      guard consistency >= 0.9, rows[0].count == width else { continue }
      let score = consistency + Double(min(width, 100)) / 10_000
      if score > (best?.score ?? 0) + 0.000_001 { best = (delimiter, score) }
    }
    return best?.delimiter
  }

  // MARK: - Header

  /// Whether the first row names the columns: every cell non-empty text, distinct, none a
  /// number or a date — and, where a column below holds one type (numbers, dates, booleans),
  /// its first cell is not of it. A file whose columns are all text is taken to have a header.
  static func looksLikeHeader(_ rows: [[String]]) -> Bool {
    guard let first = rows.first else { return true }
    guard !first.contains(where: \.isEmpty), Set(first).count == first.count else { return false }
    let classifier = TextColumnClassifier()
    func type(_ values: [String]) -> TextColumnType {
      var profile = TextColumnProfile()
      for value in values {
        var bytes = Array(value.utf8)
        bytes.withUnsafeMutableBufferPointer { profile.add(UnsafeBufferPointer($0), classifier: classifier) }
      }
      return profile.inferred(isKeyLike: true)
    }
    for (column, cell) in first.enumerated() {
      let own = type([cell])
      if own != .text && own != .boolean { return false }
      let below = rows.dropFirst().compactMap { $0.count == first.count ? $0[column] : nil }.filter { !$0.isEmpty }
      guard !below.isEmpty else { continue }
      let theirs = type(below)
      if theirs != .text && theirs == own { return false }
    }
    return true
  }
}
