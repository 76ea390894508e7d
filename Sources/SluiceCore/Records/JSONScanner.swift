/// The byte level under the JSON readers: a fixed-size buffer refilled from a `ByteSource`, the
/// position, line and offset accounting, the capture of a record's bytes, and a validating
/// recursive-descent scan of JSON values. The layout readers decide what a record is; the
/// scanner finds where it ends and whether it is well-formed.
///
/// While a record is scanned the scanner *captures* its bytes: when the buffer is refilled
/// mid-record, the part already scanned is appended to a side array, so a record may span any
/// number of refills and memory is bounded by the largest record (and `Limits`), not by the
/// document. Lines are counted in whitespace only, which is exact because JSON strings cannot
/// hold a raw newline.
///
/// Every loop that goes byte by byte is in this one final class, over an unsafe pointer, with
/// the state it touches private to this file: the readers call in once per record or per
/// structural byte, never from inside a string or a number.
package final class JSONScanner {
  let limits: JSONRecordReader.Limits
  /// Records begun so far: the ordinal of the record being scanned, and of any error in it.
  private(set) var recordCount = 0
  /// In NDJSON, a newline ends the record: inside a value it is an error.
  var newlineEndsRecord = false

  private let source: any ByteSource
  private let capacity: Int
  private let bytes: UnsafeMutablePointer<UInt8>
  private var position = 0
  private var end = 0
  private var atEnd = false
  /// Absolute offset of `bytes[0]` in the stream.
  private var bufferOffset: Int64 = 0
  private var line = 1

  private var capturing = false
  private var captureStart = 0
  private var captured: [UInt8] = []

  /// While `captureRecord` scans a record, the nodes of its tape (`RecordTape`), written as the
  /// scan finds each value: the decoder then reads the record without tokenizing its bytes a
  /// second time. Only up to `tapeNodeLimit` nodes (a bigger record is tokenized by the tape,
  /// which counts its nodes first and allocates them once).
  private var buildsTape = false
  private var tapeNodes: UnsafeMutablePointer<RecordTape.Node>
  private var tapeCapacity = 256
  private var tapeCount = 0
  /// During a record's capture, the record's offset of `bytes[0]` (`captured.count -
  /// captureStart`), kept as a plain integer: reading `captured.count` per node was a dynamic
  /// exclusivity check per value (2 % of the decoding thread).
  private var recordBase = 0
  /// Set by the string scan when the string holds a backslash escape.
  private var sawEscape = false
  static var tapeNodeLimit: Int { 1 << 18 }

  package init(source: any ByteSource, limits: JSONRecordReader.Limits, bufferSize: Int) {
    self.source = source
    self.limits = limits
    capacity = max(bufferSize, 1)
    bytes = .allocate(capacity: capacity)
    tapeNodes = .allocate(capacity: tapeCapacity)
  }

  deinit {
    bytes.deallocate()
    tapeNodes.deallocate()
  }

  /// Offset of the next unread byte in the decompressed stream.
  var byteOffset: Int64 { bufferOffset + Int64(position) }

  // MARK: - Records

  /// Counts a record that starts at the next byte and starts capturing its bytes; returns its
  /// location.
  ///
  /// Always inlined: it is on every reader's per-record path, and inlined, its dynamic
  /// exclusivity check of `captured` merges with the caller's (callgrind: about 1% of the NDJSON
  /// reader's instructions).
  @inline(__always)
  func beginRecord() -> RecordLocation {
    recordCount += 1
    let location = RecordLocation(ordinal: recordCount, byteOffset: byteOffset, line: line)
    capturing = true
    captureStart = position
    captured.removeAll(keepingCapacity: captured.capacity <= 1 << 20)
    recordBase = -position
    return location
  }

  /// Bytes captured so far in the current record.
  var capturedCount: Int { captured.count + position - captureStart }

  /// Scans one value as a record: its bytes, checked against the size limit, and its location.
  func captureRecord() throws -> RawRecord {
    let location = beginRecord()
    beginTape()
    defer { endTape() }
    try scanValue(depth: 0)
    let record = finishCapture()
    guard record.count <= limits.maxRecordBytes else { throw recordTooLarge() }
    var raw = RawRecord(location: location, bytes: record)
    raw.tapeNodes = tape(ofRecordBytes: record.count)
    return raw
  }

  // MARK: - The record's tape

  /// Starts the tape of the record whose capture just began: the values scanned from here on
  /// are its nodes.
  func beginTape() {
    buildsTape = true
    tapeCount = 0
  }

  /// Stops making nodes (after the record, or after its error).
  func endTape() { buildsTape = false }

  /// The record's nodes, for a record of `count` bytes; nil when there are none to give (the
  /// record passed `tapeNodeLimit`, or the tape's 27-bit offsets: the tape's to refuse, as it
  /// does when it tokenizes).
  func tape(ofRecordBytes count: Int) -> [RecordTape.Node]? {
    guard buildsTape, count <= RecordTape.maxRecordBytes else { return nil }
    return Array(UnsafeBufferPointer(start: tapeNodes, count: tapeCount))
  }

  /// Where the next node's value starts in the record's bytes.
  @inline(__always)
  private var recordOffset: Int { recordBase + position }

  /// Appends a node of the record's tape (`RecordTape.tokenize` makes the same nodes).
  @inline(__always)
  private func addNode(_ tag: UInt32, flags: UInt32 = 0, payload: Int) {
    guard buildsTape else { return }
    if tapeCount == tapeCapacity {
      guard tapeCapacity < Self.tapeNodeLimit else {
        buildsTape = false
        return
      }
      let grown = UnsafeMutablePointer<RecordTape.Node>.allocate(capacity: tapeCapacity * 2)
      grown.moveInitialize(from: tapeNodes, count: tapeCount)
      tapeNodes.deallocate()
      tapeNodes = grown
      tapeCapacity *= 2
    }
    (tapeNodes + tapeCount).initialize(to: RecordTape.Node(tag: tag, flags: flags, payload: payload))
    tapeCount += 1
  }

  /// Ends the container opened at node `index`: its payload is the index past its subtree.
  @inline(__always)
  private func closeNode(_ index: Int) {
    guard buildsTape else { return }
    tapeNodes[index].bits |= UInt32(truncatingIfNeeded: tapeCount) << RecordTape.Node.payloadShift
  }

  /// Ends a capture and returns the captured bytes.
  ///
  /// A record that spanned refills hands the capture array itself over: the scanner keeps no
  /// reference to it, so the caller owns the only copy (trimming it does not copy it again) and
  /// a huge record's buffer is freed with the record, not kept for the next one.
  func finishCapture() -> [UInt8] {
    capturing = false
    let tail = UnsafeBufferPointer(start: bytes + captureStart, count: position - captureStart)
    if captured.isEmpty { return Array(tail) }
    var record: [UInt8] = []
    swap(&record, &captured)
    record.append(contentsOf: tail)
    return record
  }

  /// Moves past the end of the current line; returns the line's bytes while a capture was
  /// running (nil when the line is over the size limit).
  func captureRestOfLine() throws -> [UInt8]? {
    guard capturing else {
      try skipRestOfLine()
      return nil
    }
    while true {
      let remaining = UnsafeBufferPointer(start: bytes + position, count: end - position)
      if let index = remaining.firstIndex(of: UInt8(ascii: "\n")) {
        position += index
        let line = finishCapture()
        position += 1
        self.line += 1
        return line
      }
      position = end
      do {
        if try !refill() { return finishCapture() }
      } catch is RecordReadError {
        capturing = false
        captured = []
        try skipRestOfLine()
        return nil
      }
    }
  }

  private func skipRestOfLine() throws {
    while true {
      if position == end, try !refill() { return }
      let remaining = UnsafeBufferPointer(start: bytes + position, count: end - position)
      if let index = remaining.firstIndex(of: UInt8(ascii: "\n")) {
        position += index + 1
        line += 1
        return
      }
      position = end
    }
  }

  // MARK: - Scanning

  package func scanValue(depth: Int) throws {
    guard let c = try peek() else {
      throw syntaxError("unexpected end of input; expected a value")
    }
    switch c {
    case UInt8(ascii: "{"):
      try scanObject(depth: depth + 1)
    case UInt8(ascii: "["):
      try scanArray(depth: depth + 1)
    case UInt8(ascii: "\""):
      position += 1
      let start = recordOffset
      sawEscape = false
      try scanStringBody()
      addNode(RecordTape.Node.string, flags: sawEscape ? RecordTape.Node.hasEscapes : 0, payload: start)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      addNode(RecordTape.Node.number, payload: recordOffset)
      try scanNumber()
    case UInt8(ascii: "t"):
      addNode(RecordTape.Node.true, payload: recordOffset)
      try scanLiteral("true")
    case UInt8(ascii: "f"):
      addNode(RecordTape.Node.false, payload: recordOffset)
      try scanLiteral("false")
    case UInt8(ascii: "n"):
      addNode(RecordTape.Node.null, payload: recordOffset)
      try scanLiteral("null")
    default:
      throw syntaxError("unexpected \(describe(c)); expected a value")
    }
  }

  private func scanObject(depth: Int) throws {
    guard depth <= limits.maxDepth else { throw tooDeep() }
    let node = tapeCount
    addNode(RecordTape.Node.object, payload: 0)
    position += 1
    try skipWhitespace()
    if try peek() == UInt8(ascii: "}") {
      position += 1
      closeNode(node)
      return
    }
    while true {
      guard try peek() == UInt8(ascii: "\"") else {
        throw try unexpected("expected a string key in an object")
      }
      position += 1
      let start = recordOffset
      sawEscape = false
      try scanStringBody()
      addNode(RecordTape.Node.key, flags: sawEscape ? RecordTape.Node.hasEscapes : 0, payload: start)
      try skipWhitespace()
      try expect(UInt8(ascii: ":"), "expected ':' after an object key")
      try skipWhitespace()
      try scanValue(depth: depth)
      try skipWhitespace()
      guard let c = try peek() else { throw syntaxError("unexpected end of input inside an object") }
      position += 1
      if c == UInt8(ascii: "}") {
        closeNode(node)
        return
      }
      guard c == UInt8(ascii: ",") else {
        position -= 1
        throw syntaxError("expected ',' or '}' in an object, found \(describe(c))")
      }
      try skipWhitespace()
    }
  }

  private func scanArray(depth: Int) throws {
    guard depth <= limits.maxDepth else { throw tooDeep() }
    let node = tapeCount
    addNode(RecordTape.Node.array, payload: 0)
    position += 1
    try skipWhitespace()
    if try peek() == UInt8(ascii: "]") {
      position += 1
      closeNode(node)
      return
    }
    while true {
      try scanValue(depth: depth)
      try skipWhitespace()
      guard let c = try peek() else { throw syntaxError("unexpected end of input inside an array") }
      position += 1
      if c == UInt8(ascii: "]") {
        closeNode(node)
        return
      }
      guard c == UInt8(ascii: ",") else {
        position -= 1
        throw syntaxError("expected ',' or ']' in an array, found \(describe(c))")
      }
      try skipWhitespace()
      if try peek() == UInt8(ascii: "]") { throw syntaxError("trailing comma before ']'") }
    }
  }

  /// Scans from just after an opening quote to just after the closing one.
  private func scanStringBody() throws {
    let start = byteOffset
    func checkLength() throws {
      if byteOffset - start > Int64(limits.maxStringBytes) {
        throw RecordReadError(
          code: .valueTooLarge, message: "string longer than \(limits.maxStringBytes) bytes",
          location: currentLocation(), isRecoverable: false)
      }
    }
    while true {
      // Checked at every refill and at the end, so a string's bytes are never all in memory.
      try checkLength()
      // Fast path: plain ASCII within the buffer, eight bytes at a time, then byte by byte.
      var i = position
      while i &+ 8 <= end {
        let special = Self.specialBytes(
          UInt64(littleEndian: UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self)))
        if special != 0 {
          i &+= special.trailingZeroBitCount &>> 3
          break
        }
        i &+= 8
      }
      while i < end {
        let b = bytes[i]
        if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
        i += 1
      }
      position = i
      guard let c = try peek() else { throw syntaxError("unterminated string") }
      switch c {
      case UInt8(ascii: "\""):
        try checkLength()
        position += 1
        return
      case UInt8(ascii: "\\"):
        sawEscape = true
        try scanEscape()
      case 0x80...:
        try scanUTF8Sequence(lead: c)
      case 0x20...:
        continue  // an ordinary byte that arrived with a refill: back to the fast path
      default:
        if c == UInt8(ascii: "\n") {
          throw syntaxError(
            newlineEndsRecord
              ? "unterminated string: the line ends inside a string"
              : "unterminated string: a raw newline inside a string")
        }
        throw syntaxError("control character U+\(hex(c)) must be escaped in a string")
      }
    }
  }

  /// The high bit of each byte of `word` (eight bytes, the first in the low byte) that ends a
  /// string's plain run — a quote, a backslash, a control character below 0x20, or a byte of a
  /// multi-byte character — found for all eight at once (the zero-byte and less-than tests of
  /// "Bit Twiddling Hacks"). A borrow may also flag a byte after a flagged one, never before:
  /// the lowest flagged byte is the first that ends the run.
  @inline(__always)
  static func specialBytes(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
    let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
    let isQuote = (quote &- ones) & ~quote
    let isBackslash = (backslash &- ones) & ~backslash
    let isControl = (word &- ones &* 0x20) & ~word
    return (isQuote | isBackslash | isControl | word) & high
  }

  private func scanEscape() throws {
    position += 1
    guard let c = try peek() else { throw syntaxError("unterminated string") }
    switch c {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
      UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
      position += 1
    case UInt8(ascii: "u"):
      position += 1
      for _ in 0..<4 {
        guard let h = try peek(), h.isHexDigit else {
          throw syntaxError("\\u must be followed by four hex digits")
        }
        position += 1
      }
    default:
      throw syntaxError("invalid escape \\\(describeRaw(c)) in a string")
    }
  }

  /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF).
  private func scanUTF8Sequence(lead: UInt8) throws {
    let count: Int
    var lower: UInt8 = 0x80
    var upper: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: count = 1
    case 0xE0:
      count = 2
      lower = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: count = 2
    case 0xED:
      count = 2
      upper = 0x9F
    case 0xF0:
      count = 3
      lower = 0x90
    case 0xF1...0xF3: count = 3
    case 0xF4:
      count = 3
      upper = 0x8F
    default: throw syntaxError("invalid UTF-8 byte 0x\(hex(lead)) in a string")
    }
    position += 1
    for index in 0..<count {
      guard let b = try peek() else { throw syntaxError("unterminated string") }
      let (low, high) = index == 0 ? (lower, upper) : (0x80, 0xBF)
      guard b >= low && b <= high else {
        throw syntaxError("invalid UTF-8 sequence in a string")
      }
      position += 1
    }
  }

  private func scanNumber() throws {
    if try peek() == UInt8(ascii: "-") { position += 1 }
    guard let first = try peek(), first.isDigit else {
      throw syntaxError("expected a digit in a number")
    }
    position += 1
    if first == UInt8(ascii: "0") {
      if let c = try peek(), c.isDigit { throw syntaxError("leading zeros are not allowed in a number") }
    } else {
      try skipDigits()
    }
    if try peek() == UInt8(ascii: ".") {
      position += 1
      guard let c = try peek(), c.isDigit else {
        throw syntaxError("expected a digit after '.' in a number")
      }
      try skipDigits()
    }
    if let c = try peek(), c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
      position += 1
      if let sign = try peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
        position += 1
      }
      guard let c = try peek(), c.isDigit else {
        throw syntaxError("expected a digit in a number's exponent")
      }
      try skipDigits()
    }
  }

  private func skipDigits() throws {
    while let c = try peek(), c.isDigit { position += 1 }
  }

  private func scanLiteral(_ literal: StaticString) throws {
    let start = byteOffset
    let startLine = line
    var index = 0
    let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    while index < text.count {
      guard try peek() == text[index] else {
        throw RecordReadError(
          code: .syntax, message: "invalid literal; expected '\(literal)'",
          location: RecordLocation(ordinal: recordCount, byteOffset: start, line: startLine),
          isRecoverable: false)
      }
      position += 1
      index += 1
    }
  }

  /// Reads an object key (the quote is next) into a String, resolving escapes; a key with an
  /// unpaired surrogate escape is read as "".
  package func readKey() throws -> String {
    try readString() ?? ""
  }

  /// Reads a string outside any record (the quote is next), resolving escapes; nil when an
  /// escape is an unpaired surrogate, which no Swift string can hold.
  func readString() throws -> String? {
    guard try peek() == UInt8(ascii: "\"") else {
      throw try unexpected("expected a string key in an object")
    }
    position += 1
    // Keys are read only while walking to the record array, never inside a record, so the
    // capture machinery is free to collect the key's bytes.
    capturing = true
    captureStart = position
    captured.removeAll(keepingCapacity: true)
    defer {
      capturing = false
      captured.removeAll(keepingCapacity: captured.capacity <= 1 << 20)
    }
    try scanStringBody()
    captured.append(contentsOf: UnsafeBufferPointer(start: bytes + captureStart, count: position - 1 - captureStart))
    return JSONString.decode(captured)
  }

  /// What `scanScalarField` found: text, or what the value holds instead.
  enum ScalarField {
    /// A string (unescaped), a number or a boolean, as text.
    case text(String)
    /// null, an array or a string with an unpaired surrogate escape: what it holds, as a
    /// message says it (`null`, `an array`).
    case notText(String)
    /// A value over 4 KiB, not kept.
    case tooLong
  }

  /// Scans the value that starts at the next byte, outside any record, and returns it as text
  /// when it is a string (unescaped), a number or a boolean — an enclosing object's field a
  /// record's mapping may want (a Telegram chat's `id`); for null, arrays, objects and strings
  /// that no text can hold, what they hold; they are checked and skipped. Fields longer than 4
  /// KiB are skipped too.
  func scanScalarField() throws -> ScalarField {
    guard let first = try peek() else {
      try scanValue(depth: 1)
      return .tooLong
    }
    if first == UInt8(ascii: "\"") {
      guard let text = try readString() else { return .notText("a string with an unpaired surrogate escape") }
      return text.utf8.count <= 4096 ? .text(text) : .tooLong
    }
    let isScalar =
      first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
      || first == UInt8(ascii: "t") || first == UInt8(ascii: "f")
    guard isScalar else {
      try scanValue(depth: 1)
      return .notText(describeValue(first))
    }
    capturing = true
    captureStart = position
    captured.removeAll(keepingCapacity: true)
    try scanValue(depth: 1)
    let text = finishCapture()
    captured.removeAll(keepingCapacity: captured.capacity <= 1 << 20)
    return text.count <= 4096 ? .text(String(decoding: text, as: UTF8.self)) : .tooLong
  }

  package func skipByteOrderMark() throws {
    guard let first = try peek() else { return }
    if first == 0xEF {
      for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
        guard try peek() == expected else { throw syntaxError("invalid byte 0x\(hex(first)) at the start") }
        position += 1
      }
    } else if first == 0xFE || first == 0xFF || first == 0 {
      throw syntaxError("the input looks like UTF-16 or UTF-32; Sluice reads UTF-8 JSON")
    }
  }

  /// After the last value: only whitespace may follow, up to the end of the input.
  package func expectEndOfInput() throws {
    try skipWhitespace()
    if let c = try peek() {
      throw syntaxError("unexpected \(describe(c)) after the end of the document")
    }
  }

  @inline(__always)
  package func skipWhitespace() throws {
    while true {
      while position < end {
        let b = bytes[position]
        if b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r") {
          position += 1
        } else if b == UInt8(ascii: "\n") {
          if newlineEndsRecord { return }
          line += 1
          position += 1
        } else {
          return
        }
      }
      if try !refill() { return }
    }
  }

  package func expect(_ byte: UInt8, _ message: String) throws {
    guard try peek() == byte else { throw try unexpected(message) }
    position += 1
  }

  /// The next byte, nil at the end of the input.
  @inline(__always)
  package func peek() throws -> UInt8? {
    if position == end, try !refill() { return nil }
    return bytes[position]
  }

  /// Moves past the byte `peek()` returned.
  @inline(__always)
  package func advance() {
    position += 1
  }

  /// Loads the next chunk once the buffer is used up, keeping the part of a record in progress.
  private func refill() throws -> Bool {
    precondition(position == end, "refill before the buffer is used up")
    if atEnd { return false }
    if capturing {
      captured.append(contentsOf: UnsafeBufferPointer(start: bytes + captureStart, count: end - captureStart))
      captureStart = 0
      recordBase = captured.count
      if captured.count > limits.maxRecordBytes { throw recordTooLarge() }
    }
    bufferOffset += Int64(end)
    position = 0
    end = try source.read(into: UnsafeMutableRawBufferPointer(start: bytes, count: capacity))
    if end == 0 {
      atEnd = true
      return false
    }
    return true
  }

  // MARK: - Errors

  private func currentLocation() -> RecordLocation {
    RecordLocation(ordinal: recordCount, byteOffset: byteOffset, line: line)
  }

  /// The next byte's place, outside any record (ordinal 0): a key or value of the objects
  /// around the records.
  var locationOutsideRecords: RecordLocation {
    RecordLocation(ordinal: 0, byteOffset: byteOffset, line: line)
  }

  package func syntaxError(_ message: String) -> RecordReadError {
    RecordReadError(code: .syntax, message: message, location: currentLocation(), isRecoverable: false)
  }

  func pathError(_ message: String) -> RecordReadError {
    RecordReadError(code: .invalidValue, message: message, location: currentLocation(), isRecoverable: false)
  }

  private func unexpected(_ expectation: String) throws -> RecordReadError {
    guard let c = try peek() else { return syntaxError("unexpected end of input; \(expectation)") }
    if c == UInt8(ascii: "\n") && newlineEndsRecord {
      return syntaxError("unexpected end of line; \(expectation)")
    }
    return syntaxError("\(expectation), found \(describe(c))")
  }

  private func tooDeep() -> RecordReadError {
    RecordReadError(
      code: .nestingTooDeep, message: "nesting deeper than \(limits.maxDepth) levels",
      location: currentLocation(), isRecoverable: false)
  }

  func recordTooLarge() -> RecordReadError {
    RecordReadError(
      code: .recordTooLarge, message: "record larger than \(limits.maxRecordBytes) bytes",
      location: currentLocation(), isRecoverable: false)
  }

  /// A byte as an error message quotes it: `'x'`, `'0x0A'`, or `end of line` where a newline
  /// ends the record.
  package func describe(_ byte: UInt8) -> String {
    if byte == UInt8(ascii: "\n") && newlineEndsRecord { return "end of line" }
    return "'\(describeRaw(byte))'"
  }

  private func describeRaw(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return String(UnicodeScalar(byte)) }
    return "0x" + hex(byte)
  }

  /// The kind of value a byte starts (`an object`, `a number`), for record path errors.
  func describeValue(_ byte: UInt8) -> String {
    switch byte {
    case UInt8(ascii: "{"): return "an object"
    case UInt8(ascii: "["): return "an array"
    case UInt8(ascii: "\""): return "a string"
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
    case UInt8(ascii: "n"): return "null"
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
    default: return "'\(describeRaw(byte))'"
    }
  }

  private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
  }
}

extension UInt8 {
  @inline(__always) var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
  @inline(__always) var isHexDigit: Bool {
    isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
      || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
  }
}
