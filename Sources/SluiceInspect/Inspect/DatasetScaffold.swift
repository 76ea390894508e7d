import Foundation
@_spi(Internals) import SluiceCore

/// `sluice init`'s dataset: tables inferred from the DTO `inspect --swift` writes, and the Swift
/// of a `Dataset` that loads the dump into them.
///
/// - the record's scalars go to one table, keyed by a field named like an id (`id`, `<name>Id`,
///   `*_id`, `*No`…) that every record has, non-null and unique (`idLikeProperty`), or else by
///   the record's position in the input;
/// - a nested object's scalars are flattened into the same row, as prefixed columns
///   (`customer.name` → `customer_name`);
/// - an array of objects is a child table keyed by its parent and the element's position, its
///   elements flattened likewise (and their arrays children of it, at any depth: a grandchild is
///   keyed by its parent's key and its own position, `<element>_position`); an array of scalars
///   is a child table with one `value` column; an array of arrays is left out, with a comment;
/// - objects deeper than `maximumNesting` levels are not in the DTO it is given, so not here
///   either: `deeperFields` lists them.
package struct DatasetScaffold: Sendable {
  package struct Column: Sendable, Hashable {
    package var name: String
    package var type: ColumnType
    package var isNullable: Bool
    /// The record's field (relative to the element, in a child table).
    package var field: String
    /// The Swift expression of the value in `rows(for:into:)`.
    package var value: String
  }

  package struct TableLayout: Sendable, Hashable {
    package var name: String
    /// The `static let` that declares it.
    package var property: String
    /// The parent table's index, for a child or extension table.
    package var parent: Int?
    /// A row of its own beside the parent's (its key), not one per element.
    package var isExtension: Bool
    /// The field of the parent's record (or element) the rows come from.
    package var field: String
    package var key: [String]
    /// The column numbering a child table's rows among their parent's: `position`, or, below a
    /// child whose key has one, `<element>_position`. Nil for a top-level or extension table.
    package var position: String?
    package var columns: [Column]
  }

  package let name: String
  package let typeName: String
  package let dtoName: String
  package private(set) var tables: [TableLayout] = []
  /// The fields that key the records, each as its keys from the record (one field, a nested one
  /// like `cve` `id`, or two together), or empty when their input and position do.
  private(set) var keyPaths: [[String]] = []
  /// `keyPaths` as dataset files write paths (`cve.id`; a key with a dot escaped).
  package var keyFields: [String] { keyPaths.map { $0.map(DatasetFile.escapedKey).joined(separator: ".") } }
  /// The fields that key the records, as the summary names them (`orderId + lineNo`), or nil
  /// when their input and position do.
  package var keyField: String? { keyFields.isEmpty ? nil : keyFields.joined(separator: " + ") }
  private(set) var rowLines: [String] = []
  /// One function per table that adds its row: a debug build gives a function the stack of all
  /// its temporaries, and one `rows(for:into:)` holding every table's values overflowed the
  /// decoding thread's stack on a wide dump (Open Food Facts).
  private(set) var helpers: [String] = []
  private(set) var notes: [String] = []

  /// The column that keys records without an id-like field.
  package static let positionColumn = "record_position"
  /// The column that scopes `positionColumn` by the record's input (`MappingContext.inputName`):
  /// positions restart at 0 in every input, so without it a second input replaces the first's rows.
  package static let inputColumn = "record_input"

  /// The most levels of objects below the record that `sluice init` decodes and turns into
  /// columns and tables (`SwiftDTOGenerator.maximumNesting`): an order's line items' tax lines
  /// are two. Deeper fields are left out of the DTO (the decoder reports them as unknown
  /// fields) and listed in the README: a dump nested 50 deep made a package that took minutes
  /// to build.
  package static let maximumNesting = 6

  /// The field paths of the DTO that `maximumNesting` left out (`a.b[].c`), in the order met.
  package var deeperFields: [String] { Self.leftOut(of: dto, prefix: "", \.deeper) }
  /// The field paths the DTO left out as no one type decodes their values, in the order met.
  package var mixedFields: [String] { Self.leftOut(of: dto, prefix: "", \.omitted) }
  /// The DTO the tables were inferred from (a dataset file declares its fields).
  let dto: SwiftDTOGenerator.DTOStruct

  private static func leftOut(
    of dto: SwiftDTOGenerator.DTOStruct, prefix: String, _ keys: KeyPath<SwiftDTOGenerator.DTOStruct, [String]>
  ) -> [String] {
    var paths = dto[keyPath: keys].map { prefix + DatasetFile.escapedKey($0) }
    for property in dto.properties {
      var type = property.type
      var path = prefix + DatasetFile.escapedKey(property.key)
      while case .array(let element, _) = type {
        type = element
        path += "[]"
      }
      if case .object(let nested) = type { paths += leftOut(of: nested, prefix: path + ".", keys) }
    }
    return paths
  }

  package init(name: String, typeName: String, dto: SwiftDTOGenerator.DTOStruct) {
    self.name = name
    self.typeName = typeName
    self.dto = dto
    dtoName = dto.name
    keyPaths = Self.naturalKey(of: dto, datasetName: name)
    rowLines = topLevelTable()
    // A nested key whose object went to a table of its own, or whose column was renamed, keys
    // nothing here: the records are keyed by input and position.
    let columns = keyFields.compactMap { key in tables[0].columns.first { $0.field == key }?.name }
    if !keyPaths.isEmpty && columns != tables[0].key {
      keyPaths = []
      tables = []
      helpers = []
      notes = []
      rowLines = topLevelTable()
    }
  }

  /// The record's table and its children, keyed by the columns `keyPaths` flatten into (as
  /// `flatten` names them: `cve_id`) or, without any, by the record's input and position.
  private mutating func topLevelTable() -> [String] {
    let key =
      keyPaths.isEmpty
      ? [Self.inputColumn, Self.positionColumn]
      : keyPaths.map { Self.cut(Self.columnName($0.joined(separator: "_"))) }
    return table(
      for: dto, name: Self.tableName(name), parent: nil, field: "", variable: "record.dto",
      scope: (name: "record", type: "\(typeName)Record"), dtoType: dto.name, key: key,
      indent: "    "
    ).rows
  }

  /// An array met while flattening: it becomes a child table of the table being declared.
  private struct ArrayField {
    var key: String
    var field: String
    var access: String
    var isOptional: Bool
    var element: SwiftDTOGenerator.DTOType
    var elementIsOptional: Bool
    /// The element's struct, qualified (`OrdersDTO.Item`), for an array of objects; else the
    /// struct that holds the array.
    var elementType: String
    /// What names its position column below a parent that has one: its key's last part, or, for
    /// the inner array of an array of arrays (no key, `field` empty), the outer one's.
    var positionName: String? = nil
  }

  /// A nested object too wide for its table's remaining columns: an extension table of its own.
  private struct WideObject {
    var dto: SwiftDTOGenerator.DTOStruct
    /// Its struct, qualified.
    var type: String
    var key: String
    var field: String
    var access: String
    /// The whole chain may be nil (its columns are nullable).
    var isOptional: Bool
    /// The last property of `access` is itself optional: the next step is `?.`.
    var lastIsOptional: Bool
  }

  /// The most columns a table holds (`Table`), its key and position included.
  static let maximumColumns = 64

  /// Declares the table of `dto`'s values and returns the lines that add its rows (and its
  /// children's) for the value `variable`. An extension table (`extending`) shares its parent's
  /// key and row; its arrays are children of that parent.
  private mutating func table(
    for dto: SwiftDTOGenerator.DTOStruct, name: String, parent: Int?, extending: Bool = false, field: String,
    positionName: String? = nil, variable: String, scope: (name: String, type: String), dtoType: String,
    isOptional: Bool = false,
    lastIsOptional: Bool = false, columnPrefix: String = "",
    fieldPrefix: String = "", key: [String],
    indent: String
  ) -> (rows: [String], children: [String]) {
    let name = distinctTableName(name)
    let index = tables.count
    let inherited = inheritedKeys(of: parent)
    let position =
      parent == nil || extending ? nil : Self.positionName(for: positionName ?? field, avoiding: inherited)
    tables.append(
      TableLayout(
        name: name, property: SwiftNames.propertyName(name), parent: parent, isExtension: extending, field: field,
        key: parent == nil ? key : [], position: position, columns: []))
    var reserved = Set(inherited + (position.map { [$0] } ?? []))
    var columns: [Column] = []
    if parent == nil && keyField == nil {
      columns.append(Column(name: Self.inputColumn, type: .text, isNullable: false, field: "", value: "record.input"))
      columns.append(
        Column(name: Self.positionColumn, type: .integer, isNullable: false, field: "", value: "record.position"))
    }
    var budget = Self.maximumColumns - reserved.count
    var arrays: [ArrayField] = []
    var wide: [WideObject] = []
    var overflow: [Column] = []
    flatten(
      dto, type: dtoType, access: variable, isOptional: isOptional, lastIsOptional: lastIsOptional,
      columnPrefix: columnPrefix,
      fieldPrefix: fieldPrefix, columns: &columns, overflow: &overflow, budget: &budget, reserved: &reserved,
      arrays: &arrays, wide: &wide)
    if columns.isEmpty {
      // A row needs a value beyond its key: an object of arrays only keeps its position.
      columns.append(Self.presentColumn)
    }
    tables[index].columns = columns
    var rows = [add(tables[index].property, columns, scope: scope, indent: indent)]
    // The row's own extensions: scalars past its width, then objects past it.
    let base = extending ? (parent ?? index) : index
    var chunkNumber = 1
    while !overflow.isEmpty {
      let chunk = Array(overflow.prefix(Self.maximumColumns - inheritedKeys(of: base).count))
      overflow.removeFirst(chunk.count)
      let extensionIndex = tables.count
      let extensionName = distinctTableName(
        Self.tableName("\(name)_more" + (chunkNumber == 1 ? "" : "_\(chunkNumber)")))
      chunkNumber += 1
      tables.append(
        TableLayout(
          name: extensionName, property: SwiftNames.propertyName(extensionName), parent: base, isExtension: true,
          field: "", key: [], position: nil, columns: chunk))
      rows.append(add(tables[extensionIndex].property, chunk, scope: scope, indent: indent))
    }
    var children: [String] = []
    for object in wide {
      let built = table(
        for: object.dto, name: Self.tableName(tables[base].name + "_" + object.field),
        parent: base, extending: true, field: object.field, variable: object.access, scope: scope,
        dtoType: object.type, isOptional: object.isOptional,
        lastIsOptional: object.lastIsOptional, columnPrefix: "", fieldPrefix: object.field + ".", key: [],
        indent: indent)
      rows += built.rows
      children += built.children
    }
    for array in arrays {
      children += self.children(
        of: array, tableName: tables[base].name, parent: base, variable: variable, indent: indent)
    }
    return extending ? (rows, children) : (rows + children, [])
  }

  /// A call of the function that adds one table's row from the value in scope, which it writes.
  private mutating func add(
    _ property: String, _ columns: [Column], scope: (name: String, type: String), indent: String
  ) -> String {
    let function = "add" + property.prefix(1).uppercased() + property.dropFirst()
    helpers.append(
      """
        private func \(function)(_ \(scope.name): \(scope.type), into rows: inout RecordRows) {
          rows.add(Self.\(property), \(columns.map(\.value).joined(separator: ", ")))
        }
      """)
    return "\(indent)\(function)(\(scope.name), into: &rows)"
  }

  /// The loop that adds an array's rows to its child table.
  private mutating func children(
    of array: ArrayField, tableName: String, parent: Int, variable: String, indent: String
  ) -> [String] {
    let childName = Self.tableName(tableName + "_" + array.key)
    let element = SwiftNames.propertyName(
      SwiftNames.singular(array.key.split(separator: ".").last.map(String.init) ?? "element"))
    let variableName = element == variable.split(separator: ".").last.map(String.init) ? element + "2" : element
    let sequence = array.isOptional ? "(\(array.access) ?? [])" : array.access
    let loop =
      array.elementIsOptional
      ? "for case let \(variableName)? in \(sequence) {" : "for \(variableName) in \(sequence) {"
    var lines: [String] = []
    switch array.element {
    case .object(let child):
      lines.append(indent + loop)
      lines +=
        table(
          for: child, name: childName, parent: parent, field: array.field, positionName: array.positionName,
          variable: variableName, scope: (name: variableName, type: array.elementType), dtoType: array.elementType,
          key: [], indent: indent + "  "
        ).rows
      lines.append(indent + "}")
    case .scalar(let type):
      let childName = distinctTableName(childName)
      let childIndex = tables.count
      let inherited = inheritedKeys(of: parent)
      let position = Self.positionName(for: array.positionName ?? array.field, avoiding: inherited)
      let used = Set(inherited + [position])
      tables.append(
        TableLayout(
          name: childName, property: SwiftNames.propertyName(childName), parent: parent, isExtension: false,
          field: array.field, key: [], position: position,
          columns: [
            Column(
              name: used.contains("value") ? Self.unique("value", in: used) : "value", type: Self.columnType(type),
              isNullable: false, field: "", value: Self.columnValue(variableName, type: type, isOptional: false))
          ]))
      lines.append(indent + loop)
      lines.append("\(indent)  rows.add(Self.\(tables[childIndex].property), \(tables[childIndex].columns[0].value))")
      lines.append(indent + "}")
    case .array(let inner, let innerIsOptional):
      // An array of arrays: a table of the outer elements, numbered by their position (their
      // values are all in the inner arrays), and each inner array's elements a child table of it.
      let outerName = distinctTableName(childName)
      let outerIndex = tables.count
      let position = Self.positionName(for: array.positionName ?? array.field, avoiding: inheritedKeys(of: parent))
      tables.append(
        TableLayout(
          name: outerName, property: SwiftNames.propertyName(outerName), parent: parent, isExtension: false,
          field: array.field, key: [], position: position, columns: [Self.presentColumn]))
      let scope = (name: variableName, type: Self.swiftType(array.element, holder: array.elementType))
      lines.append(indent + loop)
      lines.append(add(tables[outerIndex].property, [Self.presentColumn], scope: scope, indent: indent + "  "))
      var innerElementType = array.elementType
      if case .object(let object) = inner { innerElementType = "\(array.elementType).\(object.name)" }
      let elements = ArrayField(
        key: Self.isScalar(inner) ? "values" : "items", field: "", access: variableName,
        isOptional: false, element: inner, elementIsOptional: innerIsOptional, elementType: innerElementType,
        positionName: SwiftNames.singular(array.key.split(separator: ".").last.map(String.init) ?? "element"))
      lines += children(
        of: elements, tableName: outerName, parent: outerIndex, variable: variableName, indent: indent + "  ")
      lines.append(indent + "}")
    }
    return lines
  }

  /// The column of a row that has no value of its own (an object holding only arrays, an array
  /// of arrays): a Swift `Table` wants a column besides its key. A dataset file leaves it out.
  static let presentColumn = Column(name: "present", type: .boolean, isNullable: false, field: "", value: "true")

  static func isScalar(_ type: SwiftDTOGenerator.DTOType) -> Bool {
    if case .scalar = type { true } else { false }
  }

  /// The Swift type of a value of `type`, whose structs are nested in `holder`.
  static func swiftType(_ type: SwiftDTOGenerator.DTOType, holder: String) -> String {
    switch type {
    case .scalar(let name): name
    case .object(let object): "\(holder).\(object.name)"
    case .array(let element, let isOptional): "[\(swiftType(element, holder: holder))\(isOptional ? "?" : "")]"
    }
  }

  /// The scalars of `dto` as columns (a nested object's with prefixes, when it fits the table's
  /// remaining columns, or else to `wide`); scalars past the table's width to `overflow`; its
  /// arrays to `arrays`.
  private func flatten(
    _ dto: SwiftDTOGenerator.DTOStruct, type: String, access: String, isOptional: Bool, lastIsOptional: Bool,
    columnPrefix: String,
    fieldPrefix: String,
    columns: inout [Column], overflow: inout [Column], budget: inout Int, reserved: inout Set<String>,
    arrays: inout [ArrayField], wide: inout [WideObject]
  ) {
    for property in dto.properties {
      // Optional chaining: `?.` after an optional property, `.` after any other, even in a chain.
      let expression = "\(access)\(lastIsOptional ? "?." : ".")\(property.name)"
      let optional = isOptional || property.isOptional
      // A dataset file's paths are dotted: a key with a dot (`a.b`) is escaped (`a\.b`), so that
      // it is not read as `b` inside `a`.
      let field = fieldPrefix + DatasetFile.escapedKey(property.key)
      switch property.type {
      case .scalar(let type):
        var column = Self.cut(Self.columnName(columnPrefix + property.key))
        // PostgreSQL's system columns (`oid`, `xmin`) are no column's name: a dataset file
        // refuses them (`DatasetFileNames`), and PostgreSQL would.
        if reserved.contains(column) || DatasetFileNames.systemColumns.contains(column) {
          column = Self.unique(column, in: reserved)
        }
        reserved.insert(column)
        let value = Self.columnValue(expression, type: type, isOptional: optional)
        let declared = Column(
          name: column, type: Self.columnType(type), isNullable: optional, field: field, value: value)
        if columns.count < budget {
          columns.append(declared)
        } else {
          overflow.append(declared)
        }
      case .object(let nested):
        if Self.width(of: nested) <= budget - columns.count {
          flatten(
            nested, type: "\(type).\(nested.name)", access: expression, isOptional: optional,
            lastIsOptional: property.isOptional,
            columnPrefix: columnPrefix + property.key + "_",
            fieldPrefix: field + ".", columns: &columns, overflow: &overflow, budget: &budget, reserved: &reserved,
            arrays: &arrays, wide: &wide)
        } else {
          wide.append(
            WideObject(
              dto: nested, type: "\(type).\(nested.name)", key: field, field: field, access: expression,
              isOptional: optional,
              lastIsOptional: property.isOptional))
        }
      case .array(let element, let elementIsOptional):
        var elementType = type
        if case .object(let object) = element { elementType = "\(type).\(object.name)" }
        arrays.append(
          ArrayField(
            key: field, field: field, access: expression, isOptional: optional, element: element,
            elementIsOptional: elementIsOptional, elementType: elementType))
      }
    }
  }

  /// The Swift expression of a column's value from the DTO's `expression` of Swift type `type`:
  /// a date as a `Timestamp`, JSON text (`JSONText`) as its text.
  static func columnValue(_ expression: String, type: String, isOptional: Bool) -> String {
    switch type {
    case "Date": isOptional ? "(\(expression)).map(Timestamp.init)" : "Timestamp(\(expression))"
    case "JSONText": isOptional ? "(\(expression))?.text" : "\(expression).text"
    default: expression
    }
  }

  /// The field paths of the DTO kept whole as JSON text (`JSONText`), in the order met: values
  /// no one type decodes, arrays always empty in the records read.
  package var jsonTextFields: [String] { Self.jsonTextFields(of: dto, prefix: "") }

  private static func jsonTextFields(of dto: SwiftDTOGenerator.DTOStruct, prefix: String) -> [String] {
    var paths: [String] = []
    for property in dto.properties {
      var type = property.type
      var path = prefix + DatasetFile.escapedKey(property.key)
      while case .array(let element, _) = type {
        type = element
        path += "[]"
      }
      switch type {
      case .scalar("JSONText"): paths.append(path)
      case .object(let nested): paths += jsonTextFields(of: nested, prefix: path + ".")
      default: break
      }
    }
    return paths
  }

  /// The columns of CSV decimals, stored in minor units, with their scale, in table order.
  package var decimalColumns: [(column: String, scale: Int)] {
    var found: [(column: String, scale: Int)] = []
    func walk(_ dto: SwiftDTOGenerator.DTOStruct, prefix: String) {
      for property in dto.properties {
        if case .decimal(let scale) = property.columnType { found.append((prefix + property.key, scale)) }
        if case .object(let nested) = property.type { walk(nested, prefix: prefix + property.key + ".") }
      }
    }
    walk(dto, prefix: "")
    return found
  }

  /// The columns an object takes when flattened whole.
  static func width(of dto: SwiftDTOGenerator.DTOStruct) -> Int {
    dto.properties.reduce(0) { total, property in
      switch property.type {
      case .scalar: total + 1
      case .object(let nested): total + width(of: nested)
      case .array: total
      }
    }
  }

  /// The key columns of table `index` (none for nil), which a table below it inherits: a
  /// top-level table's key; a child's parent key and position; an extension's parent key.
  private func inheritedKeys(of index: Int?) -> [String] {
    guard let index else { return [] }
    let table = tables[index]
    guard let parent = table.parent else { return table.key }
    return inheritedKeys(of: parent) + (table.position.map { [$0] } ?? [])
  }

  /// The position column of a child table whose rows come from `field`: `position`, unless the
  /// key it inherits has one (a grandchild's), then `<element>_position` (`tax_line_position`
  /// for `tax_lines`), numbered when that is taken too.
  static func positionName(for field: String, avoiding inherited: [String]) -> String {
    guard inherited.contains("position") else { return "position" }
    let last = field.split(separator: ".").last.map(String.init) ?? field
    let name = columnName(SwiftNames.singular(last)) + "_position"
    return inherited.contains(name) ? unique(name, in: Set(inherited)) : name
  }

  static func columnType(_ swiftType: String) -> ColumnType {
    switch swiftType {
    case "Int64": .integer
    case "Double": .real
    case "Bool": .boolean
    case "Date": .timestamp
    default: .text
    }
  }

  /// `orderId` → `order_id`, `Line Items` → `line_items`: lower-case words joined by `_`.
  static func columnName(_ key: String) -> String {
    let words = SwiftNames.words(key).map { $0.lowercased() }
    guard var name = words.isEmpty ? nil : words.joined(separator: "_") else { return "field" }
    if let first = name.unicodeScalars.first, first >= "0" && first <= "9" { name = "c_" + name }
    // Names the stores keep for their own tables (`pg_x`, `sqlite_y`, `sluice_z`) are refused by
    // a dataset file and would clash in a Swift one: the key keeps its column under `c_`.
    if reservedPrefixes.contains(where: { name.hasPrefix($0) }) { name = "c_" + name }
    return name
  }

  /// The prefixes of the stores' own tables, which no generated name takes.
  package static let reservedPrefixes = ["pg_", "sqlite_", "sluice_"]

  /// A table's name: `columnName`, cut to PostgreSQL's 63 bytes with a hash of the whole name
  /// when longer (a deep path), so two long names stay apart.
  package static func tableName(_ text: String) -> String {
    cut(columnName(text.replacingOccurrences(of: ".", with: "_")))
  }

  /// A name cut to PostgreSQL's 63 bytes with a hash of the whole name when longer: a table's,
  /// or a column's (Open Food Facts has a 76-byte key, which PostgreSQL would cut silently).
  static func cut(_ name: String) -> String {
    guard name.utf8.count > 63 else { return name }
    var hash: UInt32 = 2_166_136_261
    for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    let suffix = String(hash, radix: 16)
    return String(name.prefix(62 - suffix.count)) + "_" + suffix
  }

  /// `name`, or `name_2`, `name_3`… when an earlier table has it or its property: keys that
  /// differ only in case or punctuation (`x-y`, `x_y`, `xY`) make one name, and two tables of
  /// one name would make a dataset that does not build.
  private func distinctTableName(_ name: String) -> String {
    let names = Set(tables.map(\.name))
    let properties = Set(tables.map(\.property))
    func isFree(_ candidate: String) -> Bool {
      !names.contains(candidate) && !properties.contains(SwiftNames.propertyName(candidate))
    }
    guard !isFree(name) else { return name }
    var number = 2
    while !isFree(Self.tableName("\(name)_\(number)")) { number += 1 }
    return Self.tableName("\(name)_\(number)")
  }

  /// The Swift type name of a dataset name: `open-food-facts` → `OpenFoodFacts`.
  package static func typeName(for datasetName: String) -> String { SwiftNames.typeName(datasetName) }

  private static func unique(_ name: String, in used: Set<String>) -> String {
    var number = 2
    while used.contains("\(name)_\(number)") { number += 1 }
    return "\(name)_\(number)"
  }

  // MARK: - Source

  /// The dataset's Swift source.
  package func source(from dump: String) -> String {
    var lines = [
      "import SluiceCore",
      "",
      "/// \(name): generated by `sluice init` from \(SwiftNames.comment(dump)), its tables inferred from the",
      "/// records' shape. Review the keys, types and tables, and add the contract's rules to `validate`.",
      "struct \(typeName)Dataset: Dataset {",
      "  var name: String { \"\(SwiftNames.literal(name))\" }",
      "  var summary: String { \"\(SwiftNames.literal(name)) (generated by sluice init) → \(tables.map(\.name).joined(separator: ", "))\" }",
      "",
    ]
    for table in tables {
      let declared = table.columns.map { column -> String in
        var arguments = ["\"\(column.name)\""]
        if !column.field.isEmpty && column.field != column.name {
          arguments.append("field: \"\(SwiftNames.literal(column.field))\"")
        }
        if column.isNullable { arguments.append("nullable: true") }
        return ".\(column.type.rawValue)(\(arguments.joined(separator: ", ")))"
      }
      let columnList = "[\n      " + declared.joined(separator: ",\n      ") + ",\n    ]"
      if let parent = table.parent, table.isExtension {
        lines.append(
          "  static let \(table.property) = Table(\n    \"\(table.name)\", extending: \(tables[parent].property), field: \"\(SwiftNames.literal(table.field))\",\n    columns: \(columnList))"
        )
      } else if let parent = table.parent {
        lines.append(
          "  static let \(table.property) = Table(\n    \"\(table.name)\", childOf: \(tables[parent].property), position: \"\(table.position ?? "position")\", field: \"\(SwiftNames.literal(table.field))\",\n    columns: \(columnList))"
        )
      } else {
        let key = table.key.map { "\"\($0)\"" }.joined(separator: ", ")
        lines.append(
          "  static let \(table.property) = Table(\n    \"\(table.name)\", key: [\(key)],\n    columns: \(columnList), onConflict: .upsert)"
        )
      }
    }
    lines += [
      "  var schema: Schema { Schema([\(tables.map { "Self.\($0.property)" }.joined(separator: ", "))]) }",
      "",
      "  /// The contract's rules: none yet (`validation.check(rule, passes, at: \"path\")`).",
      "  func validate(_ record: \(dtoName), into validation: inout Validation) {}",
      "",
      "  func map(_ record: \(dtoName), context: inout MappingContext) throws(MappingError) -> \(typeName)Record {",
      "    \(typeName)Record(input: context.inputName, position: Int64(context.position), dto: record)",
      "  }",
      "",
      "  func rows(for record: \(typeName)Record, into rows: inout RecordRows) {",
    ]
    lines += rowLines
    lines.append("  }")
    for helper in helpers {
      lines.append("")
      lines.append(helper)
    }
    lines += [
      "}",
      "",
      "/// A record with its input's name and its position in it (the key of records without an id).",
      "struct \(typeName)Record: Sendable {",
      "  var input: String",
      "  var position: Int64",
      "  var dto: \(dtoName)",
      "}",
    ]
    return lines.joined(separator: "\n") + "\n"
  }
}
