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
  public struct Builder {
    public private(set) var tape = RecordTape()

    public init() {}

    /// Bytes written so far: the record's size as the tape holds it.
    public var byteCount: Int { tape.bytes.count }
    public var nodeCount: Int { tape.nodes.count }

    /// Starts a new record, keeping the storage of the last one unless it grew large.
    public mutating func reset(origin: Origin) {
      if tape.nodes.capacity > RecordTape.retainedNodeCapacity {
        tape = RecordTape()
      } else {
        tape.nodes.removeAll(keepingCapacity: true)
        tape.bytes.removeAll(keepingCapacity: true)
        tape.sourceOffsets.removeAll(keepingCapacity: true)
        tape.sourceLines.removeAll(keepingCapacity: true)
      }
      tape.origin = origin
    }

    /// Hands the finished tape over. The builder starts the next one with room for a record the
    /// size of this one (up to `reservedNodes` nodes): records of a dump are alike, and growing
    /// four arrays from empty for every record cost more than building it.
    public mutating func finish() -> RecordTape {
      var next = RecordTape()
      let nodes = min(tape.nodes.count, Self.reservedNodes)
      next.nodes.reserveCapacity(nodes)
      next.sourceOffsets.reserveCapacity(nodes)
      next.sourceLines.reserveCapacity(nodes)
      next.bytes.reserveCapacity(min(tape.bytes.count, Self.reservedNodes * 16))
      swap(&tape, &next)
      return next
    }

    /// The most nodes `finish` reserves for the next record (16 KiB per node array).
    static let reservedNodes = 4_096

    @inline(__always)
    private mutating func appendNode(_ tag: UInt32, flags: UInt32 = 0, payload: Int, offset: Int, lines: Int) {
      tape.nodes.append(Node(tag: tag, flags: flags, payload: payload))
      tape.sourceOffsets.append(UInt32(truncatingIfNeeded: offset))
      tape.sourceLines.append(UInt32(truncatingIfNeeded: lines) & ~RecordTape.attributeLineFlag)
    }

    /// Opens an object; returns its node, which `closeObject` needs.
    public mutating func openObject(offset: Int, lines: Int) -> Int {
      tape.bytes.append(UInt8(ascii: "{"))
      appendNode(Node.object, payload: 0, offset: offset, lines: lines)
      return tape.nodes.count - 1
    }

    public mutating func closeObject(_ node: Int) {
      tape.bytes.append(UInt8(ascii: "}"))
      tape.nodes[node].bits |= UInt32(truncatingIfNeeded: tape.nodes.count) << Node.payloadShift
    }

    /// A key of the innermost open object. XML names hold no quote, backslash or control
    /// character, so they are written as they are.
    public mutating func key(_ name: UnsafeBufferPointer<UInt8>, offset: Int, lines: Int, isAttribute: Bool = false) {
      if tape.bytes.last != UInt8(ascii: "{") { tape.bytes.append(UInt8(ascii: ",")) }
      tape.bytes.append(UInt8(ascii: "\""))
      appendNode(Node.key, payload: tape.bytes.count, offset: offset, lines: lines)
      if isAttribute { tape.sourceLines[tape.sourceLines.count - 1] |= RecordTape.attributeLineFlag }
      Self.append(name, to: &tape.bytes)
      tape.bytes.append(UInt8(ascii: "\""))
      tape.bytes.append(UInt8(ascii: ":"))
    }

    public mutating func key(_ name: StaticString, offset: Int, lines: Int) {
      key(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), offset: offset, lines: lines)
    }

    /// A string value, escaped as JSON needs.
    public mutating func string(_ text: UnsafeBufferPointer<UInt8>, offset: Int, lines: Int) {
      tape.bytes.append(UInt8(ascii: "\""))
      let start = tape.bytes.count
      var escaped = false
      var plain = 0
      var i = 0
      while i < text.count {
        let byte = text[i]
        if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
          Self.append(UnsafeBufferPointer(rebasing: text[plain..<i]), to: &tape.bytes)
          Self.appendEscape(byte, to: &tape.bytes)
          plain = i + 1
          escaped = true
        }
        i += 1
      }
      Self.append(UnsafeBufferPointer(rebasing: text[plain...]), to: &tape.bytes)
      tape.bytes.append(UInt8(ascii: "\""))
      appendNode(Node.string, flags: escaped ? Node.hasEscapes : 0, payload: start, offset: offset, lines: lines)
    }

    /// Appends bytes; short runs (names, most values) byte by byte, which costs less than the
    /// generic `append(contentsOf:)`.
    @inline(__always)
    private static func append(_ run: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
      if run.count > 32 {
        bytes.append(contentsOf: run)
        return
      }
      for byte in run { bytes.append(byte) }
    }

    private static func appendEscape(_ byte: UInt8, to bytes: inout [UInt8]) {
      bytes.append(UInt8(ascii: "\\"))
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
      case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
      case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
      case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
      default:
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
      }
    }
  }
}
