import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice init DUMP NAME --declarative`: the dataset file, spec and README it writes from small
/// dumps nested 1–4 deep, read back with `JSONSerialization` — the same tables as the Swift
/// route's, fields typed as its DTO types them — and the combinations it refuses.
@Suite("sluice init --declarative: a dataset file from a dump")
struct InitDeclarativeTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  /// What `init --declarative` wrote for `json` as `name`: the dataset file, the spec, the README.
  struct Written {
    var stdout: String
    var dataset: [String: Any]
    var spec: [String: Any]
    var readme: String

    var fields: [[String: Any]] { dataset["fields"] as? [[String: Any]] ?? [] }
    var tables: [[String: Any]] { dataset["tables"] as? [[String: Any]] ?? [] }
    func table(_ name: String) -> [String: Any]? { tables.first { $0["name"] as? String == name } }
    /// A table's columns as `name=field` (`name` alone when the field is the name).
    func columns(_ name: String) -> [String] {
      (table(name)?["columns"] as? [[String: Any]] ?? []).map { column in
        let name = column["name"] as? String ?? "?"
        return column["field"].map { "\(name)=\($0)" } ?? name
      }
    }
  }

  func initialize(_ json: String, _ name: String, _ extra: [String] = []) throws -> Written {
    let dump = try scratch.write("\(name).json", json)
    let directory = scratch.file(name)
    let result = try SluiceCommand.run(["init", dump, name, "--declarative", "--dir", directory] + extra)
    try #require(result.status == 0, "\(result.stderr)")
    func read(_ file: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)) }
    let files = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(Set(files) == ["\(name).dataset.json", "\(name).json", "README.md"])
    return Written(
      stdout: result.stdout,
      dataset: try #require(try JSONSerialization.jsonObject(with: read("\(name).dataset.json")) as? [String: Any]),
      spec: try #require(try JSONSerialization.jsonObject(with: read("\(name).json")) as? [String: Any]),
      readme: String(decoding: try read("README.md"), as: UTF8.self))
  }

  /// A field by name among `fields`, as a dictionary.
  func field(_ name: String, in fields: Any?) -> [String: Any]? {
    (fields as? [[String: Any]])?.first { $0["name"] as? String == name }
  }

  @Test(arguments: 1...4)
  func aDumpNestedAtAnyDepthDeclaresATableAndAnArrayFieldPerDepth(depth: Int) throws {
    let names = ["lines", "taxes", "parts", "notes"]
    var element = #"{"code": "x", "tags": ["a", "b"]}"#
    for level in stride(from: depth - 1, through: 1, by: -1) {
      element = #"{"code": "x", "tags": ["a"], "\#(names[level])": [\#(element), \#(element)]}"#
    }
    let records = (1...3).map { #"{"orderNo": "n\#($0)", "tags": ["t"], "lines": [\#(element), \#(element)]}"# }
    let written = try initialize("[" + records.joined(separator: ", ") + "]", "depth\(depth)")
    #expect(written.stdout.contains("(keyed by orderNo)"), "\(written.stdout)")
    #expect(written.dataset["name"] as? String == "depth\(depth)")

    // Tables: the records', then per depth the elements' and their tags', each under the one above.
    var expected: [(name: String, parent: String?, field: String?, position: String?)] = [
      ("depth\(depth)", nil, nil, nil)
    ]
    var parent = "depth\(depth)"
    for level in 0..<depth {
      let table = parent + "_" + names[level]
      let position = level == 0 ? "position" : ["", "tax", "part", "note"][level] + "_position"
      expected.append((table, parent, names[level], position))
      expected.append((table + "_tags", table, "tags", "tag_position"))
      parent = table
    }
    expected.insert(("depth\(depth)_tags", "depth\(depth)", "tags", "position"), at: 1)
    let tables = written.tables
    #expect(tables.map { $0["name"] as? String } == expected.map(\.name), "\(tables)")
    for (table, want) in zip(tables, expected) {
      #expect(table["parent"] as? String == want.parent, "\(want.name)")
      #expect(table["field"] as? String == want.field, "\(want.name)")
      #expect(table["position"] as? String == want.position, "\(want.name)")
    }
    #expect(tables[0]["key"] as? [String] == ["order_no"])
    #expect(written.columns("depth\(depth)") == ["order_no=orderNo"])
    #expect(written.columns("depth\(depth)_tags") == ["value=."])
    #expect(written.columns("depth\(depth)_lines") == ["code"])

    // Fields: `lines` is an array of objects holding `code`, `tags` and the next level's array.
    var fields: Any? = written.fields
    #expect(field("orderNo", in: fields)?["type"] as? String == "text")
    #expect((field("tags", in: fields)?["items"] as? [String: Any])?["type"] as? String == "text")
    for level in 0..<depth {
      let array = try #require(field(names[level], in: fields), "\(names[level])")
      #expect(array["type"] as? String == "array")
      let items = try #require(array["items"] as? [String: Any])
      #expect(items["type"] as? String == "object")
      fields = items["fields"]
      #expect(field("code", in: fields)?["type"] as? String == "text")
      #expect(field("tags", in: fields)?["type"] as? String == "array")
    }
    #expect((fields as? [[String: Any]])?.count == 2, "the deepest element has no further array")
  }

  @Test func fieldsAreTypedAsTheDTOTypesThemMissingIsOptionalAndNullIsNullable() throws {
    let json = """
      [{"id": 1, "name": "a", "price": 1.5, "paid": true, "at": "2024-01-02T10:00:00Z", "note": null,
        "mixed": 1, "ratio": 1, "customer": {"email": "a@x", "tier": 1}, "codes": [1, null]},
       {"id": 2, "name": "b", "price": 2, "paid": false, "at": "2024-01-03T10:00:00Z", "note": "n",
        "mixed": "one", "ratio": 0.5, "codes": []},
       {"id": 3, "price": 3, "paid": true, "at": "2024-01-04T10:00:00Z", "mixed": 2, "ratio": 2,
        "customer": {"email": null, "tier": 2}, "codes": [3]}]
      """
    let written = try initialize(json, "typed")
    func describe(_ name: String) -> String? {
      guard let field = field(name, in: written.fields) else { return nil }
      let flags = ["optional", "nullable"].filter { field[$0] as? Bool == true }
      return ([field["type"] as? String ?? "?"] + flags).joined(separator: " ")
    }
    #expect(describe("id") == "integer")
    #expect(describe("name") == "text optional")
    #expect(describe("price") == "number")
    #expect(describe("ratio") == "number")
    #expect(describe("paid") == "boolean")
    #expect(describe("at") == "timestamp")
    #expect(describe("note") == "text optional nullable")
    #expect(describe("customer") == "object optional")
    // No one type decodes it: kept whole as JSON text (issue 58), which the DTO of `inspect --swift` leaves out.
    #expect(describe("mixed") == "json")
    let customer = try #require(field("customer", in: written.fields))
    #expect(field("email", in: customer["fields"])?["nullable"] as? Bool == true)
    #expect(field("email", in: customer["fields"])?["optional"] == nil)
    let codes = try #require(field("codes", in: written.fields)?["items"] as? [String: Any])
    #expect(codes["type"] as? String == "integer" && codes["nullable"] as? Bool == true)

    // One table, its nested object flattened by path; its columns' nullability is the loader's to
    // derive from the fields along the path (an optional `customer` makes both nullable).
    #expect(written.tables.map { $0["name"] as? String } == ["typed", "typed_codes"])
    #expect(
      written.columns("typed") == [
        "id", "name", "price", "paid", "at", "note", "mixed", "ratio", "customer_email=customer.email",
        "customer_tier=customer.tier",
      ])
    let columns = try #require(written.table("typed")?["columns"] as? [[String: Any]])
    #expect(columns.allSatisfy { $0["nullable"] == nil })
  }

  @Test func aKeyedCollectionsMemberNameIsAFieldAndTheKey() throws {
    let json = """
      {"recipes": {"05zEp": {"title": "Soup", "steps": ["boil", "serve"]},
                   "9xQ2a": {"title": "Salad", "steps": ["cut"]}}}
      """
    // No --record-path: init infers the keyed collection, as the Swift route does.
    let written = try initialize(json, "recipes")
    #expect(written.spec["recordPath"] as? [String] == ["recipes{id}"])
    #expect(field("id", in: written.fields)?["type"] as? String == "text")
    #expect(written.tables.first?["key"] as? [String] == ["id"])
    #expect(written.columns("recipes") == ["title", "id"])
    #expect(written.columns("recipes_steps") == ["value=."])
    #expect(written.readme.contains("each a record with its member's name as the field `id`"), "\(written.readme)")
  }

  @Test func theSpecNamesTheFileAndTheDumpRelativeToTheFolderAndTheReadmeTheCommand() throws {
    let written = try initialize(#"{"data": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}]}"#, "stock")
    #expect(written.spec["dataset"] as? String == "stock.dataset.json")
    #expect(written.spec["input"] as? String == "../stock.json")
    #expect(written.spec["format"] as? String == "json")
    #expect(written.spec["recordPath"] as? [String] == ["data"])
    #expect((written.spec["policy"] as? [String: Any])?["preset"] as? String == "lenient")
    #expect((written.spec["policy"] as? [String: Any])?["maxRejectRate"] as? Double == 0.1)
    #expect(written.spec["database"] as? String == "stock.sqlite")
    #expect(written.stdout.contains("next: cd \(scratch.file("stock")) && sluice run stock.json"), "\(written.stdout)")
    // No id-like field: the records are keyed by their input and position, as the Swift
    // package keys them, so another input never replaces this one's rows (issue 58).
    #expect(written.tables.first?["key"] as? [String] == ["record_input", "record_position"])
    #expect(written.columns("stock") == ["record_input=$input", "record_position=$position", "sku", "qty"])
    let columns = try #require(written.tables.first?["columns"] as? [[String: Any]])
    #expect(columns.first?["field"] as? String == "$input")
    #expect(written.stdout.contains("(keyed by the record's input and its position there)"), "\(written.stdout)")
    let readme = written.readme
    #expect(readme.contains("`sluice run stock.json` loads the dump into `stock.sqlite`"), "\(readme)")
    #expect(readme.contains("Records: `data` (2 records)"), "\(readme)")
    #expect(readme.contains("so rows are keyed by the record's input (`record_input`"), "\(readme)")
    #expect(readme.contains("change `key` of `stock` in `stock.dataset.json`"), "\(readme)")
    #expect(readme.contains("- `stock`: record_input, record_position, sku, qty"), "\(readme)")
    #expect(readme.contains("run `sluice init` without `--declarative` for a Swift package"), "\(readme)")
  }

  /// What the format cannot declare: an object empty in every record (the format wants its
  /// fields) is left out, and the table of an array of such objects with it; the README says so.
  @Test func anAlwaysEmptyObjectIsLeftOutWithItsTable() throws {
    let json =
      #"[{"id": 1, "meta": {}, "marks": [{}, {}], "tags": ["a"]}, {"id": 2, "meta": {}, "marks": [], "tags": []}]"#
    let written = try initialize(json, "empty")
    #expect(written.fields.compactMap { $0["name"] as? String } == ["id", "tags"])
    #expect(written.tables.map { $0["name"] as? String } == ["empty", "empty_tags"])
    #expect(written.readme.contains("Not declared: `empty_marks`"), "\(written.readme)")
  }

  /// XML: an empty element (`<id></id>` beside `<id>7</id>`) decodes as nil, so it is nullable.
  @Test func anEmptyXMLElementIsNullable() throws {
    let dump = try scratch.write(
      "pages.xml", "<pages><page><id>1</id><title>A</title></page><page><id></id><title>B</title></page></pages>")
    let result = try SluiceCommand.run(["init", dump, "pages", "--declarative", "--dir", scratch.file("pages")])
    try #require(result.status == 0, "\(result.stderr)")
    let path = scratch.file("pages/pages.dataset.json")
    let dataset = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    let id = try #require(field("id", in: dataset["fields"]))
    #expect(id["type"] as? String == "integer" && id["nullable"] as? Bool == true && id["optional"] == nil)
  }

  @Test func aDirectoryThatIsNotEmptyIsRefusedUnlessForced() throws {
    let dump = try scratch.write("shop.json", #"[{"id": 1}]"#)
    let directory = scratch.file("taken")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let keep = try scratch.write("taken/notes.txt", "mine")
    let refused = try SluiceCommand.run(["init", dump, "shop", "--declarative", "--dir", directory])
    #expect(refused.status == 73, "\(refused.stderr)")
    #expect(refused.stderr.contains("\(directory) is not empty"), "\(refused.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("taken/shop.dataset.json")))
    let forced = try SluiceCommand.run(["init", dump, "shop", "--declarative", "--dir", directory, "--force"])
    #expect(forced.status == 0, "\(forced.stderr)")
    #expect(FileManager.default.fileExists(atPath: scratch.file("taken/shop.dataset.json")))
    #expect(try String(contentsOfFile: keep, encoding: .utf8) == "mine")
  }

  @Test func sluiceWithDeclarativeIsAUsageError() throws {
    let dump = try scratch.write("shop.json", #"[{"id": 1}]"#)
    let result = try SluiceCommand.run([
      "init", dump, "shop", "--declarative", "--sluice", Repository.root, "--dir", scratch.file("shop"),
    ])
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("--declarative writes no package"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("shop")))
  }

  @Test func theFileIsWrittenTheSameEveryTimeAFieldOrColumnPerLine() throws {
    let json = #"[{"id": "a", "customer": {"name": "x"}, "items": [{"sku": "s", "qty": 1}]}]"#
    let dump = try scratch.write("same.json", json)
    var texts: [String] = []
    for directory in ["one", "two"] {
      let result = try SluiceCommand.run(["init", dump, "same", "--declarative", "--dir", scratch.file(directory)])
      try #require(result.status == 0, "\(result.stderr)")
      texts.append(try String(contentsOfFile: scratch.file("\(directory)/same.dataset.json"), encoding: .utf8))
    }
    #expect(texts[0] == texts[1])
    let lines = texts[0].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(lines.first == "{" && lines[1] == #""name": "same","#)
    #expect(lines.contains(#"{ "name": "id", "type": "text" },"#), "\(texts[0])")
    #expect(lines.contains(#"{ "name": "sku", "type": "text" },"#), "\(texts[0])")
    #expect(lines.contains(#"{ "name": "customer_name", "field": "customer.name" }"#), "\(texts[0])")
  }
}
