import Foundation

/// XML's reading of a tape: where the decoder finds arrays, what counts as absent, and how
/// field paths are written. JSON tapes never get here.
///
/// XML has no arrays, so the DTO decides: when it asks for an array at a key, the items are
/// - the values of every sibling with that key, when the key repeats (`<item/><item/>`);
/// - otherwise, the one value's child elements, when they all have one name and the value is
///   not only one item (a wrapper: `<items><item/><item/></items>`);
/// - otherwise the one value itself (an array of one), or nothing for an empty element.
///
/// One element with children of one name could be either a wrapper or a single item
/// (`<item><sku/></item>`): the wrapper reading is tried first and, when the record does not
/// decode that way, the single item; when neither does, the failure that reached deeper into the
/// record is reported.
struct XMLReadings {
  /// Values the DTO read as an array of one (for field paths: `tag[0]`).
  var singles: Set<Int> = []
  /// Values whose wrapper reading failed: read them as single items.
  var forcedSingle: Set<Int> = []

  mutating func reset() {
    if !singles.isEmpty { singles.removeAll(keepingCapacity: true) }
    if !forcedSingle.isEmpty { forcedSingle.removeAll(keepingCapacity: true) }
  }
}

/// Where an XML array's items are: keys of one object that share a name (repeated siblings, or
/// a wrapper's children), one value, or none. Walked in place; nothing is collected.
enum XMLItems {
  /// The values of the keys of `object` named like `first`, from `first` on; attributes are
  /// skipped when `elementsOnly` (a wrapper's attributes are not items).
  case keys(object: Int, first: Int, elementsOnly: Bool)
  case one(Int)
  case empty
}

/// Collections that decode from an unkeyed container: an absent XML value is an empty one.
protocol XMLSequence {}
extension Array: XMLSequence {}
extension ContiguousArray: XMLSequence {}
extension Set: XMLSequence {}

extension DecodingState {
  var isXML: Bool { tape.origin == .xml }

  /// Whether a value is absent: JSON's null, or XML's empty element (which has no attributes).
  @inline(__always)
  func isNull(_ node: Int) -> Bool {
    let n = tape.nodes[node]
    if n.kind == .null { return true }
    return isXML && n.kind == .string && range(node).isEmpty
  }

  /// An optional value at a key: nil when missing or absent, except that an empty XML element
  /// asked for as an array is an empty array. Null — JSON's, XML's `xsi:nil` — is nil for an
  /// array too, as in JSON.
  func isAbsent<T>(_ node: Int?, as type: T.Type) -> Bool {
    guard let node else { return true }
    guard isNull(node) else { return false }
    return tape.nodes[node].kind == .null || !(isXML && type is any XMLSequence.Type)
  }

  /// `true`/`false` as JSON writes them, and in XML also `1`/`0` (XML Schema) and `True`/`False`
  /// (.NET's exports, Stack Exchange's among them).
  func xmlBool(_ node: Int) -> Bool? {
    let text = tape.bytes[range(node)]
    switch text.count {
    case 1: return text.first == UInt8(ascii: "1") ? true : text.first == UInt8(ascii: "0") ? false : nil
    case 4: return text.elementsEqual("true".utf8) || text.elementsEqual("True".utf8) ? true : nil
    case 5: return text.elementsEqual("false".utf8) || text.elementsEqual("False".utf8) ? false : nil
    default: return nil
    }
  }

  // MARK: - Arrays

  /// Where the items of the value at `node` are, read as an array. `parent` is the object the
  /// value was found in by key (−1 when it is an array element or the record itself).
  func xmlItems(of node: Int, parent: Int) -> XMLItems {
    if parent >= 0 {
      let key = node - 1
      var first = -1
      var k = parent + 1
      let end = tape.end(of: parent)
      while k < end {
        if k == key || sameName(k, key) {
          if first < 0 {
            first = k
          } else {
            return .keys(object: parent, first: first, elementsOnly: false)
          }
        }
        k = tape.end(of: k + 1)
      }
    }
    let n = tape.nodes[node]
    if n.kind == .string {
      // An empty (or blank) element is an empty wrapper.
      if isBlank(node) { return .empty }
      xml.singles.insert(node)
      return .one(node)
    }
    guard n.kind == .object, !xml.forcedSingle.contains(node), let first = uniformFirstChild(of: node) else {
      xml.singles.insert(node)
      return .one(node)
    }
    tape.nodes[node].bits |= RecordTape.Node.opened | RecordTape.Node.xmlWrapper
    return .keys(object: node, first: first, elementsOnly: true)
  }

  /// Whether a string is only XML whitespace. The tape holds it as JSON text, where line breaks
  /// and tabs are escaped (`\n`, `\r`, `\t`).
  private func isBlank(_ node: Int) -> Bool {
    var escaped = false
    for byte in tape.bytes[range(node)] {
      if escaped {
        guard byte == UInt8(ascii: "n") || byte == UInt8(ascii: "r") || byte == UInt8(ascii: "t") else { return false }
        escaped = false
      } else if byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte != UInt8(ascii: " ") {
        return false
      }
    }
    return true
  }

  /// The first child element's key when an object has child elements that all share a name;
  /// nil otherwise. Attributes and the object's own text are not children.
  private func uniformFirstChild(of object: Int) -> Int? {
    var first = -1
    var k = object + 1
    let end = tape.end(of: object)
    while k < end {
      if !tape.isAttribute(k) && !keyIsText(k) {
        if first < 0 {
          first = k
        } else if !sameName(first, k) {
          return nil
        }
      }
      k = tape.end(of: k + 1)
    }
    return first < 0 ? nil : first
  }

  /// The next item key of `items` after the item whose value ends at `from`, or `end`.
  func nextItemKey(from: Int, object: Int, first: Int, elementsOnly: Bool) -> Int {
    let end = tape.end(of: object)
    var k = from
    while k < end {
      if sameName(k, first) && !(elementsOnly && tape.isAttribute(k)) { return k }
      k = tape.end(of: k + 1)
    }
    return end
  }

  private func keyIsText(_ key: Int) -> Bool {
    let node = tape.nodes[key]
    guard !node.hasEscapes else { return tape.keyString(key) == XMLRecordReader.textKey }
    // `#text` and its closing quote, read in place: no search for the key's end.
    return tape.bytes.withUnsafeBufferPointer { bytes in
      let start = node.payload
      guard start + 6 <= bytes.count else { return false }
      return bytes[start] == UInt8(ascii: "#") && bytes[start + 1] == UInt8(ascii: "t")
        && bytes[start + 2] == UInt8(ascii: "e") && bytes[start + 3] == UInt8(ascii: "x")
        && bytes[start + 4] == UInt8(ascii: "t") && bytes[start + 5] == UInt8(ascii: "\"")
    }
  }

  /// Whether two keys have the same name. The XML reader's keys have no escapes, so their bytes
  /// are the name; a replayed record's may (`"qt\u0079"`), and are compared unescaped.
  private func sameName(_ a: Int, _ b: Int) -> Bool { a == b || sameKey(a, b) }

  /// Decodes the value at a key, trying the single-item reading when the wrapper reading of an
  /// ambiguous element does not decode.
  func decodeXML<T: Decodable>(_ type: T.Type, at node: Int, in parent: Int) throws -> T {
    do {
      return try decode(type, at: node, parent: parent)
    } catch let wrapperError as DecodingError {
      guard tape.nodes[node].isContainer, tape.nodes[node].bits & RecordTape.Node.xmlWrapper != 0 else {
        throw wrapperError
      }
      xml.forcedSingle.insert(node)
      tape.nodes[node].bits &= ~RecordTape.Node.xmlWrapper
      do {
        return try decode(type, at: node, parent: parent)
      } catch let singleError as DecodingError {
        throw Self.depth(of: singleError) > Self.depth(of: wrapperError) ? singleError : wrapperError
      }
    }
  }

  private static func depth(of error: DecodingError) -> Int {
    switch error {
    case .keyNotFound(_, let context): return context.codingPath.count + 1
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      return context.codingPath.count
    @unknown default: return 0
    }
  }

  // MARK: - Paths

  /// The coding path of a node as the DTO sees it: repeated siblings and a wrapper's children
  /// are indexed (`items[1].qty`), an array of one is `[0]`. A replayed record's JSON arrays
  /// (the XML reader makes none) index their elements as JSON does. Found with the path cursors
  /// (`DecodingState+Paths.swift`).
  func xmlCodingPath(to target: Int) -> [any CodingKey] {
    var path: [any CodingKey] = []
    var current = 0
    var level = 0
    while current != target, current < tape.nodes.count {
      // The member holding the target, or the array element.
      guard let (member, position) = child(of: current, holding: target, level: level) else { break }
      defer { level += 1 }
      if tape.nodes[current].kind == .array {
        path.append(TapeKey(index: position))
        current = member
        continue
      }
      let wrapper = tape.nodes[current].bits & RecordTape.Node.xmlWrapper != 0
      let (index, repeats) = siblingIndex(of: member, in: current, level: level)
      if wrapper {
        path.append(TapeKey(index: index))
      } else {
        path.append(TapeKey(stringValue: tape.keyString(member)))
        if target == member { return path }
        if repeats {
          path.append(TapeKey(index: index))
        } else if xml.singles.contains(member + 1) {
          path.append(TapeKey(index: 0))
        }
      }
      current = member + 1
    }
    return path
  }

  /// A key's index among the keys of the same name in its object, and whether there are others.
  /// Counted from the last key of the same name this level's cursor counted, when the key is not
  /// before it (a wrapper's items, one after another); otherwise over the whole object.
  private func siblingIndex(of key: Int, in object: Int, level: Int) -> (index: Int, repeats: Bool) {
    let hasCursor = level < pathCursors.count && pathCursors[level].container == object
    if hasCursor {
      let cursor = pathCursors[level]
      if cursor.namedKey >= 0, cursor.namedKey <= key, sameName(cursor.namedKey, key) {
        var index = cursor.namedIndex
        var k = cursor.namedKey
        while k < key {
          k = tape.end(of: k + 1)
          if k <= key && sameName(k, key) { index += 1 }
        }
        pathCursors[level].namedKey = key
        pathCursors[level].namedIndex = index
        return (index, cursor.nameRepeats)
      }
    }
    var index = 0
    var count = 0
    var k = object + 1
    let end = tape.end(of: object)
    while k < end {
      if sameName(k, key) {
        if k < key { index += 1 }
        count += 1
      }
      k = tape.end(of: k + 1)
    }
    if hasCursor {
      pathCursors[level].namedKey = key
      pathCursors[level].namedIndex = index
      pathCursors[level].nameRepeats = count > 1
    }
    return (index, count > 1)
  }

  // MARK: - The key sweep

  /// XML's key sweep: an element or attribute the DTO never asked for is an unknown field (each
  /// name once per object); a name the DTO read as a single value that appears more than once
  /// rejects the record, since the others would be lost. A replayed record's JSON arrays are
  /// walked into, like any opened container; their elements are not keys.
  func sweepXMLKeys(into diagnostics: inout DecodeDiagnostics, reportUnknown: Bool) throws(RecordDecodingError) {
    var index = 0
    let nodes = tape.nodes
    while index < nodes.count {
      let node = nodes[index]
      guard node.isContainer else {
        index += 1
        continue
      }
      guard node.isOpened else {
        index = node.payload
        continue
      }
      if node.tag == RecordTape.Node.object {
        try sweepXMLObject(index, into: &diagnostics, reportUnknown: reportUnknown)
      }
      index += 1
    }
  }

  /// The sweep of one opened object. Each key not asked for is compared by name with the
  /// object's other keys: pairwise while the object is small, through a table of its names past
  /// 32 keys, so that an element of 50k unknown attributes costs its size, not its size squared.
  private func sweepXMLObject(
    _ object: Int, into diagnostics: inout DecodeDiagnostics, reportUnknown: Bool
  ) throws(RecordDecodingError) {
    let end = tape.end(of: object)
    var keys = 0
    var unasked = false
    var k = object + 1
    while k < end {
      keys += 1
      if !tape.nodes[k].isAccessed { unasked = true }
      k = tape.end(of: k + 1)
    }
    guard unasked else { return }
    /// For each name: its first key, and whether the DTO asked for any key of that name.
    var names: [[UInt8]: (first: Int, askedFor: Bool)] = [:]
    if keys > 32 {
      k = object + 1
      while k < end {
        let name = nameBytes(k)
        let asked = tape.nodes[k].isAccessed
        if let known = names[name] {
          if asked && !known.askedFor { names[name] = (known.first, true) }
        } else {
          names[name] = (k, asked)
        }
        k = tape.end(of: k + 1)
      }
    }
    // The object's path is found once, for its first unknown key.
    var objectPath: String?
    k = object + 1
    while k < end {
      if !tape.nodes[k].isAccessed {
        var firstOfName = true
        var askedFor = false
        if keys > 32 {
          let known = names[nameBytes(k)]
          firstOfName = known?.first == k
          askedFor = known?.askedFor ?? false
        } else {
          var other = object + 1
          while other < end {
            if other != k && sameName(other, k) {
              if tape.nodes[other].isAccessed { askedFor = true }
              if other < k { firstOfName = false }
            }
            other = tape.end(of: other + 1)
          }
        }
        if askedFor {
          throw RecordDecodingError(
            code: .duplicateKey, path: FieldPath.render(xmlCodingPath(to: k)),
            message: "the element appears more than once, but the field is not an array", byteOffset: offset(of: k))
        }
        if reportUnknown && firstOfName {
          // As `xmlCodingPath(to: k)` says: the object's path, then the name, or, in a wrapper,
          // the key's index among its name's keys — 0, for the first.
          let prefix = objectPath ?? FieldPath.render(xmlCodingPath(to: object))
          objectPath = prefix
          let wrapper = tape.nodes[object].bits & RecordTape.Node.xmlWrapper != 0
          diagnostics.noteUnknownField {
            let key: any CodingKey = wrapper ? TapeKey(index: 0) : TapeKey(stringValue: tape.keyString(k))
            return .init(
              code: .unknownField, path: FieldPath.render(prefix: prefix, key), message: "not part of the contract",
              byteOffset: offset(of: k))
          }
        }
      }
      k = tape.end(of: k + 1)
    }
  }

  /// A key's name as bytes, unescaped.
  private func nameBytes(_ key: Int) -> [UInt8] {
    tape.nodes[key].hasEscapes ? Array(tape.keyString(key).utf8) : Array(tape.bytes[range(key)])
  }
}
