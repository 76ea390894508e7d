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
    /// ASCII only so far (UTF-8 reads it, as would any single-byte encoding), a single-byte
    /// encoding chosen from the bytes 0x80–0xFF that are not UTF-8, or a multi-byte one whose
    /// reading looks like text of its language: review it.
    case guess
    /// Not UTF-8, and several multi-byte encodings read it alike (`encodingCandidates`): the
    /// encoding must be given.
    case unknown
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
  /// When the encoding is `unknown`: the encodings that read the bytes alike.
  package var encodingCandidates: [String] = []
  /// Why the first row is no header, when the sniffer says so.
  package var noHeaderReason: String?
  /// The line of the table's first row (its header, or first data row), from 1.
  package var tableLine = 1
  /// The line of the last data row the sniffer saw, when it saw the whole file.
  package var lastDataLine: Int?
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
  /// The data region, when `--skip-lines` and `--footer-lines` give it.
  package var skipLines: Int?
  package var footerLines: Int?

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
    var candidates: [String] = []
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
      if let given, given.utf16 != nil {
        // What follows is sniffed in the text the reader will see: the prefix decoded.
        prefix = utf16Text(prefix, bigEndian: mark ?? (given.utf16 != .littleEndian))
      }
    } else if let mark {
      encoding = try CSVEncoding(name: "utf-16")
      (name, confidence, reason) = ("utf-16", .certain, "a UTF-16 byte order mark (\(mark ? "big" : "little")-endian)")
      prefix = utf16Text(prefix, bigEndian: mark)
    } else if let bigEndian = utf16WithoutMark(prefix) {
      let named = bigEndian ? "utf-16be" : "utf-16le"
      encoding = try CSVEncoding(name: named)
      (name, confidence, reason) = (
        named, .guess,
        "no byte order mark, but a NUL byte \(bigEndian ? "before" : "after") each ASCII character: UTF-16"
      )
      prefix = utf16Text(prefix, bigEndian: bigEndian)
    } else {
      let guess = guessEncoding(prefix, isComplete: isComplete)
      if guess.name != "utf-8" && guess.confidence != .unknown { encoding = try CSVEncoding(name: guess.name) }
      (name, confidence, reason) = (guess.name, guess.confidence, guess.reason)
      candidates = guess.candidates
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
    // The whole file's rows when the prefix holds it (to see the notes after the table).
    let split = Self.rows(
      body, delimiter: delimiter, quote: quote, isComplete: isComplete, limit: isComplete ? Int.max : maxRows)
    var (start, end) = region(split.rows, isComplete: isComplete)
    if let skip = options.skipLines {
      start = split.lines.firstIndex { $0 > skip } ?? split.rows.count
      end = max(end, start)
    }
    if let footer = options.footerLines {
      end = isComplete ? max(start, split.rows.count - footer) : split.rows.count
    }
    let rows = Array(split.rows[start..<max(start, min(end, start + maxRows))])
    // The header.
    let headerProblem = options.hasHeader == nil && options.columns == nil ? self.headerProblem(rows) : nil
    var hasHeader = options.hasHeader ?? (options.columns == nil ? headerProblem == nil : false)
    var columns = options.columns
    var named = false
    if !hasHeader && columns == nil {
      let width = rows.first?.count ?? 1
      columns = (1...max(width, 1)).map { "column\($0)" }
      named = true
    }
    if options.columns != nil && options.hasHeader == nil { hasHeader = false }
    let tableLine = split.lines.indices.contains(start) ? split.lines[start] : 1
    let dialect = CSVDialect(
      delimiter: delimiter, quote: quote, hasHeader: hasHeader, columns: columns,
      emptyIsNull: options.emptyIsNull ?? true, encoding: encoding, skipLines: options.skipLines ?? (tableLine - 1),
      footerLines: options.footerLines ?? (split.rows.count - end))
    var sniff = CSVSniff(
      format: format ?? (delimiter == 0x09 ? .tsv : .csv), dialect: dialect,
      delimiterWasSniffed: options.delimiter == nil,
      headerWasSniffed: options.hasHeader == nil && options.columns == nil,
      encodingName: name, encodingConfidence: confidence, encodingReason: reason, columnsWereNamed: named,
      encodingCandidates: candidates)
    sniff.noHeaderReason = headerProblem
    sniff.tableLine = tableLine
    if isComplete, end > start, split.lines.indices.contains(end - 1) { sniff.lastDataLine = split.lines[end - 1] }
    return sniff
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
  ///
  /// Before the single-byte guess, the multi-byte legacy encodings are tried
  /// (`LegacyEncodingGuess`): one that reads the bytes as text of its language, far better than
  /// the others, is taken; several alike make the encoding `unknown`, never a guess.
  static func guessEncoding(_ prefix: [UInt8], isComplete: Bool) -> (
    name: String, confidence: CSVSniff.Confidence, reason: String, candidates: [String]
  ) {
    if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { return ("utf-8", .certain, "byte order mark", []) }
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
        ? ("utf-8", .certain, "valid UTF-8", []) : ("utf-8", .guess, "ASCII only in the bytes sniffed", [])
    }
    if characters >= invalid * utf8CharactersPerInvalidByte, let firstInvalid {
      let line = prefix[..<firstInvalid].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
      return (
        "utf-8", .guess,
        "mostly valid UTF-8: \(characters) multi-byte characters, \(invalid) byte(s) that are not UTF-8 "
          + "(the first at line \(line), byte \(firstInvalid)), whose rows are rejected as invalid UTF-8", []
      )
    }
    switch LegacyEncodingGuess.guess(prefix, isComplete: isComplete) {
    case .found(let reading, let runnerUp):
      let against = runnerUp.map { ", against \(percent($0.share)) as \($0.name)" } ?? ""
      return (
        reading.name, .guess,
        "not UTF-8; reads as \(reading.name): \(percent(reading.share)) of its \(reading.characters) non-ASCII "
          + "characters are common ones of its language\(against)", []
      )
    case .ambiguous(let readings):
      let names = readings.map(\.name)
      let told = readings.map { "\($0.name) (\(percent($0.share)) common characters)" }.joined(separator: ", ")
      return (
        "unknown", .unknown,
        "not UTF-8, and it reads alike as \(told), in \(readings.map(\.characters).max() ?? 0) non-ASCII characters",
        names
      )
    case .tooFew(let readings):
      let names = readings.map(\.name)
      return (
        "unknown", .unknown,
        "not UTF-8, and its \(readings.first?.characters ?? 0) non-ASCII character(s) are too few to tell "
          + names.joined(separator: ", ") + " apart",
        names
      )
    case .none:
      break
    }
    // Latin text has its accented letters one by one (`Müller`, `Québec`); a non-Latin script in
    // a single-byte encoding (Cyrillic, Greek) writes whole words of bytes 0x80–0xFF, which
    // Latin-1 would read as mojibake (`Ìîñêâà`): not guessed.
    if nonLatinRuns(prefix) {
      let names = ["windows-1251", "koi8-r", "iso-8859-5", "windows-1253", "iso-8859-7"]
      return (
        "unknown", .unknown,
        "not UTF-8, and most of its bytes 0x80–0xFF come in runs of three or more, as the words of a "
          + "non-Latin script (Cyrillic, Greek) in a single-byte encoding do",
        names
      )
    }
    let undefinedIn1252: Set<UInt8> = [0x81, 0x8D, 0x8F, 0x90, 0x9D]
    let controls = prefix.filter { $0 >= 0x80 && $0 <= 0x9F }
    if !controls.isEmpty && !controls.contains(where: undefinedIn1252.contains) {
      return ("windows-1252", .guess, "not UTF-8; bytes 0x80–0x9F read as Windows-1252 punctuation", [])
    }
    return ("iso-8859-1", .guess, "not UTF-8; no Windows-1252 punctuation", [])
  }

  /// Whether most bytes 0x80–0xFF of `prefix` stand in runs of three or more.
  static func nonLatinRuns(_ prefix: [UInt8]) -> Bool {
    var high = 0
    var inRuns = 0
    var run = 0
    for byte in prefix + [0] {
      if byte >= 0x80 {
        high += 1
        run += 1
      } else {
        if run >= 3 { inRuns += run }
        run = 0
      }
    }
    return high >= 10 && inRuns * 2 >= high
  }

  /// `93%`.
  static func percent(_ share: Double) -> String { "\(Int((share * 100).rounded()))%" }

  /// Whether a prefix without a byte order mark is UTF-16: in text that is mostly ASCII, as a
  /// CSV's delimiters, digits and line breaks are, every other byte is NUL. True for
  /// big-endian (NUL first), false for little-endian, nil when it is not UTF-16.
  static func utf16WithoutMark(_ prefix: [UInt8]) -> Bool? {
    let pairs = min(prefix.count, 4096) / 2
    guard pairs >= 2 else { return nil }
    var evenNUL = 0
    var oddNUL = 0
    for pair in 0..<pairs {
      if prefix[2 * pair] == 0 { evenNUL += 1 }
      if prefix[2 * pair + 1] == 0 { oddNUL += 1 }
    }
    // A CSV in UTF-16 is mostly ASCII: at least half its units have a NUL high byte, and no
    // other text has NUL bytes on one side only.
    if oddNUL * 2 >= pairs && evenNUL * 20 < pairs { return false }
    if evenNUL * 2 >= pairs && oddNUL * 20 < pairs { return true }
    return nil
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
  static func rows(
    _ body: ArraySlice<UInt8>, delimiter: UInt8, quote: UInt8, isComplete: Bool, limit: Int = maxRows
  ) -> (rows: [[String]], broken: Set<Int>, lines: [Int]) {
    var rows: [[String]] = []
    // Each row's first line, and the line of the byte being read.
    var lines: [Int] = []
    var line = 1
    var rowLine = 1
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
    while index < body.endIndex && rows.count < limit {
      let byte = body[index]
      index += 1
      if byte == 0x0A || (byte == 0x0D && (index == body.endIndex || body[index] != 0x0A)) { line += 1 }
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
        if byte == 0x0D && index < body.endIndex && body[index] == 0x0A {
          index += 1
          line += 1
        }
        if rowHasContent || !field.isEmpty {
          endField()
          rows.append(row)
          lines.append(rowLine)
        }
        row = []
        rowHasContent = false
        rowLine = line
      default:
        if wasQuoted { broken.insert(rows.count) }
        field.append(byte)
        rowHasContent = true
      }
    }
    if isComplete && index == body.endIndex && !inQuotes && (rowHasContent || !field.isEmpty) {
      endField()
      rows.append(row)
      lines.append(rowLine)
    }
    return (rows, broken, lines)
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
      let (rows, broken, _) = rows(body, delimiter: delimiter, quote: quote, isComplete: isComplete)
      guard !rows.isEmpty else { continue }
      // A row with a quote out of place agrees with none: the wrong delimiter puts quotes inside
      // fields (`a;"b"` split at `,`), while a legacy export's few stray quotes are only a few.
      var counts: [Int: Int] = [:]
      for (index, row) in rows.enumerated() where !broken.contains(index) { counts[row.count, default: 0] += 1 }
      guard let (width, _) = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key < $1.key }),
        width >= 2
      else { continue }
      // The table starts at its first row of that width: title lines before it have another.
      guard let start = rows.indices.first(where: { rows[$0].count == width }), !broken.contains(start) else {
        continue
      }
      // ... and ends at its last: notes after it have another.
      let end = (rows.lastIndex { $0.count == width } ?? start) + 1
      let matching = rows[start..<end].indices.count { rows[$0].count == width && !broken.contains($0) }
      guard matching * 2 >= rows.count else { continue }
      let consistency = Double(matching) / Double(end - start)
      // The header row must agree: a `;` export with decimal commas splits its rows alike at `,`
      // only by chance, and its header not at all — which then looks like a title line, so a
      // table after title lines scores a little lower than one from the first row.
      guard consistency >= 0.9 else { continue }
      let score = consistency + Double(min(width, 100)) / 10_000 - (start > 0 ? 0.05 : 0)
      if score > (best?.score ?? 0) + 0.000_001 { best = (delimiter, score) }
    }
    return best?.delimiter
  }

  // MARK: - Header

  /// Whether the first row names the columns (`headerProblem` finds no reason it does not).
  static func looksLikeHeader(_ rows: [[String]]) -> Bool { headerProblem(rows) == nil }

  /// Why the first row does not name the columns, or nil when it does: most of its cells are
  /// text, none a number or a date — and, where a column below holds one type (numbers, dates,
  /// booleans), its first cell is not of it. Blank and repeated names are names (the reader
  /// makes them distinct). A file whose columns are all text is taken to have a header. The
  /// reason names columns and types, never a cell's text.
  static func headerProblem(_ rows: [[String]]) -> String? {
    guard let first = rows.first else { return nil }
    let blank = first.count { $0.allSatisfy(\.isWhitespace) }
    if blank * 2 > first.count {
      return "\(blank) of the first row's \(first.count) cells are empty, which names are not"
    }
    let classifier = TextColumnClassifier()
    func type(_ values: [String]) -> TextColumnType {
      var profile = TextColumnProfile()
      for value in values {
        var bytes = Array(value.utf8)
        bytes.withUnsafeMutableBufferPointer { profile.add(UnsafeBufferPointer($0), classifier: classifier) }
      }
      return profile.inferred(isKeyLike: true)
    }
    for (column, cell) in first.enumerated() where !cell.allSatisfy(\.isWhitespace) {
      let own = type([cell])
      if own != .text && own != .boolean {
        return "column \(column + 1) of the first row is \(own.summary), which a name is not"
      }
      let below = rows.dropFirst().compactMap { $0.count == first.count ? $0[column] : nil }.filter { !$0.isEmpty }
      guard !below.isEmpty else { continue }
      let theirs = type(below)
      if theirs != .text && theirs == own {
        return "column \(column + 1) of the first row is \(own.summary), as are the values below it"
      }
    }
    return nil
  }

  // MARK: - Data region

  /// Where the table is among `rows`: from `start` (its header, or its first row) up to `end`
  /// (exclusive). Title lines before it are rows of another number of fields (a title, a
  /// filter, a line of one field), as are notes after it — counted only when `rows` are the
  /// whole file, and only that shape: a row of the table's width at the end is data.
  static func region(_ rows: [[String]], isComplete: Bool) -> (start: Int, end: Int) {
    var counts: [Int: Int] = [:]
    for row in rows where row.count >= 2 { counts[row.count, default: 0] += 1 }
    guard let (width, _) = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key < $1.key }) else {
      return (0, rows.count)
    }
    // The first row of that width whose next row has it too (a title padded to the width has
    // its cells empty but one: not a header).
    let start =
      rows.indices.first { index in
        rows[index].count == width && rows[index].count(where: { !$0.isEmpty }) * 2 >= width
          && (index + 1 == rows.count || rows[index + 1].count == width)
      } ?? 0
    guard start <= CSVDialect.maxRegionLines else { return (0, rows.count) }
    var end = rows.count
    if isComplete {
      while end > start + 1 && rows[end - 1].count != width { end -= 1 }
      if rows.count - end > CSVDialect.maxRegionLines { end = rows.count }
    }
    return (start, end)
  }
}
