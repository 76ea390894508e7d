// How the changes schema evolution makes follow from a survey (`DatasetEvolution`): the declared
// fields checked against what the inputs hold (a rescale, or a refusal), then each new field
// placed — declared in the file's `fields`, given a column of the table whose rows its holder
// makes, or a child table of its own for an array.
extension DatasetEvolution {
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
