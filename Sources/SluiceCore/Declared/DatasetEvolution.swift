import Foundation

// Schema evolution of a dataset file (`"evolution": "evolve"`, docs/reference/dataset-files.md).
//
// The run must know every new field before it writes a row that needs it, and `sluice plan`
// must show exactly what the run then does. So evolution is a pass of its own over the run's
// inputs before the run (`DatasetEvolution.survey`): each record's tape is walked against the
// declared fields, keeping per field path only counts of the kinds of values seen, the largest
// scale and the first place of each kind (bounded by the number of paths, capped). From that
// come the changes — columns added, a child table per new array, an integer rescaled into a
// decimal — the evolved dataset file and the migrations, which run inside the run's
// transaction like any other. A change that would lose information is refused before anything
// is opened for writing.

/// How a dataset file's schema follows its dumps.
package enum EvolutionMode: String, Sendable, CaseIterable {
  /// New fields are unknown fields (warned or refused by the policy): the schema never changes.
  case freeze
  /// New fields become columns and tables, numbers widen; the file is rewritten after the commit.
  case evolve
  /// New fields are dropped and counted, without a warning per record.
  case discard
}

/// A change evolution will not make: a narrowing or a change that would lose information.
/// Exit 65, nothing written; the message names the field, its old and new type and where the
/// first such value is — never the value.
package struct EvolutionRefusal: Error, Sendable, CustomStringConvertible {
  package var message: String
  package var description: String { message }
}

/// What a survey found for one dataset file: the changes and the file they make.
package struct EvolvedDataset: Sendable {
  /// The dataset file, absolute.
  package var path: String
  package var changes: [SchemaChange]
  /// The evolved file's text.
  package var text: String
  /// New fields dropped by `discard`, or seen by `freeze`: their paths, capped.
  package var newFields: [String]
}

/// The survey of one dataset file's inputs (see the note at the top of the file).
package struct DatasetEvolution {
  /// The most new field paths one survey tracks: a map keyed by data (an id per key) is not a
  /// schema, and is refused past it.
  package static let maximumNewPaths = 500

  package let path: String
  package let mode: EvolutionMode
  private var document: DocumentJSON
  private let file: DatasetFileDocument
  private let root: Node
  private var newPaths = 0
  private var tape = RecordTape()

  /// The declared and seen shape of one field path.
  final class Node {
    let key: String
    /// The declared type (`integer`, `object`…), nil for a field the file does not declare.
    let type: String?
    var scale: Int
    var children: [Node] = []
    var byKey: [String: Node] = [:]
    var element: Node?
    /// Where in the file the field's members are (`fields[2]`), for a declared one.
    let place: [DocumentStep]
    var integers = 0
    var fractions = 0
    var exponents = 0
    var strings = 0
    var booleans = 0
    var objects = 0
    var arrays = 0
    var nulls = 0
    var maximumScale = 0
    /// Its values were text in the input (CSV, TSV): any of them reads as text.
    var isText = false
    /// Where the first value of each kind was seen.
    var firstPlace: [String: String] = [:]

    init(key: String, type: String?, scale: Int, place: [DocumentStep]) {
      self.key = key
      self.type = type
      self.scale = scale
      self.place = place
    }

    var isNew: Bool { type == nil }
    var seen: Int { integers + fractions + exponents + strings + booleans + objects + arrays }
  }

  /// A step into the document: an object's member or an array's item.
  package enum DocumentStep: Sendable, Hashable {
    case member(String)
    case item(Int)
  }

  /// The survey of the dataset file at `path`, whose mode is its `evolution` key unless
  /// `mode` (the command line's `--evolve`) says otherwise.
  package init(fileAt path: String, mode: EvolutionMode? = nil) throws(SpecError) {
    self.path = path
    guard let data = FileManager.default.contents(atPath: path) else {
      throw SpecError(fileAt: path, message: "cannot read the dataset file")
    }
    let bytes = Array(data)
    file = try StrictDocument.decode(
      DatasetFileDocument.self, from: bytes, failure: { SpecError(fileAt: path, message: $0) },
      unknownKey: { unknown, _ in "'\(unknown.path)': unknown key" })
    document = try StrictDocument.decode(
      DocumentJSON.self, from: bytes, failure: { SpecError(fileAt: path, message: $0) }, unknownKey: { _, _ in "" })
    if let mode {
      self.mode = mode
    } else {
      self.mode = try Self.mode(of: file, path: path)
    }
    root = Node(key: "", type: "object", scale: 0, place: [])
    Self.declare(file.fields, into: root, place: [.member("fields")])
  }

  /// A file's `evolution`, checked.
  static func mode(of file: DatasetFileDocument, path: String) throws(SpecError) -> EvolutionMode {
    guard let text = file.evolution else { return .freeze }
    guard let mode = EvolutionMode(rawValue: text) else {
      throw SpecError(
        fileAt: path, message: "'evolution': '\(text)' is not one of: freeze, evolve, discard")
    }
    return mode
  }

  /// The mode the file at `path` declares (freeze when it says nothing).
  package static func mode(ofFileAt path: String) throws(SpecError) -> EvolutionMode {
    try DatasetEvolution(fileAt: path).mode
  }

  private static func declare(_ fields: [DatasetFileDocument.FieldDocument], into node: Node, place: [DocumentStep]) {
    for (index, field) in fields.enumerated() {
      let here = place + [.item(index)]
      let child = Node(key: field.name ?? "", type: field.type, scale: field.scale ?? 0, place: here)
      node.children.append(child)
      node.byKey[child.key] = child
      declareInside(field, node: child, place: here)
    }
  }

  private static func declareInside(_ field: DatasetFileDocument.FieldDocument, node: Node, place: [DocumentStep]) {
    if let fields = field.fields { declare(fields, into: node, place: place + [.member("fields")]) }
    if let items = field.items {
      let element = Node(key: "[]", type: items.type, scale: items.scale ?? 0, place: place + [.member("items")])
      node.element = element
      declareInside(items, node: element, place: place + [.member("items")])
    }
  }

  // MARK: - The survey

  /// Reads every input to its end, walking each record against the declared fields; returns the
  /// evolved dataset (no changes when the inputs fit the file). A record that cannot be read is
  /// skipped here: the run reports it.
  package static func survey(
    fileAt path: String, mode: EvolutionMode? = nil, inputs: [PipelineInput], remote: RemoteAccess = .none
  ) throws -> EvolvedDataset {
    var survey = try DatasetEvolution(fileAt: path, mode: mode)
    for input in inputs {
      if input.format == .xml {
        throw SpecError(
          fileAt: path,
          message:
            "'evolution': evolution reads JSON, NDJSON, CSV and TSV inputs; \(input.path) is XML: declare its new fields by hand"
        )
      }
      let source = try Input(path: input.location, remote: remote)
      let reader = RecordReaders.make(
        format: input.format, recordPath: input.recordPath, source: source, dialect: input.dialect)
      let name = FilePaths.lastComponent(of: input.path)
      while true {
        let record: RawRecord
        do {
          guard let next = try reader.next() else { break }
          record = next
        } catch let error as RecordReadError where error.isRecoverable || error.isOutsideRecords {
          continue
        }
        try survey.add(record, input: name)
      }
    }
    return try survey.evolved()
  }

  /// Walks one record.
  package mutating func add(_ record: RawRecord, input: String) throws {
    if let recordTape = record.tape {
      walk(recordTape, node: 0, shape: root, record: record, input: input)
    } else {
      try tape.loadJSON(record.bytes)
      walk(tape, node: 0, shape: root, record: record, input: input)
    }
  }

  private mutating func walk(_ tape: RecordTape, node: Int, shape: Node, record: RawRecord, input: String) {
    let kind: String
    switch tape.nodes[node].kind {
    case .object:
      shape.objects += 1
      kind = "object"
      var key = node + 1
      let end = tape.end(of: node)
      while key + 1 < end {
        let value = key + 1
        defer { key = tape.end(of: value) }
        let name = tape.keyString(key)
        var child = shape.byKey[name]
        if child == nil {
          guard newPaths < Self.maximumNewPaths else { continue }
          newPaths += 1
          let made = Node(key: name, type: nil, scale: 0, place: [])
          shape.children.append(made)
          shape.byKey[name] = made
          child = made
        }
        if let child { walk(tape, node: value, shape: child, record: record, input: input) }
      }
    case .array:
      shape.arrays += 1
      kind = "array"
      var child = node + 1
      let end = tape.end(of: node)
      while child < end {
        if shape.element == nil {
          if newPaths < Self.maximumNewPaths {
            newPaths += 1
            shape.element = Node(key: "[]", type: nil, scale: 0, place: [])
          }
        }
        if let element = shape.element { walk(tape, node: child, shape: element, record: record, input: input) }
        child = tape.end(of: child)
      }
    case .string:
      let range = tape.textRange(of: node)
      var bytes = tape.bytes[range]
      if bytes.first == UInt8(ascii: "\"") { bytes = bytes.dropFirst().dropLast() }
      if tape.scalarsAreText {
        shape.isText = true
        kind = Self.classifyText(bytes, shape: shape)
      } else {
        shape.strings += 1
        kind = "string"
      }
    case .number:
      kind = Self.classifyNumber(tape.bytes[tape.textRange(of: node)], shape: shape)
    case .true, .false:
      shape.booleans += 1
      kind = "boolean"
    case .null:
      shape.nulls += 1
      kind = "null"
    }
    if shape.firstPlace[kind] == nil {
      let location = record.location(at: tape.start(of: node))
      shape.firstPlace[kind] = "\(input) record \(location.ordinal) (line \(location.line))"
    }
  }

  /// A JSON number: an integer, a fraction (with its scale) or one with an exponent.
  private static func classifyNumber(_ bytes: ArraySlice<UInt8>, shape: Node) -> String {
    if bytes.contains(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
      shape.exponents += 1
      return "number with an exponent"
    }
    guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else {
      shape.integers += 1
      return "integer"
    }
    shape.fractions += 1
    shape.maximumScale = max(shape.maximumScale, bytes.endIndex - dot - 1)
    return "decimal"
  }

  /// A CSV (or TSV) value: digits an integer; digits with one `.` a decimal; anything else
  /// text. Empty is what the run's dialect makes of it for a declared field, and text for a new
  /// one (read as text, it loads whatever the dialect says).
  private static func classifyText(_ bytes: ArraySlice<UInt8>, shape: Node) -> String {
    if bytes.isEmpty {
      if shape.isNew {
        shape.strings += 1
        return "string"
      }
      shape.nulls += 1
      return "null"
    }
    let digits = bytes.drop { $0 == UInt8(ascii: "-") && bytes.first == $0 }
    let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    let parts = digits.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    if !digits.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isDigit) }) {
      return classifyNumber(digits, shape: shape)
    }
    shape.strings += 1
    return "string"
  }

  // MARK: - The changes

  /// The changes the survey calls for, and the file they make; throws the first change it
  /// refuses.
  package func evolved() throws -> EvolvedDataset {
    var edit = Edit(document: document, tables: Self.tables(file), mode: mode)
    try edit.check(root, path: "")
    var newFields: [String] = []
    Self.listNew(root, path: "", into: &newFields)
    guard mode == .evolve else {
      return EvolvedDataset(path: path, changes: [], text: document.text, newFields: newFields)
    }
    if newPaths >= Self.maximumNewPaths {
      throw EvolutionRefusal(
        message:
          "\(FilePaths.lastComponent(of: path)): the input has more than \(Self.maximumNewPaths) new field paths (a map keyed by its data?); evolution refuses them: declare the fields by hand"
      )
    }
    try edit.place(root, context: edit.mainTable, prefix: [], fieldPath: "")
    return EvolvedDataset(path: path, changes: edit.changes, text: edit.document.text, newFields: newFields)
  }

  private static func listNew(_ node: Node, path: String, into paths: inout [String]) {
    for child in node.children {
      let here = path.isEmpty ? DatasetFile.escapedKey(child.key) : path + "." + DatasetFile.escapedKey(child.key)
      if child.isNew {
        if paths.count < 20 { paths.append(here) }
      } else {
        listNew(child, path: here, into: &paths)
      }
    }
    if let element = node.element, !element.isNew { listNew(element, path: path + "[]", into: &paths) }
  }

  /// A table of the file, where its rows come from.
  struct FileTable {
    var index: Int
    var name: String
    var parent: String?
    var field: String?
    var position: String?
    var columnNames: Set<String>
    var key: [String]
  }

  private static func tables(_ file: DatasetFileDocument) -> [FileTable] {
    file.tables.enumerated().map { index, table in
      FileTable(
        index: index, name: table.name, parent: table.parent, field: table.field, position: table.position,
        columnNames: Set(table.columns.map { $0.name.lowercased() }), key: table.key ?? [])
    }
  }

}
