@_spi(Internals) import SluiceCore

/// A pass over a JSON document's structure that lists the arrays of objects in it — the record
/// paths `sluice run` could read — with how many objects each holds, and the collections keyed
/// by id (`recipes{id}`, `KeyedCollection`): an object whose first member has a name that looks
/// like an id (`looksLikeID`) and an object as its value is taken for one, at the top level or
/// under keys (not inside an array); its members are counted as records (those that are not an
/// id-like name with an object, as other elements) and checked, not explored, as a reader
/// reads them. Its path has one such collection at a place: a keyed path is always in one
/// object, so its `longest` is its `records`.
///
/// It walks the document through the same validating `JSONScanner` the record readers use
/// (scalars and skipped values are checked by `scanValue`), keeping only the path it stands on
/// and a counter per candidate path: constant memory for any input. Objects are entered, and so
/// are the elements of arrays of objects (`chats.list[].messages` is a path through an array);
/// arrays nested directly in arrays, and anything deeper than `maxDepth`, are checked and
/// skipped. With a sample size it stops once an array has that many objects (see
/// `nestedSampleFactor`), so a large file is not read to its end; the counts are then lower bounds, except for arrays that had
/// closed (see `RecordPathCandidate.isExact`).
final class JSONOutline {
  struct Result {
    var candidates: [RecordPathCandidate]
    /// The walk reached the end of the input.
    var isComplete: Bool
    /// New candidate paths left out once `maxCandidates` were listed.
    var droppedCandidates: Int
  }

  private enum Step {
    case key(String)
    case element
    /// The members of a keyed collection, each a record with its name as `id`.
    case keyedMember
  }

  private struct Tally {
    var keys: [String]
    var records = 0
    var longest = 0
    var otherElements = 0
    var openArrays = 0
    var throughArrays: Bool
  }

  /// A sample stops the walk when an array reached through objects only has that many objects
  /// (the records the record pass will read), or when any path — one through arrays too (each
  /// order's `items`, each chat's `messages`) — has this many times more in all. A nested list
  /// never stops it alone before the records around it are sampled, nor makes it read everything.
  static let nestedSampleFactor = 10

  /// Thrown inside the walk when the sample is reached, caught by `run()`.
  private struct SampleReached: Error {}

  private let scanner: JSONScanner
  private let sampleSize: Int?
  private let maxCandidates: Int
  private let maxDepth: Int
  private var path: [Step] = []
  private var tallies: [Tally] = []
  private var tallyIndex: [[String]: Int] = [:]
  /// Arrays met (empty ones too) per path through arrays: whether every element stepped
  /// through holds one.
  private var instances: [[String]: Int] = [:]
  private var droppedCandidates = 0

  /// - Parameters:
  ///   - sampleSize: stop once a candidate has this many records; nil reads the whole input.
  ///   - maxCandidates: distinct candidate paths listed; later ones are counted as dropped.
  ///   - maxDepth: containers entered; deeper values are checked, not explored.
  init(source: any ByteSource, sampleSize: Int?, maxCandidates: Int = 256, maxDepth: Int = 64) {
    // The reader's record depth limit applies below the record path, so the document may nest
    // that much deeper than a record.
    scanner = JSONScanner(
      source: source, limits: JSONRecordReader.Limits(maxDepth: JSONRecordReader.Limits().maxDepth + maxDepth),
      bufferSize: 1 << 18)
    self.sampleSize = sampleSize
    self.maxCandidates = maxCandidates
    self.maxDepth = maxDepth
  }

  /// Walks the document's one value; throws `RecordReadError` on malformed JSON (or anything
  /// after the value).
  func run() throws -> Result {
    var isComplete = true
    do {
      try scanner.skipByteOrderMark()
      try scanner.skipWhitespace()
      guard try scanner.peek() != nil else { throw scanner.syntaxError("the input is empty; expected a JSON value") }
      try walkValue(depth: 0)
      try scanner.expectEndOfInput()
    } catch is SampleReached {
      isComplete = false
    }
    var candidates: [RecordPathCandidate] = []
    for tally in tallies {
      candidates.append(
        RecordPathCandidate(
          keys: tally.keys, records: tally.records, longest: tally.longest, otherElements: tally.otherElements,
          missingInElements: missing(tally.keys, in: candidates, isComplete: isComplete),
          isExact: isComplete || (!tally.throughArrays && tally.openArrays == 0)))
    }
    return Result(candidates: candidates, isComplete: isComplete, droppedCandidates: droppedCandidates)
  }

  /// How many elements of the array a path steps through last lack the rest of it (or are not
  /// objects), plus what the path up to that array misses: the JSON reader needs the path in
  /// every one. `candidates` holds the enclosing array's, made first. A walk stopped by the
  /// sample may stand inside an element that has not reached the path yet: one is forgiven.
  private func missing(_ keys: [String], in candidates: [RecordPathCandidate], isComplete: Bool) -> Int {
    guard let step = keys.lastIndex(where: { $0.hasSuffix("[]") }) else { return 0 }
    var enclosingKeys = Array(keys[..<step])
    let key = String(keys[step].dropLast(2))
    if !key.isEmpty { enclosingKeys.append(key) }
    guard let enclosing = candidates.first(where: { $0.keys == enclosingKeys }) else { return 0 }
    let elements = enclosing.records + enclosing.otherElements
    let lacking = max(0, elements - (instances[keys] ?? 0) - (isComplete ? 0 : 1))
    return lacking + enclosing.missingInElements
  }

  private func walkValue(depth: Int) throws {
    guard let c = try scanner.peek() else { throw scanner.syntaxError("unexpected end of input; expected a value") }
    if depth < maxDepth && c == UInt8(ascii: "{") {
      try walkObject(depth: depth)
    } else if depth < maxDepth && c == UInt8(ascii: "[") {
      try walkArray(depth: depth)
    } else {
      try scanner.scanValue(depth: depth)
    }
  }

  private func walkObject(depth: Int) throws {
    scanner.advance()
    try scanner.skipWhitespace()
    if try scanner.peek() == UInt8(ascii: "}") {
      scanner.advance()
      return
    }
    var keyed: Int?
    var first = true
    while true {
      let key = try scanner.readKey()
      try scanner.skipWhitespace()
      try scanner.expect(UInt8(ascii: ":"), "expected ':' after an object key")
      try scanner.skipWhitespace()
      let isObject = try scanner.peek() == UInt8(ascii: "{")
      if first, isObject, Self.looksLikeID(key), path.allSatisfy(Self.isKey) {
        path.append(.keyedMember)
        keyed = tally(for: path)
        path.removeLast()
        if let keyed { tallies[keyed].openArrays += 1 }
      }
      first = false
      if let keyed {
        // Once the first member's name looks like an id, every member is one of the collection's
        // records, as the reader reads them: an id with no digit (a Zotero key, `QWERTYUP`) too.
        if isObject {
          tallies[keyed].records += 1
          tallies[keyed].longest = tallies[keyed].records
        } else {
          tallies[keyed].otherElements += 1
        }
        try scanner.scanValue(depth: depth + 1)
        if let sampleSize, !tallies[keyed].throughArrays && tallies[keyed].longest >= sampleSize {
          throw SampleReached()
        }
      } else {
        path.append(.key(key))
        try walkValue(depth: depth + 1)
        path.removeLast()
      }
      try scanner.skipWhitespace()
      guard let c = try scanner.peek() else { throw scanner.syntaxError("unexpected end of input inside an object") }
      scanner.advance()
      if c == UInt8(ascii: "}") {
        if let keyed { tallies[keyed].openArrays -= 1 }
        return
      }
      guard c == UInt8(ascii: ",") else {
        throw scanner.syntaxError("expected ',' or '}' in an object, found \(scanner.describe(c))")
      }
      try scanner.skipWhitespace()
    }
  }

  /// An array at the current path: its objects are records of the candidate named by the path,
  /// and are walked for nested candidates; other elements are checked and counted.
  private func walkArray(depth: Int) throws {
    // An array directly inside an array is not a record path the readers take: check it whole.
    if case .element = path.last {
      try scanner.scanValue(depth: depth)
      return
    }
    scanner.advance()
    if path.contains(where: { if case .element = $0 { true } else { false } }) {
      let keys = Self.recordPath(path)
      if let count = instances[keys] {
        instances[keys] = count + 1
      } else if instances.count < maxCandidates * 4 {
        instances[keys] = 1
      }
    }
    try scanner.skipWhitespace()
    if try scanner.peek() == UInt8(ascii: "]") {
      scanner.advance()
      return
    }
    var tally: Int?
    var objects = 0
    while true {
      if try scanner.peek() == UInt8(ascii: "{") {
        if tally == nil {
          tally = self.tally(for: path)
          if let tally { tallies[tally].openArrays += 1 }
        }
        objects += 1
        if let tally {
          tallies[tally].records += 1
          tallies[tally].longest = max(tallies[tally].longest, objects)
        }
        path.append(.element)
        try walkObject(depth: depth + 1)
        path.removeLast()
        if let tally, let sampleSize,
          (!tallies[tally].throughArrays && tallies[tally].longest >= sampleSize)
            || tallies[tally].records >= sampleSize * Self.nestedSampleFactor
        {
          throw SampleReached()
        }
      } else {
        if let tally { tallies[tally].otherElements += 1 }
        try scanner.scanValue(depth: depth + 1)
      }
      try scanner.skipWhitespace()
      guard let c = try scanner.peek() else { throw scanner.syntaxError("unexpected end of input inside an array") }
      scanner.advance()
      if c == UInt8(ascii: "]") {
        if let tally { tallies[tally].openArrays -= 1 }
        return
      }
      guard c == UInt8(ascii: ",") else {
        throw scanner.syntaxError("expected ',' or ']' in an array, found \(scanner.describe(c))")
      }
      try scanner.skipWhitespace()
      if try scanner.peek() == UInt8(ascii: "]") { throw scanner.syntaxError("trailing comma before ']'") }
    }
  }

  /// The candidate of the array at `path`, made on its first object; nil past `maxCandidates`.
  private func tally(for path: [Step]) -> Int? {
    let keys = Self.recordPath(path)
    if let existing = tallyIndex[keys] { return existing }
    guard tallies.count < maxCandidates else {
      droppedCandidates += 1
      return nil
    }
    let throughArrays = path.contains { if case .element = $0 { true } else { false } }
    tallies.append(Tally(keys: keys, throughArrays: throughArrays))
    tallyIndex[keys] = tallies.count - 1
    return tallies.count - 1
  }

  /// The record path of the array a walk path leads to, in `JSONArrayReader`'s syntax: an
  /// array stepped through is `[]` after its key (`list[]`), or alone for the top level (`[]`);
  /// a keyed collection's members `{id}` after its key (`recipes{id}`), or alone (`{id}`).
  private static func recordPath(_ path: [Step]) -> [String] {
    var keys: [String] = []
    for step in path {
      switch step {
      case .key(let key): keys.append(key)
      case .element:
        if let last = keys.last, !last.hasSuffix("[]") {
          keys[keys.count - 1] = last + "[]"
        } else {
          keys.append("[]")
        }
      case .keyedMember:
        if let last = keys.last, !last.hasSuffix("[]") {
          keys[keys.count - 1] = last + "{id}"
        } else {
          keys.append("{id}")
        }
      }
    }
    return keys
  }

  private static func isKey(_ step: Step) -> Bool {
    if case .key = step { true } else { false }
  }

  /// Whether an object member's name looks like a record's id rather than a field's name: no
  /// white space, and a digit in it (`1042`, `rmK12Uau.ntP510…`, a Firebase push id, a UUID;
  /// an opaque token of any length almost surely has one). `customer`, `shipping_address` and
  /// `items` do not; a record's `address2` might, but only a member path outside every array is
  /// taken for a collection, and the longest candidate is the one proposed.
  static func looksLikeID(_ name: String) -> Bool {
    guard !name.isEmpty, !name.utf8.contains(where: { $0 <= 0x20 }) else { return false }
    return name.utf8.contains { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
  }
}
