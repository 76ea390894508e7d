import Foundation
import FoundationXML
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice init DUMP NAME --declarative` then `sluice run NAME.json` on the real dumps the init
/// tests and `.ci/run` use: every record is loaded, and every table has as many rows as the dump
/// has records, or elements in the arrays (at any depth) the table holds — counted here with
/// Foundation's own parsers (`JSONSerialization`, `XMLParser`), not Sluice's readers.
@Suite("sluice init --declarative, then sluice run: every record and element loaded")
struct InitDeclarativeRunTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var dump: String
    var name: String
    var extra: [String] = []
    var testDescription: String { name }
  }

  static let corpus = Repository.path("Tests/Corpus")
  static let cases =
    [
      Case(dump: corpus + "/products-orders/shopify/orders.json", name: "shopify-orders"),
      Case(dump: corpus + "/products-orders/shopify/draft_orders.json", name: "shopify-draft-orders"),
      Case(
        dump: corpus + "/products-orders/openfoodfacts/openfoodfacts-products-first200.jsonl.gz",
        name: "open-food-facts"),
      Case(dump: corpus + "/xml-legacy/osm/planet_10.068_48.135_10.071_48.137.osm", name: "osm-nodes"),
      Case(
        dump: corpus + "/xml-legacy/mediawiki/mwtest_current_pages.xml", name: "wiki-pages",
        extra: ["--record-path", "mediawiki.page"]),
      Case(dump: corpus + "/xml-legacy/stackexchange-conlang-meta/Posts.xml", name: "conlang-posts"),
      Case(dump: Repository.path("SampleData/fruits.json.gz"), name: "fruits"),
      Case(dump: Repository.path("SampleData/orders.json.gz"), name: "orders"),
    ] + others

  /// The corpus's other real dumps, each as `init` finds its records: Shopify's other resources,
  /// every Stack Exchange file, the other OpenStreetMap extracts.
  static let others: [Case] =
    [
      (
        "products-orders/shopify", ["checkouts", "customer", "order", "product", "products", "refund", "transactions"],
        "json"
      ),
      (
        "xml-legacy/stackexchange-conlang-meta",
        ["Badges", "Comments", "PostHistory", "PostLinks", "Tags", "Users", "Votes"], "xml"
      ),
      ("xml-legacy/stackexchange-coffee-2015", ["Posts"], "xml"),
      ("xml-legacy/stackexchange-datascience-meta-2024", ["Posts"], "xml"),
      ("xml-legacy/stackexchange-matheducators-2014", ["Posts"], "xml"),
    ].flatMap { folder, names, suffix in
      names.map { name in
        Case(
          dump: "\(corpus)/\(folder)/\(name).\(suffix)",
          name: "\(folder.split(separator: "/").last ?? "")-\(name)".lowercased())
      }
    } + [
      Case(dump: corpus + "/xml-legacy/osm/West-Oakland.osm", name: "osm-west-oakland"),
      Case(dump: corpus + "/xml-legacy/osm/overpass-response-3.json.gz", name: "osm-overpass"),
    ]

  @Test(arguments: cases)
  func eachTableHoldsAsManyRowsAsTheDumpHasRecordsOrElements(_ check: Case) throws {
    let scratch = try TemporaryDirectory()
    try load(check.dump, check.name, check.extra, in: scratch)
  }

  /// A collection keyed by id (`recipes{id}`, inferred): the member names are the key.
  @Test func aKeyedCollectionLoadsEachMemberAsARecord() throws {
    let scratch = try TemporaryDirectory()
    let dump = try scratch.write(
      "recipes.json",
      """
      {"recipes": {"05zEp": {"title": "Soup", "steps": ["boil", "serve"], "tags": [{"name": "hot"}]},
                   "9xQ2a": {"title": "Salad", "steps": ["cut"], "tags": []},
                   "k1Lm3": {"title": "Tea", "steps": [], "tags": [{"name": "hot"}, {"name": "quick"}]}}}
      """)
    let database = try load(dump, "recipes", [], in: scratch)
    let ids = try SQLiteConnection(path: database, options: .init(readOnly: true))
      .prepare("SELECT group_concat(id, ',') FROM (SELECT id FROM recipes ORDER BY id)")
    #expect(try ids.step())
    #expect(ids.columnText(0) == "05zEp,9xQ2a,k1Lm3")
  }

  /// A null element of an array is no row, in the Swift package (`for case let x?`) as in the
  /// dataset file: neither of scalars nor of objects (a row of NULLs would reject the record).
  @Test func aNullElementOfAnArrayIsNoRow() throws {
    let scratch = try TemporaryDirectory()
    let dump = try scratch.write(
      "nulls.json", #"[{"id": 1, "codes": [1, null, 2], "parts": [{"a": 1}, null]}, {"id": 2, "codes": [null]}]"#)
    try load(dump, "nulls", [], in: scratch)
  }

  /// Records without an id-like field are keyed by their input and position (`"$input"`,
  /// `"$position"`), as the Swift package keys them: two equal records are two rows, and a
  /// second run changes nothing. The input is named as the spec names it, `../stock.json`.
  @Test func recordsWithoutAnIdAreKeyedByTheirInputAndPosition() throws {
    let scratch = try TemporaryDirectory()
    let dump = try scratch.write(
      "stock.json", #"{"data": [{"sku": "a", "qty": 1}, {"sku": "a", "qty": 1}, {"sku": "b", "lots": [{"n": 2}]}]}"#)
    let database = try load(dump, "stock", [], in: scratch)
    let again = try SluiceCommand.run(["run", scratch.file("stock/stock.json")])
    #expect(again.status == 0, "\(again.stderr)")
    let rows = try DatabaseSnapshot(of: database, tables: ["stock", "stock_lots"])
    #expect(
      rows.tables["stock"] == ["'../stock.json'|0|'a'|1", "'../stock.json'|1|'a'|1", "'../stock.json'|2|'b'|NULL"])
    #expect(rows.tables["stock_lots"] == ["'../stock.json'|2|0|2"])
  }

  /// Inits and runs `dump`, then checks each table's rows against the dump; returns the database.
  @discardableResult
  func load(_ dump: String, _ name: String, _ extra: [String], in scratch: TemporaryDirectory) throws -> String {
    let directory = scratch.file(name)
    let initialized = try SluiceCommand.run(["init", dump, name, "--declarative", "--dir", directory] + extra)
    try #require(initialized.status == 0, "\(initialized.stderr)")
    let spec = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name).json")))
        as? [String: Any])
    let run = try SluiceCommand.run(["run", "\(directory)/\(name).json"])
    try #require(run.status == 0, "\(name): \(run.stderr)")
    let database = "\(directory)/\(name).sqlite"
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
    let dataset = try #require(
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name).dataset.json"))) as? [String: Any])
    let tables = try #require(dataset["tables"] as? [[String: Any]])
    let records = try DumpTree.records(
      of: dump, format: spec["format"] as? String ?? "", recordPath: spec["recordPath"] as? [String] ?? [])
    #expect(!records.isEmpty)
    // Each table's values in the dump: the records, or the elements of arrays inside them.
    var values: [String: [DumpTree]] = [:]
    for table in tables {
      let tableName = try #require(table["name"] as? String)
      var rows = records
      if let parent = table["parent"] as? String {
        let field = table["field"] as? String ?? ""
        let holders = values[parent] ?? []
        rows =
          table["position"] == nil
          ? holders.compactMap { $0.value(at: field) } : holders.flatMap { $0.elements(at: field) }
      }
      values[tableName] = rows
      let count = try connection.scalarInt("SELECT count(*) FROM \"\(tableName)\"")
      #expect(count == Int64(rows.count), "\(name): \(tableName)")
    }
    return database
  }
}

/// A dump's value as Foundation's parsers read it: JSON as `JSONSerialization` gives it; an XML
/// element as its attributes and child elements (a child named twice is an array of them).
enum DumpTree {
  case json(Any)
  case xml(XMLTree)

  /// The value at a dotted path of object keys ("" is this value), or nil when missing or null.
  func value(at path: String) -> DumpTree? { value(along: Self.keys(path)) }

  /// The value along `keys`, or nil when missing or null.
  func value(along keys: [String]) -> DumpTree? {
    var current = self
    for key in keys {
      switch current {
      case .json(let value):
        guard let next = (value as? [String: Any])?[key], !(next is NSNull) else { return nil }
        current = .json(next)
      case .xml(let element):
        guard let child = element.children.first(where: { $0.name == key }) else { return nil }
        current = .xml(child)
      }
    }
    return current
  }

  /// The non-null elements of the array at a dotted path: a table's rows. In XML, every child
  /// element of the last key's name (the decoder reads one as an array of one).
  func elements(at path: String) -> [DumpTree] {
    // `.`: this value is itself the array (the inner arrays of an array of arrays).
    if path == ".", case .json(let value) = self {
      return (value as? [Any] ?? []).filter { !($0 is NSNull) }.map { .json($0) }
    }
    var keys = Self.keys(path)
    let last = keys.removeLast()
    guard let holder = value(along: keys) else { return [] }
    switch holder {
    case .json(let value):
      let array = (value as? [String: Any])?[last] as? [Any] ?? []
      return array.filter { !($0 is NSNull) }.map { .json($0) }
    case .xml(let element):
      return element.children.filter { $0.name == last }.map { .xml($0) }
    }
  }

  /// A dotted path's keys, a `\` making the next character part of the key (`a\.b` is `a.b`).
  static func keys(_ path: String) -> [String] {
    var keys = [""]
    var escaped = false
    for character in path {
      if escaped {
        keys[keys.count - 1].append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "." {
        keys.append("")
      } else {
        keys[keys.count - 1].append(character)
      }
    }
    return path.isEmpty ? [] : keys
  }

  /// The records at a spec's record path: JSON (a keyed collection's members with their names
  /// added), NDJSON lines, or XML elements.
  static func records(of dump: String, format: String, recordPath: [String]) throws -> [DumpTree] {
    var data = try Data(contentsOf: URL(fileURLWithPath: dump))
    if dump.hasSuffix(".gz") { data = try gunzip(dump) }
    switch format {
    case "ndjson":
      return try data.split(separator: UInt8(ascii: "\n")).filter { !$0.isEmpty }.map {
        .json(try JSONSerialization.jsonObject(with: Data($0)))
      }
    case "xml":
      let root = try XMLTree.parse(data)
      guard root.name == recordPath.first else { return [] }
      var holders = [root]
      for key in recordPath.dropFirst() { holders = holders.flatMap { $0.children.filter { $0.name == key } } }
      return holders.map { .xml($0) }
    default:
      var value: Any = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
      for key in recordPath {
        if let keyed = KeyedCollection(key) {
          if !keyed.key.isEmpty { value = (value as? [String: Any])?[keyed.key] ?? [:] }
          return (value as? [String: Any] ?? [:]).map { member, record in
            var record = record as? [String: Any] ?? [:]
            record[keyed.field] = member
            return .json(record)
          }
        }
        value = (value as? [String: Any])?[key] ?? []
      }
      return (value as? [Any] ?? []).map { .json($0) }
    }
  }

  private static func gunzip(_ path: String) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["gzip", "-dc", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
  }
}

/// An XML element as Foundation's `XMLParser` reads it: its local name and child elements.
final class XMLTree {
  let name: String
  var children: [XMLTree] = []

  init(name: String) { self.name = name }

  static func parse(_ data: Data) throws -> XMLTree {
    let parser = XMLParser(data: data)
    parser.shouldProcessNamespaces = true
    let builder = Builder()
    parser.delegate = builder
    guard parser.parse(), let root = builder.root else { throw XMLElements.ParseFailure(path: "dump") }
    return root
  }

  private final class Builder: NSObject, XMLParserDelegate {
    var root: XMLTree?
    var stack: [XMLTree] = []

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      let element = XMLTree(name: elementName)
      if let parent = stack.last { parent.children.append(element) } else { root = element }
      stack.append(element)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
      stack.removeLast()
    }
  }
}
