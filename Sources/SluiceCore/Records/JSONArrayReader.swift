/// The elements of a JSON array, one record each: the top-level array, or the array under a key
/// path of nested objects (`["data", "fruits"]` for `{"data": {"fruits": [...]}}`). A path may
/// step through arrays of objects (`chats.list[].messages`: the records of every chat in turn),
/// still streaming: one chat is walked at a time.
///
/// The first `next()` walks from the document's start to the array, skipping (and checking) the
/// members it passes and keeping the scalar ones (a chat's `id`, `name`; an object's scalar
/// members as `channel.id`): each record carries
/// the scalar fields of the objects around it (`RawRecord.context`) and its index in its array
/// (`RawRecord.position`). After an array's `]` the rest of the enclosing objects is checked, so
/// a document that is malformed after its records still fails.
///
/// The records may instead be the members of an object — a collection keyed by id, as recipe
/// dumps and Firebase exports write them (`{"05zEp…": {"title": …}, …}`): a path whose last
/// component is `key{field}` (or `{field}` for the top-level object) reads each member's value
/// as a record, with the member's name added to it as the string field `field`
/// (`KeyedCollection`).
///
/// The scalar members met after the record array in the top-level objects (a Messenger
/// conversation's `title`, written after its `messages`) are kept too, as the members before it
/// are: once `next()` has returned nil, `documentFields` holds both — what a dataset may add
/// rows from at the end of the input (`Dataset.rowsAfterRecords`). Only the top level's: the
/// members after the records of one element of an array of objects (one chat of
/// `chats.list[].messages`) are checked and skipped.
///
/// A key given twice in one of the objects around the records is a `duplicateKey` issue at the
/// repeated key (`RecordReadError.isOutsideRecords`, recoverable), as it is inside a record:
/// a second array under the record key is read too, after its issue (its records are as much
/// the input's as the first's, and `inspect` counts them), and a field given twice is kept
/// neither time. The keys of each object are remembered for that, up to 256 of at most 4 KiB
/// (the record path's own keys always), so memory stays bounded.
final class JSONArrayReader: RecordReader {
  let path: [String]
  let scanner: JSONScanner
  /// The path cut at each array it steps through: `chats.list[].messages` is
  /// `[["chats", "list"], ["messages"]]`. Every group but the last leads to an array of
  /// objects; the last one to the record array.
  private let groups: [[String]]
  /// The records are the members of an object, their names the field this names.
  private let keyedBy: String?

  private enum Phase {
    case start
    case inOuter(first: Bool)
    case inRecords(first: Bool)
    /// The key of the group's component `from - 1` came again: walk to the records from there.
    case again(from: Int)
    case done
  }
  private var phase = Phase.start
  /// The group being walked: how many arrays of objects the reader is inside.
  private var level = 0
  /// Per level: objects entered to reach the next array; their remaining members are checked
  /// after it.
  private var enclosing: [Int] = [0]
  /// Per level: the scalar fields of those objects, met before the array.
  private var fields: [[String: String]] = [[:]]
  /// The fields of every level, inner ones winning, for the records of the current array.
  private var context: [String: String]?
  /// The next record's index in its array.
  private var index = 0
  /// The scalar fields of the top-level objects met after the record array ends.
  private var trailing: [String: String] = [:]
  /// Per level: the keys met in each object entered and not yet closed, outermost first.
  private var objectKeys: [[Set<String>]] = [[]]
  /// Per level: the fields given twice, kept neither time.
  private var repeated: [Set<String>] = [[]]
  /// Per level above the top: the index of the element of the array of objects being walked.
  private var elementIndex: [Int] = [0]
  /// The top level's members that hold no text (`unreadableDocumentFields`).
  private var unreadable: [String: UnreadableField] = [:]
  /// Issues found while walking, thrown one per `next()` before anything else.
  private var pending: [RecordReadError] = []
  /// Issues past the 16 `pending` keeps, said in one more.
  private var unlisted = 0

  /// The members that hold no text, of the top-level objects around the records.
  var unreadableDocumentFields: [String: UnreadableField] { unreadable }

  /// The scalar fields of the objects around the records at the top level — those before the
  /// records, then those after them, which win — once every record is read; before that, only
  /// those before. Empty for a top-level array.
  var documentFields: [String: String] {
    guard case .done = phase else { return fields[0] }
    return fields[0].merging(trailing) { _, after in after }
  }

  init(scanner: JSONScanner, path: [String]) {
    self.scanner = scanner
    self.path = path
    var groups: [[String]] = [[]]
    var keyedBy: String?
    for (index, component) in path.enumerated() {
      if index == path.count - 1, let keyed = KeyedCollection(component) {
        if !keyed.key.isEmpty { groups[groups.count - 1].append(keyed.key) }
        keyedBy = keyed.field
      } else if component.hasSuffix("[]") {
        let key = String(component.dropLast(2))
        if !key.isEmpty { groups[groups.count - 1].append(key) }
        groups.append([])
      } else {
        groups[groups.count - 1].append(component)
      }
    }
    // A path ending in `[]` names the record array itself.
    if groups.count > 1, groups[groups.count - 1].isEmpty, keyedBy == nil { groups.removeLast() }
    self.groups = groups
    self.keyedBy = keyedBy
  }

  func next() throws -> RawRecord? {
    while true {
      if !pending.isEmpty { throw pending.removeFirst() }
      switch phase {
      case .done:
        return nil
      case .start:
        try scanner.skipByteOrderMark()
        try descend()
        enterArray()
      case .again(let from):
        try descend(from: from)
        enterArray()
      case .inOuter(let first):
        guard try nextElement(first: first, closing: UInt8(ascii: "]")) else {
          try leaveLevel()
          continue
        }
        phase = .inOuter(first: false)
        elementIndex[level] += 1
        level += 1
        enclosing.append(0)
        fields.append([:])
        objectKeys.append([])
        repeated.append([])
        elementIndex.append(0)
        try descend()
        enterArray()
      case .inRecords(let first):
        guard try nextElement(first: first, closing: keyedBy == nil ? UInt8(ascii: "]") : UInt8(ascii: "}")) else {
          try leaveLevel()
          continue
        }
        phase = .inRecords(first: false)
        var record: RawRecord
        if let keyedBy {
          let name = try scanner.readKey()
          try scanner.skipWhitespace()
          try scanner.expect(UInt8(ascii: ":"), "expected ':' after a member's name in the keyed collection")
          try scanner.skipWhitespace()
          record = try scanner.captureRecord()
          KeyedCollection.add(name, as: keyedBy, to: &record.bytes)
        } else {
          record = try scanner.captureRecord()
        }
        record.context = context
        record.position = index
        index += 1
        return record
      }
    }
  }

  /// After the `[` of the array the current group leads to.
  private func enterArray() {
    if level == groups.count - 1 {
      phase = .inRecords(first: true)
      index = 0
      let merged = fields.reduce(into: [String: String]()) { all, level in all.merge(level) { _, inner in inner } }
      context = merged.isEmpty ? nil : merged
    } else {
      phase = .inOuter(first: true)
      elementIndex[level] = -1
    }
  }

  /// Moves to the next element of the current array (or member of the keyed collection); false
  /// at its `closing` bracket.
  private func nextElement(first: Bool, closing: UInt8) throws -> Bool {
    // Only an error names the bracket: nothing is made per element.
    func bracket() -> String { "'\(Character(UnicodeScalar(closing)))'" }
    try scanner.skipWhitespace()
    guard let c = try scanner.peek() else {
      throw scanner.syntaxError(
        "unexpected end of input inside the record \(closing == UInt8(ascii: "]") ? "array" : "collection"); expected ',' or \(bracket())"
      )
    }
    if c == closing {
      scanner.advance()
      return false
    }
    if !first {
      guard c == UInt8(ascii: ",") else {
        throw scanner.syntaxError("expected ',' or \(bracket()) after a record, found \(scanner.describe(c))")
      }
      scanner.advance()
      try scanner.skipWhitespace()
      if try scanner.peek() == closing {
        throw scanner.syntaxError("trailing comma before \(bracket())")
      }
    }
    return true
  }

  /// After an array's `]`: checks the rest of the objects its group entered, then goes back to
  /// the array of objects around them, or to the document's end.
  private func leaveLevel() throws {
    if let again = try finishObjects(enclosing[level], keepingScalars: level == 0) {
      // The object of component `again` holds its key a second time: its value leads to more
      // records, walked to after the issue is thrown.
      enclosing[level] = again + 1
      phase = .again(from: again + 1)
      return
    }
    guard level > 0 else {
      try scanner.expectEndOfInput()
      phase = .done
      return
    }
    enclosing.removeLast()
    fields.removeLast()
    objectKeys.removeLast()
    repeated.removeLast()
    elementIndex.removeLast()
    level -= 1
    phase = .inOuter(first: false)
  }

  /// The path of `key` in the object of the current group's component `depth` (0 the object
  /// the group starts at): `chats.list[3].name`.
  private func keyPath(_ key: String, depth: Int) -> String {
    var parts: [String] = []
    for outer in 0..<level {
      parts.append(groups[outer].joined(separator: ".") + "[\(elementIndex[outer])]")
    }
    parts += groups[level].prefix(depth)
    parts.append(key)
    return parts.filter { !$0.isEmpty }.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
  }

  /// Queues an issue about the objects around the records; past 16 waiting, only counts it.
  private func report(_ code: IssueCode, at location: RecordLocation, path: String, _ message: String) {
    guard pending.count < 16 else {
      unlisted += 1
      if var last = pending.popLast() {
        last.message = last.message.components(separatedBy: "; and ").first ?? last.message
        last.message += "; and \(unlisted) more repeated key(s) around the records, not listed"
        pending.append(last)
      }
      return
    }
    var issue = RecordReadError(code: code, message: message, location: location, isRecoverable: true)
    issue.path = path
    issue.isOutsideRecords = true
    pending.append(issue)
  }

  /// Remembers `key` of the object of component `depth`, which starts at `location`; false
  /// (and a `duplicateKey` issue) when that object had it already.
  private func remember(_ key: String, depth: Int, at location: RecordLocation) -> Bool {
    guard key.utf8.count <= 4096 else { return true }
    if objectKeys[level][depth].contains(key) {
      report(
        .duplicateKey, at: location, path: keyPath(key, depth: depth),
        "the key appears more than once in an object around the records; neither value is used")
      forget(key)
      return false
    }
    if objectKeys[level][depth].count < 256 { objectKeys[level][depth].insert(key) }
    return true
  }

  /// Drops the kept fields of a key given twice, and keeps it from being kept again.
  private func forget(_ key: String) {
    repeated[level].insert(key)
    let prefix = key + "."
    for name in fields[level].keys where name == key || name.hasPrefix(prefix) { fields[level][name] = nil }
    if level == 0 {
      for name in trailing.keys where name == key || name.hasPrefix(prefix) { trailing[name] = nil }
      unreadable[key] = nil
    }
  }

  /// The path walked so far, for messages.
  private func walked(_ extra: [String]) -> String {
    (groups.prefix(level).map { $0.joined(separator: ".") + "[]" } + [extra.joined(separator: ".")])
      .filter { !$0.isEmpty }.joined(separator: ".")
  }

  /// Walks the current group: from the object the reader stands before (the document, or an
  /// element of the array around it) to just after the `[` of the next array, keeping the
  /// scalar fields it passes.
  private func descend(from start: Int = 0) throws {
    let group = groups[level]
    let whole = path.joined(separator: ".")
    var walkedHere = Array(group.prefix(start))
    objectKeys[level].removeSubrange(min(start, objectKeys[level].count)...)
    for (depth, component) in group.enumerated() where depth >= start {
      try scanner.skipWhitespace()
      guard let c = try scanner.peek() else {
        throw scanner.syntaxError("unexpected end of input; expected an object holding '\(component)'")
      }
      guard c == UInt8(ascii: "{") else {
        let place = level == 0 && walkedHere.isEmpty ? "at the top level" : "at '\(walked(walkedHere))'"
        throw scanner.pathError(
          "record path '\(whole)': expected an object \(place), found \(scanner.describeValue(c))")
      }
      scanner.advance()
      enclosing[level] += 1
      objectKeys[level].append([])
      try scanner.skipWhitespace()
      var first = true
      var found = false
      while !found {
        guard let next = try scanner.peek() else {
          throw scanner.syntaxError("unexpected end of input inside an object")
        }
        if next == UInt8(ascii: "}") {
          throw scanner.pathError(
            "record path '\(whole)': no key '\(component)'"
              + (level == 0 && walkedHere.isEmpty ? " at the top level" : " in '\(walked(walkedHere))'"))
        }
        if !first {
          guard next == UInt8(ascii: ",") else {
            throw scanner.syntaxError("expected ',' or '}' in an object, found \(scanner.describe(next))")
          }
          scanner.advance()
          try scanner.skipWhitespace()
        }
        first = false
        let at = scanner.locationOutsideRecords
        let key = try scanner.readKey()
        try scanner.skipWhitespace()
        try scanner.expect(UInt8(ascii: ":"), "expected ':' after an object key")
        try scanner.skipWhitespace()
        if key == component {
          found = true
        } else if remember(key, depth: depth, at: at) {
          try keepScalars(of: key)
          try scanner.skipWhitespace()
        } else {
          try scanner.scanValue(depth: 1)
          try scanner.skipWhitespace()
        }
      }
      walkedHere.append(component)
    }
    try scanner.skipWhitespace()
    if keyedBy != nil && level == groups.count - 1 {
      guard let c = try scanner.peek() else {
        throw scanner.syntaxError("unexpected end of input; expected '{' starting the keyed collection")
      }
      guard c == UInt8(ascii: "{") else {
        throw scanner.pathError(
          "record path '\(whole)' holds \(scanner.describeValue(c))"
            + (level > 0 || !walkedHere.isEmpty ? " at '\(walked(walkedHere))'" : " at the top level")
            + ", not an object whose members are the records")
      }
      scanner.advance()
      return
    }
    guard let c = try scanner.peek() else {
      throw scanner.syntaxError("unexpected end of input; expected '[' starting the record array")
    }
    guard c == UInt8(ascii: "[") else {
      if path.isEmpty {
        throw scanner.pathError(
          "expected an array of records at the top level, found \(scanner.describeValue(c))"
            + (c == UInt8(ascii: "{")
              ? "; set the record path to the key that holds the records" : ""))
      }
      throw scanner.pathError(
        "record path '\(whole)' holds \(scanner.describeValue(c))"
          + (level > 0 ? " at '\(walked(walkedHere))'" : "") + ", not an array")
    }
    scanner.advance()
  }

  /// A member passed on the way to the records: a scalar is kept under its key, and an
  /// object's scalar members under `key.member`, one level deep (DiscordChatExporter writes its
  /// channel as `"channel": {"id": …, "name": …}` before the messages: `channel.id`); anything
  /// deeper is checked and skipped. At most 256 fields per level, so memory stays bounded.
  private func keepScalars(of key: String) throws {
    try keepScalars(of: key, in: &fields[level])
  }

  /// Keeps the scalars of the member `key` (a scalar, or an object's scalar members) in `kept`;
  /// at the top level, notes a member that holds no text in `unreadable`.
  private func keepScalars(of key: String, in kept: inout [String: String]) throws {
    let at = scanner.locationOutsideRecords
    guard try scanner.peek() == UInt8(ascii: "{") else {
      switch try scanner.scanScalarField() {
      case .text(let value): if kept.count < 256 { kept[key] = value }
      case .notText(let holds): noteUnreadable(key, holds: holds, at: at)
      case .tooLong: break
      }
      return
    }
    noteUnreadable(key, holds: "an object", at: at)
    scanner.advance()
    try scanner.skipWhitespace()
    if try scanner.peek() == UInt8(ascii: "}") {
      scanner.advance()
      return
    }
    while true {
      let member = try scanner.readKey()
      try scanner.skipWhitespace()
      try scanner.expect(UInt8(ascii: ":"), "expected ':' after an object key")
      try scanner.skipWhitespace()
      let memberAt = scanner.locationOutsideRecords
      switch try scanner.scanScalarField() {
      case .text(let value): if kept.count < 256 { kept[key + "." + member] = value }
      case .notText(let holds): noteUnreadable(key + "." + member, holds: holds, at: memberAt)
      case .tooLong: break
      }
      try scanner.skipWhitespace()
      guard let c = try scanner.peek() else { throw scanner.syntaxError("unexpected end of input inside an object") }
      guard c == UInt8(ascii: ",") || c == UInt8(ascii: "}") else {
        throw scanner.syntaxError("expected ',' or '}' in an object, found \(scanner.describe(c))")
      }
      scanner.advance()
      if c == UInt8(ascii: "}") { return }
      try scanner.skipWhitespace()
    }
  }

  /// Notes a top-level member that holds no text, for a dataset that reads it.
  private func noteUnreadable(_ key: String, holds: String, at location: RecordLocation) {
    guard level == 0, unreadable.count < 256 else { return }
    unreadable[key] = UnreadableField(holds: holds, location: location)
  }

  /// Checks the rest of `count` objects entered on the way to an array, innermost first; with
  /// `keepingScalars`, keeps their scalar members in `trailing` as it goes. Returns the depth of
  /// an object that holds its record path key a second time, just before that key's value
  /// (the objects inside it closed, it and those around it still open); nil once all are closed.
  private func finishObjects(_ count: Int, keepingScalars: Bool) throws -> Int? {
    for depth in stride(from: count - 1, through: 0, by: -1) {
      try scanner.skipWhitespace()
      while true {
        guard let c = try scanner.peek() else {
          throw scanner.syntaxError("unexpected end of input inside an object")
        }
        if c == UInt8(ascii: "}") {
          scanner.advance()
          objectKeys[level].removeLast()
          break
        }
        guard c == UInt8(ascii: ",") else {
          throw scanner.syntaxError("expected ',' or '}' in an object, found \(scanner.describe(c))")
        }
        scanner.advance()
        try scanner.skipWhitespace()
        let at = scanner.locationOutsideRecords
        let key = try scanner.readKey()
        try scanner.skipWhitespace()
        try scanner.expect(UInt8(ascii: ":"), "expected ':' after an object key")
        try scanner.skipWhitespace()
        if depth < groups[level].count, key == groups[level][depth] {
          report(
            .duplicateKey, at: at, path: keyPath(key, depth: depth),
            "the key that leads to the records appears more than once in its object; the records under each are read")
          return depth
        }
        if !remember(key, depth: depth, at: at) {
          try scanner.scanValue(depth: 1)
        } else if keepingScalars && !repeated[level].contains(key) {
          try keepScalars(of: key, in: &trailing)
        } else {
          try scanner.scanValue(depth: 1)
        }
        try scanner.skipWhitespace()
      }
    }
    return nil
  }
}
