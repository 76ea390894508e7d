import Foundation
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// A dataset file with a mistake is refused before any input is opened, with the JSON path of the
/// mistake — never a crash on one of the engine's preconditions, never a silent default.
@Suite("dataset files with a mistake")
struct DatasetFileRefusalTests {
  struct Mistake: Sendable, CustomStringConvertible {
    var description: String
    /// What the message must contain: the JSON path, quoted, and a word of the reason.
    var expected: [String]
    var change: @Sendable (inout [String: Any]) -> Void
  }

  typealias Object = [String: Any]

  /// The orders example with one change made to it.
  private static func table(_ index: Int, _ change: @escaping @Sendable (inout Object) -> Void)
    -> @Sendable (inout Object) -> Void
  {
    { document in
      var tables = document["tables"] as! [Object]
      change(&tables[index])
      document["tables"] = tables
    }
  }

  private static func column(_ table: Int, _ column: Int, _ key: String, _ value: Any?)
    -> @Sendable (inout Object) -> Void
  {
    nonisolated(unsafe) let value = value
    return Self.table(table) { table in
      var columns = table["columns"] as! [Object]
      columns[column][key] = value
      table["columns"] = columns
    }
  }

  private static func field(_ index: Int, _ key: String, _ value: Any?) -> @Sendable (inout Object) -> Void {
    nonisolated(unsafe) let value = value
    return { document in
      var fields = document["fields"] as! [Object]
      fields[index][key] = value
      document["fields"] = fields
    }
  }

  private static func rule(_ index: Int, _ key: String, _ value: Any?) -> @Sendable (inout Object) -> Void {
    nonisolated(unsafe) let value = value
    return { document in
      var rules = document["rules"] as! [Object]
      rules[index][key] = value
      document["rules"] = rules
    }
  }

  static let mistakes: [Mistake] = [
    Mistake(
      description: "a misspelt key", expected: ["'fields[0].nulable'", "unknown key"], change: field(0, "nulable", true)
    ),
    Mistake(
      description: "an unknown type", expected: ["'fields[1].type'", "unknown type 'int'"],
      change: field(1, "type", "int")),
    Mistake(
      description: "a type's key on another type", expected: ["'fields[0].scale'", "decimal"],
      change: field(0, "scale", 2)),
    Mistake(
      description: "a decimal without scale", expected: ["'fields[1].scale'"], change: field(1, "type", "decimal")),
    Mistake(
      description: "a bad date format", expected: ["'fields[4].formats[0]'"], change: field(4, "formats", ["nonsense"])),
    Mistake(
      description: "an enum naming no lookup", expected: ["'fields[3].lookup'", "no lookup table"],
      change: field(3, "lookup", "statuses")),
    Mistake(
      description: "a field declared twice", expected: ["'fields[1].name'", "twice"],
      change: field(1, "name", "orderId")),
    Mistake(
      description: "a column naming no field", expected: ["'tables[1].columns[3].field'", "no field 'statsu'"],
      change: column(1, 3, "field", "statsu")),
    Mistake(
      description: "a column path ending in a lone escape", expected: ["'tables[1].columns[3].field'", "not a path"],
      change: column(1, 3, "field", "status\\")),
    Mistake(
      description: "a dotted path with escaped dots names one key",
      expected: ["'tables[0].columns[0].field'", "no field 'customer.id'"],
      change: column(0, 0, "field", "customer\\.id")),
    Mistake(
      description: "a column holding an object", expected: ["'tables[0].columns[0].field'", "an object"],
      change: column(0, 0, "field", "customer")),
    Mistake(
      description: "a column through an array", expected: ["'tables[1].columns[0].field'", "an array"],
      change: column(1, 0, "field", "items.sku")),
    Mistake(
      description: "a column type the field cannot make", expected: ["'tables[1].columns[1].type'", "integer"],
      change: column(1, 1, "type", "text")),
    Mistake(
      description: "a reference to nothing", expected: ["'tables[1].columns[5].references'", "no table 'clients'"],
      change: column(1, 5, "references", "clients")),
    Mistake(
      description: "a reference to another dataset that does not exist",
      expected: ["'tables[1].columns[5].references'", "no table 'customers' in the dataset 'crm'"],
      change: column(1, 5, "references", ["dataset": "crm", "table": "customers"])),
    Mistake(
      description: "a reference of another type", expected: ["'tables[1].columns[5].field'", "the key of customers"],
      change: column(1, 5, "field", "currency")),
    Mistake(
      description: "a key naming no column", expected: ["'tables[1].key[0]'", "no column id"],
      change: table(1) { $0["key"] = ["id"] }),
    Mistake(
      description: "a parent declared later", expected: ["'tables[2].parent'", "no table 'order'"],
      change: table(2) { $0["parent"] = "order" }),
    Mistake(
      description: "a child over a field that is not an array", expected: ["'tables[2].field'", "not an array"],
      change: table(2) { $0["field"] = "currency" }),
    Mistake(
      description: "a position that is a parent key", expected: ["'tables[2].position'", "key column"],
      change: table(2) { $0["position"] = "order_id" }),
    Mistake(
      description: "a table name that is not SQL", expected: ["'tables[0].name'", "plain SQL name"],
      change: table(0) { $0["name"] = "customer list" }),
    Mistake(
      description: "a store's own table name", expected: ["'tables[0].name'", "sluice_"],
      change: table(0) { $0["name"] = "sluice_runs" }),
    Mistake(
      description: "a table declared twice", expected: ["'tables[1].name'", "twice"],
      change: table(1) { $0["name"] = "customers" }),
    Mistake(
      description: "an index on no column", expected: ["'tables[1].indexes[0].columns[0]'", "no column"],
      change: table(1) { $0["indexes"] = [["name": "by_x", "columns": ["x"]]] }),
    Mistake(
      description: "a check of two kinds", expected: ["'tables[1].columns[2].checks[0]'", "one of"],
      change: column(1, 2, "checks", [["length": 3, "atLeast": 1]])),
    Mistake(
      description: "a rule path that is not there", expected: ["'rules[0].field'", "no field"],
      change: rule(0, "field", "order")),
    Mistake(
      description: "[] after a scalar", expected: ["'rules[0].field'", "not an array"],
      change: rule(0, "field", "orderId[]")),
    Mistake(
      description: "an unknown check", expected: ["'rules[0].check'", "unknown check"],
      change: rule(0, "check", "isBlank")),
    Mistake(
      description: "a check on the wrong type", expected: ["'rules[3].check'", "numbers"],
      change: rule(3, "field", "items[].sku")),
    Mistake(
      description: "a pattern that is not one", expected: ["'rules[1].pattern'", "regular expression"],
      change: rule(1, "pattern", "([A-Z")),
    Mistake(
      description: "a lookup id given twice", expected: ["'lookups[0].values[1].id'", "twice"],
      change: { document in
        var lookups = document["lookups"] as! [Object]
        var values = lookups[0]["values"] as! [Object]
        values[1]["id"] = 1
        lookups[0]["values"] = values
        document["lookups"] = lookups
      }),
    Mistake(
      description: "a lookup value missing a column", expected: ["'lookups[0].values[0].columns.is_final'"],
      change: { document in
        var lookups = document["lookups"] as! [Object]
        var values = lookups[0]["values"] as! [Object]
        values[0]["columns"] = [String: Any]()
        lookups[0]["values"] = values
        document["lookups"] = lookups
      }),
    Mistake(description: "no tables", expected: ["'tables'", "at least one"], change: { $0["tables"] = [Object]() }),
    Mistake(description: "a missing name", expected: ["'name'", "missing"], change: { $0["name"] = nil }),
  ]

  private static func lookup(_ change: @escaping @Sendable (inout Object) -> Void) -> @Sendable (inout Object) -> Void {
    { document in
      var lookups = document["lookups"] as! [Object]
      change(&lookups[0])
      document["lookups"] = lookups
    }
  }

  /// Renames a column, keeping the field it holds (a column's field defaults to its name).
  private static func rename(_ table: Int, _ column: Int, to name: String) -> @Sendable (inout Object) -> Void {
    Self.table(table) { table in
      var columns = table["columns"] as! [Object]
      columns[column]["field"] = columns[column]["field"] ?? columns[column]["name"]
      columns[column]["name"] = name
      table["columns"] = columns
    }
  }

  /// Adds a nullable integer column to the lookup.
  private static func lookupColumn(_ name: String) -> @Sendable (inout Object) -> Void {
    lookup { lookup in
      lookup["columns"] = (lookup["columns"] as! [Object]) + [["name": name, "type": "integer", "nullable": true]]
    }
  }

  private static func index(_ table: Int, _ name: String) -> @Sendable (inout Object) -> Void {
    Self.table(table) { $0["indexes"] = [["name": name, "columns": [table == 2 ? "sku" : "customer_id"]]] }
  }

  /// Issue 55, finding 7: files SQLite or PostgreSQL would refuse with a raw SQL error after the
  /// run began (names that differ only in case, PostgreSQL's system columns), and checks no value
  /// can pass. Each is refused by the builder, the same for every store, at its JSON path.
  static let storeMistakes: [Mistake] = [
    Mistake(
      description: "two tables that differ only in case", expected: ["'tables[2].name'", "'tables[1].name'", "case"],
      change: table(2) { $0["name"] = "Orders" }),
    Mistake(
      description: "a table named like a lookup in another case",
      expected: ["'tables[2].name'", "'lookups[0].table'", "case"],
      change: table(2) { $0["name"] = "Order_Statuses" }),
    Mistake(
      description: "an index named like its table", expected: ["'tables[1].indexes[0].name'", "'tables[1].name'"],
      change: index(1, "orders")),
    Mistake(
      description: "an index named like its table in another case",
      expected: ["'tables[1].indexes[0].name'", "'tables[1].name'", "case"], change: index(1, "ORDERS")),
    Mistake(
      description: "an index named like a lookup", expected: ["'tables[1].indexes[0].name'", "'lookups[0].table'"],
      change: index(1, "order_statuses")),
    Mistake(
      description: "an index named like another table's index",
      expected: ["'tables[2].indexes[0].name'", "'tables[1].indexes[0].name'"],
      change: index(2, "Orders_By_Customer")),
    Mistake(
      description: "two columns that differ only in case", expected: ["'tables[1].columns[1].name'", "order_id"],
      change: rename(1, 1, to: "ORDER_ID")),
    Mistake(
      description: "a position named like its parent's key in another case",
      expected: ["'tables[2].position'", "order_id"], change: table(2) { $0["position"] = "Order_ID" }),
    Mistake(
      description: "a child's column named like its position in another case",
      expected: ["'tables[2].columns[0].name'", "line"], change: rename(2, 0, to: "LINE")),
    Mistake(
      description: "a child's column named like its inherited key in another case",
      expected: ["'tables[2].columns[0].name'", "order_id"], change: rename(2, 0, to: "Order_Id")),
    Mistake(
      description: "a lookup column named like its id in another case",
      expected: ["'lookups[0].columns[1].name'", "id"],
      change: lookupColumn("ID")),
    Mistake(
      description: "PostgreSQL's xmin as a column", expected: ["'tables[1].columns[1].name'", "system column"],
      change: rename(1, 1, to: "xmin")),
    Mistake(
      description: "PostgreSQL's ctid as a column", expected: ["'tables[0].columns[1].name'", "system column"],
      change: rename(0, 1, to: "ctid")),
    Mistake(
      description: "PostgreSQL's tableoid as a column", expected: ["'tables[1].columns[2].name'", "system column"],
      change: rename(1, 2, to: "tableoid")),
    Mistake(
      description: "PostgreSQL's cmax as a position", expected: ["'tables[2].position'", "system column"],
      change: table(2) { $0["position"] = "cmax" }),
    Mistake(
      description: "PostgreSQL's oid as a lookup column", expected: ["'lookups[0].columns[1].name'", "system column"],
      change: lookupColumn("oid")),
    Mistake(
      description: "a negative length check", expected: ["'tables[1].columns[2].checks[0]'", "length"],
      change: column(1, 2, "checks", [["length": -1]])),
    Mistake(
      description: "an empty oneOf check", expected: ["'tables[1].columns[2].checks[0]'", "oneOf"],
      change: column(1, 2, "checks", [["oneOf": [String]()]])),
    Mistake(
      description: "atLeast above atMost", expected: ["'tables[2].columns[1].checks[1]'", "no value"],
      change: column(2, 1, "checks", [["atLeast": 5], ["atMost": 1]])),
    Mistake(
      description: "a length of 0 that must not be empty", expected: ["'tables[1].columns[2].checks[1]'", "no value"],
      change: column(1, 2, "checks", [["length": 0], ["notEmpty": true]])),
    Mistake(
      description: "a range rule whose min is above its max", expected: ["'rules[3].min'", "no value"],
      change: rule(3, "max", 0)),
    Mistake(
      description: "a length rule whose min is above its max", expected: ["'rules[2].min'", "no value"],
      change: rule(2, "max", 0)),
  ]

  @Test(arguments: storeMistakes)
  func aFileOneStoreWouldRefuseIsRefusedAtItsJSONPathForEveryStore(_ mistake: Mistake) throws {
    try aMistakeIsRefusedAtItsJSONPath(mistake)
  }

  /// A table of more columns than a table may have is refused before its columns are looked at:
  /// 40,000 of them took 8.5 s to be refused, one by one against all the earlier ones.
  @Test func aTableOfTooManyColumnsIsRefusedBeforeItsColumnsAreRead() throws {
    let scratch = try TemporaryDirectory()
    let path = try write(
      Self.table(1) { table in
        table["columns"] = (0..<65).map { ["name": "c\($0)", "field": "nothing"] }
      }, in: scratch)
    do {
      _ = try DatasetFile.load(path)
      Issue.record("a table of 65 columns was accepted")
    } catch {
      #expect(error.message.hasPrefix("'tables[1].columns': "), "\(error.message)")
      #expect(error.message.contains("at most 64 columns"), "\(error.message)")
    }
  }

  private func write(_ change: (inout Object) -> Void, in scratch: TemporaryDirectory) throws -> String {
    let example = Repository.path("Examples/datasets/orders.dataset.json")
    var document = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: example))) as? Object)
    change(&document)
    return try scratch.write("orders.dataset.json", [UInt8](try JSONSerialization.data(withJSONObject: document)))
  }

  @Test(arguments: mistakes)
  func aMistakeIsRefusedAtItsJSONPath(_ mistake: Mistake) throws {
    let scratch = try TemporaryDirectory()
    let path = try write(mistake.change, in: scratch)
    do {
      _ = try DatasetFile.load(path)
      Issue.record("\(mistake) was accepted")
    } catch {
      #expect(error.subject == "dataset file")
      #expect(error.path.hasSuffix("orders.dataset.json"))
      for part in mistake.expected { #expect(error.message.contains(part), "\(error.message)") }
    }
  }

  @Test func theExampleItselfLoads() throws {
    let scratch = try TemporaryDirectory()
    let dataset = try DatasetFile.load(try write({ _ in }, in: scratch))
    #expect(dataset.name == "orders")
    #expect(dataset.tables == ["customers", "orders", "order_items", "order_statuses"])
    #expect(dataset.rules.count == 7)
  }

  @Test func malformedJSONIsRefusedWithItsPlace() throws {
    let scratch = try TemporaryDirectory()
    let path = try scratch.write("broken.dataset.json", "{\"name\": \"x\",\n \"fields\": [}\n")
    #expect(throws: SpecError.self) { try DatasetFile.load(path) }
    do {
      _ = try DatasetFile.load(path)
    } catch {
      #expect(error.message.contains("not valid JSON"))
      #expect(error.message.contains("line 2"), "\(error.message)")
    }
  }

  @Test func filesThatReferenceEachOtherInACycleAreRefused() throws {
    let scratch = try TemporaryDirectory()
    func file(_ name: String, referencing other: String) -> String {
      """
      { "name": "\(name)", "fields": [{ "name": "id", "type": "text" }],
        "tables": [{ "name": "\(name)_rows", "key": ["id"],
          "columns": [{ "name": "id", "references": { "dataset": "\(other).dataset.json", "table": "\(other)_rows" } }] }] }
      """
    }
    _ = try scratch.write("a.dataset.json", file("a", referencing: "b"))
    _ = try scratch.write("b.dataset.json", file("b", referencing: "a"))
    #expect(throws: SpecError.self) { try DatasetFile.load(scratch.file("a.dataset.json")) }
  }
}
