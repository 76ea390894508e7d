import Foundation

/// Checks a dataset file's document and builds its dataset: fields, lookups, rules, tables.
/// Every check names the JSON path of what it refuses, and runs before the engine's own
/// declarations (`Table`, `Schema`) could stop the process on a precondition.
struct DatasetFileBuilder {
  struct Mistake: Error {
    var path: String
    var message: String
  }

  typealias Document = DatasetFileDocument
  let document: Document

  /// The most columns a table may have, a child's inherited key and position included: the
  /// engine keeps a bit per column in a 64-bit mask (`Table.keyMask`), well under SQLite's 2000
  /// and PostgreSQL's 1600. More is refused before the columns are read one by one.
  static let maximumColumns = 64
  /// Another dataset's table by dataset (catalog name or file) and table name; nil when none.
  var resolve: (String, String) throws(SpecError) -> Table? = { _, _ in nil }
  /// The names the program's stores take (their drivers' limits and reserved prefixes).
  let nameRules: StoreNameRules

  private(set) var lookups: [String: LookupDeclaration] = [:]

  init(document: Document, nameRules: StoreNameRules) {
    self.document = document
    self.nameRules = nameRules
  }

  mutating func build() throws -> DeclaredDataset {
    guard !document.name.isEmpty else { throw Mistake(path: "name", message: "must not be empty") }
    if let evolution = document.evolution, EvolutionMode(rawValue: evolution) == nil {
      throw Mistake(path: "evolution", message: "'\(evolution)' is not one of: freeze, evolve, discard")
    }
    var names = DatasetFileNames.schema()
    for (index, lookup) in (document.lookups ?? []).enumerated() {
      let declaration = try Self.lookup(lookup, path: "lookups[\(index)]", nameRules: nameRules)
      try names.take(lookup.table, as: "lookup table", at: "lookups[\(index)].table")
      lookups[lookup.table] = declaration
    }
    guard !document.fields.isEmpty else { throw Mistake(path: "fields", message: "declare at least one field") }
    let fields = try self.fields(document.fields, path: "fields")
    var enums: [(path: DeclaredPath, values: [String], allowed: Set<String>)] = []
    Self.collectEnums(fields, steps: [], text: "", into: &enums)
    let rules = try (document.rules ?? []).enumerated().map { index, rule in
      try Self.rule(rule, fields: fields, path: "rules[\(index)]")
    }
    var tables = TablesBuilder(fields: fields, lookups: lookups, nameRules: nameRules, names: names, resolve: resolve)
    let (schema, plans) = try tables.build(document.tables)
    return DeclaredDataset(
      name: document.name, summary: document.summary ?? "\(document.name) (a dataset file)", schema: schema,
      fields: fields, declaredRules: rules, enums: enums, plans: plans)
  }

  // MARK: Fields

  private func fields(_ documents: [Document.FieldDocument], path: String) throws -> [DeclaredField] {
    var names = Set<String>()
    return try documents.enumerated().map { index, document in
      let place = "\(path)[\(index)]"
      // `""` is a key JSON allows, and a dump has (a column names it `field: ""`).
      guard let name = document.name else {
        throw Mistake(path: "\(place).name", message: "every field has a name")
      }
      guard names.insert(name).inserted else {
        throw Mistake(path: "\(place).name", message: "the field \(name) is declared twice")
      }
      return try field(document, name: name, path: place)
    }
  }

  private func field(_ document: Document.FieldDocument, name: String, path: String) throws -> DeclaredField {
    /// A key that belongs to another type.
    func refuse(_ key: String, _ value: Any?, unless allowed: Bool) throws {
      if value != nil && !allowed {
        throw Mistake(path: "\(path).\(key)", message: "only a field of type \(Self.owner[key] ?? "?") takes '\(key)'")
      }
    }
    let type = document.type
    try refuse("scale", document.scale, unless: type == "decimal")
    try refuse("formats", document.formats, unless: type == "timestamp")
    try refuse("values", document.values, unless: type == "enum")
    try refuse("lookup", document.lookup, unless: type == "enum")
    try refuse("fields", document.fields, unless: type == "object")
    try refuse("items", document.items, unless: type == "array")
    let kind: DeclaredField.Kind
    switch type {
    case "text": kind = .text
    case "json": kind = .json
    case "integer": kind = .integer
    case "number": kind = .number
    case "boolean": kind = .boolean
    case "decimal":
      guard let scale = document.scale, (0...18).contains(scale) else {
        throw Mistake(path: "\(path).scale", message: "a decimal needs its scale, a whole number from 0 to 18")
      }
      kind = .decimal(scale: scale)
    case "timestamp":
      guard let names = document.formats else {
        kind = .timestamp(nil)
        break
      }
      guard !names.isEmpty else { throw Mistake(path: "\(path).formats", message: "list at least one format") }
      var formats: [DateFormat] = []
      for (index, name) in names.enumerated() {
        do {
          formats.append(try DateFormat(specName: name))
        } catch {
          throw Mistake(path: "\(path).formats[\(index)]", message: "\(error)")
        }
      }
      kind = .timestamp(formats)
    case "enum":
      kind = .enumeration(try enumValues(document, path: path))
    case "object":
      guard let fields = document.fields, !fields.isEmpty else {
        throw Mistake(path: "\(path).fields", message: "an object needs its fields")
      }
      kind = .object(try self.fields(fields, path: "\(path).fields"))
    case "array":
      guard let items = document.items else {
        throw Mistake(path: "\(path).items", message: "an array needs its items: a field without a name")
      }
      guard items.name == nil else {
        throw Mistake(path: "\(path).items.name", message: "an array's items have no name of their own")
      }
      guard items.optional == nil else {
        throw Mistake(path: "\(path).items.optional", message: "an element cannot be missing; say 'nullable'")
      }
      kind = .array(try field(items, name: name, path: "\(path).items"))
    default:
      throw Mistake(
        path: "\(path).type",
        message:
          "unknown type '\(type)'; types: text, integer, number, decimal, boolean, timestamp, enum, json, object, array"
      )
    }
    return DeclaredField(
      name: name, kind: kind, isOptional: document.optional ?? false, isNullable: document.nullable ?? false)
  }

  private func enumValues(_ document: Document.FieldDocument, path: String) throws -> [String] {
    switch (document.values, document.lookup) {
    case (let values?, nil):
      guard !values.isEmpty, Set(values).count == values.count else {
        throw Mistake(path: "\(path).values", message: "list the enum's values, each once")
      }
      return values
    case (nil, let table?):
      guard let lookup = lookups[table] else {
        throw Mistake(
          path: "\(path).lookup", message: "no lookup table '\(table)' is declared under 'lookups'")
      }
      return lookup.cases.map(\.name)
    default:
      throw Mistake(path: path, message: "an enum takes its 'values' or a 'lookup', one of them")
    }
  }

  /// Which type takes each type-specific key, for messages.
  private static let owner = [
    "scale": "decimal", "formats": "timestamp", "values": "enum", "lookup": "enum", "fields": "object",
    "items": "array",
  ]

  private static func collectEnums(
    _ fields: [DeclaredField], steps: [DeclaredPath.Step], text: String,
    into enums: inout [(path: DeclaredPath, values: [String], allowed: Set<String>)]
  ) {
    for (index, field) in fields.enumerated() {
      let path = steps + [.field(index, name: field.name)]
      let written = text.isEmpty ? field.name : "\(text).\(field.name)"
      collect(field.kind, steps: path, text: written)
    }
    func collect(_ kind: DeclaredField.Kind, steps: [DeclaredPath.Step], text: String) {
      switch kind {
      case .enumeration(let values):
        enums.append((DeclaredPath(steps: steps, text: text), values, Set(values)))
      case .object(let fields):
        collectEnums(fields, steps: steps, text: text, into: &enums)
      case .array(let element):
        collect(element.kind, steps: steps + [.elements], text: text + "[]")
      default:
        break
      }
    }
  }

  // MARK: Lookups

  private static func lookup(_ document: Document.LookupDocument, path: String, nameRules: StoreNameRules) throws
    -> LookupDeclaration
  {
    try checkName(document.table, path: "\(path).table", rules: nameRules)
    let extra = document.columns ?? []
    guard extra.count + 3 <= maximumColumns else {
      throw Mistake(
        path: "\(path).columns",
        message: "a table has at most \(maximumColumns) columns, a lookup's id, name and retired included")
    }
    var columnNames = DatasetFileNames.columns()
    for own in ["id", "name", "retired"] { try columnNames.take(own, as: "lookup's own column", at: nil) }
    var columns: [Column] = []
    for (index, column) in extra.enumerated() {
      let place = "\(path).columns[\(index)]"
      try DatasetFileNames.checkColumnName(column.name, path: "\(place).name", rules: nameRules)
      try columnNames.take(column.name, as: "column", at: "\(place).name")
      guard let type = ColumnType(rawValue: column.type), [.text, .integer, .real, .boolean].contains(type) else {
        throw Mistake(path: "\(place).type", message: "a lookup column is text, integer, real or boolean")
      }
      columns.append(Column(column.name, type, nullable: column.nullable ?? false))
    }
    guard !document.values.isEmpty else { throw Mistake(path: "\(path).values", message: "list at least one value") }
    let declared = Set(columns.map(\.name))
    var ids = Set<Int64>()
    var names = Set<String>()
    var cases: [LookupDeclaration.Case] = []
    for (index, value) in document.values.enumerated() {
      let place = "\(path).values[\(index)]"
      guard ids.insert(value.id).inserted else {
        throw Mistake(path: "\(place).id", message: "the id \(value.id) is given twice; ids are permanent and unique")
      }
      guard names.insert(value.name).inserted else {
        throw Mistake(path: "\(place).name", message: "the value \(value.name) is given twice")
      }
      let given = value.columns ?? [:]
      if let unknown = given.keys.sorted().first(where: { key in !declared.contains(key) }) {
        throw Mistake(path: "\(place).columns.\(unknown)", message: "no such column in the lookup's 'columns'")
      }
      let values = try columns.map { column throws -> DatabaseValue? in
        let value = try lookupValue(given[column.name], type: column.type, path: "\(place).columns.\(column.name)")
        guard value != nil || column.isNullable else {
          throw Mistake(
            path: "\(place).columns.\(column.name)", message: "give it a value (the column is not nullable)")
        }
        return value
      }
      cases.append(LookupDeclaration.Case(id: value.id, name: value.name, values: values))
    }
    return LookupDeclaration(table: document.table, extraColumns: columns, cases: cases)
  }

  private static func lookupValue(_ value: Document.ScalarDocument?, type: ColumnType, path: String) throws
    -> DatabaseValue?
  {
    switch (value, type) {
    case (nil, _), (.null, _): return nil
    case (.boolean(let flag), .boolean): return .integer(flag ? 1 : 0)
    case (.integer(let number), .integer): return .integer(number)
    case (.integer(let number), .real): return .real(Double(number))
    case (.real(let number), .real): return .real(number)
    case (.text(let text), .text): return .text(text)
    default: throw Mistake(path: path, message: "not a value of the column's type (\(type.rawValue))")
    }
  }

  // MARK: Rules

  private static func rule(_ document: Document.RuleDocument, fields: [DeclaredField], path: String) throws
    -> DeclaredRule
  {
    let (target, steps) = try resolvePath(document.field, in: fields, path: "\(path).field")
    let declared = DeclaredPath(steps: steps, text: document.field)
    func requires(_ kinds: String, _ accepted: Bool) throws {
      guard accepted else {
        throw Mistake(
          path: "\(path).check", message: "'\(document.check)' checks \(kinds); \(document.field) is not one")
      }
    }
    func unused(_ keys: [(String, Any?)]) throws {
      for (key, value) in keys where value != nil {
        throw Mistake(path: "\(path).\(key)", message: "'\(document.check)' takes no '\(key)'")
      }
    }
    let check: DeclaredRule.Check
    var constraint: FieldConstraint.Requirement
    switch document.check {
    case "notBlank":
      try requires("text", target.isText)
      try unused([
        ("min", document.min), ("max", document.max), ("pattern", document.pattern), ("values", document.values),
      ])
      (check, constraint) = (.notBlank, .notBlank)
    case "present":
      try unused([
        ("min", document.min), ("max", document.max), ("pattern", document.pattern), ("values", document.values),
      ])
      (check, constraint) = (.present, .present)
    case "range":
      var scale = 0
      switch target.kind {
      case .integer, .number: break
      case .decimal(let digits): scale = digits
      default: try requires("numbers", false)
      }
      guard document.min != nil || document.max != nil else {
        throw Mistake(path: path, message: "a range needs 'min', 'max' or both")
      }
      try unused([("pattern", document.pattern), ("values", document.values)])
      try ordered(document.min, document.max, path: path)
      check = .range(minimum: document.min, maximum: document.max, scale: scale)
      constraint = .range(minimum: document.min, maximum: document.max)
    case "length":
      var isArray = false
      if case .array = target.kind { isArray = true }
      try requires("text or arrays", target.isText || isArray)
      try unused([("pattern", document.pattern), ("values", document.values)])
      let bounds = try [("min", document.min), ("max", document.max)].map { key, value throws -> Int? in
        guard let value else { return nil }
        guard value >= 0, value == value.rounded(), value < 1e9 else {
          throw Mistake(path: "\(path).\(key)", message: "a length is a whole number, 0 or more")
        }
        return Int(value)
      }
      guard bounds[0] != nil || bounds[1] != nil else {
        throw Mistake(path: path, message: "a length needs 'min', 'max' or both")
      }
      try ordered(document.min, document.max, path: path)
      check = .length(minimum: bounds[0], maximum: bounds[1])
      constraint = .length(minimum: bounds[0], maximum: bounds[1])
    case "pattern":
      try requires("text", target.isText)
      guard let source = document.pattern else { throw Mistake(path: path, message: "a pattern check needs 'pattern'") }
      try unused([("min", document.min), ("max", document.max), ("values", document.values)])
      do {
        check = .pattern(try DeclaredPattern(source))
      } catch {
        throw Mistake(
          path: "\(path).pattern", message: "not a regular expression in RE2's syntax, which Sluice reads (\(error))")
      }
      constraint = .pattern(source)
    case "oneOf":
      try requires("text", target.isText)
      guard let values = document.values, !values.isEmpty else {
        throw Mistake(path: path, message: "a oneOf check needs its 'values'")
      }
      try unused([("min", document.min), ("max", document.max), ("pattern", document.pattern)])
      (check, constraint) = (.oneOf(Set(values)), .oneOf(values))
    case "unique":
      guard steps.contains(where: { if case .elements = $0 { true } else { false } }) else {
        throw Mistake(
          path: "\(path).field", message: "'unique' is within an array: name a field of its elements (recipes[].title)")
      }
      try requires("scalars", target.columnType != nil)
      try unused([
        ("min", document.min), ("max", document.max), ("pattern", document.pattern), ("values", document.values),
      ])
      check = .unique
      // Worded as the Swift datasets word it, so a contract reads the same either way.
      let objects = steps.last.map { if case .elements = $0 { false } else { true } } ?? false
      constraint = .unexpressed(
        objects ? "a uniqueness of one field across an array's objects" : "a uniqueness of an array's elements")
    default:
      throw Mistake(
        path: "\(path).check",
        message: "unknown check '\(document.check)'; checks: notBlank, present, range, length, pattern, oneOf, unique")
    }
    let code = document.code.map(IssueCode.init(rawValue:)) ?? .invalidValue
    let rule = ValidationRule(
      document.name, code: code, message: document.message,
      constraints: [FieldConstraint(constraint, at: document.field)])
    return DeclaredRule(rule: rule, path: declared, check: check)
  }

  /// Refuses bounds no value is within: a rule that would reject every record.
  private static func ordered(_ minimum: Double?, _ maximum: Double?, path: String) throws {
    guard let minimum, let maximum, minimum > maximum else { return }
    throw Mistake(
      path: "\(path).min", message: "min \(number(minimum)) is above max \(number(maximum)): no value is within them")
  }

  /// A bound as the file gave it: `5`, not `5.0`.
  static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
  }

  /// A rule's field path (`items[].qty`) against the fields: the field it ends at, and the steps.
  static func resolvePath(_ text: String, in fields: [DeclaredField], path: String) throws
    -> (DeclaredField, [DeclaredPath.Step])
  {
    var steps: [DeclaredPath.Step] = []
    var current = fields
    var reached: DeclaredField?
    guard let segments = DeclaredPath.segments(text) else {
      throw Mistake(path: path, message: "'\(text)' is not a field path (a '\\' escapes the character after it)")
    }
    for segment in segments {
      let name = segment.name
      let arrays = segment.arrays
      guard reached.map({ $0.fields.isEmpty == false }) ?? true,
        let index = current.firstIndex(where: { $0.name == name })
      else {
        let known = current.map(\.name).joined(separator: ", ")
        throw Mistake(
          path: path, message: "no field '\(name)' is declared there\(known.isEmpty ? "" : "; fields: \(known)")")
      }
      var field = current[index]
      steps.append(.field(index, name: field.name))
      for _ in 0..<arrays {
        guard case .array(let element) = field.kind else {
          throw Mistake(path: path, message: "'\(field.name)' is not an array, so '[]' cannot follow it")
        }
        steps.append(.elements)
        field = element
      }
      reached = field
      current = field.fields
    }
    guard let reached else { throw Mistake(path: path, message: "name a field") }
    return (reached, steps)
  }

  /// Checks that `name` is a plain SQL name every store of the program takes as it is: no longer
  /// than the shortest limit a driver declares (`StoreDriver.identifierLimit`), starting with no
  /// prefix a store keeps for itself (`sluice_`, and each driver's `reservedNamePrefixes`).
  static func checkName(_ name: String, path: String, rules: StoreNameRules) throws {
    let valid =
      name.utf8.first.map { Self.isLetter($0) || $0 == UInt8(ascii: "_") } ?? false
      && name.utf8.allSatisfy { Self.isLetter($0) || $0 == UInt8(ascii: "_") || ($0 >= 48 && $0 <= 57) }
    guard valid else {
      throw Mistake(
        path: path, message: "'\(name)' is not a plain SQL name: letters, digits and _, starting with a letter or _")
    }
    if let problem = rules.problem(with: name) { throw Mistake(path: path, message: problem) }
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
  }
}

extension DeclaredField {
  var isText: Bool {
    switch kind {
    case .text, .enumeration: true
    default: false
    }
  }
}
