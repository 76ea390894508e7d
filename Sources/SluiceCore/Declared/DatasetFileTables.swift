/// The tables of a dataset file: each checked against the fields and the tables before it, then
/// declared as the engine's `Table`s, with the plan that makes their rows (`TablePlan`).
struct TablesBuilder {
  typealias Mistake = DatasetFileBuilder.Mistake
  typealias Document = DatasetFileDocument.TableDocument

  /// What a table's columns are read from: the fields of an object, or an array's scalar
  /// elements themselves (a column `"field": "."`); the elements of an array of arrays hold no
  /// column, only the inner array, a child table's `"field": "."`.
  enum Base {
    case object([DeclaredField])
    case scalar(DeclaredField)
    case array(DeclaredField)

    var fields: [DeclaredField] {
      if case .object(let fields) = self { fields } else { [] }
    }
  }

  private struct Declared {
    var table: Table
    var base: Base
    var columns: [TablePlan.ColumnPlan]
    var isOptional: Bool
    /// For a child: the steps from its parent's base, and whether it is an extension.
    var link: (parent: String, steps: [Int], isExtension: Bool)?
  }

  let fields: [DeclaredField]
  let lookups: [String: LookupDeclaration]
  /// The names the program's stores take (`DatasetFileBuilder.checkName`).
  let nameRules: StoreNameRules
  let resolve: (String, String) throws(SpecError) -> Table?
  private var declared: [(name: String, value: Declared)] = []
  /// Where each table is in `declared`, by name: a file of many tables is read in linear time.
  private var positions: [String: Int] = [:]
  /// The lookup tables', tables' and indexes' names taken so far.
  private var names: DatasetFileNames
  /// Other datasets' tables the columns reference, in first-reference order (with theirs first).
  private var foreign: [Table] = []

  func declaredTable(_ name: String) -> Table? { positions[name].map { declared[$0].value.table } }

  /// Lists another dataset's table, after the tables it references in turn: a schema lists a
  /// referenced table before the tables that name it.
  mutating func addForeign(_ table: Table) {
    guard !foreign.contains(where: { $0 === table }) else { return }
    for column in table.columns { if let target = column.reference?.table { addForeign(target) } }
    foreign.append(table)
  }

  init(
    fields: [DeclaredField], lookups: [String: LookupDeclaration], nameRules: StoreNameRules,
    names: DatasetFileNames = .schema(), resolve: @escaping (String, String) throws(SpecError) -> Table?
  ) {
    self.fields = fields
    self.lookups = lookups
    self.nameRules = nameRules
    self.names = names
    self.resolve = resolve
  }

  mutating func build(_ documents: [Document]) throws -> (Schema, [TablePlan]) {
    guard !documents.isEmpty else { throw Mistake(path: "tables", message: "declare at least one table") }
    for (index, document) in documents.enumerated() {
      let place = "tables[\(index)]"
      try DatasetFileBuilder.checkName(document.name, path: "\(place).name", rules: nameRules)
      try names.take(document.name, as: "table", at: "\(place).name")
      let table = try table(document, path: place)
      for (number, index) in table.table.indexes.enumerated() {
        try names.take(index.name, as: "index", at: "\(place).indexes[\(number)].name")
      }
      positions[document.name] = declared.count
      declared.append((document.name, table))
    }
    guard declared.contains(where: { $0.value.link == nil }) else {
      throw Mistake(path: "tables", message: "declare at least one top-level table (one without 'parent')")
    }
    // Another dataset's tables and indexes are created in the same database as this file's.
    for table in foreign {
      let theirs = [(table.name, "table")] + table.indexes.map { ($0.name, "index") }
      for (name, what) in theirs {
        guard let ours = names.entry(for: name) else { continue }
        let other = DatasetFileNames.Entry(
          name: name, what: what, path: nil, origin: "of another dataset this file references")
        throw Mistake(path: ours.path ?? "tables", message: names.clash(ours, other))
      }
    }
    var children: [String: [Int]] = [:]
    for (index, entry) in declared.enumerated() {
      if let parent = entry.value.link?.parent { children[parent, default: []].append(index) }
    }
    func plan(_ index: Int) -> TablePlan {
      let entry = declared[index]
      let childPlans = (children[entry.name] ?? []).map { child in
        TablePlan.Child(
          plan: plan(child), steps: declared[child].value.link?.steps ?? [],
          isExtension: declared[child].value.link?.isExtension ?? false)
      }
      return TablePlan(
        table: entry.value.table, columns: entry.value.columns, isOptional: entry.value.isOptional,
        children: childPlans)
    }
    let plans = declared.indices.filter { declared[$0].value.link == nil }.map { plan($0) }
    return (Schema(foreign + declared.map(\.value.table)), plans)
  }

  private mutating func table(_ document: Document, path: String) throws -> Declared {
    func refuse(_ key: String, _ value: Any?, _ message: String) throws {
      if value != nil { throw Mistake(path: "\(path).\(key)", message: message) }
    }
    guard let parentName = document.parent else {
      try refuse("field", document.field, "only a child table takes 'field'")
      try refuse("position", document.position, "only a child table takes 'position'")
      try refuse("firstPosition", document.firstPosition, "only a child table takes 'firstPosition'")
      return try topLevel(document, path: path)
    }
    try refuse("key", document.key, "a child table's key is its parent's and its position")
    try refuse("onConflict", document.onConflict, "a child table's rows follow their parent's")
    try refuse("history", document.history, "a child table's versions follow its parent's")
    try refuse("optional", document.optional, "a child table has rows where its parent's field has elements")
    guard let parent = positions[parentName].map({ declared[$0].value }) else {
      throw Mistake(path: "\(path).parent", message: "no table '\(parentName)' is declared before this one")
    }
    let steps: [Int]
    let base: Base
    let isExtension = document.position == nil
    var columnNames = DatasetFileNames.columns()
    for key in parent.table.key {
      try columnNames.take(key, as: "inherited key column", at: nil)
    }
    if let position = document.position {
      try refuse(
        "firstPosition", document.firstPosition.flatMap { $0 < 0 ? $0 : nil }, "a position starts at 0 or more")
      try DatasetFileNames.checkColumnName(position, path: "\(path).position", rules: nameRules)
      try columnNames.take(position, as: "position column", at: "\(path).position")
      guard let field = document.field else {
        throw Mistake(path: "\(path).field", message: "a child table names the array its rows come from")
      }
      let array: DeclaredField
      if field == "." {
        // The parent's element is itself an array (an array of arrays): its elements are these rows.
        guard case .array(let inner) = parent.base else {
          throw Mistake(path: "\(path).field", message: "'.' is the parent's element, for an array of arrays")
        }
        (array, steps) = (inner, [])
      } else {
        (array, steps) = try Self.objectPath(field, in: parent.base, path: "\(path).field")
      }
      guard case .array(let element) = array.kind else {
        throw Mistake(path: "\(path).field", message: "'\(field)' is not an array")
      }
      switch element.kind {
      case .object(let fields): base = .object(fields)
      case .array: base = .array(element)
      default: base = .scalar(element)
      }
    } else if let field = document.field, !field.isEmpty {
      try refuse("firstPosition", document.firstPosition, "an extension (no 'position') has no positions")
      let (object, found) = try Self.objectPath(field, in: parent.base, path: "\(path).field")
      guard case .object(let fields) = object.kind else {
        throw Mistake(path: "\(path).field", message: "'\(field)' is not an object; an array needs a 'position'")
      }
      steps = found
      base = .object(fields)
    } else {
      try refuse("firstPosition", document.firstPosition, "an extension (no 'position') has no positions")
      steps = []
      base = parent.base
    }
    let inherited = parent.table.key.count + (document.position == nil ? 0 : 1)
    try checkCount(document.columns.count + inherited, path: path)
    // A child's rows are keyed by their parent and position: an element whose values are all in
    // tables below (an object holding only arrays, an array of arrays) needs no column of its own.
    let (columns, plans) = try self.columns(
      document.columns, base: base, names: columnNames, path: path, mayBeEmpty: document.position != nil)
    let allColumns = parent.table.key + (document.position.map { [$0] } ?? []) + columns.map(\.name)
    if parent.table.history != nil { try checkHistoryName(of: document.name, path: "\(path).name") }
    let table = Table(
      document.name, childOf: parent.table, position: document.position, startingAt: document.firstPosition ?? 0,
      field: document.field ?? "", columns: columns,
      indexes: try indexes(document, allColumns: allColumns, path: path))
    return Declared(
      table: table, base: base, columns: plans, isOptional: false,
      link: (parentName, steps, isExtension))
  }

  private mutating func topLevel(_ document: Document, path: String) throws -> Declared {
    try checkCount(document.columns.count, path: path)
    let (columns, plans) = try self.columns(
      document.columns, base: .object(fields), names: .columns(), path: path, topLevel: true)
    guard let key = document.key, !key.isEmpty else {
      throw Mistake(path: "\(path).key", message: "a top-level table needs its natural key's columns")
    }
    for (index, name) in key.enumerated() where !columns.contains(where: { $0.name == name }) {
      throw Mistake(path: "\(path).key[\(index)]", message: "no column \(name) is declared in this table")
    }
    guard Set(key).count == key.count else { throw Mistake(path: "\(path).key", message: "a column is named twice") }
    try Self.checkPositionScope(key, document.columns, path: path)
    var conflict: ConflictPolicy?
    if let text = document.onConflict {
      guard let policy = ConflictPolicy(rawValue: text) else {
        throw Mistake(path: "\(path).onConflict", message: "'\(text)' is not upsert, replace, ignore or fail")
      }
      conflict = policy
    }
    let table = Table(
      document.name, key: key, columns: columns, onConflict: conflict,
      indexes: try indexes(document, allColumns: columns.map(\.name), path: path),
      history: try history(document, path: path))
    return Declared(
      table: table, base: .object(fields), columns: plans, isOptional: document.optional ?? false, link: nil)
  }

  /// Refuses a key of the record's position without its input's name: positions restart at 0
  /// in every input, so `page-2.json` would replace `page-1.json`'s rows (and their children).
  static func checkPositionScope(
    _ key: [String], _ columns: [DatasetFileDocument.ColumnDocument], path: String
  ) throws {
    func field(_ name: String) -> String? {
      columns.first { $0.name == name }.map { $0.field ?? $0.name }
    }
    guard let position = key.firstIndex(where: { field($0) == "$position" }),
      !key.contains(where: { field($0) == "$input" })
    else { return }
    throw Mistake(
      path: "\(path).key[\(position)]",
      message:
        "a key of the record's position alone lets a second input replace the first one's rows (positions restart at 0 in every input): add a column { \"name\": \"record_input\", \"field\": \"$input\" } and put it in the key before \(key[position])"
    )
  }

  /// A top-level table's `history`: `scd2`, whose versions go to a table of a longer name,
  /// which every store must take too (`HistoryTable`).
  private func history(_ document: Document, path: String) throws -> TableHistory? {
    guard let text = document.history else { return nil }
    guard let history = TableHistory(rawValue: text) else {
      throw Mistake(path: "\(path).history", message: "'\(text)' is not scd2")
    }
    try checkHistoryName(of: document.name, path: "\(path).history")
    return history
  }

  /// Refuses a table that keeps history (its own, or its parent's) whose history table's name
  /// (`sluice_history_<table>`) a store would cut.
  private func checkHistoryName(of table: String, path: String) throws {
    let name = HistoryTable.name(of: table)
    guard let limit = nameRules.limit, name.utf8.count > limit.bytes else { return }
    throw Mistake(
      path: path,
      message:
        "its versions go to table \(name), longer than \(limit.bytes) bytes, which \(limit.store) would cut; shorten the table's name"
    )
  }

  /// Refuses a table of more than `maximumColumns` columns before they are read.
  private func checkCount(_ count: Int, path: String) throws {
    let limit = DatasetFileBuilder.maximumColumns
    guard count <= limit else {
      throw Mistake(
        path: "\(path).columns",
        message:
          "a table has at most \(limit) columns, a child's inherited key and position included; this one has \(count)")
    }
  }

  private func indexes(_ document: Document, allColumns: [String], path: String) throws -> [Index] {
    try (document.indexes ?? []).enumerated().map { index, declared in
      let place = "\(path).indexes[\(index)]"
      try DatasetFileBuilder.checkName(declared.name, path: "\(place).name", rules: nameRules)
      guard !declared.columns.isEmpty else { throw Mistake(path: "\(place).columns", message: "index some columns") }
      for (number, column) in declared.columns.enumerated() where !allColumns.contains(column) {
        throw Mistake(path: "\(place).columns[\(number)]", message: "no column \(column) in \(document.name)")
      }
      return Index(declared.name, on: declared.columns, deferrable: declared.deferrable ?? false)
    }
  }

  /// A dotted path of object fields from a base (`customer.id`): the field it ends at and the
  /// index of each step.
  static func objectPath(_ text: String, in base: Base, path: String) throws -> (DeclaredField, [Int]) {
    var current = base.fields
    var steps: [Int] = []
    var reached: DeclaredField?
    guard let segments = DeclaredPath.segments(text), segments.allSatisfy({ $0.arrays == 0 }) else {
      throw Mistake(
        path: path, message: "'\(text)' is not a path of object fields (a '\\' escapes the character after it)")
    }
    for name in segments.map(\.name) {
      if let reached, case .array = reached.kind {
        throw Mistake(path: path, message: "'\(reached.name)' is an array: a child table holds its elements")
      }
      guard let index = current.firstIndex(where: { $0.name == name }) else {
        let known = current.map(\.name).joined(separator: ", ")
        throw Mistake(
          path: path,
          message: "no field '\(name)' is declared there\(known.isEmpty ? "" : "; fields: \(known)")")
      }
      steps.append(index)
      reached = current[index]
      current = current[index].fields
    }
    guard let reached else { throw Mistake(path: path, message: "name a field") }
    return (reached, steps)
  }
}
