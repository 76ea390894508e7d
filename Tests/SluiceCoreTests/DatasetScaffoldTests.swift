import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluiceInspect

/// `sluice init`'s table inference, from real inspections of small dumps.
@Suite("init: tables inferred from a dump's shape")
struct DatasetScaffoldTests {
  static func scaffold(_ json: String, name: String = "orders") throws -> DatasetScaffold {
    let directory = try TemporaryDirectory()
    let path = try directory.write("dump.json", json)
    let inspection = try Inspector.inspect(path: path, options: InspectOptions(sampleSize: nil))
    let generator = SwiftDTOGenerator(inspection: inspection, typeName: "OrdersDTO")
    return DatasetScaffold(name: name, typeName: "Orders", dto: generator.layout())
  }

  @Test func scalarsGoToOneTableKeyedByAnIdLikeField() throws {
    let scaffold = try Self.scaffold(
      #"[{"orderId": "A1", "total": 12, "paid": true, "note": "x"}, {"orderId": "A2", "total": 3.5, "paid": false}]"#)
    #expect(scaffold.keyField == "orderId")
    let table = try #require(scaffold.tables.first)
    #expect(table.name == "orders")
    #expect(table.key == ["order_id"])
    #expect(table.columns.map(\.name) == ["order_id", "total", "paid", "note"])
    #expect(table.columns.map(\.type) == [.text, .real, .boolean, .text])
    #expect(table.columns.map(\.isNullable) == [false, false, false, true])
  }

  @Test func anExactIdWinsOverOtherIdLikeFields() throws {
    let scaffold = try Self.scaffold(#"[{"customerId": 7, "id": 1}]"#)
    #expect(scaffold.keyField == "id")
  }

  @Test func recordsWithoutAnIdAreKeyedByTheirInputAndPosition() throws {
    // `id` is missing from one record: it cannot be the key. Positions restart in every input,
    // so the record's input keys it too (issue 58).
    let scaffold = try Self.scaffold(#"[{"id": 1, "name": "a"}, {"name": "b"}]"#)
    #expect(scaffold.keyField == nil)
    let table = try #require(scaffold.tables.first)
    #expect(table.key == [DatasetScaffold.inputColumn, DatasetScaffold.positionColumn])
    #expect(table.columns.prefix(2).map(\.name) == [DatasetScaffold.inputColumn, DatasetScaffold.positionColumn])
    #expect(table.columns.prefix(2).map(\.value) == ["record.input", "record.position"])
  }

  @Test func anIdInAnObjectEveryRecordHoldsIsTheKey() throws {
    let scaffold = try Self.scaffold(
      #"[{"cve": {"id": "CVE-1", "year": 2021}}, {"cve": {"id": "CVE-2", "year": 2021}}]"#)
    #expect(scaffold.keyFields == ["cve.id"])
    #expect(scaffold.tables.first?.key == ["cve_id"])
  }

  @Test func twoIdsUniqueTogetherWhereNeitherIsAloneAreTheKey() throws {
    let scaffold = try Self.scaffold(
      #"[{"orderId": 1, "lineNo": 1, "qty": 2}, {"orderId": 1, "lineNo": 2, "qty": 1}, {"orderId": 2, "lineNo": 1, "qty": 5}]"#
    )
    #expect(scaffold.keyFields == ["orderId", "lineNo"])
    #expect(scaffold.keyField == "orderId + lineNo")
    #expect(scaffold.tables.first?.key == ["order_id", "line_no"])
  }

  @Test func aSingleUniqueIdIsPreferredToAPairAndAPairThatRepeatsIsNoKey() throws {
    let single = try Self.scaffold(
      #"[{"orderId": 1, "lineNo": 1, "lineId": "a"}, {"orderId": 1, "lineNo": 2, "lineId": "b"}, {"orderId": 2, "lineNo": 1, "lineId": "c"}]"#
    )
    #expect(single.keyFields == ["lineId"])
    let repeated = try Self.scaffold(
      #"[{"orderId": 1, "lineNo": 1}, {"orderId": 1, "lineNo": 1}, {"orderId": 2, "lineNo": 1}]"#)
    #expect(repeated.keyFields == [])
  }

  @Test func nestedObjectsAreFlattenedIntoPrefixedColumns() throws {
    let scaffold = try Self.scaffold(
      #"[{"id": "1", "customer": {"name": "Zoë", "address": {"city": "Bern"}}, "createdAt": "2024-01-01T00:00:00Z"}]"#)
    let table = try #require(scaffold.tables.first)
    #expect(table.columns.map(\.name) == ["id", "customer_name", "customer_address_city", "created_at"])
    #expect(table.columns[2].field == "customer.address.city")
    #expect(table.columns[2].value == "record.dto.customer.address.city")
    #expect(table.columns[3].type == .timestamp)
    #expect(table.columns[3].value == "Timestamp(record.dto.createdAt)")
    #expect(scaffold.tables.count == 1)
  }

  @Test func arraysOfObjectsAreChildTablesAndArraysOfScalarsValueTables() throws {
    let scaffold = try Self.scaffold(
      #"[{"id": "1", "items": [{"sku": "a", "qty": 2, "tags": ["x"]}], "labels": ["red", "big"]}]"#)
    #expect(scaffold.tables.map(\.name) == ["orders", "orders_items", "orders_items_tags", "orders_labels"])
    let items = scaffold.tables[1]
    #expect(items.parent == 0 && !items.isExtension && items.field == "items")
    #expect(items.columns.map(\.name) == ["sku", "qty"])
    #expect(items.columns[0].value == "item.sku")
    let tags = scaffold.tables[2]
    #expect(tags.parent == 1 && tags.field == "tags" && tags.columns.map(\.name) == ["value"])
    #expect(items.position == "position" && tags.position == "tag_position")
    #expect(scaffold.tables[3].columns.map(\.value) == ["label"])
    let source = scaffold.source(from: "dump.json")
    #expect(source.contains("for item in record.dto.items {"))
    #expect(source.contains("  for tag in item.tags {"))
    #expect(source.contains(#"childOf: orders, position: "position", field: "items","#))
    #expect(source.contains(#"childOf: ordersItems, position: "tag_position", field: "tags","#))
    try Self.load(scaffold)
  }

  /// The scaffold's tables declared as the generated source declares them (`Table`'s
  /// preconditions are what crashed a generated package), migrated into a real SQLite file.
  @discardableResult
  static func load(_ scaffold: DatasetScaffold) throws -> Schema {
    var declared: [Table] = []
    for layout in scaffold.tables {
      let columns = layout.columns.map { Column($0.name, $0.type, field: $0.field, nullable: $0.isNullable) }
      if let parent = layout.parent, layout.isExtension {
        declared.append(Table(layout.name, extending: declared[parent], field: layout.field, columns: columns))
      } else if let parent = layout.parent {
        declared.append(
          Table(
            layout.name, childOf: declared[parent], position: layout.position ?? "", field: layout.field,
            columns: columns))
      } else {
        declared.append(Table(layout.name, key: layout.key, columns: columns, onConflict: .upsert))
      }
    }
    let schema = Schema(declared)
    let directory = try TemporaryDirectory()
    let db = try SQLiteConnection(path: directory.file("scaffold.sqlite"))
    for migration in schema.migrations(dialect: SQLiteDialect()) { try db.execute(migration.sql) }
    return schema
  }

  /// Orders nested `depth` arrays of objects deep (`lines[].steps[].parts[].notes[]`), each
  /// level with a scalar array too.
  static func nested(depth: Int) -> String {
    let names = ["lines", "steps", "parts", "notes"]
    var element = #"{"code": "x", "tags": ["a", "b"]}"#
    for level in stride(from: depth - 1, through: 1, by: -1) {
      element = #"{"code": "x", "tags": ["a"], "\#(names[level])": [\#(element), \#(element)]}"#
    }
    // Three records, more than any nested array holds: they are what init reads as records.
    let records = (1...3).map { #"{"id": "o\#($0)", "code": "x", "tags": ["a"], "lines": [\#(element), \#(element)]}"# }
    return "[" + records.joined(separator: ", ") + "]"
  }

  @Test(arguments: 1...4)
  func arraysOfObjectsNestInChildTablesAtEveryDepth(depth: Int) throws {
    let scaffold = try Self.scaffold(Self.nested(depth: depth))
    let schema = try Self.load(scaffold)
    // Per depth: the objects' table and their tags' table.
    #expect(schema.tables.count == 2 * (depth + 1), "\(scaffold.tables.map(\.name))")
    #expect(schema.tables.map(\.depth).max() == depth + 1)
    let deepest = try #require(schema.tables.last { $0.columns.map(\.name) == ["code"] })
    #expect(deepest.depth == depth)
    let positions = ["position", "step_position", "part_position", "note_position"]
    #expect(deepest.key == ["id"] + positions.prefix(depth))
    #expect(scaffold.deeperFields.isEmpty)
  }

  /// Past `DatasetScaffold.maximumNesting` levels of objects the DTO stops: deeper fields are
  /// left out, and listed for the README; the tables stop with it.
  @Test func nestingPastTheCapIsLeftOutAndListed() throws {
    var object = #"{"leaf": 1}"#
    for _ in 0..<50 { object = #"{"v": 1, "a": [\#(object)]}"# }
    let directory = try TemporaryDirectory()
    let path = try directory.write("deep.json", "[\(object)]")
    let inspection = try Inspector.inspect(path: path, options: InspectOptions(sampleSize: nil))
    let generator = SwiftDTOGenerator(
      inspection: inspection, typeName: "DeepDTO", maximumNesting: DatasetScaffold.maximumNesting)
    let scaffold = DatasetScaffold(name: "deep", typeName: "Deep", dto: generator.layout())
    let schema = try Self.load(scaffold)
    #expect(schema.tables.map(\.depth).max() == DatasetScaffold.maximumNesting)
    #expect(scaffold.deeperFields == [String(repeating: "a[].", count: DatasetScaffold.maximumNesting) + "a"])
    let source = generator.source()
    #expect(source.components(separatedBy: "struct ").count - 1 == DatasetScaffold.maximumNesting + 1)
    #expect(source.contains(#"// "a" is left out: it nests deeper than the 6 levels this DTO decodes."#))
    // `inspect --swift` has no cap.
    let whole = SwiftDTOGenerator(inspection: inspection, typeName: "DeepDTO").source()
    #expect(whole.components(separatedBy: "struct ").count - 1 > 40)
  }

  @Test func anObjectWiderThanTheTableLeftIsAnExtensionTable() throws {
    let wide = (1...70).map { #""f\#($0)": \#($0)"# }.joined(separator: ", ")
    let scaffold = try Self.scaffold(#"[{"id": "1", "name": "n", "details": {\#(wide)}}]"#)
    #expect(scaffold.tables.map(\.name) == ["orders", "orders_details", "orders_details_more"])
    #expect(scaffold.tables[0].columns.map(\.name) == ["id", "name"])
    #expect(scaffold.tables[1].isExtension && scaffold.tables[1].parent == 0 && scaffold.tables[1].field == "details")
    #expect(scaffold.tables.allSatisfy { $0.columns.count <= 63 })
    #expect(scaffold.tables[1].columns.count + scaffold.tables[2].columns.count == 70)
    #expect(scaffold.source(from: "dump.json").contains(#"extending: orders, field: "details","#))
  }

  @Test func optionalObjectsMakeTheirColumnsNullableThroughOptionalChaining() throws {
    let scaffold = try Self.scaffold(#"[{"id": "1", "customer": {"name": "a"}}, {"id": "2"}]"#)
    let column = try #require(scaffold.tables.first?.columns.last)
    #expect(column.name == "customer_name" && column.isNullable)
    #expect(column.value == "record.dto.customer?.name")
  }

  /// Keys that differ only in case or punctuation make one table name (`x-y`, `x_y`, `xY` →
  /// `orders_x_y`); two tables of one name made a package that failed in `swift build`.
  @Test func keysThatMakeOneTableNameMakeDistinctTables() throws {
    let scaffold = try Self.scaffold(
      #"[{"id": "1", "x-y": [{"a": 1}], "x_y": [{"a": 2}], "xY": [{"a": 3}], "t-s": ["a"], "tS": ["b"]}]"#)
    let names = scaffold.tables.map(\.name)
    #expect(names == ["orders", "orders_x_y", "orders_x_y_2", "orders_x_y_3", "orders_t_s", "orders_t_s_2"])
    #expect(Set(scaffold.tables.map(\.property)).count == names.count)
    #expect(scaffold.tables[1...3].map(\.field) == ["x-y", "x_y", "xY"])
    let source = scaffold.source(from: "dump.json")
    #expect(source.contains(#"static let ordersXY2 = Table(\#n    "orders_x_y_2", childOf: orders"#), "\(source)")
  }

  @Test func longTableNamesAreCutToPostgreSQLsLimitAndStayApart() {
    let a = DatasetScaffold.tableName(String(repeating: "segment_", count: 10) + "a")
    let b = DatasetScaffold.tableName(String(repeating: "segment_", count: 10) + "b")
    #expect(a.utf8.count <= 63 && b.utf8.count <= 63 && a != b)
    #expect(DatasetScaffold.tableName("open-food-facts") == "open_food_facts")
    #expect(DatasetScaffold.columnName("2nd Place") == "c_2nd_place")
  }

  /// Open Food Facts has a 76-byte key: its column is cut as a table name is (PostgreSQL would
  /// cut it silently, and a dataset file refuses a name past 63 bytes).
  @Test func longColumnNamesAreCutToo() throws {
    let long = "nutrition_score_warning_fruits_vegetables_legumes_estimate_from_ingredients"
    let scaffold = try Self.scaffold(#"[{"id": 1, "\#(long)": 0, "\#(long)_2": 1}]"#)
    let columns = try #require(scaffold.tables.first).columns.map(\.name)
    #expect(columns.count == 3 && Set(columns).count == 3)
    #expect(columns.allSatisfy { $0.utf8.count <= 63 }, "\(columns)")
    #expect(columns[1].hasPrefix("nutrition_score_warning_fruits_vegetables"))
  }

  /// Keys named like PostgreSQL's system columns make columns of another name, which a dataset
  /// file accepts and PostgreSQL can create.
  @Test func keysNamedLikePostgreSQLsSystemColumnsGetOtherColumnNames() throws {
    let scaffold = try Self.scaffold(#"[{"id": 1, "oid": 2, "xmin": "a", "CTID": true}]"#)
    let columns = try #require(scaffold.tables.first).columns.map(\.name)
    #expect(columns == ["id", "oid_2", "xmin_2", "ctid_2"])
    #expect(columns.allSatisfy { !DatasetFileNames.systemColumns.contains($0) })
  }
}
