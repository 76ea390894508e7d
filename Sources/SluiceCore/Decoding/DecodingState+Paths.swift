/// Coding paths, found from the record's root in time that does not grow with how many paths a
/// record asks for.
///
/// A tape stores no parents, so a node's path is found by walking down from the root, skipping
/// whole subtrees, and at each level the walk crosses the siblings before the target. Done from
/// scratch for every path, a record that asks for a path per element — a Telegram text of 100k
/// entities, each first tried as a string and caught, or an object with 100k unknown keys — paid
/// for all the elements before each one: quadratic in the record. Paths are asked for in
/// document order almost always (decoding and the key sweep go forward), so each level keeps a
/// cursor — the container, and the child it last stopped at — and the next walk through the same
/// container starts there when the target is not before it. Walks that go forward cross each
/// sibling once per record; one that goes back starts from the container's first child again.
struct PathCursor {
  /// The container walked at this level.
  var container: Int
  /// The child the walk stopped at (an object's member by its key node), and its position among
  /// the container's children.
  var child: Int
  var position: Int
  /// XML: the last key whose index among the keys of its name was counted, that index, and
  /// whether the name repeats in the object; -1 when none was.
  var namedKey = -1
  var namedIndex = 0
  var nameRepeats = false
}

extension DecodingState {
  /// The child of `container` whose subtree holds `target` — an object's member, by its key
  /// node; an array's element — and its position among the children; nil when the container
  /// does not hold `target`. Starts from this level's cursor when it can, and moves it there.
  func child(of container: Int, holding target: Int, level: Int) -> (child: Int, position: Int)? {
    let node = tape.nodes[container]
    guard node.isContainer else { return nil }
    let end = node.payload
    guard target > container, target < end else { return nil }
    let isObject = node.tag == RecordTape.Node.object
    var child = container + 1
    var position = 0
    if level < pathCursors.count, pathCursors[level].container == container, pathCursors[level].child <= target {
      child = pathCursors[level].child
      position = pathCursors[level].position
    }
    while child < end {
      // An object's member is its key and its value.
      let last = isObject ? child + 1 : child
      guard last < end else { return nil }
      let childEnd = tape.end(of: last)
      if target < childEnd { break }
      child = childEnd
      position += 1
    }
    guard child < end else { return nil }
    let cursor = PathCursor(container: container, child: child, position: position)
    if level < pathCursors.count {
      if pathCursors[level].container == container {
        pathCursors[level].child = child
        pathCursors[level].position = position
      } else {
        pathCursors[level] = cursor
      }
    } else {
      pathCursors.append(cursor)
    }
    return (child, position)
  }

  /// The coding path of a node of a JSON record: what `RecordTape.codingPath(to:)` gives, found
  /// with the cursors.
  func jsonCodingPath(to target: Int) -> [any CodingKey] {
    var path: [any CodingKey] = []
    var current = 0
    var level = 0
    while current != target, current < tape.nodes.count {
      guard let (child, position) = child(of: current, holding: target, level: level) else { break }
      if tape.nodes[current].tag == RecordTape.Node.object {
        path.append(TapeKey(stringValue: tape.keyString(child)))
        if target == child { return path }
        current = child + 1
      } else {
        path.append(TapeKey(index: position))
        current = child
      }
      level += 1
    }
    return path
  }
}
