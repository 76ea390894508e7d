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

/// One change schema evolution makes, as `sluice plan` lists it and `sluice_migrations`
/// records it.
package struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
  package enum Kind: Sendable, Hashable {
    /// A nullable column for a new scalar field; `declared` is the field's type as the file says
    /// it (`INTEGER`, `DECIMAL(2)`).
    case addColumn(table: String, column: String, declared: String, type: ColumnType)
    /// A child table for a new array: created by the schema's own `create table` migration.
    case createTable(String)
    /// An integer or decimal column whose values gained decimal places: decimals are stored as
    /// whole minor units, so the values held are multiplied by 10^(to - from).
    case rescale(table: String, column: String, from: Int, to: Int)
  }

  package var kind: Kind

  package var description: String {
    switch kind {
    case .addColumn(let table, let column, let declared, _): "add column \(table).\(column) \(declared) NULL"
    case .createTable(let table): "create table \(table)"
    case .rescale(let table, let column, let from, let to):
      "widen column \(table).\(column) \(from == 0 ? "INTEGER" : "DECIMAL(\(from))") to DECIMAL(\(to))"
    }
  }

  /// The migration that applies it, identified by its description; nil for a table, which the
  /// schema's `create table` migration makes.
  package func migration(dialect: any SQLDialect) -> Migration? {
    switch kind {
    case .addColumn(let table, let column, _, let type):
      var migration = Migration(
        description,
        sql: "ALTER TABLE \(dialect.quote(table)) ADD COLUMN \(dialect.quote(column)) \(dialect.typeName(type))")
      // A database created by this very run has the column already.
      migration.creates = .column(table, column)
      return migration
    case .createTable:
      return nil
    case .rescale(let table, let column, let from, let to):
      var factor = "1"
      factor += String(repeating: "0", count: to - from)
      let name = dialect.quote(column)
      return Migration(description, sql: "UPDATE \(dialect.quote(table)) SET \(name) = \(name) * \(factor)")
    }
  }
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

  /// The document being evolved and the changes made to it so far.
  struct Edit {
    var document: DocumentJSON
    var tables: [FileTable]
    let mode: EvolutionMode
    var changes: [SchemaChange] = []

    init(document: DocumentJSON, tables: [FileTable], mode: EvolutionMode) {
      self.document = document
      self.tables = tables
      self.mode = mode
    }

    /// The table a record's own new fields go to: a top-level table that is another's parent,
    /// else the first top-level one.
    var mainTable: Int? {
      let parents = Set(tables.compactMap(\.parent))
      let top = tables.filter { $0.parent == nil }
      return (top.first { parents.contains($0.name) } ?? top.first)?.index
    }

    // The declared fields against what the inputs hold: a rescale, or a refusal.
    mutating func check(_ node: Node, path: String) throws {
      for child in node.children where !child.isNew {
        let here = path.isEmpty ? DatasetFile.escapedKey(child.key) : path + "." + DatasetFile.escapedKey(child.key)
        try checkValue(child, path: here)
      }
    }

    private mutating func checkValue(_ node: Node, path: String) throws {
      guard let type = node.type else { return }
      var allowed: Set<String>
      switch type {
      case "object": allowed = ["object"]
      case "array": allowed = ["array"]
      case "integer": allowed = ["integer", "decimal"]
      case "decimal": allowed = ["integer", "decimal"]
      case "number": allowed = ["integer", "decimal", "number with an exponent"]
      case "boolean": allowed = ["boolean"]
      default: allowed = ["string"]
      }
      allowed.insert("null")
      if let wrong = node.firstPlace.keys.sorted().first(where: { !allowed.contains($0) }) {
        let declared = type == "decimal" ? "decimal(\(node.scale))" : type
        throw EvolutionRefusal(
          message:
            "field '\(path)' is declared \(declared); the input has \(Self.article(wrong)) \(wrong) at \(node.firstPlace[wrong] ?? "?"): a narrowing or a change that would lose information, which evolution refuses (exit 65, nothing written): change the dataset file by hand"
        )
      }
      if (type == "integer" || type == "decimal") && node.fractions > 0 {
        let from = type == "integer" ? 0 : node.scale
        if node.maximumScale > from {
          guard node.maximumScale <= 18 else {
            throw EvolutionRefusal(
              message:
                "field '\(path)' is declared \(type == "integer" ? "integer" : "decimal(\(from))"); the input has a decimal with \(node.maximumScale) decimal places at \(node.firstPlace["decimal"] ?? "?"), more than a decimal holds (18): evolution refuses it"
            )
          }
          guard mode == .evolve else {
            throw EvolutionRefusal(
              message:
                "field '\(path)' is declared \(type == "integer" ? "integer" : "decimal(\(from))"); the input has a decimal with \(node.maximumScale) decimal places at \(node.firstPlace["decimal"] ?? "?"): under \"evolution\": \"\(mode.rawValue)\" the schema does not change (\"evolve\" or --evolve widens it)"
            )
          }
          widen(node, path: path, from: from, to: node.maximumScale)
        }
      }
      if type == "object" { try check(node, path: path) }
      if type == "array", let element = node.element { try checkValue(element, path: path + "[]") }
    }

    private static func article(_ kind: String) -> String {
      kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }

    /// A rescale of every column that reads `path`, and the field's new type in the document.
    private mutating func widen(_ node: Node, path: String, from: Int, to: Int) {
      update(at: node.place[...]) { field in
        field["type"] = .string("decimal")
        field["scale"] = .integer(Int64(to))
      }
      // The columns that read the field: those whose table's base holds it.
      for table in tables {
        guard case .array(let columns) = document["tables"]?.items[table.index]["columns"] ?? .null else { continue }
        for column in columns {
          guard let name = column["name"]?.stringValue else { continue }
          let field = column["field"]?.stringValue ?? name
          if Self.reads(table: table, field: field, path: path, tables: tables) {
            changes.append(SchemaChange(kind: .rescale(table: table.name, column: name, from: from, to: to)))
          }
        }
      }
    }

    /// Whether a column of `table` reading `field` (relative to the table's base) reads the
    /// record path `path`.
    private static func reads(table: FileTable, field: String, path: String, tables: [FileTable]) -> Bool {
      base(of: table, tables: tables).map { $0.isEmpty ? field : field == "." ? $0 : $0 + "." + field } == path
    }

    /// A table's base as a record path (`items[]`), nil when it cannot be told.
    static func base(of table: FileTable, tables: [FileTable]) -> String? {
      guard let parentName = table.parent else { return "" }
      guard let parent = tables.first(where: { $0.name == parentName }),
        let parentBase = base(of: parent, tables: tables), let field = table.field
      else { return nil }
      let joined = field == "." ? parentBase : parentBase.isEmpty ? field : parentBase + "." + field
      return table.position == nil ? joined : joined + "[]"
    }

    // MARK: Placing new fields

    /// Adds the new fields under `node` to the document, and their columns to table `context`
    /// (`prefix`: the keys from the table's base, `fieldPath`: the record path of `node`).
    mutating func place(_ node: Node, context: Int?, prefix: [String], fieldPath: String) throws {
      for child in node.children {
        let escaped = DatasetFile.escapedKey(child.key)
        let here = fieldPath.isEmpty ? escaped : fieldPath + "." + escaped
        if !child.isNew {
          if child.type == "object" {
            let owner = tables.first {
              $0.parent != nil && $0.position == nil && Self.base(of: $0, tables: tables) == here
            }
            if let owner {
              try place(child, context: owner.index, prefix: [], fieldPath: here)
            } else {
              try place(child, context: context, prefix: prefix + [child.key], fieldPath: here)
            }
          } else if child.type == "array", let element = child.element, element.type == "object" {
            let owner = tables.first { $0.position != nil && Self.base(of: $0, tables: tables) == here + "[]" }
            try place(element, context: owner?.index, prefix: [], fieldPath: here + "[]")
          }
          continue
        }
        guard child.seen > 0 || child.nulls > 0 else { continue }
        let declaration = try Self.field(for: child, path: here)
        append(declaration, toFieldsOf: node)
        try addColumns(for: child, context: context, prefix: prefix, fieldPath: here)
      }
    }

    /// Appends a field to the `fields` of `node` (the record, an object or an array's element).
    private mutating func append(_ field: DocumentJSON, toFieldsOf node: Node) {
      let fieldsPlace: [DocumentStep] =
        node.key.isEmpty && node.place.isEmpty ? [.member("fields")] : node.place + [.member("fields")]
      update(at: fieldsPlace[...]) { fields in
        if case .array(var items) = fields {
          items.append(field)
          fields = .array(items)
        } else {
          fields = .array([field])
        }
      }
    }

    /// The columns (and child tables) of a new field, in table `context`.
    private mutating func addColumns(for node: Node, context: Int?, prefix: [String], fieldPath: String) throws {
      guard let context else { return }
      let keys = prefix + [node.key]
      if node.objects > 0 {
        for child in node.children {
          try addColumns(
            for: child, context: context, prefix: keys, fieldPath: fieldPath + "." + DatasetFile.escapedKey(child.key))
        }
        return
      }
      if node.arrays > 0 {
        try addTable(for: node, parent: context, keys: keys)
        return
      }
      let (declared, type) = Self.columnType(of: node)
      let column = uniqueColumnName(Self.snakeCase(keys.joined(separator: "_")), in: context)
      let field = keys.map(DatasetFile.escapedKey).joined(separator: ".")
      var members = [DocumentJSON.Member("name", .string(column))]
      if field != column { members.append(.init("field", .string(field))) }
      appendColumn(.object(members), to: context, name: column)
      changes.append(
        SchemaChange(kind: .addColumn(table: tables[context].name, column: column, declared: declared, type: type)))
    }

    /// A child table for a new array: keyed by its parent and the element's position.
    private mutating func addTable(for node: Node, parent: Int, keys: [String]) throws {
      guard let element = node.element else { return }
      let parentTable = tables[parent]
      var name = Self.snakeCase(parentTable.name + "_" + keys.joined(separator: "_"))
      var suffix = 2
      while tables.contains(where: { $0.name.lowercased() == name.lowercased() }) {
        name = Self.snakeCase(parentTable.name + "_" + keys.joined(separator: "_")) + "_\(suffix)"
        suffix += 1
      }
      var ancestors: Set<String> = []
      var walk: FileTable? = parentTable
      while let table = walk {
        if let position = table.position { ancestors.insert(position.lowercased()) }
        ancestors.formUnion(table.key.map { $0.lowercased() })
        ancestors.formUnion(table.columnNames)
        walk = table.parent.flatMap { parentName in tables.first { $0.name == parentName } }
      }
      let position = ancestors.contains("position") ? name + "_position" : "position"
      let table = DocumentJSON.object([
        .init("name", .string(name)), .init("parent", .string(parentTable.name)),
        .init("field", .string(keys.map(DatasetFile.escapedKey).joined(separator: "."))),
        .init("position", .string(position)), .init("columns", .array([])),
      ])
      let index = tables.count
      update(at: [.member("tables")][...]) { tables in
        if case .array(var items) = tables {
          items.append(table)
          tables = .array(items)
        }
      }
      tables.append(
        FileTable(
          index: index, name: name, parent: parentTable.name, field: keys.joined(separator: "."), position: position,
          columnNames: [position.lowercased()], key: []))
      changes.append(SchemaChange(kind: .createTable(name)))
      if element.objects > 0 {
        for child in element.children {
          try addColumns(for: child, context: index, prefix: [], fieldPath: DatasetFile.escapedKey(child.key))
        }
      } else if element.arrays > 0 {
        throw EvolutionRefusal(
          message:
            "field '\(keys.joined(separator: "."))' is a new array of arrays: evolution does not declare one; declare it by hand"
        )
      } else {
        let (declared, type) = Self.columnType(of: element)
        appendColumn(
          .object([.init("name", .string("value")), .init("field", .string("."))]), to: index, name: "value")
        changes.append(SchemaChange(kind: .addColumn(table: name, column: "value", declared: declared, type: type)))
      }
    }

    private mutating func appendColumn(_ column: DocumentJSON, to table: Int, name: String) {
      update(at: [.member("tables"), .item(table), .member("columns")][...]) { columns in
        if case .array(var items) = columns {
          items.append(column)
          columns = .array(items)
        }
      }
      tables[table].columnNames.insert(name.lowercased())
    }

    private func uniqueColumnName(_ base: String, in table: Int) -> String {
      var taken = tables[table].columnNames
      var walk = tables[table].parent
      while let parentName = walk, let parent = tables.first(where: { $0.name == parentName }) {
        taken.formUnion(parent.key.map { $0.lowercased() })
        if let position = parent.position { taken.insert(position.lowercased()) }
        walk = parent.parent
      }
      var name = base
      var suffix = 2
      while taken.contains(name.lowercased()) {
        name = base + "_\(suffix)"
        suffix += 1
      }
      return name
    }

    /// A new field's declaration: its type from the values seen, optional and nullable (the
    /// records before it had none).
    private static func field(for node: Node, path: String) throws -> DocumentJSON {
      var members = [DocumentJSON.Member("name", .string(node.key))]
      members += try shape(of: node, path: path)
      members.insert(contentsOf: [.init("optional", .bool(true)), .init("nullable", .bool(true))], at: 2)
      return .object(members)
    }

    /// `type` and what goes with it (`scale`, `fields`, `items`) for the values seen at `node`.
    private static func shape(of node: Node, path: String) throws -> [DocumentJSON.Member] {
      let scalars = node.integers + node.fractions + node.exponents + node.strings + node.booleans
      if node.objects > 0 || node.arrays > 0 {
        guard scalars == 0, node.objects == 0 || node.arrays == 0 else {
          throw EvolutionRefusal(
            message:
              "new field '\(path)' holds values of different kinds (\(node.firstPlace.keys.sorted().joined(separator: ", "))): evolution cannot declare one type for it; declare it by hand"
          )
        }
        if node.objects > 0 {
          let fields = try node.children.filter { $0.seen > 0 || $0.nulls > 0 }.map { child in
            try field(for: child, path: path + "." + DatasetFile.escapedKey(child.key))
          }
          return [.init("type", .string("object")), .init("fields", .array(fields))]
        }
        guard let element = node.element else {
          return [.init("type", .string("array")), .init("items", .object([.init("type", .string("text"))]))]
        }
        var items = try shape(of: element, path: path + "[]")
        if element.nulls > 0 { items.insert(.init("nullable", .bool(true)), at: 1) }
        return [.init("type", .string("array")), .init("items", .object(items))]
      }
      let kinds = [node.integers + node.fractions + node.exponents, node.strings, node.booleans].filter { $0 > 0 }
      // CSV values are text: a column whose values disagree (`2`, ``, `n/a`) is text.
      if kinds.count > 1 && node.isText { return [.init("type", .string("text"))] }
      if kinds.count > 1 {
        throw EvolutionRefusal(
          message:
            "new field '\(path)' holds values of different kinds (\(node.firstPlace.keys.filter { $0 != "null" }.sorted().joined(separator: ", "))): evolution cannot declare one type the records decode as; declare it by hand"
        )
      }
      if node.exponents > 0 || node.maximumScale > 18 { return [.init("type", .string("number"))] }
      if node.fractions > 0 {
        return [.init("type", .string("decimal")), .init("scale", .integer(Int64(node.maximumScale)))]
      }
      if node.integers > 0 { return [.init("type", .string("integer"))] }
      if node.booleans > 0 { return [.init("type", .string("boolean"))] }
      return [.init("type", .string("text"))]
    }

    /// A new scalar field's column type, and the type as the change names it.
    private static func columnType(of node: Node) -> (declared: String, type: ColumnType) {
      if node.strings > 0 || node.seen == 0 { return ("TEXT", .text) }
      if node.booleans > 0 { return ("BOOLEAN", .boolean) }
      if node.exponents > 0 || node.maximumScale > 18 { return ("NUMBER", .real) }
      if node.fractions > 0 { return ("DECIMAL(\(node.maximumScale))", .integer) }
      return ("INTEGER", .integer)
    }

    /// `loyaltyTier` → `loyalty_tier`: lower case, words split at case changes and at anything
    /// but letters and digits.
    static func snakeCase(_ text: String) -> String {
      var out = ""
      var previous: Character?
      for character in text {
        if character.isLetter || character.isNumber {
          if character.isUppercase, let previous, previous.isLowercase || previous.isNumber, !out.hasSuffix("_") {
            out.append("_")
          }
          out += character.lowercased()
        } else if !out.isEmpty && !out.hasSuffix("_") {
          out.append("_")
        }
        previous = character
      }
      while out.hasSuffix("_") { out.removeLast() }
      if out.isEmpty { return "field" }
      if out.first?.isNumber == true { out = "f_" + out }
      return out
    }

    /// Applies `body` to the value at `place` in the document.
    private mutating func update(at place: ArraySlice<DocumentStep>, _ body: (inout DocumentJSON) -> Void) {
      Self.update(&document, at: place, body)
    }

    private static func update(
      _ value: inout DocumentJSON, at place: ArraySlice<DocumentStep>, _ body: (inout DocumentJSON) -> Void
    ) {
      guard let step = place.first else {
        body(&value)
        return
      }
      switch (step, value) {
      case (.member(let key), .object):
        var inner = value[key] ?? .null
        update(&inner, at: place.dropFirst(), body)
        value[key] = inner
      case (.item(let index), .array(var items)) where items.indices.contains(index):
        update(&items[index], at: place.dropFirst(), body)
        value = .array(items)
      default:
        return
      }
    }
  }
}
