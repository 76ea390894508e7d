/// One record's bytes as the reader found them, with its location.
///
/// The bytes are exactly the record's text in the decompressed input (a JSON value, for the
/// JSON readers), already checked to be well-formed and valid UTF-8.
///
/// An XML record arrives as the tape its reader built; its `bytes` are then the tape's JSON
/// text (what a rejects file keeps), not the XML.
@_spi(Internals) public struct RawRecord: Sendable {
  public var location: RecordLocation
  public var bytes: [UInt8] {
    // Nodes made of other bytes point at the wrong places: the decoder tokenizes these.
    didSet { tapeNodes = nil }
  }
  /// The record already as a tape (XML), with its values' source positions.
  public var tape: RecordTape?
  /// A JSON record's tape nodes, made by the scan that found the record (`JSONScanner`): the
  /// decoder's tape takes them rather than tokenizing `bytes` again. Nil when the reader made
  /// none (or `bytes` changed since).
  package var tapeNodes: [RecordTape.Node]?
  /// Scalar fields of the objects enclosing the record (a Telegram chat's `id` and `name` for
  /// its messages), as text, when the reader steps through them; nil otherwise.
  public var context: [String: String]?
  /// The record's 0-based index in the array it is an element of (JSON arrays; in a path
  /// through arrays, within its own array: a Telegram message's place in its chat).
  public var position: Int?
  /// A CSV row's 0-based column per header name (shared by every row of the input), so that an
  /// issue at a field path says its column; nil for other formats.
  public var columns: [String: Int]?

  public init(location: RecordLocation, bytes: [UInt8]) {
    self.location = location
    self.bytes = bytes
  }

  public init(location: RecordLocation, tape: RecordTape) {
    self.location = location
    self.bytes = tape.bytes
    self.tape = tape
  }
}

extension RawRecord {
  /// The location of a byte inside the record: its absolute offset, and its line counted from
  /// the record's first line (only computed when an issue needs it).
  ///
  /// For a tape with source positions (XML, CSV), `offset` is relative to the record's first byte in
  /// the source, and the line is that of the node the offset belongs to.
  public func location(at offset: Int?) -> RecordLocation {
    if let tape, !tape.sourceOffsets.isEmpty {
      guard let offset, offset >= 0 else { return location }
      // Offsets never decrease in node order: the first node at or past `offset` is its own.
      var low = 0
      var high = tape.sourceOffsets.count
      while low < high {
        let middle = (low + high) / 2
        if Int(tape.sourceOffsets[middle]) < offset { low = middle + 1 } else { high = middle }
      }
      var node = min(low, tape.sourceOffsets.count - 1)
      if Int(tape.sourceOffsets[node]) != offset {
        // A CSV tape groups a nested object's columns, so its offsets may not grow: look for the
        // node itself (only for an issue).
        node = tape.sourceOffsets.firstIndex { Int($0) == offset } ?? node
      }
      let lines = tape.sourcePosition(of: node)?.lines ?? 0
      return RecordLocation(
        ordinal: location.ordinal, byteOffset: location.byteOffset + Int64(offset), line: location.line + lines)
    }
    guard let offset, offset >= 0, offset <= bytes.count else { return location }
    var line = location.line
    for byte in bytes[..<offset] where byte == UInt8(ascii: "\n") { line += 1 }
    return RecordLocation(
      ordinal: location.ordinal, byteOffset: location.byteOffset + Int64(offset), line: line)
  }

  /// The location of a byte inside the record, as `location(at:)` says, with the 1-based column
  /// of the field at `path` when the record is a CSV row.
  public func location(at offset: Int?, path: String) -> RecordLocation {
    var location = location(at: offset)
    location.column = column(of: path)
    return location
  }

  /// The record's own location, with the 1-based column of the field at `path` when the record
  /// is a CSV row (a validate or map issue at a field).
  public func location(path: String) -> RecordLocation {
    var location = location
    location.column = column(of: path)
    return location
  }

  /// The 1-based column of the field at `path`, when the record is a CSV row that has it.
  public func column(of path: String) -> Int? {
    guard let columns, !path.isEmpty else { return nil }
    return columns[path].map { $0 + 1 }
  }

  /// The locations of several bytes inside the record, in the order given: what `location(at:)`
  /// says of each, but with one pass over the record's bytes for all of them, so that a record
  /// with an issue per key (an object of 100k unknown keys) costs its size once, not per issue.
  public func locations(at offsets: [Int]) -> [RecordLocation] {
    if offsets.count < 2 || (tape.map { !$0.sourceOffsets.isEmpty } ?? false) {
      return offsets.map { location(at: $0) }
    }
    var result = Array(repeating: location, count: offsets.count)
    let order = offsets.indices.filter { offsets[$0] >= 0 && offsets[$0] <= bytes.count }.sorted {
      offsets[$0] < offsets[$1]
    }
    var line = location.line
    var position = 0
    bytes.withUnsafeBufferPointer { buffer in
      for index in order {
        let offset = offsets[index]
        while position < offset {
          if buffer[position] == UInt8(ascii: "\n") { line += 1 }
          position += 1
        }
        result[index] = RecordLocation(
          ordinal: location.ordinal, byteOffset: location.byteOffset + Int64(offset), line: line)
      }
    }
    return result
  }
}
