extension RecordTape {
  /// Builds the tape of one record from a format's events (XML's elements, attributes and
  /// text), writing its values as JSON text so that everything the decoder reads off a tape —
  /// a string's text, a key's name — works as for JSON, and the record can be quarantined and
  /// replayed as that text.
  ///
  /// Only objects and strings are made: XML has no arrays, which the decoder finds in repeated
  /// keys. Every node also gets its source position (offset and line from the record's start).
  /// The builder checks nothing about the format; it trusts its caller to open and close
  /// containers in order, and its reader to bound the record's size.
  ///
  /// It writes into buffers of its own, reused from record to record, and copies them into a
  /// tape once per record: appending to arrays element by element cost more than libxml2's
  /// whole parse. Its owner calls `deallocate()` once it is done with it.
  struct Builder {
    private var bytes = GrowableBuffer<UInt8>(capacity: 4096)
    private var nodes = GrowableBuffer<Node>(capacity: 512)
    private var offsets = GrowableBuffer<UInt32>(capacity: 512)
    private var lines = GrowableBuffer<UInt32>(capacity: 512)

    /// Bytes written so far: the record's size as the tape holds it.
    var byteCount: Int { bytes.count }
    var nodeCount: Int { nodes.count }

    /// Starts a new record, giving back storage a huge one grew.
    mutating func reset() {
      bytes.removeAll(shrinkingAbove: 1 << 20)
      nodes.removeAll(shrinkingAbove: RecordTape.retainedNodeCapacity)
      offsets.removeAll(shrinkingAbove: RecordTape.retainedNodeCapacity)
      lines.removeAll(shrinkingAbove: RecordTape.retainedNodeCapacity)
    }

    /// The record's tape.
    func finish(origin: Origin) -> RecordTape {
      var tape = RecordTape()
      tape.bytes = bytes.array()
      tape.nodes = nodes.array()
      tape.sourceOffsets = offsets.array()
      tape.sourceLines = lines.array()
      tape.origin = origin
      return tape
    }

    func deallocate() {
      bytes.deallocate()
      nodes.deallocate()
      offsets.deallocate()
      lines.deallocate()
    }

    /// The three per-node buffers grow together, so one capacity check covers all of them:
    /// a node is appended per element, attribute and value, the builder's hottest path.
    @inline(__always)
    private mutating func appendNode(_ tag: UInt32, flags: UInt32 = 0, payload: Int, offset: Int, lines line: Int) {
      if nodes.isFull || offsets.isFull || lines.isFull {
        nodes.reserve(1)
        offsets.reserve(1)
        lines.reserve(1)
      }
      nodes.appendUnchecked(Node(tag: tag, flags: flags, payload: payload))
      offsets.appendUnchecked(UInt32(truncatingIfNeeded: offset))
      lines.appendUnchecked(UInt32(truncatingIfNeeded: line) & ~RecordTape.attributeLineFlag)
    }

    /// Opens an object; returns its node, which `closeObject` needs.
    mutating func openObject(offset: Int, lines: Int) -> Int {
      bytes.append(UInt8(ascii: "{"))
      appendNode(Node.object, payload: 0, offset: offset, lines: lines)
      return nodes.count - 1
    }

    mutating func closeObject(_ node: Int) {
      bytes.append(UInt8(ascii: "}"))
      nodes[node].bits |= UInt32(truncatingIfNeeded: nodes.count) << Node.payloadShift
    }

    /// A key of the innermost open object. XML names hold no quote, backslash or control
    /// character, so they are written as they are.
    mutating func key(_ name: UnsafePointer<UInt8>, count: Int, offset: Int, lines: Int, isAttribute: Bool = false) {
      // `,"name":` — at most four bytes besides the name, room for which is made once.
      bytes.reserve(count + 4)
      if bytes.last != UInt8(ascii: "{") { bytes.appendUnchecked(UInt8(ascii: ",")) }
      bytes.appendUnchecked(UInt8(ascii: "\""))
      appendNode(Node.key, payload: bytes.count, offset: offset, lines: lines)
      if isAttribute { self.lines[self.lines.count - 1] |= RecordTape.attributeLineFlag }
      bytes.appendUnchecked(name, count: count)
      bytes.appendUnchecked(UInt8(ascii: "\""))
      bytes.appendUnchecked(UInt8(ascii: ":"))
    }

    mutating func key(_ name: StaticString, offset: Int, lines: Int) {
      key(name.utf8Start, count: name.utf8CodeUnitCount, offset: offset, lines: lines)
    }

    /// A null value (XML's `xsi:nil`).
    mutating func null(offset: Int, lines: Int) {
      let start = bytes.count
      for byte in "null".utf8 { bytes.append(byte) }
      appendNode(Node.null, payload: start, offset: offset, lines: lines)
    }

    /// A key of the innermost open object, escaped as JSON needs (a CSV header's name may hold
    /// any character).
    mutating func key(escaping name: UnsafePointer<UInt8>, count: Int, offset: Int, lines: Int) {
      if bytes.last != UInt8(ascii: "{") { bytes.append(UInt8(ascii: ",")) }
      quoted(name, count: count, tag: Node.key, offset: offset, lines: lines)
      bytes.append(UInt8(ascii: ":"))
    }

    /// A string value, escaped as JSON needs.
    mutating func string(_ text: UnsafePointer<UInt8>, count: Int, offset: Int, lines: Int) {
      quoted(text, count: count, tag: Node.string, offset: offset, lines: lines)
    }

    private mutating func quoted(_ text: UnsafePointer<UInt8>, count: Int, tag: UInt32, offset: Int, lines: Int) {
      // Most values need no escape: they are checked first, then copied whole into room made
      // once; a value with escapes is written run by run.
      var i = Self.plainPrefix(text, count: count)
      while i < count {
        let byte = text[i]
        if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
        i += 1
      }
      let escaped = i < count
      bytes.reserve(count + 2)
      bytes.appendUnchecked(UInt8(ascii: "\""))
      let start = bytes.count
      bytes.appendUnchecked(text, count: i)
      if escaped {
        var plain = i
        while i < count {
          let byte = text[i]
          if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            bytes.append(text + plain, count: i - plain)
            Self.appendEscape(byte, to: &bytes)
            plain = i + 1
          }
          i += 1
        }
        bytes.append(text + plain, count: count - plain)
      }
      bytes.append(UInt8(ascii: "\""))
      appendNode(tag, flags: escaped ? Node.hasEscapes : 0, payload: start, offset: offset, lines: lines)
    }

    /// How many of the first bytes of `text`, eight at a time, are none that JSON escapes
    /// (a control character, `"` or `\\`); the bytes after it are then looked at one by one.
    /// Eight at a time, as bit tricks on a word: a value's bytes are most of what the builder
    /// reads, and one by one they cost about as much as the rest of the value's work.
    @inline(__always)
    private static func plainPrefix(_ text: UnsafePointer<UInt8>, count: Int) -> Int {
      let ones: UInt64 = 0x0101_0101_0101_0101
      let high: UInt64 = 0x8080_8080_8080_8080
      var i = 0
      while i + 8 <= count {
        let word = UnsafeRawPointer(text + i).loadUnaligned(as: UInt64.self)
        // A byte below 0x20, or one equal to a quote or a backslash (a zero byte after XOR).
        let control = (word &- ones &* 0x20) & ~word & high
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let equal = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & high
        if control | equal != 0 { break }
        i += 8
      }
      return i
    }

    private static func appendEscape(_ byte: UInt8, to bytes: inout GrowableBuffer<UInt8>) {
      bytes.append(UInt8(ascii: "\\"))
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
      case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
      case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
      case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
      default:
        let hex = Array("0123456789abcdef".utf8)
        for digit in [
          UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)],
        ] {
          bytes.append(digit)
        }
      }
    }
  }
}

/// A buffer of trivial values that grows by doubling, with no uniqueness or bounds checks on
/// append: for the hot loops of a record reader. Its owner deallocates it.
struct GrowableBuffer<Element: BitwiseCopyable> {
  private(set) var base: UnsafeMutablePointer<Element>
  private(set) var count = 0
  private var capacity: Int
  private let initialCapacity: Int

  init(capacity: Int) {
    self.capacity = max(capacity, 16)
    initialCapacity = self.capacity
    base = .allocate(capacity: self.capacity)
  }

  var last: Element? { count > 0 ? base[count - 1] : nil }

  subscript(index: Int) -> Element {
    get { base[index] }
    nonmutating set { base[index] = newValue }
  }

  @inline(__always)
  mutating func append(_ element: Element) {
    if count == capacity { grow(to: count + 1) }
    base[count] = element
    count += 1
  }

  var isFull: Bool { count == capacity }

  /// Makes room for `added` more elements, for the unchecked appends below.
  @inline(__always)
  mutating func reserve(_ added: Int) {
    if count + added > capacity { grow(to: count + added) }
  }

  /// Appends into room `reserve` made.
  @inline(__always)
  mutating func appendUnchecked(_ element: Element) {
    base[count] = element
    count += 1
  }

  /// Appends into room `reserve` made. Names and most values are a few bytes long, which a
  /// call to `memmove` costs more to copy than two overlapping loads and stores, without a
  /// loop (one the optimizer would turn back into that call).
  @inline(__always)
  mutating func appendUnchecked(_ elements: UnsafePointer<Element>, count added: Int) {
    let bytes = added * MemoryLayout<Element>.stride
    let source = UnsafeRawPointer(elements)
    let target = UnsafeMutableRawPointer(base + count)
    if bytes > 32 {
      target.copyMemory(from: source, byteCount: bytes)
    } else if bytes > 16 {
      Self.copy(UInt64.self, source, target, 0)
      Self.copy(UInt64.self, source, target, 8)
      Self.copy(UInt64.self, source, target, bytes - 16)
      Self.copy(UInt64.self, source, target, bytes - 8)
    } else if bytes >= 8 {
      Self.copy(UInt64.self, source, target, 0)
      Self.copy(UInt64.self, source, target, bytes - 8)
    } else if bytes >= 4 {
      Self.copy(UInt32.self, source, target, 0)
      Self.copy(UInt32.self, source, target, bytes - 4)
    } else if bytes >= 2 {
      Self.copy(UInt16.self, source, target, 0)
      Self.copy(UInt16.self, source, target, bytes - 2)
    } else if bytes == 1 {
      Self.copy(UInt8.self, source, target, 0)
    }
    count += added
  }

  @inline(__always)
  private static func copy<Word: FixedWidthInteger>(
    _ word: Word.Type, _ source: UnsafeRawPointer, _ target: UnsafeMutableRawPointer, _ offset: Int
  ) {
    target.storeBytes(
      of: source.loadUnaligned(fromByteOffset: offset, as: Word.self), toByteOffset: offset, as: Word.self)
  }

  @inline(__always)
  mutating func append(_ elements: UnsafePointer<Element>, count added: Int) {
    guard added > 0 else { return }
    if count + added > capacity { grow(to: count + added) }
    (base + count).update(from: elements, count: added)
    count += added
  }

  mutating func removeLast(_ k: Int) { count -= k }
  mutating func truncate(to length: Int) { count = min(count, length) }

  /// Empties the buffer, keeping its storage unless it grew past `limit` elements.
  mutating func removeAll(shrinkingAbove limit: Int) {
    count = 0
    guard capacity > limit else { return }
    base.deallocate()
    capacity = initialCapacity
    base = .allocate(capacity: capacity)
  }

  func array() -> [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }

  func withBuffer<R>(from start: Int, _ body: (UnsafePointer<Element>, Int) -> R) -> R {
    body(base + start, count - start)
  }

  private mutating func grow(to minimum: Int) {
    var newCapacity = capacity * 2
    while newCapacity < minimum { newCapacity *= 2 }
    let larger = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
    larger.update(from: base, count: count)
    base.deallocate()
    base = larger
    capacity = newCapacity
  }

  func deallocate() { base.deallocate() }
}
