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
  /// each unknown key compared with every other, and an unknown key's path is its object's plus
  /// its own name, each object's path found once from its parent's (`XMLSweepLevel`) — not by
  /// walking the record from the top for every key (20,000 items with an unknown element each
  /// took 7 s, an element with 50,000 unknown attributes over a minute).
  func sweepXMLKeys(into diagnostics: inout DecodeDiagnostics, reportUnknown: Bool) throws(RecordDecodingError) {
    var index = 0
    let nodes = tape.nodes
    /// The opened containers around the one swept, outermost first, for unknown fields' paths:
    /// found when the first is reported (most records have none), then kept as the sweep goes.
    var levels: [XMLSweepLevel]?
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
      if levels != nil { enterSweepLevel(index, end: end, in: &levels) }
      var names: XMLKeyNames?
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
            // What `xmlCodingPath(to: k)` finds: the first of a name is item 0 of a wrapper, or
            // its name in any other object.
            var path: [any CodingKey]
            if levels == nil { levels = sweepLevels(to: index) }
            if node.kind == .object, levels?.last?.node == index,
              let prefix = sweepPath(of: (levels?.count ?? 0) - 1, in: &levels)
            {
              let wrapper = node.bits & RecordTape.Node.xmlWrapper != 0
              path = prefix
              path.append(wrapper ? TapeKey(index: 0) : TapeKey(stringValue: tape.keyString(k)))
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

  /// Makes the container the sweep enters the innermost level, after those that ended.
  private func enterSweepLevel(_ node: Int, end: Int, in levels: inout [XMLSweepLevel]?) {
    while let last = levels?.last, last.end <= node { levels?.removeLast() }
    let parent = levels?.last
    let reachable = parent.map { $0.reachable && tape.nodes[$0.node].kind == .object } ?? (node == 0)
    levels?.append(XMLSweepLevel(node: node, end: end, reachable: reachable))
  }

  /// The containers from the record's own down to `target`, found by walking down once.
  private func sweepLevels(to target: Int) -> [XMLSweepLevel] {
    var levels: [XMLSweepLevel]? = []
    var current = 0
    while current < tape.nodes.count, tape.nodes[current].isContainer {
      let end = tape.end(of: current)
      enterSweepLevel(current, end: end, in: &levels)
      guard current != target else { break }
      let isObject = tape.nodes[current].kind == .object
      var child = current + 1
      var next = -1
      while child < end {
        let value = isObject ? child + 1 : child
        let valueEnd = tape.end(of: value)
        if target >= value && target < valueEnd {
          next = value
          break
        }
        child = valueEnd
      }
      guard next > current else { break }
      current = next
    }
    return levels ?? []
  }

  /// The coding path of the container at `levels[level]`, as `xmlCodingPath(to:)` finds it,
  /// from its parent's (found once and kept); nil when a container above is not an object, or
  /// the levels do not reach it.
  private func sweepPath(of level: Int, in levels: inout [XMLSweepLevel]?) -> [any CodingKey]? {
    guard level >= 0, let entry = levels?[level] else { return nil }
    if let path = entry.path { return path }
    guard entry.reachable else { return nil }
    let node = entry.node
    guard level > 0 else {
      let path = node == 0 ? [] : xmlCodingPath(to: node)
      levels?[level].path = path
      return path
    }
    guard var path = sweepPath(of: level - 1, in: &levels), let parent = levels?[level - 1].node else { return nil }
    // The container's parent is an object (it is `reachable`), and its key the node before it.
    let key = node - 1
    // Counted in place: a copy of the table would copy its counts on every call.
    if levels?[level - 1].names == nil { levels?[level - 1].names = XMLKeyNames(tape: tape, object: parent) }
    let (ordinal, repeats) = levels?[level - 1].names?.ordinal(of: key, in: tape) ?? (0, false)
    if tape.nodes[parent].bits & RecordTape.Node.xmlWrapper != 0 {
      path.append(TapeKey(index: ordinal))
    } else {
      path.append(TapeKey(stringValue: tape.keyString(key)))
      if repeats {
        path.append(TapeKey(index: ordinal))
      } else if xml.singles.contains(node) {
        path.append(TapeKey(index: 0))
      }
    }
    levels?[level].path = path
    return path
  }

  /// Objects of up to this many nodes are swept by comparing keys pairwise, which costs less
  /// than hashing their names.
  static var pairwiseSweepNodes: Int { 64 }
}

/// An opened container around the one the XML key sweep is in: its path, once an unknown field
/// inside it needs it, and its key names, once a child's index among same-named siblings does.
struct XMLSweepLevel {
  let node: Int
  let end: Int
  /// Every container from the record's own down to this one's parent is an object, so that
  /// `xmlCodingPath`'s walk reaches it.
  let reachable: Bool
  var path: [any CodingKey]?
  var names: XMLKeyNames?

  init(node: Int, end: Int, reachable: Bool) {
    self.node = node
    self.end = end
    self.reachable = reachable
  }
}
