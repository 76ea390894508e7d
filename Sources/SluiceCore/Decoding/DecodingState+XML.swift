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
  enum Reading {
    /// The value's child elements are the items.
    case wrapper
    /// The value is the only item.
    case single
  }

  /// How each value the DTO read as an array was read, for field paths.
  var readings: [Int: Reading] = [:]
  /// Values whose wrapper reading failed: read them as single items.
  var forcedSingle: Set<Int> = []

  mutating func reset() {
    if !readings.isEmpty { readings.removeAll(keepingCapacity: true) }
    if !forcedSingle.isEmpty { forcedSingle.removeAll(keepingCapacity: true) }
  }
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

  /// The items of the value at `node` read as an array. `parent` is the object the value was
  /// found in by key (−1 when it is an array element or the record itself).
  func xmlItems(of node: Int, parent: Int) -> [Int] {
    if parent >= 0 {
      let key = node - 1
      var siblings: [Int] = []
      var k = parent + 1
      let end = tape.end(of: parent)
      while k < end {
        if sameName(k, key) { siblings.append(k + 1) }
        k = tape.end(of: k + 1)
      }
      if siblings.count > 1 {
        for sibling in siblings { tape.nodes[sibling - 1].bits |= RecordTape.Node.accessed }
        return siblings
      }
    }
    let n = tape.nodes[node]
    if n.kind == .string {
      // An empty (or blank) element is an empty wrapper.
      xml.readings[node] = .single
      return isBlank(node) ? [] : [node]
    }
    guard n.kind == .object, !xml.forcedSingle.contains(node), let children = uniformChildren(of: node) else {
      xml.readings[node] = .single
      return [node]
    }
    tape.nodes[node].bits |= RecordTape.Node.opened
    for child in children { tape.nodes[child - 1].bits |= RecordTape.Node.accessed }
    xml.readings[node] = .wrapper
    return children
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

  /// The values of an object's child elements when there is at least one and they share a name;
  /// nil otherwise. Attributes and the object's own text are not children.
  private func uniformChildren(of object: Int) -> [Int]? {
    var children: [Int] = []
    var k = object + 1
    let end = tape.end(of: object)
    while k < end {
      if !tape.isAttribute(k) && !keyIsText(k) {
        if let first = children.first, !sameName(first - 1, k) { return nil }
        children.append(k + 1)
      }
      k = tape.end(of: k + 1)
    }
    return children.isEmpty ? nil : children
  }

  private func keyIsText(_ key: Int) -> Bool {
    tape.bytes[range(key)].elementsEqual(XMLRecordReader.textKey.utf8)
  }

  private func sameName(_ a: Int, _ b: Int) -> Bool {
    a == b || tape.bytes[range(a)].elementsEqual(tape.bytes[range(b)])
  }

  /// Decodes the value at a key, trying the single-item reading when the wrapper reading of an
  /// ambiguous element does not decode.
  func decodeXML<T: Decodable>(_ type: T.Type, at node: Int, in parent: Int) throws -> T {
    do {
      return try decode(type, at: node, parent: parent)
    } catch let wrapperError as DecodingError {
      guard xml.readings[node] == .wrapper else { throw wrapperError }
      xml.forcedSingle.insert(node)
      xml.readings[node] = nil
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
      let wrapper = xml.readings[current] == .wrapper
      let (index, repeats) = siblingIndex(of: member, in: current)
      if wrapper {
        path.append(TapeKey(index: index))
      } else {
        path.append(TapeKey(stringValue: tape.keyString(member)))
        if target == member { return path }
        if repeats {
          path.append(TapeKey(index: index))
        } else if xml.readings[member + 1] == .single {
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
      let end = node.payload
      var k = index + 1
      while k < end {
        if !nodes[k].isAccessed {
          var firstOfName = true
          var askedFor = false
          var other = index + 1
          while other < end {
            if other != k && sameName(other, k) {
              if nodes[other].isAccessed { askedFor = true }
              if other < k { firstOfName = false }
            }
            other = tape.end(of: other + 1)
          }
          if askedFor {
            throw RecordDecodingError(
              code: .duplicateKey, path: FieldPath.render(xmlCodingPath(to: k)),
              message: "the element appears more than once, but the field is not an array", byteOffset: offset(of: k))
          }
          if reportUnknown && firstOfName {
            diagnostics.unknownFields.append(
              .init(
                code: .unknownField, path: FieldPath.render(xmlCodingPath(to: k)), message: "not part of the contract",
                byteOffset: offset(of: k)))
          }
        }
        k = tape.end(of: k + 1)
      }
      index += 1
    }
  }
}
