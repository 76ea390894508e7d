/// Streams the rows of a CSV or TSV input (RFC 4180, in a `CSVDialect`), each as a flat record
/// keyed by the header, never holding more than one row.
///
/// A row arrives as a tape whose scalars are text (`RecordTape.Origin.csv`), so the decoder
/// parses a DTO's numbers, booleans and dates from it under the policy's rules, as for XML;
/// every field keeps its source position (byte offset and line from the row's start — a quoted
/// field spanning lines counts them). The record's `bytes` are the row's own bytes, without its
/// line break (converted to UTF-8 from a declared single-byte encoding), which is what a rejects
/// file keeps.
///
/// One scan, in a state machine that needs no look-back, so a field of doubled quotes or a row
/// of a million empty fields costs its length (the bytes that cannot change its state are taken
/// in runs, the others one by one); a row past `maxRecordBytes`, or a
/// field past `maxFieldBytes`, is scanned to its end without being kept, then reported.
/// Rows end at LF, CRLF or CR; a UTF-8 byte order mark is skipped, a second one refused; blank
/// lines are no rows, but in a file of one column, where they are an empty field. A
/// UTF-16 input (by its byte order mark, or declared) is read through `CSVUTF16Source`, its
/// offsets counted in the file's own bytes.
/// A row with more or fewer fields than the header, a stray quote, invalid UTF-8 or a row over
/// a bound is a recoverable error carrying the row's bytes: `next()` goes on at the next row.
@_spi(Internals) public final class CSVRecordReader: RecordReader {
  public struct Limits: Sendable {
    /// Largest row, in bytes as written (and as its tape holds it).
    public var maxRecordBytes: Int
    /// Longest field, in bytes once unquoted.
    public var maxFieldBytes: Int

    public init(maxRecordBytes: Int = 64 << 20, maxFieldBytes: Int = 16 << 20) {
      self.maxRecordBytes = min(maxRecordBytes, RecordTape.maxRecordBytes)
      self.maxFieldBytes = maxFieldBytes
    }
  }

  public let dialect: CSVDialect
  public let limits: Limits
  /// Rows read so far, bad ones included; the header is not one.
  public private(set) var recordCount = 0
  /// The column names, once the header is read (or as the dialect gives them), for any thread.
  public let columns = CSVColumns()
  /// The header row's blank and repeated names, each read under a name of its own.
  public private(set) var renamedColumns: [CSVRenamedColumn] = []
  /// The rows at the end left out as the dialect's `footerLines`, once `next()` returned nil.
  public private(set) var footerRowsSkipped = 0
  /// The rows read ahead while the footer is not known yet (at most `dialect.footerLines` + 1).
  private var pending: [Result<RawRecord, RecordReadError>] = []
  private var rowsEnded = false

  // The reader's state below is touched only by its own methods, on the one thread that reads
  // (a `RecordReader` is not shared), and never while an access to it is open: the runtime's
  // exclusivity checks on it cost about 4 % of a CSV import's instructions (callgrind, 80,000
  // rows) and could never fire, so they are left out.
  @exclusivity(unchecked) private var source: any ByteSource
  /// The UTF-16 input's decoder, when the input is UTF-16: offsets are then counted in its bytes.
  @exclusivity(unchecked) private(set) var utf16: CSVUTF16Source?
  /// The single-byte encoding each field is converted from, if any.
  let singleByte: CSVEncoding?
  /// The multi-byte encoding's converter each field goes through, if any.
  let multiByte: CSVMultiByteConverter?
  /// Where `buffer[sourceIndex]` sits in a UTF-16 file: `offset` walks forward from here.
  @exclusivity(unchecked) private var sourceIndex = 0
  @exclusivity(unchecked) private var sourceOffset: Int64 = 0
  /// How many bytes of the file an ASCII character takes: 2 in UTF-16, 1 otherwise.
  @exclusivity(unchecked) private var asciiWidth: Int64 = 1
  private let buffer: UnsafeMutableRawBufferPointer
  @exclusivity(unchecked) private var count = 0
  @exclusivity(unchecked) private var position = 0
  /// The stream offset of `buffer`'s first byte.
  @exclusivity(unchecked) private var bufferOffset: Int64 = 0
  @exclusivity(unchecked) private var sourceEnded = false
  @exclusivity(unchecked) private var started = false
  /// The line of the next byte.
  @exclusivity(unchecked) private var line = 1
  /// The last byte ended a row with CR: an LF right after it belongs to that line break.
  @exclusivity(unchecked) private var endedWithCR = false
  @exclusivity(unchecked) private var header: CSVHeader?

  // The row being read: its bytes, its fields' unquoted bytes, and where each field is.
  @exclusivity(unchecked) private var raw = GrowableBuffer<UInt8>(capacity: 4096)
  @exclusivity(unchecked) var values = GrowableBuffer<UInt8>(capacity: 4096)
  @exclusivity(unchecked) var fields = GrowableBuffer<Field>(capacity: 64)
  @exclusivity(unchecked) var builder = RecordTape.Builder()
  @exclusivity(unchecked) var objects: [Int] = []
  /// One field converted from the dialect's encoding.
  @exclusivity(unchecked) var scratch: [UInt8] = []
  @exclusivity(unchecked) private(set) var rowStart = RecordLocation(ordinal: 0, byteOffset: 0, line: 1)
  /// The row's first problem; once set, nothing more of the row is kept but its bytes.
  @exclusivity(unchecked) private var problem: RecordReadError?
  /// The row's bytes so far, kept or not.
  @exclusivity(unchecked) private var rowBytes = 0
  /// The row went past a bound: not even its bytes are kept.
  @exclusivity(unchecked) private var dropsRow = false

  struct Field {
    var start: Int
    var end: Int
    /// From the row's first byte; a quoted field's is its opening quote's.
    var offset: Int
    var lines: Int
    var isQuoted: Bool
  }

  public init(
    source: any ByteSource, dialect: CSVDialect = .csv, limits: Limits = Limits(), bufferSize: Int = 1 << 16
  ) {
    self.source = source
    self.dialect = dialect
    self.limits = limits
    singleByte = dialect.encoding.flatMap { $0.isSingleByte ? $0 : nil }
    multiByte = dialect.encoding.flatMap { $0.isMultiByte ? CSVMultiByteConverter(name: $0.name) : nil }
    buffer = .allocate(byteCount: max(bufferSize, 4), alignment: 16)
  }

  deinit {
    buffer.deallocate()
    raw.deallocate()
    values.deallocate()
    fields.deallocate()
    builder.deallocate()
  }

  /// The next row. With a footer (`dialect.footerLines`), rows are read that many ahead: at the
  /// input's end, up to that many last rows whose number of fields is not the header's are notes,
  /// left out rather than rejected. A last row of the table's shape is always data, so a file
  /// without its notes loses no row.
  public func next() throws -> RawRecord? {
    guard dialect.footerLines > 0 else { return try nextRow() }
    while pending.count <= dialect.footerLines && !rowsEnded {
      do {
        if let row = try nextRow() { pending.append(.success(row)) } else { rowsEnded = true }
      } catch let error as RecordReadError where error.isRecoverable {
        pending.append(.failure(error))
      }
    }
    if rowsEnded && footerRowsSkipped == 0 {
      while footerRowsSkipped < dialect.footerLines, case .failure(let error) = pending.last, error.code == .fieldCount
      {
        pending.removeLast()
        footerRowsSkipped += 1
      }
    }
    guard !pending.isEmpty else { return nil }
    return try pending.removeFirst().get()
  }

  private func nextRow() throws -> RawRecord? {
    if header == nil {
      guard try readHeader() else { return nil }
    }
    guard let header else { return nil }
    while true {
      guard try scanRow() else { return nil }
      // A blank line is no row, but in a file of one column, where it is that column's empty
      // field (RFC 4180: a record is a line; PostgreSQL's CSV reads it as NULL).
      if rowBytes == 0 && fields.count == 1 && problem == nil && header.names.count > 1 { continue }
      recordCount += 1
      rowStart.ordinal = recordCount
      // The row as written, in UTF-8 when the file is not: what a rejects file keeps and replays.
      // What is not text stays bytes that are no UTF-8 (an undefined byte, the UTF-16 source's
      // markers), which the rejects file keeps as escapes and replay refuses: never U+FFFD.
      let bytes =
        singleByte.map { $0.utf8KeepingUndefined(raw.array()) } ?? multiByte?.utf8KeepingUndefined(raw.array())
        ?? raw.array()
      do {
        if var problem {
          problem.location.ordinal = recordCount
          throw problem
        }
        guard fields.count == header.names.count else {
          throw RecordReadError(
            code: .fieldCount,
            message: "a row of \(fields.count) fields; the header names \(header.names.count) columns",
            location: rowStart, isRecoverable: true)
        }
        try checkEncoding(header)
        var record = RawRecord(location: rowStart, tape: try tape(header))
        record.bytes = bytes
        record.columns = header.columns
        return record
      } catch var error as RecordReadError {
        // A row too large to keep is reported without its bytes.
        error.isRecoverable = true
        error.rawRecord = dropsRow ? nil : bytes
        throw error
      }
    }
  }

  // MARK: - Header

  /// Reads the column names (or takes the dialect's); false when the input holds no row.
  private func readHeader() throws -> Bool {
    try start()
    try skipLines(dialect.skipLines)
    var names = dialect.columns
    if dialect.hasHeader {
      repeat {
        guard try scanRow() else { return false }
      } while rowBytes == 0 && fields.count == 1 && problem == nil
      if var problem {
        // The header is no record: without it no row can be read (found by the csv-reader fuzz
        // target, from its first seed).
        problem.message = "the header: " + problem.message
        problem.isRecoverable = false
        throw problem
      }
      if let error = transcode() {
        throw headerError("column \(error.column + 1)'s name has a byte \(error.name) does not define", at: nil)
      }
      if names == nil {
        var read: [String] = []
        for index in 0..<fields.count {
          let field = fields[index]
          let text = UnsafeBufferPointer(start: values.base + field.start, count: field.end - field.start)
          guard let name = String(validating: text, as: UTF8.self) else {
            throw headerError(
              "column \(index + 1)'s name is not valid "
                + (utf16 == nil
                  ? "UTF-8 (a file in another encoding needs dialect.encoding or --encoding; sluice inspect sniffs it)"
                  : "UTF-16"),
              at: field)
          }
          // A second byte order mark (the file saved twice with one, or a header pasted with
          // one) would be part of the name, which then matches no field: said, not kept.
          guard name.unicodeScalars.first != "\u{FEFF}" else {
            throw headerError(
              "column \(index + 1)'s name starts with a byte order mark (U+FEFF): the file has a second one, "
                + "or its header was pasted with one; remove it", at: field, column: index)
          }
          read.append(name)
        }
        let distinct = CSVHeader.distinct(read)
        names = distinct.names
        renamedColumns = distinct.renamed
      }
    }
    guard let names, !names.isEmpty else {
      throw headerError("no column names: the dialect has neither a header row nor columns", at: nil)
    }
    do {
      header = try CSVHeader(names: names)
      columns.set(names)
    } catch {
      let field = error.column < fields.count ? fields[error.column] : nil
      throw headerError(error.message, at: field)
    }
    return true
  }

  private func headerError(_ message: String, at field: Field?, column: Int? = nil) -> RecordReadError {
    RecordReadError(
      code: .syntax, message: "the header: " + message,
      location: .init(
        ordinal: 0, byteOffset: rowStart.byteOffset + Int64(field?.offset ?? 0),
        line: rowStart.line + (field?.lines ?? 0), column: column.map { $0 + 1 }),
      isRecoverable: false)
  }

  /// Fills the buffer's first bytes and skips a UTF-8 byte order mark; a UTF-16 input (by its
  /// byte order mark or declared) is read from here on through its decoder; UTF-32 is refused.
  private func start() throws {
    guard !started else { return }
    started = true
    if let encoding = dialect.encoding, encoding.isMultiByte {
      for (name, byte) in [("delimiter", dialect.delimiter), ("quote", dialect.quote)]
      where byte >= CSVEncoding.lowestTrailByte {
        throw RecordReadError(
          code: .syntax,
          message: "the \(name) '\(Character(UnicodeScalar(byte)))' can be the second byte of a \(encoding.name) "
            + "character: convert the file to UTF-8 first (iconv -f \(encoding.name) -t UTF-8)",
          location: .init(ordinal: 0, byteOffset: 0, line: 1), isRecoverable: false)
      }
      guard multiByte != nil else {
        throw RecordReadError(
          code: .syntax, message: "iconv cannot convert \(encoding.name) to UTF-8",
          location: .init(ordinal: 0, byteOffset: 0, line: 1), isRecoverable: false)
      }
    }
    while count < 4 {
      let read = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
      if read == 0 { break }
      count += read
    }
    switch CSVUTF16Source.start(head: Array(buffer[..<min(count, 4)]), encoding: dialect.encoding) {
    case .failure(let problem):
      throw RecordReadError(
        code: .syntax, message: problem.message, location: .init(ordinal: 0, byteOffset: 0, line: 1),
        isRecoverable: false)
    case .success(.bytes(let skip)):
      position = skip
    case .success(.utf16(let bigEndian, let skip)):
      let decoder = CSVUTF16Source(
        source: source, bigEndian: bigEndian, head: Array(buffer[skip..<count])[...], offset: Int64(skip))
      source = decoder
      utf16 = decoder
      asciiWidth = 2
      count = 0
      position = 0
      bufferOffset = 0
      sourceIndex = 0
      sourceOffset = Int64(skip)
    }
  }

  /// Skips `count` lines before the header: whatever they hold, quotes included, up to their
  /// line breaks (LF, CRLF or CR).
  private func skipLines(_ count: Int) throws {
    var skipped = 0
    while skipped < count, let byte = try nextByte() {
      if endedWithCR {
        endedWithCR = false
        if byte == 0x0A { continue }
      }
      if byte == 0x0A || byte == 0x0D {
        skipped += 1
        line += 1
        endedWithCR = byte == 0x0D
      }
    }
  }

  // MARK: - Scanning

  /// The next byte, or nil at the end of the input.
  @inline(__always)
  private func nextByte() throws -> UInt8? {
    if position == count {
      guard !sourceEnded else { return nil }
      bufferOffset += Int64(count)
      position = 0
      count = try source.read(into: buffer)
      if let utf16 {
        sourceIndex = 0
        sourceOffset = utf16.chunkStart
      }
      if count == 0 {
        sourceEnded = true
        return nil
      }
    }
    defer { position += 1 }
    return buffer[position]
  }

  /// The stream offset of the byte `nextByte()` returned last; in a UTF-16 file, the file offset
  /// of its character.
  private var offset: Int64 {
    guard utf16 != nil else { return bufferOffset + Int64(position) - 1 }
    // The decoder returns whole characters: each UTF-8 byte before this one in the buffer adds
    // its character's width in the file, counted once, at its first byte.
    let target = position - 1
    while sourceIndex < target {
      sourceOffset += CSVUTF16Source.width(of: buffer[sourceIndex])
      sourceIndex += 1
    }
    return sourceOffset
  }

  private enum State { case fieldStart, unquoted, quoted, quoteInQuoted }

  /// Reads one row into `raw`, `values` and `fields`; false at the end of the input.
  private func scanRow() throws -> Bool {
    raw.removeAll(shrinkingAbove: 1 << 20)
    rowBytes = 0
    dropsRow = false
    values.removeAll(shrinkingAbove: 1 << 20)
    fields.removeAll(shrinkingAbove: 1 << 16)
    problem = nil
    var byte = try nextByte()
    if endedWithCR, byte == 0x0A { byte = try nextByte() }
    endedWithCR = false
    guard var byte else { return false }
    rowStart = RecordLocation(ordinal: 0, byteOffset: offset, line: line)
    let delimiter = dialect.delimiter
    let quote = dialect.quote
    var state = State.fieldStart
    var previousWasCR = false
    beginField(at: offset)
    while true {
      let endsRow = state != .quoted && (byte == 0x0A || byte == 0x0D)
      if !endsRow { keep(byte) }
      switch state {
      case .fieldStart where byte == quote:
        fields[fields.count - 1].isQuoted = true
        state = .quoted
      case .quoted:
        if byte == quote {
          state = .quoteInQuoted
        } else {
          if byte == 0x0D || (byte == 0x0A && !previousWasCR) { line += 1 }
          value(byte)
        }
      case .quoteInQuoted where byte == quote:
        value(byte)
        state = .quoted
      default:
        if byte == delimiter {
          endField()
          beginField(at: offset + asciiWidth)
          state = .fieldStart
        } else if endsRow {
          endField()
          line += 1
          endedWithCR = byte == 0x0D
          return true
        } else {
          if byte == quote {
            stray("a quote inside an unquoted field", at: offset)
          } else if state == .quoteInQuoted {
            stray("a character after a quoted field's closing quote", at: offset - asciiWidth)
          }
          value(byte)
          state = .unquoted
        }
      }
      previousWasCR = byte == 0x0D
      // Most bytes change nothing: the run of them up to the next that can is taken at once.
      if state == .unquoted || state == .quoted, takeRun(quoted: state == .quoted) { previousWasCR = false }
      guard let following = try nextByte() else {
        if state == .quoted, let field = fields.last {
          fail(
            .syntax, "a quoted field that does not end before the input does",
            at: rowStart.byteOffset + Int64(field.offset), line: rowStart.line + field.lines)
        }
        endField()
        return true
      }
      byte = following
    }
  }

  /// Inside a field, the bytes up to the next one that can end it or change the scanner's state
  /// (a quote, a line break, and the delimiter outside quotes), from the buffer in one piece:
  /// kept, added to the field's value and skipped, as the byte-by-byte path would, one at a
  /// time. True when it took any. Left to that path: a row that failed (its bytes kept only),
  /// and a run that would cross a bound, so that the bound's issue is the same.
  @inline(__always)
  private func takeRun(quoted: Bool) -> Bool {
    guard problem == nil, position < count else { return false }
    let bytes = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
    let quote = dialect.quote
    var end = position
    if quoted {
      while end < count {
        let byte = bytes[end]
        if byte == quote || byte == 0x0A || byte == 0x0D { break }
        end += 1
      }
    } else {
      let delimiter = dialect.delimiter
      while end < count {
        let byte = bytes[end]
        if byte == delimiter || byte == quote || byte == 0x0A || byte == 0x0D { break }
        end += 1
      }
    }
    let taken = end - position
    guard taken > 0, rowBytes + taken <= limits.maxRecordBytes,
      values.count + taken - fields[fields.count - 1].start <= limits.maxFieldBytes
    else { return false }
    rowBytes += taken
    raw.append(bytes + position, count: taken)
    values.append(bytes + position, count: taken)
    position = end
    return true
  }

  /// Keeps a byte of the row as written, for the rejects file, even after a problem (a row with
  /// a stray quote is kept whole), unless the row is past a bound.
  @inline(__always)
  private func keep(_ byte: UInt8) {
    rowBytes += 1
    guard rowBytes <= limits.maxRecordBytes else {
      if problem?.code != .recordTooLarge {
        problem = nil
        fail(
          .recordTooLarge, "row larger than \(limits.maxRecordBytes) bytes", at: rowStart.byteOffset,
          line: rowStart.line)
      }
      return
    }
    if !dropsRow { raw.append(byte) }
  }

  @inline(__always)
  private func value(_ byte: UInt8) {
    guard problem == nil else { return }
    values.append(byte)
    if values.count - fields[fields.count - 1].start > limits.maxFieldBytes {
      let field = fields[fields.count - 1]
      fail(
        .valueTooLarge, "a field longer than \(limits.maxFieldBytes) bytes",
        at: rowStart.byteOffset + Int64(field.offset), line: rowStart.line + field.lines, column: fields.count - 1)
    }
  }

  private func beginField(at offset: Int64) {
    guard problem == nil else { return }
    // A row of more fields than a header may name columns fits no table: it is given up, so
    // that a row of commas (64 MiB of them) takes no 40 bytes a field.
    guard fields.count < CSVHeader.maxColumns else {
      fail(
        .fieldCount, "more than \(CSVHeader.maxColumns) fields, the most a CSV row may have", at: offset, line: line,
        column: fields.count)
      return
    }
    fields.append(
      Field(
        start: values.count, end: values.count, offset: Int(offset - rowStart.byteOffset), lines: line - rowStart.line,
        isQuoted: false))
  }

  private func endField() {
    guard problem == nil else { return }
    fields[fields.count - 1].end = values.count
  }

  private func stray(_ message: String, at offset: Int64) {
    fail(.syntax, "a stray quote: \(message)", at: offset, line: line, column: fields.count - 1)
  }

  /// Gives the row up: the rest of it is scanned, not kept, and the error thrown at its end. A
  /// row past a bound lets go of what it holds, so that memory stays within one bound.
  private func fail(_ code: IssueCode, _ message: String, at offset: Int64, line: Int, column: Int? = nil) {
    guard problem == nil else { return }
    if code == .recordTooLarge || code == .valueTooLarge {
      dropsRow = true
      raw.removeAll(shrinkingAbove: 1 << 20)
      values.removeAll(shrinkingAbove: 1 << 20)
    }
    var error = RecordReadError(
      code: code, message: message,
      location: .init(ordinal: 0, byteOffset: offset, line: line, column: column.map { $0 + 1 }),
      isRecoverable: true)
    if let column { error.path = path(of: column) }
    problem = error
  }

  /// A column's header name, for an issue's path; its number when it has none.
  private func path(of column: Int) -> String {
    guard let names = header?.names ?? dialect.columns, column < names.count else { return "column \(column + 1)" }
    return names[column]
  }
}
