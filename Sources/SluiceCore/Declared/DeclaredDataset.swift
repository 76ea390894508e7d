import Foundation

/// A dataset declared in a JSON file (`DatasetFile`) rather than in Swift: the stock `sluice`
/// binary loads it, with every stage, policy, report and store a Swift dataset has.
///
/// Its DTO and its domain record are both `DeclaredRecord`, decoded by the fields' declarations;
/// the rules are data (`DeclaredRule`), the map stage checks enum values, and the rows follow the
/// tables' column fields (`TablePlan`), parents before children, at any depth.
struct DeclaredDataset: Dataset {
  let name: String
  let summary: String
  /// A `var`: schema evolution adds its changes (`Schema.evolution`) to the file's schema.
  var schema: Schema
  let fields: [DeclaredField]
  let declaredRules: [DeclaredRule]
  /// The enum fields, with the values each may take.
  let enums: [(path: DeclaredPath, values: [String], allowed: Set<String>)]
  /// The top-level tables written from each record, in schema order, each with its children.
  let plans: [TablePlan]
  /// `"evolution": "discard"`: the record's undeclared fields are dropped and counted, not each
  /// a warning (`RecordProducer`).
  var discardsNewFields = false

  var rules: [ValidationRule] { declaredRules.map(\.rule) }

  var recordConstraints: [FieldConstraint] {
    enums.map { .oneOf($0.values, at: $0.path.text) }
  }

  var decodingUserInfo: [CodingUserInfoKey: any Sendable] {
    [DeclaredDecoding.key: DeclaredDecoding(fields: fields)]
  }

  func validate(_ record: DeclaredRecord, into validation: inout Validation) {
    for rule in declaredRules { rule.check(record.values, into: &validation) }
  }

  func map(_ record: DeclaredRecord, context: inout MappingContext) throws(MappingError) -> DeclaredRecord {
    for field in enums {
      var failure: MappingError?
      field.path.forEach(in: record.values) { value, indices in
        guard failure == nil, case .text(let text) = value, !field.allowed.contains(text) else { return }
        // The value is the record's own text (a dataset file's enum is data, not a Swift enum's
        // case names): it stays out of every report, as any record value does.
        failure = MappingError(
          code: .unsupportedEnumValue, path: field.path.render(indices: indices),
          message: "not one of the values the dataset declares (\(field.values.joined(separator: ", ")))")
      }
      if let failure { throw failure }
    }
    var record = record
    record.position = context.position
    record.inputName = context.inputName
    return record
  }

  func rows(for record: DeclaredRecord, into rows: inout RecordRows) {
    let base = DeclaredValue.object(record.values)
    for plan in plans { plan.add(base, place: (record.inputName, record.position), into: &rows) }
  }
}

/// How one table's rows come out of a record: its columns' fields relative to the table's base
/// (the record for a top-level table, the element for a child), and its child tables.
final class TablePlan: Sendable {
  struct ColumnPlan: Sendable {
    /// Object fields from the base; empty for the base itself (an array of scalars).
    let steps: [Int]
    /// For a lookup column: the enum value's id.
    let lookup: [String: Int64]?
    /// The record's position rather than a field (`"$position"`): a top-level table's key for
    /// records without an id of their own.
    var isRecordPosition = false
    /// The record's input's name rather than a field (`"$input"`): beside `$position` in a key,
    /// it keeps one input's records from replacing another's.
    var isRecordInput = false
  }

  struct Child: Sendable {
    let plan: TablePlan
    /// From this table's base to the array (or, for an extension, the object) of the child's rows.
    let steps: [Int]
    let isExtension: Bool
  }

  let table: Table
  let columns: [ColumnPlan]
  /// A top-level table that gets no row from a record whose key is null.
  let isOptional: Bool
  let keyColumns: [Int]
  let children: [Child]

  init(table: Table, columns: [ColumnPlan], isOptional: Bool, children: [Child]) {
    self.table = table
    self.columns = columns
    self.isOptional = isOptional
    self.keyColumns = table.columns.indices.filter { table.key.contains(table.columns[$0].name) }
    self.children = children
  }

  func add(_ base: DeclaredValue, place: (input: String, position: Int), into rows: inout RecordRows) {
    // The base's fields once, not per column: most columns are one step into them.
    let fields: [DeclaredValue]
    if case .object(let values) = base { fields = values } else { fields = [] }
    func value(_ column: ColumnPlan) -> DatabaseValue? {
      if column.isRecordPosition { return .integer(Int64(place.position)) }
      if column.isRecordInput { return .text(place.input) }
      let steps = column.steps
      let value: DeclaredValue
      switch steps.count {
      case 0: value = base
      case 1: value = fields.isEmpty ? .absent : fields[steps[0]]
      default: value = fields.isEmpty ? .absent : DeclaredPath.value(at: steps.dropFirst(), in: fields[steps[0]])
      }
      guard let lookup = column.lookup else { return value.databaseValue }
      // The map stage let only declared values through.
      guard case .text(let text) = value else { return nil }
      return lookup[text].map { .integer($0) }
    }
    if isOptional && keyColumns.allSatisfy({ value(columns[$0]) == nil }) { return }
    rows.add(table, count: columns.count) { value(columns[$0]) }
    for child in children {
      let target = DeclaredPath.value(at: child.steps, in: base)
      if child.isExtension {
        if case .object = target { child.plan.add(target, place: place, into: &rows) }
      } else if case .array(let elements) = target {
        // A null element (an array declared with nullable items) is no row: the children are
        // numbered among those that are there, as a Swift dataset that drops nils numbers them.
        for element in elements where !element.isMissing {
          child.plan.add(element, place: place, into: &rows)
        }
      }
    }
  }

}
