@_spi(Internals) import SluiceCore

/// Writes a `RecordShape` and its field constraints as JSON Schema (draft 2020-12).
///
/// - a field asked for with `decode` is `required` and not null; with `decodeIfPresent` it may
///   be missing or null; a `Patch` field may be missing (unchanged) or null (cleared) unless its
///   column is `NOT NULL`, and says so in `x-sluice-patch`;
/// - variants are an object whose common fields are its `properties` and whose kinds are a
///   `oneOf`, each branch fixing the discriminator with `const` and listing its own fields;
/// - a constraint with a condition is an `if`/`then` on the object that holds the condition's
///   field;
/// - under the strict policy every object (each branch, for variants) lists its properties with
///   `additionalProperties: false`: Sluice reports the others as unknown fields.
struct JSONSchemaWriter {
  let shape: RecordShape
  let constraints: [(constraint: FieldConstraint, rule: String)]
  let policy: Policy
  let tables: [Table]
  var unexpressed: [DatasetContract.Unexpressed] = []
  private var applied: Set<Int> = []

  init(shape: RecordShape, constraints: [(constraint: FieldConstraint, rule: String)], policy: Policy, tables: [Table])
  {
    self.shape = shape
    self.constraints = constraints
    self.policy = policy
    self.tables = tables
  }

  var isStrict: Bool { policy.preset == .strict }

  /// The record's schema; `unexpressed` then lists what it could not state.
  mutating func document() -> ContractJSON {
    let root = schema(shape, path: "")
    for (index, item) in constraints.enumerated() where !applied.contains(index) {
      if case .unexpressed(let why) = item.constraint.requirement {
        note(item.constraint.path, item.rule, why)
      } else if item.constraint.requirement != .present || !shape.contains(path: item.constraint.path) {
        note(item.constraint.path, item.rule, "no field at this path in the DTO: not stated")
      }
    }
    for (path, table) in references() {
      note(
        path, "\(path) names a row of \(table) by its natural key",
        "the row must exist in the database, or come earlier in the run")
    }
    return root
  }

  private mutating func note(_ path: String, _ rule: String, _ why: String? = nil) {
    var entry = DatasetContract.Unexpressed(path: path, rule: rule)
    if let why, why != rule { entry.rule = "\(rule): \(why)" }
    if !unexpressed.contains(entry) { unexpressed.append(entry) }
  }

  // MARK: - Values

  private mutating func schema(_ shape: RecordShape, path: String) -> ContractJSON {
    var result = base(shape, path: path)
    for (index, item) in constraints.enumerated()
    where item.constraint.condition == nil && item.constraint.path == path {
      switch item.constraint.requirement {
      case .present, .unexpressed: continue
      default:
        Self.merge(
          Self.keywords(item.constraint.requirement, isArray: shape.isArray, isInteger: shape.isInteger), into: &result)
        applied.insert(index)
      }
    }
    return result
  }

  private mutating func base(_ shape: RecordShape, path: String) -> ContractJSON {
    switch shape {
    case .any: return .object([])
    case .string: return .object([("type", .string("string"))])
    case .integer(let minimum, let maximum):
      return .object([("type", .string("integer")), ("minimum", .integer(minimum)), ("maximum", .integer(maximum))])
    case .number: return .object([("type", .string("number"))])
    case .boolean: return .object([("type", .string("boolean"))])
    case .null: return .object([("type", .string("null"))])
    case .date: return date(path: path)
    case .enumeration(let values, let isInteger):
      return .object([
        ("type", .string(isInteger ? "integer" : "string")),
        ("enum", .array(values.map { isInteger ? .number($0) : .string($0) })),
      ])
    case .object(let object): return self.object(object, path: path)
    case .array(let element):
      return .object([("type", .string("array")), ("items", schema(element, path: path + "[]"))])
    case .alternatives(let shapes):
      let values = shapes.filter { $0 != .null }
      var result =
        values.count == 1
        ? base(values[0], path: path) : .object([("anyOf", .array(values.map { base($0, path: path) }))])
      if shapes.contains(.null) { result = Self.nullable(result) }
      return result
    case .refined(let inner):
      note(
        path, "\(path.isEmpty ? "the record" : path) is checked by the DTO's own init(from:)",
        "which values it accepts is not known")
      return base(inner, path: path)
    case .variants(let variants): return self.variants(variants, path: path)
    case .unwalkable(let why):
      note(path, "the DTO could not be walked", why)
      return .object([])
    }
  }

  private mutating func object(_ object: ObjectShape, path: String) -> ContractJSON {
    let (properties, required) = fields(object.fields, path: path)
    var result = ContractJSON.object([("type", .string("object")), ("properties", .object(properties))])
    if !required.isEmpty { result.set("required", .array(required.map { .string($0) })) }
    if let anyKey = object.anyKey {
      result.set("additionalProperties", schema(anyKey, path: path.isEmpty ? "*" : "\(path).*"))
    } else if isStrict {
      result.set("additionalProperties", .bool(false))
    }
    addConditions(at: path, to: &result)
    return result
  }

  private mutating func fields(_ fields: [FieldShapeRecord], path: String) -> (
    properties: [(key: String, value: ContractJSON)], required: [String]
  ) {
    var properties: [(key: String, value: ContractJSON)] = []
    var required: [String] = []
    for field in fields {
      let fieldPath = path.isEmpty ? field.key : "\(path).\(field.key)"
      var value = schema(field.shape, path: fieldPath)
      let mustBePresent = hasUnconditionalPresence(fieldPath)
      if field.isPatch {
        if patchColumnRefusesNull(fieldPath) {
          value.set(
            "x-sluice-patch", .string("missing: unchanged; a value: set (null cannot clear this NOT NULL column)"))
        } else {
          value = Self.nullable(value)
          value.set("x-sluice-patch", .string("missing: unchanged; null: cleared; a value: set"))
        }
      } else if field.allowsNull && !mustBePresent {
        value = Self.nullable(value)
      }
      if field.isRequired || mustBePresent { required.append(field.key) }
      properties.append((field.key, value))
    }
    return (properties, required)
  }

  private mutating func variants(_ variants: VariantShape, path: String) -> ContractJSON {
    let common = fields(variants.common.fields, path: path)
    var result = ContractJSON.object([
      ("type", .string("object")), ("x-sluice-discriminator", .string(variants.discriminator)),
      ("properties", .object(common.properties)),
    ])
    if !common.required.isEmpty { result.set("required", .array(common.required.map { .string($0) })) }
    var branches: [ContractJSON] = []
    for item in variants.cases {
      let own = fields(item.fields.fields, path: path)
      var properties: [(key: String, value: ContractJSON)] = [
        (variants.discriminator, .object([("const", .string(item.value))]))
      ]
      properties += own.properties
      properties += common.properties.filter { $0.key != variants.discriminator }.map { ($0.key, .bool(true)) }
      var branch = ContractJSON.object([("properties", .object(properties))])
      branch.set("required", .array(([variants.discriminator] + own.required).map { .string($0) }))
      if isStrict { branch.set("additionalProperties", .bool(false)) }
      branches.append(branch)
    }
    result.set("oneOf", .array(branches))
    addConditions(at: path, to: &result)
    return result
  }

  // MARK: - Constraints

  private func hasUnconditionalPresence(_ path: String) -> Bool {
    constraints.contains {
      $0.constraint.condition == nil && $0.constraint.path == path && $0.constraint.requirement == .present
    }
  }

  /// `if`/`then` for each constraint whose condition's field is a field of the object at `path`.
  private mutating func addConditions(at path: String, to result: inout ContractJSON) {
    var conditions: [ContractJSON] = []
    for (index, item) in constraints.enumerated() {
      guard let condition = item.constraint.condition, FieldPathSegments.split(condition.path).parent == path
      else { continue }
      if case .unexpressed = item.constraint.requirement { continue }
      let prefix = path.isEmpty ? "" : path + "."
      guard item.constraint.path.hasPrefix(prefix) else { continue }
      let relative = FieldPathSegments.segments(String(item.constraint.path.dropFirst(prefix.count)))
      guard shape.contains(path: item.constraint.path) else { continue }
      let key = FieldPathSegments.split(condition.path).key
      var then: ContractJSON
      if item.constraint.requirement == .present {
        guard case .key(let leaf)? = relative.last else { continue }
        then = .object([
          ("required", .array([.string(leaf)])),
          ("properties", .object([(leaf, .object([("not", .object([("type", .string("null"))]))]))])),
        ])
        then = Self.nest(then, in: relative.dropLast())
      } else {
        let isArray = shape.field(at: item.constraint.path)?.isArray ?? false
        then = Self.nest(.object(Self.keywords(item.constraint.requirement, isArray: isArray)), in: relative[...])
      }
      conditions.append(
        .object([
          (
            "if",
            .object([
              ("properties", .object([(key, .object([("const", .string(condition.value))]))])),
              ("required", .array([.string(key)])),
            ])
          ),
          ("then", then),
        ]))
      applied.insert(index)
    }
    guard !conditions.isEmpty else { return }
    if case .array(let existing)? = result["allOf"] {
      result.set("allOf", .array(existing + conditions))
    } else {
      result.set("allOf", .array(conditions))
    }
  }

  /// `schema` as it applies to the value at `segments` below an object.
  private static func nest(_ schema: ContractJSON, in segments: ArraySlice<FieldPathSegments.Segment>) -> ContractJSON {
    var result = schema
    for segment in segments.reversed() {
      switch segment {
      case .key(let key): result = .object([("properties", .object([(key, result)]))])
      case .element: result = .object([("items", result)])
      }
    }
    return result
  }

  static func keywords(
    _ requirement: FieldConstraint.Requirement, isArray: Bool, isInteger: Bool = false
  ) -> [(key: String, value: ContractJSON)] {
    switch requirement {
    case .notBlank: return [("pattern", .string("\\S"))]
    case .range(let minimum, let maximum):
      return (minimum.map { [("minimum", ContractJSON.number($0))] } ?? [])
        + (maximum.map { [("maximum", ContractJSON.number($0))] } ?? [])
    case .length(let minimum, let maximum):
      let names = isArray ? ("minItems", "maxItems") : ("minLength", "maxLength")
      return (minimum.map { [(names.0, ContractJSON.integer($0))] } ?? [])
        + (maximum.map { [(names.1, ContractJSON.integer($0))] } ?? [])
    case .pattern(let pattern): return [("pattern", .string(pattern))]
    case .oneOf(let values):
      // An integer field's values are numbers (a lookup enum's ids).
      if isInteger, values.allSatisfy({ Int64($0) != nil }) {
        return [("enum", .array(values.map { .number($0) }))]
      }
      return [("enum", .array(values.map { .string($0) }))]
    case .present, .unexpressed: return []
    }
  }

  /// Adds keywords to a schema: a bound tightens the one there; another keyword already there
  /// goes into `allOf`, so both hold.
  static func merge(_ keywords: [(key: String, value: ContractJSON)], into schema: inout ContractJSON) {
    for (key, value) in keywords {
      guard let existing = schema[key] else {
        schema.set(key, value)
        continue
      }
      if key == "minimum" || key == "maximum", case .number(let old) = existing, case .number(let new) = value,
        let oldValue = Double(old), let newValue = Double(new)
      {
        if key == "minimum" ? newValue > oldValue : newValue < oldValue { schema.set(key, value) }
        continue
      }
      var all: [ContractJSON] = []
      if case .array(let items)? = schema["allOf"] { all = items }
      schema.set("allOf", .array(all + [.object([(key, value)])]))
    }
  }

  /// The schema, or null.
  static func nullable(_ schema: ContractJSON) -> ContractJSON {
    guard case .object(let members) = schema, !members.isEmpty else { return schema }
    if schema["oneOf"] != nil || schema["type"] == nil {
      if case .array(let options)? = schema["anyOf"], members.count == 1 {
        return .object([("anyOf", .array(options + [.object([("type", .string("null"))])]))])
      }
      return .object([("anyOf", .array([schema, .object([("type", .string("null"))])]))])
    }
    var result = schema
    switch schema["type"] {
    case .string(let type)?: result.set("type", .array([.string(type), .string("null")]))
    case .array(let types)? where !types.contains(.string("null")):
      result.set("type", .array(types + [.string("null")]))
    default: break
    }
    if case .array(let values)? = schema["enum"], !values.contains(.null) {
      result.set("enum", .array(values + [.null]))
    }
    return result
  }

  // MARK: - Dates

  private mutating func date(path: String) -> ContractJSON {
    let formats = policy.dateFormats.map { format -> ContractJSON in
      switch format {
      case .iso8601:
        return .object([
          ("type", .string("string")), ("format", .string("date-time")),
          ("pattern", .string(DateFormatPattern.iso8601)),
        ])
      case .epochSeconds, .epochMilliseconds:
        return .object([
          (
            "anyOf",
            .array([
              .object([("type", .string("number"))]),
              .object([("type", .string("string")), ("pattern", .string("^-?[0-9]+$"))]),
            ])
          )
        ])
      case .pattern(let pattern):
        note(path, "\(path) is a real calendar date as \(pattern)", "the pattern states the layout, not the calendar")
        return .object([("type", .string("string")), ("pattern", .string(DateFormatPattern.expression(for: pattern)))])
      }
    }
    var result = formats.count == 1 ? formats[0] : .object([("anyOf", .array(formats))])
    result.set("x-sluice-date-format", .string(policy.dateFormats.map(\.specName).joined(separator: " | ")))
    return result
  }

  // MARK: - Tables

  /// The field path each table's rows come from: `""` for the record, `items[]` for its items.
  private func recordPath(of table: Table) -> String {
    guard let parent = table.parent else { return "" }
    let base = recordPath(of: parent.table)
    let field = parent.field.isEmpty ? base : base.isEmpty ? parent.field : "\(base).\(parent.field)"
    return parent.position == nil ? field : field + "[]"
  }

  private func fieldPath(of column: Column, in table: Table) -> String {
    let base = recordPath(of: table)
    return base.isEmpty ? column.field : column.field.isEmpty ? base : "\(base).\(column.field)"
  }

  /// The reference fields that name a row the record does not write itself, with the table.
  private func references() -> [(path: String, table: String)] {
    var result: [(path: String, table: String)] = []
    for table in tables {
      for column in table.columns {
        guard let reference = column.reference, reference.orphans == .reject else { continue }
        let path = fieldPath(of: column, in: table)
        guard !path.isEmpty, shape.contains(path: path) else { continue }
        let written = tables.contains { other in
          other === reference.table && other.columns.contains { fieldPath(of: $0, in: other) == path }
        }
        if !written && !result.contains(where: { $0.path == path }) { result.append((path, reference.table.name)) }
      }
    }
    return result
  }

  /// Whether a patch field's column, in a table of the record itself, is `NOT NULL`.
  private func patchColumnRefusesNull(_ path: String) -> Bool {
    tables.contains { table in
      recordPath(of: table).isEmpty && table.columns.contains { $0.field == path && !$0.isNullable }
    }
  }
}

extension RecordShape {
  var isInteger: Bool {
    if case .integer = self { return true }
    return false
  }

  var isArray: Bool {
    switch self {
    case .array: true
    case .alternatives(let shapes): shapes.contains(where: \.isArray)
    case .refined(let shape): shape.isArray
    default: false
    }
  }

  /// The shape of the value at a field path, looking into every variant.
  func field(at path: String) -> RecordShape? {
    field(at: FieldPathSegments.segments(path)[...])
  }

  private func field(at segments: ArraySlice<FieldPathSegments.Segment>) -> RecordShape? {
    guard let first = segments.first else { return self }
    switch (first, self) {
    case (.element, .array(let element)): return element.field(at: segments.dropFirst())
    case (.key(let key), .object(let object)): return object[key]?.shape.field(at: segments.dropFirst())
    case (.key(let key), .variants(let variants)):
      for object in [variants.common] + variants.cases.map(\.fields) {
        if let found = object[key]?.shape.field(at: segments.dropFirst()) { return found }
      }
      return nil
    case (_, .alternatives(let shapes)):
      for shape in shapes { if let found = shape.field(at: segments) { return found } }
      return nil
    case (_, .refined(let shape)): return shape.field(at: segments)
    default: return nil
    }
  }
}
