import Foundation

/// The mutable heart of `SluiceDecoder`: the current record's tape, the scalar conversions, and
/// the error construction, shared by every container of one decode.
final class DecodingState {
  /// The tape lives behind a pointer: a stored `var` of a class pays a dynamic exclusivity
  /// check on every access, which was a quarter of the decoder's time. Accesses through the
  /// pointer are unchecked; the decoder is single-threaded and never holds two at once.
  private let tapeStorage: UnsafeMutablePointer<RecordTape>
  var tape: RecordTape {
    _read { yield tapeStorage.pointee }
    _modify { yield &tapeStorage.pointee }
  }
  /// Where each keyed container's next key lookup starts, behind a pointer like the tape.
  private let cursors: UnsafeMutablePointer<CursorStack>
  let legacyScalars: Bool
  let dates: DateParser
  let datesAsReferenceSeconds: Bool
  var coercions = 0
  /// How the current XML record's arrays were read.
  var xml = XMLReadings()
  /// Where the current record's last coding path was found, level by level (`codingPath(to:)`).
  var pathCursors: [PathCursor] = []
  /// What the DTO's `init(from:)` finds in `decoder.userInfo`.
  var userInfo: [CodingUserInfoKey: Any] = [:]

  init(options: SluiceDecoder.Options) {
    legacyScalars = options.legacyScalars
    dates = DateParser(formats: options.dateFormats)
    datesAsReferenceSeconds = options.datesAsReferenceSeconds
    tapeStorage = .allocate(capacity: 1)
    tapeStorage.initialize(to: RecordTape())
    cursors = .allocate(capacity: 1)
    cursors.initialize(to: CursorStack())
  }

  deinit {
    tapeStorage.deinitialize(count: 1)
    tapeStorage.deallocate()
    cursors.pointee.deallocate()
    cursors.deinitialize(count: 1)
    cursors.deallocate()
  }

  /// Before a record: no keyed container is open, no coding path was found.
  func resetCursors() {
    cursors.pointee.count = 0
    if !pathCursors.isEmpty { pathCursors.removeAll(keepingCapacity: true) }
  }

  /// Drops the finished record's bytes and any storage a huge record grew, so nothing the size
  /// of one record outlives it.
  func releaseRecord() {
    tape.releaseRecord()
    if !pathCursors.isEmpty { pathCursors.removeAll(keepingCapacity: true) }
    cursors.pointee.shrink(above: RecordTape.retainedNodeCapacity)
  }

  /// A cursor for a keyed container opened on `object`; its lookups start at the first key.
  @inline(__always)
  func openCursor(on object: Int) -> Int {
    cursors.pointee.push(Int32(truncatingIfNeeded: object + 1))
  }

  @inline(__always)
  func kind(_ node: Int) -> RecordTape.Kind { tape.nodes[node].kind }

  // MARK: - Values

  func decode<T: Decodable>(_ type: T.Type, at node: Int, parent: Int = -1) throws -> T {
    // Types Foundation also special-cases. The casts are checked by the type tests in front of
    // them; a dynamic `as? T` here cost more than parsing an ISO 8601 date.
    if T.self == Date.self { return unsafeBitCast(try date(node), to: T.self) }
    if T.self == Decimal.self { return unsafeBitCast(try decimal(node), to: T.self) }
    if T.self == URL.self { return unsafeBitCast(try url(node), to: T.self) }
    do {
      // An XML value found by key may be a wrapper or repeated siblings read as an array: the
      // cast is tried for it too. On XML orders (callgrind, decoding thread) the items through
      // `decodeElements` took 1.7k instructions an order less than through `Array.init(from:)`,
      // and the failed look-up for the customer 0.6k more.
      if kind(node) == .array || (isXML && parent >= 0), let array = T.self as? any TapeDecodableArray.Type {
        return try array.decodeElements(self, node: node, parent: parent, as: T.self)
      }
      return try T(from: TapeDecoder(state: self, node: node, parent: parent))
    } catch DecodingError.dataCorrupted(let context) where !(context.underlyingError is DecodeFailure) {
      // The type refused a value it read — a `RawRepresentable` enum, a DTO's own check. The
      // innermost `decode` catches it first, so `T` is the type that refused. Named by type,
      // never by the error's text, which quotes the value and changes between toolchains.
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: context.codingPath, debugDescription: "not a valid \(T.self) value",
          underlyingError: DecodeFailure(
            code: .invalidValue, message: "not a valid \(T.self) value",
            byteOffset: offset(of: tape.nodes.isEmpty ? 0 : tape.node(along: context.codingPath)))))
    }
  }

  func string(_ node: Int) throws -> String {
    let n = tape.nodes[node]
    switch n.kind {
    case .string:
      return try text(node)
    case .number where legacyScalars:
      coercions += 1
      return String(decoding: tape.bytes[range(node)], as: UTF8.self)
    default:
      throw mismatch(node, String.self, expected: "a string")
    }
  }

  func bool(_ node: Int) throws -> Bool {
    let n = tape.nodes[node]
    switch n.kind {
    case .true: return true
    case .false: return false
    case .string where tape.scalarsAreText:
      guard let value = xmlBool(node) else { throw mismatch(node, Bool.self, expected: "a boolean") }
      return value
    case .string where legacyScalars:
      let text = tape.bytes[range(node)]
      if text.elementsEqual("true".utf8) || text.elementsEqual("false".utf8) {
        if !tape.scalarsAreText { coercions += 1 }
        return text.count == 4
      }
      throw mismatch(node, Bool.self, expected: "a boolean")
    default:
      throw mismatch(node, Bool.self, expected: "a boolean")
    }
  }

  func integer<T: FixedWidthInteger>(_ node: Int, _ type: T.Type) throws -> T {
    let n = tape.nodes[node]
    switch n.kind {
    case .number:
      break
    case .string where (legacyScalars || tape.scalarsAreText) && !n.hasEscapes:
      guard let value = try parseInteger(node, T.self, quoted: true) else {
        throw mismatch(node, T.self, expected: "an integer")
      }
      if !tape.scalarsAreText { coercions += 1 }
      return value
    default:
      throw mismatch(node, T.self, expected: "an integer")
    }
    guard let value = try parseInteger(node, T.self, quoted: false) else {
      throw mismatch(node, T.self, expected: "an integer")
    }
    return value
  }

  /// Parses an integer exactly: no truncation, no rounding. Returns nil when the text is not
  /// an integer at all (for quoted text) and throws `outOfRange` when it does not fit `T`.
  ///
  /// One pass from the node's start, with no length looked up first: a number's digits end at
  /// the first byte that is not a digit — a fraction or an exponent if it is still part of the
  /// number — a quoted integer's at its closing quote.
  private func parseInteger<T: FixedWidthInteger>(_ node: Int, _ type: T.Type, quoted: Bool) throws -> T? {
    let start = tape.nodes[node].payload
    return try tape.bytes.withUnsafeBufferPointer { buffer throws -> T? in
      let count = buffer.count
      var i = start
      var negative = false
      if i < count && buffer[i] == UInt8(ascii: "-") {
        negative = true
        i += 1
      }
      let digits = i
      var magnitude: UInt64 = 0
      var overflow = false
      while i < count {
        let b = buffer[i]
        guard b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") else { break }
        let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times10.addingReportingOverflow(UInt64(b - UInt8(ascii: "0")))
        overflow = overflow || o1 || o2
        magnitude = sum
        i += 1
      }
      guard i > digits else { return nil }
      if quoted {
        guard i < count, buffer[i] == UInt8(ascii: "\"") else { return nil }
      } else if i < count, RecordTape.isNumberByte(buffer[i]) {
        // A JSON number with a fraction or an exponent.
        throw DecodingError.typeMismatch(
          T.self,
          context(node, code: .typeMismatch, "expected an integer, found a number with a fraction or exponent"))
      }
      if !overflow {
        if negative {
          if T.isSigned, magnitude <= UInt64(T.max) + 1 {
            return magnitude == UInt64(T.max) + 1 ? T.min : 0 - T(magnitude)
          }
          if magnitude == 0 { return 0 }
        } else if magnitude <= UInt64(T.max) {
          return T(magnitude)
        }
      }
      throw DecodingError.dataCorrupted(
        context(node, code: .outOfRange, "does not fit \(T.self) (\(T.min)…\(T.max))"))
    }
  }

  func double(_ node: Int) throws -> Double {
    let n = tape.nodes[node]
    switch n.kind {
    case .number:
      break
    case .string where (legacyScalars || tape.scalarsAreText) && !n.hasEscapes:
      guard isNumberText(range(node)), let value = parseDouble(range(node)) else {
        throw mismatch(node, Double.self, expected: "a number")
      }
      guard value.isFinite else {
        throw DecodingError.dataCorrupted(context(node, code: .outOfRange, "does not fit a Double"))
      }
      if !tape.scalarsAreText { coercions += 1 }
      return value
    default:
      throw mismatch(node, Double.self, expected: "a number")
    }
    guard let value = parseDouble(range(node)), value.isFinite else {
      throw DecodingError.dataCorrupted(context(node, code: .outOfRange, "does not fit a Double"))
    }
    return value
  }

  func float(_ node: Int) throws -> Float {
    let value = try double(node)
    let narrowed = Float(value)
    guard narrowed.isFinite else {
      throw DecodingError.dataCorrupted(context(node, code: .outOfRange, "does not fit a Float"))
    }
    return narrowed
  }

  /// Whether a string node holds a number as JSON writes one (leading zeros allowed), the only
  /// text converted to a `Double` or a `Decimal`: `strtod` alone would also take hex, `inf` and
  /// leading spaces, and `Decimal(string:)` a prefix, such as the 12 of `12abc`.
  private func isNumberText(_ range: Range<Int>) -> Bool {
    let text = tape.bytes[range]
    var i = text.startIndex
    func digits() -> Bool {
      let first = i
      while i < text.endIndex, text[i] >= UInt8(ascii: "0"), text[i] <= UInt8(ascii: "9") { i += 1 }
      return i > first
    }
    if i < text.endIndex, text[i] == UInt8(ascii: "-") { i += 1 }
    guard digits() else { return false }
    if i < text.endIndex, text[i] == UInt8(ascii: ".") {
      i += 1
      guard digits() else { return false }
    }
    if i < text.endIndex, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
      i += 1
      if i < text.endIndex, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") { i += 1 }
      guard digits() else { return false }
    }
    return i == text.endIndex
  }

  private func parseDouble(_ range: Range<Int>) -> Double? {
    let length = range.count
    guard length > 0, length < 1_024 else { return nil }
    return tape.bytes.withUnsafeBufferPointer { buffer in
      withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { text -> Double? in
        for i in 0..<length { text[i] = CChar(bitPattern: buffer[range.lowerBound + i]) }
        text[length] = 0
        guard let base = text.baseAddress else { return nil }
        var endPointer: UnsafeMutablePointer<CChar>?
        let value = strtod(base, &endPointer)
        guard let endPointer, endPointer - base == length else { return nil }
        return value
      }
    }
  }

  func decimal(_ node: Int) throws -> Decimal {
    let n = tape.nodes[node]
    let textual = n.kind == .string && (legacyScalars || tape.scalarsAreText) && isNumberText(range(node))
    guard n.kind == .number || textual else {
      throw mismatch(node, Decimal.self, expected: "a number")
    }
    let text = String(decoding: tape.bytes[range(node)], as: UTF8.self)
    // A well-formed number is nil here only when its exponent is beyond Decimal's.
    guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else {
      throw DecodingError.dataCorrupted(context(node, code: .outOfRange, "does not fit a Decimal"))
    }
    if n.kind == .string && !tape.scalarsAreText { coercions += 1 }
    return value
  }

  func date(_ node: Int) throws -> Date {
    let n = tape.nodes[node]
    let parsed: Date?
    switch n.kind {
    case .string where n.hasEscapes:
      parsed = dates.parse(try text(node))
    case .string:
      parsed = dates.parse(text: tape.bytes[range(node)])
    case .number where datesAsReferenceSeconds:
      parsed = parseDouble(range(node)).flatMap { $0.isFinite ? Date(timeIntervalSinceReferenceDate: $0) : nil }
    case .number:
      parsed = parseDouble(range(node)).flatMap { dates.parse(number: $0) }
    case .null:
      throw DecodingError.valueNotFound(
        Date.self, context(node, code: .nullValue, "expected a date, found null"))
    default:
      throw mismatch(node, Date.self, expected: "a date")
    }
    guard let parsed else {
      throw DecodingError.dataCorrupted(
        context(node, code: .invalidDate, "expected a date as \(dates.expectation)"))
    }
    guard DateParser.supportedRange.contains(parsed) else {
      throw DecodingError.dataCorrupted(
        context(node, code: .outOfRange, "the date is outside years 1…9999 (UTC)"))
    }
    return parsed
  }

  func url(_ node: Int) throws -> URL {
    let text = try string(node)
    guard let url = URL(string: text) else {
      throw DecodingError.dataCorrupted(context(node, code: .invalidValue, "expected a URL"))
    }
    return url
  }

  /// A string node's text, unescaped.
  func text(_ node: Int) throws -> String {
    let n = tape.nodes[node]
    if !n.hasEscapes { return String(decoding: tape.bytes[range(node)], as: UTF8.self) }
    guard let text = JSONString.decode(tape.bytes[range(node)]) else {
      throw DecodingError.dataCorrupted(
        context(node, code: .invalidValue, "invalid \\u escape (an unpaired surrogate)"))
    }
    return text
  }

  /// A scalar node's text in `tape.bytes`.
  @inline(__always)
  func range(_ node: Int) -> Range<Int> { tape.textRange(of: node) }

  // MARK: - Keys

  /// Finds the value node of `key` in an object, marking the key as asked for. `cursor` is the
  /// container's lookup cursor (`openCursor(on:)`).
  func find(_ key: some CodingKey, in object: Int, cursor: Int) -> Int? {
    let first = object + 1
    let end = tape.end(of: object)
    guard first < end else { return nil }
    var start = Int(cursors.pointee.base[cursor])
    if start >= end { start = first }
    let name = key.stringValue
    // From the cursor to the end, then from the first key up to the cursor.
    if let value = scan(cursor, from: start, to: end, for: name) { return value }
    return scan(cursor, from: first, to: start, for: name)
  }

  @inline(__always)
  private func scan(_ cursor: Int, from start: Int, to stop: Int, for name: String) -> Int? {
    var k = start
    while k < stop {
      let value = k + 1
      let next = tape.end(of: value)
      if keyMatches(k, name) {
        tape.nodes[k].bits |= RecordTape.Node.accessed
        cursors.pointee.base[cursor] = Int32(truncatingIfNeeded: next)
        return value
      }
      k = next
    }
    return nil
  }

  /// Whether a key node's text is `name`. An unescaped key's text runs to the first quote, so
  /// it equals `name` when it starts with `name`'s bytes, none of them a quote, and a quote
  /// follows: no length to find first.
  @inline(__always)
  private func keyMatches(_ keyNode: Int, _ name: String) -> Bool {
    let n = tape.nodes[keyNode]
    if n.hasEscapes { return tape.keyString(keyNode) == name }
    var name = name
    return name.withUTF8 { utf8 in
      let length = utf8.count
      return tape.bytes.withUnsafeBufferPointer { bytes in
        let start = n.payload
        // A quote right after `length` bytes turns most other keys away at once.
        guard start + length < bytes.count, bytes[start + length] == UInt8(ascii: "\"") else { return false }
        var i = 0
        while i < length {
          let b = bytes[start + i]
          if b != utf8[i] || b == UInt8(ascii: "\"") { return false }
          i += 1
        }
        return true
      }
    }
  }
}

/// Sluice's classification of a decoding failure, carried as a `DecodingError`'s underlying
/// error so that DTOs see a standard error and the pipeline sees a precise one.
struct DecodeFailure: Error {
  var code: IssueCode
  var message: String
  var byteOffset: Int

  func error(path: [any CodingKey]) -> RecordDecodingError {
    RecordDecodingError(code: code, path: FieldPath.render(path), message: message, byteOffset: byteOffset)
  }
}

/// The lookup cursors of the keyed containers opened in the current record: for each, the key
/// after the last one it found, where its next lookup starts (DTOs usually ask for keys in the
/// order the producer wrote them). A plain buffer that grows by doubling: a container reads and
/// writes its cursor on every key, and an array's uniqueness checks cost more than the lookup.
struct CursorStack {
  private(set) var base: UnsafeMutablePointer<Int32>
  var count = 0
  private var capacity: Int
  private static let initialCapacity = 64

  init() {
    capacity = Self.initialCapacity
    base = .allocate(capacity: capacity)
  }

  /// Adds a cursor and returns its index.
  @inline(__always)
  mutating func push(_ cursor: Int32) -> Int {
    if count == capacity { grow() }
    base[count] = cursor
    count += 1
    return count - 1
  }

  private mutating func grow() {
    let larger = UnsafeMutablePointer<Int32>.allocate(capacity: capacity * 2)
    larger.update(from: base, count: count)
    base.deallocate()
    base = larger
    capacity *= 2
  }

  /// Gives back storage a huge record grew.
  mutating func shrink(above limit: Int) {
    count = 0
    guard capacity > limit else { return }
    base.deallocate()
    capacity = Self.initialCapacity
    base = .allocate(capacity: capacity)
  }

  func deallocate() { base.deallocate() }
}
