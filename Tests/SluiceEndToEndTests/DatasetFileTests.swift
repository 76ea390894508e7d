import Foundation
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// Dataset files (docs/reference/dataset-files.md) loaded by the stock command line: every type,
/// tables at any depth, arrays of scalars, extensions, keyed collections, XML, references to a
/// catalog dataset's table, and the decode, validate and map issues of each declaration at its
/// field path.
@Suite("dataset files")
struct DatasetFileTests {
  /// Orders with a line's taxes two levels down, tags as scalars, an optional shipping object,
  /// money as decimal strings and numbers, dates in a pattern of their own, an enum without a
  /// lookup, and rules of every kind.
  static let shop = """
    {
      "name": "shop",
      "fields": [
        { "name": "id", "type": "text" },
        { "name": "total", "type": "decimal", "scale": 2 },
        { "name": "placed", "type": "timestamp", "formats": ["dd/MM/yyyy"] },
        { "name": "status", "type": "enum", "values": ["paid", "open"] },
        { "name": "note", "type": "text", "optional": true, "nullable": true },
        { "name": "tags", "type": "array", "items": { "type": "text" } },
        { "name": "shipping", "type": "object", "optional": true,
          "fields": [{ "name": "city", "type": "text" }, { "name": "zip", "type": "text" }] },
        { "name": "lines", "type": "array", "items": { "type": "object", "fields": [
          { "name": "sku", "type": "text" },
          { "name": "price", "type": "decimal", "scale": 2 },
          { "name": "taxes", "type": "array", "items": { "type": "object", "fields": [
            { "name": "kind", "type": "text" }, { "name": "rate", "type": "decimal", "scale": 4 }] } }
        ] } }
      ],
      "rules": [
        { "name": "tags are unique", "field": "tags[]", "check": "unique", "message": "repeats a tag" },
        { "name": "an order has lines", "field": "lines", "check": "length", "min": 1, "message": "must list a line" },
        { "name": "prices are at most 1000.00", "field": "lines[].price", "check": "range", "max": 1000,
          "code": "outOfRange", "message": "must be at most 1000.00" },
        { "name": "zip codes are digits", "field": "shipping.zip", "check": "pattern", "pattern": "^[0-9]+$",
          "message": "must be digits" },
        { "name": "tax kinds are known", "field": "lines[].taxes[].kind", "check": "oneOf", "values": ["vat", "eco"],
          "message": "must be vat or eco" }
      ],
      "tables": [
        { "name": "orders", "key": ["order_id"], "columns": [
          { "name": "order_id", "field": "id" }, { "name": "total_minor", "field": "total" },
          { "name": "placed" }, { "name": "status" }, { "name": "note" }] },
        { "name": "order_tags", "parent": "orders", "field": "tags", "position": "n",
          "columns": [{ "name": "tag", "field": "." }] },
        { "name": "shipping", "parent": "orders", "field": "shipping",
          "columns": [{ "name": "city" }, { "name": "zip" }] },
        { "name": "lines", "parent": "orders", "field": "lines", "position": "line", "firstPosition": 1,
          "columns": [{ "name": "sku" }, { "name": "price_minor", "field": "price" }] },
        { "name": "line_taxes", "parent": "lines", "field": "taxes", "position": "tax",
          "columns": [{ "name": "kind" }, { "name": "rate_units", "field": "rate" }] }
      ]
    }
    """

  static let tables = ["orders", "order_tags", "shipping", "lines", "line_taxes"]

  private func run(
    _ records: String, dataset: String = shop, format: String = "ndjson", recordPath: String? = nil,
    policy: String = "strict", in scratch: TemporaryDirectory
  ) throws -> (status: Int32, stderr: String, rows: DatabaseSnapshot, report: RunReport?) {
    _ = try scratch.write("shop.dataset.json", dataset)
    let input = try scratch.write("records.\(format)", records)
    var spec: [String: Any] = [
      "dataset": "shop.dataset.json", "input": input, "format": format, "policy": policy,
      "database": "shop.sqlite", "report": "report.json",
    ]
    if let recordPath { spec["recordPath"] = recordPath }
    let specPath = try scratch.write(
      "shop.json", String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self))
    let result = try SluiceCommand.run(["run", specPath])
    let report = try? RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("report.json"))))
    let tables = try JSONDatasetTables.names(in: dataset)
    return (result.status, result.stderr, try DatabaseSnapshot(of: scratch.file("shop.sqlite"), tables: tables), report)
  }

  @Test func everyTypeAndTablesThreeLevelsDeepLoadExactly() throws {
    let scratch = try TemporaryDirectory()
    let records = """
      {"id":"A1","total":"12.30","placed":"03/12/2026","status":"paid","note":null,"tags":["x","y"],"shipping":{"city":"Oslo","zip":"0150"},"lines":[{"sku":"S1","price":4.1,"taxes":[{"kind":"vat","rate":"0.25"}]},{"sku":"S2","price":"8.20","taxes":[]}]}
      {"id":"A2","total":5,"placed":"04/12/2026","status":"open","tags":[],"lines":[{"sku":"S3","price":5,"taxes":[{"kind":"vat","rate":0.1},{"kind":"eco","rate":0}]}]}

      """
    let result = try run(records, in: scratch)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.rows.tables["orders"] == [
        "'A1'|1230|'2026-12-03T00:00:00.000Z'|'paid'|NULL", "'A2'|500|'2026-12-04T00:00:00.000Z'|'open'|NULL",
      ])
    #expect(result.rows.tables["order_tags"] == ["'A1'|0|'x'", "'A1'|1|'y'"])
    #expect(result.rows.tables["shipping"] == ["'A1'|'Oslo'|'0150'"])
    #expect(result.rows.tables["lines"] == ["'A1'|1|'S1'|410", "'A1'|2|'S2'|820", "'A2'|1|'S3'|500"])
    #expect(
      result.rows.tables["line_taxes"] == ["'A1'|1|0|'vat'|2500", "'A2'|1|0|'vat'|1000", "'A2'|1|1|'eco'|0"])

    // A re-run of the same records changes nothing; a record that loses a line loses its taxes.
    let again = try run(records, in: scratch)
    #expect(again.rows == result.rows)
    let fewer = try run(
      """
      {"id":"A2","total":5,"placed":"04/12/2026","status":"open","tags":[],"lines":[{"sku":"S3","price":5,"taxes":[]}]}

      """, in: scratch)
    #expect(fewer.status == 0, "\(fewer.stderr)")
    #expect(fewer.rows.tables["line_taxes"] == ["'A1'|1|0|'vat'|2500"])
  }

  @Test func eachDeclarationsIssuesAreAtTheirFieldPaths() throws {
    let scratch = try TemporaryDirectory()
    let valid = #""placed":"03/12/2026","status":"paid","tags":["x"],"lines":[{"sku":"S","price":1,"taxes":[]}]"#
    let records = [
      #"{"id":"B1","total":"12.345","placed":"03/12/2026","status":"paid","tags":[],"lines":[{"sku":"S","price":1,"taxes":[]}]}"#,
      #"{"id":"B2","total":1,"placed":"2026-12-03","status":"paid","tags":[],"lines":[{"sku":"S","price":1,"taxes":[]}]}"#,
      #"{"id":"B3","total":1,"placed":"03/12/2026","status":"refunded","tags":[],"lines":[{"sku":"S","price":1,"taxes":[]}]}"#,
      #"{"id":"B4","total":1,"placed":"03/12/2026","status":"paid","tags":["a","b","a"],"lines":[{"sku":"S","price":1,"taxes":[]}]}"#,
      #"{"total":1,"# + valid + "}",
      #"{"id":"B6","total":1,"# + valid + #","shipping":{"city":"X","zip":"12a"}}"#,
      #"{"id":"B7","total":1,"placed":"03/12/2026","status":"paid","tags":[],"lines":[{"sku":"S","price":"1000.01","taxes":[{"kind":"tip","rate":1}]}]}"#,
      #"{"id":"B8","total":1,"placed":"03/12/2026","status":"paid","tags":[],"lines":[]}"#,
      #"{"id":"B9","total":"1e3","# + valid + "}",
      #"{"id":"B10","total":1,"note":"ok","# + valid + "}",
    ].joined(separator: "\n")
    let result = try run(records, policy: "lenient", in: scratch)
    let report = try #require(result.report, "\(result.stderr)")
    let issues = report.issues.map { "\($0.stage) \($0.code) \($0.path) line \($0.location?.line ?? 0)" }
    #expect(
      issues.sorted() == [
        "decode invalidDate placed line 2",
        "decode invalidValue total line 1",
        "decode invalidValue total line 9",
        "decode missingField id line 5",
        "map unsupportedEnumValue status line 3",
        "validate invalidValue lines line 8",
        "validate invalidValue lines[0].taxes[0].kind line 7",
        "validate invalidValue shipping.zip line 6",
        "validate invalidValue tags[2] line 4",
        "validate outOfRange lines[0].price line 7",
      ])
    #expect(result.rows.tables["orders"] == ["'B10'|100|'2026-12-03T00:00:00.000Z'|'paid'|'ok'"])
    #expect(!report.issues.contains { $0.message.contains("refunded") || $0.message.contains("12.345") })
  }

  @Test func optionalAndNullableAreDifferentPromises() throws {
    let scratch = try TemporaryDirectory()
    let dataset = """
      { "name": "notes",
        "fields": [{ "name": "id", "type": "integer" },
                   { "name": "maybe", "type": "text", "optional": true },
                   { "name": "blank", "type": "text", "nullable": true },
                   { "name": "either", "type": "boolean", "optional": true, "nullable": true }],
        "rules": [{ "name": "either is given", "field": "either", "check": "present", "message": "must be given" }],
        "tables": [{ "name": "notes", "key": ["id"], "columns": [
          { "name": "id" }, { "name": "maybe" }, { "name": "blank" }, { "name": "either" }] }] }
      """
    let records = """
      {"id":1,"blank":null,"either":true}
      {"id":2,"maybe":null,"blank":"b","either":false}
      {"id":3,"maybe":"m","either":true}
      {"id":4,"blank":"b"}
      {"id":5,"blank":"b","either":null}

      """
    let result = try run(records, dataset: dataset, policy: "lenient", in: scratch)
    let report = try #require(result.report, "\(result.stderr)")
    #expect(
      report.issues.map { "\($0.stage) \($0.code) \($0.path) line \($0.location?.line ?? 0)" }.sorted() == [
        "decode missingField blank line 3", "decode nullValue maybe line 2", "validate invalidValue either line 4",
        "validate invalidValue either line 5",
      ])
    #expect(result.rows.tables["notes"] == ["1|NULL|NULL|1"])
  }

  @Test func aKeyedCollectionsMemberNameIsAField() throws {
    let scratch = try TemporaryDirectory()
    let dataset = """
      { "name": "recipes",
        "fields": [{ "name": "id", "type": "text" }, { "name": "title", "type": "text" },
                   { "name": "ingredients", "type": "array", "items": { "type": "text" } }],
        "tables": [{ "name": "recipes", "key": ["recipe_id"], "columns": [{ "name": "recipe_id", "field": "id" }, { "name": "title" }] },
                   { "name": "ingredients", "parent": "recipes", "field": "ingredients", "position": "n",
                     "columns": [{ "name": "ingredient", "field": "." }] }] }
      """
    let records =
      #"{"recipes": {"05zE": {"title": "Soup", "ingredients": ["leek"]}, "x9": {"title": "Tea", "ingredients": []}}}"#
    let result = try run(records, dataset: dataset, format: "json", recordPath: "recipes{id}", in: scratch)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.rows.tables["recipes"] == ["'05zE'|'Soup'", "'x9'|'Tea'"])
    #expect(result.rows.tables["ingredients"] == ["'05zE'|0|'leek'"])
  }

  @Test func xmlRecordsLoadThroughTheSameDeclaration() throws {
    let scratch = try TemporaryDirectory()
    let fruits = try String(contentsOfFile: Repository.path("Examples/datasets/fruits.dataset.json"), encoding: .utf8)
    let xml = """
      <export><fruit fruitID="f1"><name>Apple</name><color>red</color>
        <recipes><title>Pie</title><description>Bake</description><videoTutorial>https://v.example/pie</videoTutorial></recipes>
        <recipes><title>Tart</title><description>Bake less</description><videoTutorial>http://v.example/t</videoTutorial></recipes>
      </fruit><fruit fruitID="f2"><name>Kiwi</name><color>green</color>
        <recipes><title>Jam</title><description>Boil</description><videoTutorial>https://v.example/j</videoTutorial></recipes>
      </fruit><fruit fruitID="f3"><name>Fig</name><color>purple</color></fruit></export>
      """
    // Fig has no recipes element: a required array that is missing, as for the Swift dataset.
    let result = try run(
      xml, dataset: fruits, format: "xml", recordPath: "export.fruit", policy: "lenient", in: scratch)
    #expect(result.status == 0, "\(result.stderr)")
    let rows = try DatabaseSnapshot(of: scratch.file("shop.sqlite"), tables: ["fruits", "recipes"])
    #expect(rows.tables["fruits"] == ["'f1'|'Apple'|'red'", "'f2'|'Kiwi'|'green'"])
    #expect(rows.count("recipes") == 3)
    #expect(result.report?.issues.map { "\($0.code) \($0.path)" } == ["missingField recipes"])

    // The Swift dataset reads the same XML into the same rows.
    let spec = try String(contentsOfFile: scratch.file("shop.json"), encoding: .utf8)
      .replacingOccurrences(of: "shop.dataset.json", with: "fruits")
      .replacingOccurrences(of: "shop.sqlite", with: "swift.sqlite")
    let swift = try SluiceCommand.run(["run", try scratch.write("swift.json", spec)])
    #expect(swift.status == 0, "\(swift.stderr)")
    #expect(try DatabaseSnapshot(of: scratch.file("swift.sqlite"), tables: ["fruits", "recipes"]) == rows)
  }

  @Test func aColumnReferencesACatalogDatasetsTable() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write(
      "notes.dataset.json",
      """
      { "name": "device-notes",
        "fields": [{ "name": "id", "type": "integer" }, { "name": "device", "type": "text" }, { "name": "text", "type": "text" }],
        "tables": [{ "name": "device_notes", "key": ["note_id"], "columns": [
          { "name": "note_id", "field": "id" },
          { "name": "device_id", "field": "device", "references": { "dataset": "devices", "table": "devices" } },
          { "name": "text" }] }] }
      """)
    let notes = try scratch.write(
      "notes.ndjson",
      "{\"id\":1,\"device\":\"dev-0001\",\"text\":\"ok\"}\n{\"id\":2,\"device\":\"dev-9999\",\"text\":\"lost\"}\n")
    let spec = try scratch.write(
      "devices.json",
      """
      { "inputs": [
          { "dataset": "devices", "input": "\(Repository.path("SampleData/devices/devices.json"))", "format": "json" },
          { "dataset": "notes.dataset.json", "input": "\(notes)", "format": "ndjson" }],
        "policy": "lenient", "database": "devices.sqlite", "report": "report.json" }
      """)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 0, "\(result.stderr)")
    let rows = try DatabaseSnapshot(of: scratch.file("devices.sqlite"), tables: ["device_notes"])
    #expect(rows.tables["device_notes"] == ["1|'dev-0001'|'ok'"])
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("report.json"))))
    #expect(report.issues.map { "\($0.stage) \($0.code) \($0.path)" } == ["load orphanReference device"])
  }
}

/// The table names a dataset file declares, for snapshots.
enum JSONDatasetTables {
  static func names(in dataset: String) throws -> [String] {
    let object = try JSONSerialization.jsonObject(with: Data(dataset.utf8)) as? [String: Any]
    let tables = object?["tables"] as? [[String: Any]] ?? []
    return tables.compactMap { $0["name"] as? String }
  }
}

@Suite("a dataset file with a mistake on the command line")
struct DatasetFileMistakeCommandTests {
  @Test func itIsRefusedWithExit64BeforeAnyInputIsOpened() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write(
      "bad.dataset.json",
      #"{ "name": "bad", "fields": [{ "name": "id", "type": "uuid" }], "tables": [{ "name": "t", "key": ["id"], "columns": [{ "name": "id" }] }] }"#
    )
    let spec = try scratch.write(
      "bad.json",
      #"{ "dataset": "bad.dataset.json", "input": "missing.ndjson", "format": "ndjson", "database": "bad.sqlite" }"#)
    for command in [
      ["run", spec], ["validate", spec], ["plan", spec], ["contract", scratch.file("bad.dataset.json")],
    ] {
      let result = try SluiceCommand.run(command)
      #expect(result.status == 64, "\(command[0]): \(result.stderr)")
      #expect(result.stderr.contains("dataset file"), "\(command[0]): \(result.stderr)")
      #expect(result.stderr.contains("'fields[0].type': unknown type 'uuid'"), "\(command[0]): \(result.stderr)")
      #expect(!result.stderr.contains("missing.ndjson"))
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.file("bad.sqlite")))
  }
}

@Suite("dataset files that reference each other")
struct DatasetFileReferenceTests {
  @Test func aFileReferencesAnotherFilesTableAndOneRunLoadsBoth() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write(
      "stores.dataset.json",
      """
      { "name": "stores", "fields": [{ "name": "code", "type": "text" }, { "name": "city", "type": "text" }],
        "tables": [{ "name": "stores", "key": ["store_code"], "columns": [{ "name": "store_code", "field": "code" }, { "name": "city" }] }] }
      """)
    _ = try scratch.write(
      "sales.dataset.json",
      """
      { "name": "sales", "fields": [{ "name": "id", "type": "integer" }, { "name": "store", "type": "text" },
                                    { "name": "amount", "type": "decimal", "scale": 2 }],
        "tables": [{ "name": "sales", "key": ["sale_id"], "columns": [
          { "name": "sale_id", "field": "id" },
          { "name": "store_code", "field": "store", "references": { "dataset": "stores.dataset.json", "table": "stores" },
            "onDelete": "cascade" },
          { "name": "amount_minor", "field": "amount" }] }] }
      """)
    let stores = try scratch.write("stores.ndjson", "{\"code\":\"S1\",\"city\":\"Oslo\"}\n")
    let sales = try scratch.write("sales.ndjson", "{\"id\":1,\"store\":\"S1\",\"amount\":\"9.99\"}\n")
    let spec = try scratch.write(
      "all.json",
      """
      { "inputs": [{ "dataset": "stores.dataset.json", "input": "\(stores)", "format": "ndjson" },
                   { "dataset": "sales.dataset.json", "input": "\(sales)", "format": "ndjson" }],
        "database": "all.sqlite" }
      """)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 0, "\(result.stderr)")
    let rows = try DatabaseSnapshot(of: scratch.file("all.sqlite"), tables: ["stores", "sales"])
    #expect(rows.tables["stores"] == ["'S1'|'Oslo'"])
    #expect(rows.tables["sales"] == ["1|'S1'|999"])

    // Sales alone: the store must be in the table already (it is), and an unknown one is an orphan.
    let more = try scratch.write("more.ndjson", "{\"id\":2,\"store\":\"S9\",\"amount\":1}\n")
    let alone = try scratch.write(
      "sales.json",
      #"{ "dataset": "sales.dataset.json", "input": "\#(more)", "format": "ndjson", "database": "all.sqlite" }"#)
    let orphan = try SluiceCommand.run(["run", alone])
    #expect(orphan.status == 65, "\(orphan.stderr)")
    #expect(orphan.stderr.contains("orphanReference"))
  }
}

@Suite("dataset files: null elements")
struct DatasetFileNullElementTests {
  @Test func aNullElementOfAnArrayMakesNoRowAndThePositionsCloseUp() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write(
      "bags.dataset.json",
      """
      { "name": "bags", "fields": [{ "name": "id", "type": "integer" },
          { "name": "tags", "type": "array", "items": { "type": "text", "nullable": true } },
          { "name": "parts", "type": "array", "items": { "type": "object", "nullable": true, "fields": [{ "name": "n", "type": "integer" }] } }],
        "tables": [{ "name": "bags", "key": ["id"], "columns": [{ "name": "id" }] },
                   { "name": "bag_tags", "parent": "bags", "field": "tags", "position": "i", "columns": [{ "name": "tag", "field": "." }] },
                   { "name": "bag_parts", "parent": "bags", "field": "parts", "position": "j", "columns": [{ "name": "n" }] }] }
      """)
    let input = try scratch.write("bags.ndjson", #"{"id":1,"tags":["a",null,"b"],"parts":[null,{"n":7}]}"# + "\n")
    let spec = try scratch.write(
      "bags.json",
      #"{"dataset": "bags.dataset.json", "input": "\#(input)", "format": "ndjson", "database": "bags.sqlite"}"#)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 0, "\(result.stderr)")
    let rows = try DatabaseSnapshot(of: scratch.file("bags.sqlite"), tables: ["bag_tags", "bag_parts"])
    #expect(rows.tables["bag_tags"] == ["1|0|'a'", "1|1|'b'"])
    #expect(rows.tables["bag_parts"] == ["1|0|7"])
  }
}

@Suite("dataset files: records keyed by position")
struct DatasetFilePositionKeyTests {
  @Test func aTopLevelTableKeyedByTheRecordsPositionLoadsEveryRecordOnce() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write(
      "lines.dataset.json",
      """
      { "name": "lines", "fields": [{ "name": "text", "type": "text" }],
        "tables": [{ "name": "lines", "key": ["record_input", "record_position"],
          "columns": [{ "name": "record_input", "field": "$input" }, { "name": "record_position", "field": "$position" },
                      { "name": "text" }] }] }
      """)
    _ = try scratch.write("lines.json", #"[{"text":"a"},{"text":"a"},{"text":"b"}]"#)
    let spec = try scratch.write(
      "run.json", #"{"dataset": "lines.dataset.json", "input": "lines.json", "format": "json", "database": "l.sqlite"}"#
    )
    for _ in 0..<2 {
      let result = try SluiceCommand.run(["run", spec])
      #expect(result.status == 0, "\(result.stderr)")
    }
    let rows = try DatabaseSnapshot(of: scratch.file("l.sqlite"), tables: ["lines"])
    #expect(rows.tables["lines"] == ["'lines.json'|0|'a'", "'lines.json'|1|'a'", "'lines.json'|2|'b'"])
  }

  @Test func thePositionIsATopLevelTablesOnly() throws {
    let scratch = try TemporaryDirectory()
    let path = try scratch.write(
      "bad.dataset.json",
      """
      { "name": "bad", "fields": [{ "name": "id", "type": "text" }, { "name": "xs", "type": "array", "items": { "type": "text" } }],
        "tables": [{ "name": "bad", "key": ["id"], "columns": [{ "name": "id" }] },
                   { "name": "xs", "parent": "bad", "field": "xs", "position": "n", "columns": [{ "name": "at", "field": "$position" }] }] }
      """)
    #expect(throws: SpecError.self) { try DatasetFile.load(path) }
  }
}
