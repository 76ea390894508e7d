extension TablesBuilder {
  /// A table's own columns: each one's field resolved against the table's base, its type and
  /// nullability from the field (or checked against it), its lookup, reference and checks.
  mutating func columns(
    _ documents: [DatasetFileDocument.ColumnDocument], base: Base, names: DatasetFileNames, path: String,
    topLevel: Bool = false, mayBeEmpty: Bool = false
  ) throws
    -> ([Column], [TablePlan.ColumnPlan])
  {
    guard !documents.isEmpty || mayBeEmpty else {
      throw Mistake(path: "\(path).columns", message: "declare the table's columns")
    }
    var names = names
    var columns: [Column] = []
    var plans: [TablePlan.ColumnPlan] = []
    for (index, document) in documents.enumerated() {
      let place = "\(path).columns[\(index)]"
      try DatasetFileNames.checkColumnName(document.name, path: "\(place).name", rules: nameRules)
      try names.take(document.name, as: "column", at: "\(place).name")
      let fieldText = document.field ?? document.name
      let field: DeclaredField
      let steps: [Int]
      var nullable: Bool
      if fieldText == "$position" {
        guard topLevel else {
          throw Mistake(
            path: "\(place).field", message: "'$position' is a top-level table's column: the record's place")
        }
        try refuse(document, ["references", "orphans", "onDelete"], path: place, reason: "the record's position")
        guard document.lookup == nil else {
          throw Mistake(path: "\(place).lookup", message: "the record's position takes no 'lookup'")
        }
        try checkType(document.type, is: .integer, path: place)
        columns.append(
          Column(document.name, .integer, field: "", checks: try Self.checks(document.checks, path: "\(place).checks")))
        plans.append(TablePlan.ColumnPlan(steps: [], lookup: nil, isRecordPosition: true))
        continue
      }
      if fieldText == "$input" {
        guard topLevel else {
          throw Mistake(path: "\(place).field", message: "'$input' is a top-level table's column: the record's input")
        }
        try refuse(document, ["references", "orphans", "onDelete"], path: place, reason: "the record's input")
        guard document.lookup == nil else {
          throw Mistake(path: "\(place).lookup", message: "the record's input takes no 'lookup'")
        }
        try checkType(document.type, is: .text, path: place)
        columns.append(
          Column(document.name, .text, field: "", checks: try Self.checks(document.checks, path: "\(place).checks")))
        plans.append(TablePlan.ColumnPlan(steps: [], lookup: nil, isRecordInput: true))
        continue
      }
      if case .array = base {
        throw Mistake(
          path: "\(place).field",
          message: "an array of arrays' elements are arrays: a child table (field '.') holds them")
      }
      if fieldText == "." {
        guard case .scalar(let element) = base else {
          throw Mistake(path: "\(place).field", message: "'.' is an element itself, for a table of an array of scalars")
        }
        (field, steps, nullable) = (element, [], element.isNullable)
      } else {
        (field, steps) = try Self.objectPath(fieldText, in: base, path: "\(place).field")
        nullable = Self.isNullable(steps, in: base.fields)
      }
      guard let inferred = field.columnType else {
        throw Mistake(
          path: "\(place).field",
          message:
            "'\(fieldText)' is \(field.fields.isEmpty ? "an array: a child table" : "an object: its fields") hold its values"
        )
      }
      nullable = document.nullable ?? nullable
      var lookupIDs: [String: Int64]?
      let column: Column
      if let lookupName = document.lookup {
        guard case .enumeration(let values) = field.kind else {
          throw Mistake(path: "\(place).lookup", message: "a lookup column holds an enum field")
        }
        guard let lookup = lookups[lookupName] else {
          throw Mistake(path: "\(place).lookup", message: "no lookup table '\(lookupName)' is declared under 'lookups'")
        }
        let names = Set(lookup.cases.map(\.name))
        if let missing = values.first(where: { !names.contains($0) }) {
          throw Mistake(path: "\(place).lookup", message: "the enum value '\(missing)' has no row in \(lookupName)")
        }
        try refuse(document, ["references", "checks"], path: place, reason: "a lookup column")
        try checkType(document.type, is: .integer, path: place)
        lookupIDs = Dictionary(uniqueKeysWithValues: lookup.cases.map { ($0.name, $0.id) })
        column = .lookup(document.name, lookup, field: fieldText, nullable: nullable)
      } else if let reference = document.references {
        let target = try referenced(reference, path: "\(place).references")
        guard let keyColumn = target.singleKeyColumn, target.key.count == 1 else {
          throw Mistake(path: "\(place).references", message: "\(target.name) has no single-column natural key")
        }
        let keyType = target.columns[keyColumn].type
        guard keyType == inferred else {
          throw Mistake(
            path: "\(place).field",
            message: "'\(fieldText)' is \(inferred.rawValue), the key of \(target.name) is \(keyType.rawValue)")
        }
        try checkType(document.type, is: keyType, path: place)
        try refuse(document, ["checks"], path: place, reason: "a reference")
        let orphans = try choice(document.orphans, default: OrphanPolicy.reject, path: "\(place).orphans")
        let onDelete = try choice(document.onDelete, default: DeleteRule.restrict, path: "\(place).onDelete")
        column = .reference(
          document.name, to: target, field: fieldText, nullable: nullable, orphans: orphans, onDelete: onDelete)
      } else {
        try refuse(document, ["orphans", "onDelete"], path: place, reason: "a column without 'references'")
        try checkType(document.type, is: inferred, path: place)
        let checks = try Self.checks(document.checks, path: "\(place).checks")
        column = Column(document.name, inferred, field: fieldText, nullable: nullable, checks: checks)
      }
      columns.append(column)
      plans.append(TablePlan.ColumnPlan(steps: steps, lookup: lookupIDs))
    }
    return (columns, plans)
  }

  /// Whether any field along the steps may be missing or null.
  private static func isNullable(_ steps: [Int], in fields: [DeclaredField]) -> Bool {
    var current = fields
    for index in steps {
      let field = current[index]
      if field.isOptional || field.isNullable { return true }
      current = field.fields
    }
    return false
  }

  private mutating func referenced(_ reference: DatasetFileDocument.ReferenceDocument, path: String) throws -> Table {
    guard let dataset = reference.dataset else {
      guard let table = declaredTable(reference.table) else {
        throw Mistake(path: path, message: "no table '\(reference.table)' is declared before this one")
      }
      guard table.parent == nil else {
        throw Mistake(path: path, message: "\(table.name) is a child table; a reference names a top-level table")
      }
      return table
    }
    guard let table = try resolve(dataset, reference.table) else {
      throw Mistake(path: path, message: "no table '\(reference.table)' in the dataset '\(dataset)'")
    }
    guard table.parent == nil else {
      throw Mistake(path: path, message: "\(table.name) is a child table; a reference names a top-level table")
    }
    addForeign(table)
    return table
  }

  private func checkType(_ text: String?, is type: ColumnType, path: String) throws {
    guard let text else { return }
    guard let given = ColumnType(rawValue: text) else {
      throw Mistake(
        path: "\(path).type", message: "unknown column type '\(text)'; types: text, integer, real, boolean, timestamp")
    }
    guard given == type else {
      throw Mistake(path: "\(path).type", message: "the field makes a \(type.rawValue) column, not \(given.rawValue)")
    }
  }

  private func refuse(
    _ document: DatasetFileDocument.ColumnDocument, _ keys: [String], path: String, reason: String
  ) throws {
    let given: [String: Bool] = [
      "references": document.references != nil, "checks": document.checks != nil, "orphans": document.orphans != nil,
      "onDelete": document.onDelete != nil,
    ]
    for key in keys where given[key] == true {
      throw Mistake(path: "\(path).\(key)", message: "\(reason) takes no '\(key)'")
    }
  }

  private func choice<T: RawRepresentable & CaseIterable>(_ text: String?, default value: T, path: String) throws -> T
  where T.RawValue == String {
    guard let text else { return value }
    guard let parsed = T(rawValue: text) else {
      throw Mistake(
        path: path, message: "'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return parsed
  }

  /// A column's checks, refusing those no value can pass: a negative length, an empty `oneOf`,
  /// `atLeast` above `atMost`, a length of 0 that must not be empty. The store would otherwise
  /// reject every row, each as a constraint failure.
  private static func checks(_ documents: [DatasetFileDocument.CheckDocument]?, path: String) throws -> [Check] {
    var checks: [Check] = []
    var least: Int64?
    var most: Int64?
    var length: Int?
    var notEmpty = false
    for (number, document) in (documents ?? []).enumerated() {
      let place = "\(path)[\(number)]"
      let check = try Self.check(document, path: place)
      switch check {
      case .atLeast(let value): least = max(least ?? value, value)
      case .atMost(let value): most = min(most ?? value, value)
      case .length(let value):
        guard value >= 0 else { throw Mistake(path: place, message: "a length is 0 or more, not \(value)") }
        length = value
      case .notEmpty: notEmpty = true
      case .oneOf(let values):
        guard !values.isEmpty else { throw Mistake(path: place, message: "a oneOf check lists at least one value") }
      }
      if let least, let most, least > most {
        throw Mistake(path: place, message: "no value is at least \(least) and at most \(most)")
      }
      if length == 0 && notEmpty {
        throw Mistake(path: place, message: "no value has a length of 0 and is not empty")
      }
      checks.append(check)
    }
    return checks
  }

  private static func check(_ document: DatasetFileDocument.CheckDocument, path: String) throws -> Check {
    var checks: [Check] = []
    if let value = document.atLeast { checks.append(.atLeast(value)) }
    if let value = document.atMost { checks.append(.atMost(value)) }
    if let value = document.length { checks.append(.length(value)) }
    if document.notEmpty == true { checks.append(.notEmpty) }
    if let values = document.oneOf { checks.append(.oneOf(values)) }
    guard checks.count == 1, let check = checks.first else {
      throw Mistake(path: path, message: "a check is one of atLeast, atMost, length, notEmpty: true, oneOf")
    }
    return check
  }
}
