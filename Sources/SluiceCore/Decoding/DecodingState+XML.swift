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
  /// asked for as an array is an empty array.
  func isAbsent<T>(_ node: Int?, as type: T.Type) -> Bool {
    guard let node else { return true }
    guard isNull(node) else { return false }
    return !(isXML && type is any XMLSequence.Type)
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
    tape.bytes[range(key)].elementsEqual(XMLRecordReader.textKey.utf8)
  }

  /// Whether two keys have the same name (XML keys have no escapes: their bytes are the name).
  private func sameName(_ a: Int, _ b: Int) -> Bool {
    if a == b { return true }
    let first = range(a)
    let second = range(b)
    guard first.count == second.count else { return false }
    return tape.bytes.withUnsafeBufferPointer { bytes in
      guard let base = bytes.baseAddress else { return true }
      return memcmp(base + first.lowerBound, base + second.lowerBound, first.count) == 0
    }
  }

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
  /// are indexed (`items[1].qty`), an array of one is `[0]`.
  func xmlCodingPath(to target: Int) -> [any CodingKey] {
    var path: [any CodingKey] = []
    var current = 0
    while current != target, current < tape.nodes.count, tape.nodes[current].kind == .object {
      let end = tape.end(of: current)
      guard target < end else { break }
      // The member holding the target.
      var k = current + 1
      var member = -1
      while k < end {
        let valueEnd = tape.end(of: k + 1)
        if target >= k && target < valueEnd {
          member = k
          break
        }
        k = valueEnd
      }
      guard member >= 0 else { break }
      let wrapper = tape.nodes[current].bits & RecordTape.Node.xmlWrapper != 0
      let (index, repeats) = siblingIndex(of: member, in: current)
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
  private func siblingIndex(of key: Int, in object: Int) -> (index: Int, repeats: Bool) {
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
    return (index, count > 1)
  }

  // MARK: - The key sweep

  /// XML's key sweep: an element or attribute the DTO never asked for is an unknown field (each
  /// name once per object); a name the DTO read as a single value that appears more than once
  /// rejects the record, since the others would be lost.
  ///
  /// Linear in the record: a large object's names are hashed once (`XMLKeyNames`) rather than
  /// each unknown key compared with every other, and its unknown keys' paths are the object's
  /// path, found once, plus their own name.
  func sweepXMLKeys(into diagnostics: inout DecodeDiagnostics, reportUnknown: Bool) throws(RecordDecodingError) {
    var index = 0
    let nodes = tape.nodes
    /// Nodes before this one are inside a container that is not an object (a replayed record's
    /// JSON array), where an object's path is not its parent's plus a name.
    var nonObjectEnd = 0
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
      let end = node.payload
      if node.kind != .object { nonObjectEnd = max(nonObjectEnd, end) }
      var names: XMLKeyNames?
      var objectPath: [any CodingKey]?
      var k = index + 1
      while k < end {
        if !nodes[k].isAccessed {
          var firstOfName = true
          var askedFor = false
          if node.kind == .object && end - index > Self.pairwiseSweepNodes {
            if names == nil { names = XMLKeyNames(tape: tape, object: index) }
            if let use = names?.use(of: k, in: tape) { (firstOfName, askedFor) = (use.isFirstOfName, use.isAskedFor) }
          } else {
            var other = index + 1
            while other < end {
              if other != k && sameName(other, k) {
                if nodes[other].isAccessed { askedFor = true }
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
            let path: [any CodingKey]
            if names != nil && index >= nonObjectEnd {
              // What `xmlCodingPath(to: k)` finds, without walking the object's keys again: the
              // first of a name is item 0 of a wrapper, or its name in any other object.
              let prefix = objectPath ?? xmlCodingPath(to: index)
              objectPath = prefix
              let wrapper = node.bits & RecordTape.Node.xmlWrapper != 0
              path = prefix + [wrapper ? TapeKey(index: 0) : TapeKey(stringValue: tape.keyString(k))]
            } else {
              path = xmlCodingPath(to: k)
            }
            diagnostics.unknownFields.append(
              .init(
                code: .unknownField, path: FieldPath.render(path), message: "not part of the contract",
                byteOffset: offset(of: k)))
          }
        }
        k = tape.end(of: k + 1)
      }
      index += 1
    }
  }

  /// Objects of up to this many nodes are swept by comparing keys pairwise, which costs less
  /// than hashing their names.
  static var pairwiseSweepNodes: Int { 64 }
}
