import Foundation
@_spi(Internals) import SluiceCore

/// Folds records, one tape at a time, into the `FieldShape` of every field path they have.
///
/// Nothing of a record outlives `add(_:)` but counts (and, with `showsValues`, three short
/// examples per path), and the number of paths is capped: a value at a new path past the cap is
/// counted in `untrackedValues` and skipped with its subtree. So memory is bounded by the cap,
/// whatever the input's size or the records' keys (maps keyed by ids make a path per id).
///
/// XML has no arrays: a key repeated in one object is an array there (the decoder makes one of
/// it when the DTO asks). Once a path has been repeated, single occurrences count as arrays of
/// one; the ones seen before the first repeat are folded in by `finish()`.
package struct ShapeCollector {
  public let showsValues: Bool
  public let maxPaths: Int
  /// Records added.
  public private(set) var records = 0
  /// Values at a new path after the cap was reached, skipped with their subtrees.
  public private(set) var untrackedValues = 0
  /// Keys repeated within one JSON object (counted once per object).
  public private(set) var duplicateKeys = 0

  /// Index 0 is the record itself; the rest in order of first appearance.
  private(set) var shapes: [FieldShape]
  private var liveCount = 1
  /// XML records were added: their repeated keys are arrays (see `foldSinglesIntoArrays`).
  private var hasXMLRecords = false
  private var nextHolder = 0
  private let dates = DateParser(formats: [.iso8601])
  /// Per field of the record named like an id (`FieldShape.looksLikeKey`), hashes of the values
  /// its first `uniquenessSample` records had, until one repeats (then the field is in
  /// `repeatedKeys` and its hashes are dropped): bounded by the sample, whatever the input's size.
  private var keyHashes: [Int: Set<Int>] = [:]
  private var repeatedKeys = Set<Int>()
  /// The id-like fields of the record itself met in the record being added, with their values'
  /// hashes, for `noteKeyPairs`.
  private var recordKeys: [(shape: Int, hash: Int)] = []
  /// Per pair of the record's first `pairedKeyFields` id-like fields, hashes of the two values
  /// together in its first `pairSample` records, until one repeats: a composite key (an order
  /// line's `orderId` + `lineNo`) where neither field alone is unique. Bounded like `keyHashes`.
  private var pairHashes: [KeyPair: Set<Int>] = [:]
  private var repeatedPairs = Set<KeyPair>()
  private var pairedShapes: [Int] = []
  /// The date parsers of CSV columns' type inference, made at the first CSV record.
  private var classifier: TextColumnClassifier?

  /// Records whose id-like fields are checked for repeated values.
  package static let uniquenessSample = 100_000
  /// Records whose pairs of id-like fields are checked for repeated values together.
  package static let pairSample = 10_000
  /// How many of the record's id-like fields are paired (the first met): 15 pairs at most.
  static let pairedKeyFields = 6

  struct KeyPair: Hashable {
    let first: Int
    let second: Int
  }

  public init(showsValues: Bool = false, maxPaths: Int = 1_000) {
    self.showsValues = showsValues
    self.maxPaths = max(maxPaths, 1)
    shapes = [FieldShape(path: "", name: "", parent: -1)]
  }

  /// The record's shape: counts for the records themselves (their kinds, all objects normally).
  public var record: FieldShape { shapes[0] }

  /// Whether the cap kept some path out.
  public var isCapped: Bool { untrackedValues > 0 }

  /// Adds one record, given as its tape.
  public mutating func add(_ tape: RecordTape) {
    guard !tape.nodes.isEmpty else { return }
    if tape.scalarsAreText { hasXMLRecords = true }
    if tape.origin == .csv && classifier == nil { classifier = TextColumnClassifier() }
    records += 1
    shapes[0].present += 1
    recordKeys.removeAll(keepingCapacity: true)
    visit(tape, node: 0, shape: 0)
    noteKeyPairs()
  }

  /// Every field path, depth first in order of first appearance, with its holders counted and
  /// XML's early single occurrences folded into arrays. The record itself is not included.
  public mutating func finish() -> [FieldShape] {
    foldSinglesIntoArrays()
    shapes[0].holders = records
    for shape in keyHashes.keys { shapes[shape].isUniqueInSample = true }
    for shape in repeatedKeys { shapes[shape].isUniqueInSample = false }
    keyHashes = [:]
    shapes[0].uniqueKeyPairs = pairHashes.keys.filter { !repeatedPairs.contains($0) }
      .sorted { ($0.first, $0.second) < ($1.first, $1.second) }
      .map { [shapes[$0.first].name, shapes[$0.second].name] }
    pairHashes = [:]
    var ordered: [FieldShape] = []
    func walk(_ index: Int, depth: Int) {
      for child in shapes[index].children where shapes[child].isLive {
        let parent = shapes[index]
        shapes[child].holders = shapes[child].isElement ? parent.kinds.array : parent.kinds.object
        shapes[child].depth = depth
        ordered.append(shapes[child])
        walk(child, depth: depth + 1)
      }
    }
    walk(0, depth: 1)
    return ordered
  }

  // MARK: - Walking a tape

  private mutating func visit(_ tape: RecordTape, node: Int, shape: Int) {
    let n = tape.nodes[node]
    switch n.kind {
    case .object:
      shapes[shape].kinds.object += 1
      if tape.scalarsAreText {
        visitXMLObject(tape, node: node, shape: shape)
      } else {
        visitJSONObject(tape, node: node, shape: shape)
      }
    case .array:
      var elements: [Int] = []
      var child = node + 1
      let end = tape.end(of: node)
      while child < end {
        elements.append(child)
        child = tape.end(of: child)
      }
      visitArray(tape, elements: elements, shape: shape)
    case .string:
      shapes[shape].kinds.string += 1
      noteText(tape, node: node, shape: shape)
      noteKey(tape, node: node, shape: shape)
    case .number:
      let range = tape.textRange(of: node)
      let bytes = tape.bytes[range]
      if !bytes.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
        if tape.bytes.withUnsafeBufferPointer({ Self.fitsInt64(UnsafeBufferPointer(rebasing: $0[range])) }) {
          shapes[shape].kinds.integer += 1
        } else {
          shapes[shape].kinds.number += 1
          shapes[shape].wideIntegers += 1
        }
      } else {
        shapes[shape].kinds.number += 1
      }
      noteExample(Self.truncated(String(decoding: bytes, as: UTF8.self)), shape: shape)
      noteKey(tape, node: node, shape: shape)
    case .true, .false:
      shapes[shape].kinds.boolean += 1
      noteExample(n.kind == .true ? "true" : "false", shape: shape)
    case .null:
      shapes[shape].kinds.null += 1
    }
  }

  /// An array's elements, at the path `shape` + `[]`.
  private mutating func visitArray(_ tape: RecordTape, elements: [Int], shape: Int) {
    shapes[shape].kinds.array += 1
    shapes[shape].minElements = min(shapes[shape].minElements, elements.count)
    shapes[shape].maxElements = max(shapes[shape].maxElements, elements.count)
    guard !elements.isEmpty else { return }
    guard let element = child(of: shape, named: "[]") else {
      untrackedValues += elements.count
      return
    }
    for node in elements {
      shapes[element].present += 1
      visit(tape, node: node, shape: element)
    }
  }

  private mutating func visitJSONObject(_ tape: RecordTape, node: Int, shape: Int) {
    let holder = nextHolder
    nextHolder += 1
    var key = node + 1
    let end = tape.end(of: node)
    while key + 1 < end {
      let value = key + 1
      defer { key = tape.end(of: value) }
      guard let field = child(of: shape, named: tape.keyString(key)) else {
        untrackedValues += 1
        continue
      }
      guard shapes[field].lastHolder != holder else {
        duplicateKeys += 1
        continue
      }
      shapes[field].lastHolder = holder
      shapes[field].present += 1
      visit(tape, node: value, shape: field)
    }
  }

  /// An XML element's attributes and children: a name that repeats is an array of its values.
  private mutating func visitXMLObject(_ tape: RecordTape, node: Int, shape: Int) {
    var order: [String] = []
    var values: [String: [Int]] = [:]
    var key = node + 1
    let end = tape.end(of: node)
    while key + 1 < end {
      let name = tape.keyString(key)
      if values[name] == nil { order.append(name) }
      values[name, default: []].append(key + 1)
      key = tape.end(of: key + 1)
    }
    for name in order {
      guard let occurrences = values[name] else { continue }
      guard let field = child(of: shape, named: name) else {
        untrackedValues += occurrences.count
        continue
      }
      shapes[field].present += 1
      if occurrences.count > 1 || shapes[field].kinds.array > 0 {
        visitArray(tape, elements: occurrences, shape: field)
      } else {
        visit(tape, node: occurrences[0], shape: field)
      }
    }
  }

  // MARK: - Paths

  /// The child path `name` of `parent`, created when new and under the cap; nil past the cap.
  private mutating func child(of parent: Int, named name: String) -> Int? {
    if let existing = shapes[parent].childIndex[name] { return existing }
    guard liveCount < maxPaths + 1 else { return nil }
    let base = shapes[parent].path
    let path =
      name == "[]" ? base + "[]" : base.isEmpty ? name : base + "." + name
    shapes.append(FieldShape(path: path, name: name, parent: parent))
    let index = shapes.count - 1
    shapes[parent].childIndex[name] = index
    shapes[parent].children.append(index)
    liveCount += 1
    return index
  }

  // MARK: - Text

  private mutating func noteText(_ tape: RecordTape, node: Int, shape: Int) {
    let n = tape.nodes[node]
    let range = tape.textRange(of: node)
    var traits = shapes[shape].text
    traits.count += 1
    let length: Int
    var decoded: String?
    if n.hasEscapes {
      // Escapes are only ever written for quotes, backslashes and control characters: such
      // text is never a number, a boolean or a date.
      let text = JSONString.decode(tape.bytes[range]) ?? ""
      length = text.unicodeScalars.count
      decoded = text
      if let classifier {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBufferPointer { buffer in
          noteColumn(UnsafeBufferPointer(buffer), shape: shape, classifier: classifier)
        }
      }
    } else {
      length = tape.bytes.withUnsafeBufferPointer { buffer in
        let text = UnsafeBufferPointer(rebasing: buffer[range])
        if let classifier { noteColumn(text, shape: shape, classifier: classifier) }
        guard let first = text.first else { return 0 }
        // Numbers and booleans start with a digit, a minus or a letter of true/false; dates with
        // a digit. Long text is none of them but a number, whose grammar fails fast.
        if first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) {
          if Self.fitsInt64(text) { traits.integerLike += 1 }
          if Self.isNumberText(text) { traits.numberLike += 1 }
          if text.count >= 20 && text.count <= 64, let date = dates.parse(text: text),
            DateParser.supportedRange.contains(date)
          {
            traits.dateLike += 1
          }
        }
        if Self.isBooleanText(text) { traits.booleanLike += 1 }
        // The validated UTF-8's scalars, counted by the standard library's (optimized) code.
        return String(decoding: text, as: UTF8.self).unicodeScalars.count
      }
    }
    if length == 0 { traits.empty += 1 }
    traits.minLength = min(traits.minLength, length)
    traits.maxLength = max(traits.maxLength, length)
    shapes[shape].text = traits
    if showsValues && shapes[shape].examples.count < 3 {
      let text = decoded ?? String(decoding: tape.bytes[range], as: UTF8.self)
      noteExample(Self.quoted(Self.truncated(text)), shape: shape)
    }
  }

  /// Adds a CSV field's text to its column's profile (taken out while it changes, so its
  /// distinct values are not copied).
  private mutating func noteColumn(_ text: UnsafeBufferPointer<UInt8>, shape: Int, classifier: TextColumnClassifier) {
    var profile = shapes[shape].column.take() ?? TextColumnProfile()
    profile.add(text, classifier: classifier)
    shapes[shape].column = profile
  }

  /// Notes the value of a field named like an id — of the record, or of an object the record
  /// holds outside any array (NVD's `cve.id`) — to tell whether it repeats.
  private mutating func noteKey(_ tape: RecordTape, node: Int, shape: Int) {
    guard records <= Self.uniquenessSample, isOnceARecord(shape), FieldShape.looksLikeKey(shapes[shape].name)
    else { return }
    var hasher = Hasher()
    hasher.combine(tape.nodes[node].kind == .string)
    tape.bytes.withUnsafeBufferPointer { buffer in
      hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[tape.textRange(of: node)])))
    }
    let hash = hasher.finalize()
    if shapes[shape].parent == 0 { recordKeys.append((shape, hash)) }
    guard !repeatedKeys.contains(shape) else { return }
    if !keyHashes[shape, default: []].insert(hash).inserted {
      repeatedKeys.insert(shape)
      keyHashes[shape] = nil
    }
  }

  /// Whether a field occurs at most once a record: in the record, or in objects it holds
  /// (three levels at most), never in an array's elements.
  private func isOnceARecord(_ shape: Int) -> Bool {
    var parent = shapes[shape].parent
    for _ in 0..<3 {
      if parent == 0 { return true }
      guard parent > 0, !shapes[parent].isElement else { return false }
      parent = shapes[parent].parent
    }
    return false
  }

  /// Notes the record's pairs of id-like fields (`pairHashes`), once its fields are visited.
  private mutating func noteKeyPairs() {
    guard records <= Self.pairSample, recordKeys.count > 1 else { return }
    for key in recordKeys where !pairedShapes.contains(key.shape) && pairedShapes.count < Self.pairedKeyFields {
      pairedShapes.append(key.shape)
    }
    let keys = recordKeys.filter { pairedShapes.contains($0.shape) }
    for i in keys.indices {
      for j in keys.indices where j > i {
        let (a, b) = keys[i].shape < keys[j].shape ? (keys[i], keys[j]) : (keys[j], keys[i])
        let pair = KeyPair(first: a.shape, second: b.shape)
        guard !repeatedPairs.contains(pair) else { continue }
        var hasher = Hasher()
        hasher.combine(a.hash)
        hasher.combine(b.hash)
        if !pairHashes[pair, default: []].insert(hasher.finalize()).inserted {
          repeatedPairs.insert(pair)
          pairHashes[pair] = nil
        }
      }
    }
  }

  private mutating func noteExample(_ value: @autoclosure () -> String, shape: Int) {
    guard showsValues, shapes[shape].examples.count < 3 else { return }
    let example = value()
    if !shapes[shape].examples.contains(example) { shapes[shape].examples.append(example) }
  }

  /// At most 40 characters, with `…` when cut.
  static func truncated(_ text: String, to limit: Int = 40) -> String {
    text.count <= limit ? text : String(text.prefix(limit)) + "…"
  }

  /// A string as JSON writes it, so an example shows what kind of value it is.
  static func quoted(_ text: String) -> String { "\"" + JSONString.escaped(text) + "\"" }

  // MARK: - XML arrays

  /// Folds the single occurrences an XML path had before it first repeated into its array:
  /// each becomes an array of one, its value an element, its subtree the elements' subtree.
  private mutating func foldSinglesIntoArrays() {
    guard hasXMLRecords else { return }
    for index in shapes.indices.dropFirst() where shapes[index].isLive && !shapes[index].isElement {
      let kinds = shapes[index].kinds
      let singles = kinds.string + kinds.integer + kinds.number + kinds.boolean + kinds.null + kinds.object
      guard kinds.array > 0, singles > 0, let element = shapes[index].childIndex["[]"] else { continue }
      var moved = FieldShape(path: "", name: "[]", parent: index)
      moved.present = singles
      moved.kinds = kinds
      moved.kinds.array = 0
      moved.text = shapes[index].text
      moved.examples = shapes[index].examples
      moved.wideIntegers = shapes[index].wideIntegers
      shapes[element].absorb(moved)
      var kept = FieldShape.Kinds()
      kept.array = kinds.array + singles
      shapes[index].kinds = kept
      shapes[index].text = FieldShape.TextTraits()
      shapes[index].examples = []
      shapes[index].wideIntegers = 0
      shapes[index].minElements = min(shapes[index].minElements, 1)
      shapes[index].maxElements = max(shapes[index].maxElements, 1)
      for child in shapes[index].children where child != element {
        move(child, under: element)
      }
      shapes[index].children = [element]
      shapes[index].childIndex = ["[]": element]
    }
  }

  /// Moves a subtree under another parent, merging into the paths that are already there.
  private mutating func move(_ index: Int, under parent: Int) {
    let name = shapes[index].name
    if let existing = shapes[parent].childIndex[name] {
      shapes[existing].absorb(shapes[index])
      shapes[index].isLive = false
      for child in shapes[index].children { move(child, under: existing) }
    } else {
      shapes[index].parent = parent
      shapes[parent].childIndex[name] = index
      shapes[parent].children.append(index)
      renamePaths(index)
    }
  }

  private mutating func renamePaths(_ index: Int) {
    let base = shapes[shapes[index].parent].path
    let name = shapes[index].name
    shapes[index].path = name == "[]" ? base + "[]" : base.isEmpty ? name : base + "." + name
    for child in shapes[index].children { renamePaths(child) }
  }
}
