import Foundation
import FoundationXML
@_spi(Internals) import SluiceCore
import SluiceInspect
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice init DUMP NAME` through the command line: the package it writes for a real dump (the
/// Shopify orders sample of the corpus; an OpenStreetMap extract and a MediaWiki export, for
/// XML), and what it refuses. Building and running the package takes minutes: `.ci/run` does
/// it, on three corpus dumps.
@Suite("sluice init: a dataset package from a dump")
struct InitCommandTests {
  static let dump = Repository.path("Tests/Corpus/products-orders/shopify/orders.json")
  static let osmDump = Repository.path("Tests/Corpus/xml-legacy/osm/planet_10.068_48.135_10.071_48.137.osm")
  static let wikiDump = Repository.path("Tests/Corpus/xml-legacy/mediawiki/mwtest_current_pages.xml")

  @Test func writesAPackageWhoseDTODatasetSpecAndFixtureComeFromTheDump() throws {
    let scratch = try TemporaryDirectory()
    let directory = scratch.file("shop")
    let result = try SluiceCommand.run(["init", Self.dump, "shopify-orders", "--dir", directory])
    try #require(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("shopify-orders: 1 record(s) → 10 tables: shopify_orders, "), "\(result.stdout)")
    #expect(result.stdout.contains("(keyed by id)"))
    let files = try FileManager.default.subpathsOfDirectory(atPath: directory).filter { !$0.hasSuffix("/") }
    #expect(
      Set(files).isSuperset(of: [
        "Package.swift", "README.md", "Pipelines/shopify-orders.json",
        "Sources/shopify-orders-sluice/ShopifyOrdersDTO.swift",
        "Sources/shopify-orders-sluice/ShopifyOrdersDataset.swift",
        "Sources/shopify-orders-sluice/main.swift", "Fixtures/shopify-orders/valid/001-first-records.ndjson",
      ]))
    func read(_ path: String) throws -> String {
      try String(contentsOfFile: (directory as NSString).appendingPathComponent(path), encoding: .utf8)
    }
    // The manifest depends on this checkout by path, and names the executable.
    let manifest = try read("Package.swift")
    #expect(manifest.contains(#".package(name: "Sluice", path: "\#(Repository.root)")"#), "\(manifest)")
    #expect(manifest.contains(#"name: "shopify-orders-sluice""#))
    #expect(manifest.contains(#".product(name: "SluiceCLI", package: "Sluice")"#))
    // The DTO is what `inspect --swift` prints for the whole dump.
    let inspected = try SluiceCommand.run(["inspect", Self.dump, "--all", "--swift", "ShopifyOrdersDTO"])
    let dto = try read("Sources/shopify-orders-sluice/ShopifyOrdersDTO.swift")
    #expect(dto.split(separator: "\n").dropFirst() == inspected.stdout.split(separator: "\n").dropFirst())
    let dataset = try read("Sources/shopify-orders-sluice/ShopifyOrdersDataset.swift")
    #expect(dataset.contains("struct ShopifyOrdersDataset: Dataset {"))
    #expect(dataset.contains(#""shopify_orders", key: ["id"],"#))
    #expect(dataset.contains(#".text("customer_email", field: "customer.email"),"#) || dataset.contains("customer"))
    #expect(dataset.contains(#"childOf: shopifyOrders, position: "position", field: "payment_gateway_names","#))
    #expect(
      try read("Sources/shopify-orders-sluice/main.swift").contains(
        "Sluice.main(datasets: [AnyDataset(ShopifyOrdersDataset())], drivers: [SQLiteDriver()])"))
    let spec = try #require(
      try JSONSerialization.jsonObject(with: Data(read("Pipelines/shopify-orders.json").utf8)) as? [String: Any])
    #expect(spec["dataset"] as? String == "shopify-orders")
    #expect(spec["input"] as? String == Self.dump)
    #expect(spec["format"] as? String == "json")
    #expect(spec["recordPath"] as? [String] == ["orders"])
    #expect(spec["database"] as? String == "../shopify-orders.sqlite")
    // The fixture is the first record, one line of JSON.
    let fixture = try read("Fixtures/shopify-orders/valid/001-first-records.ndjson")
    #expect(fixture.split(separator: "\n").count == 1)
    let record = try #require(try JSONSerialization.jsonObject(with: Data(fixture.utf8)) as? [String: Any])
    #expect(record["id"] != nil)
    #expect(try read("README.md").split(separator: "\n").count == 7)
    // The spec is one the same sluice reads (its dataset is the package's, not this tool's).
    let validate = try SluiceCommand.run([
      "validate", (directory as NSString).appendingPathComponent("Pipelines/shopify-orders.json"),
    ])
    #expect(validate.status == 64 && validate.stderr.contains("shopify-orders"), "\(validate.stderr)")
  }

  @Test func aDirectoryThatIsNotEmptyIsRefusedUnlessForced() throws {
    let scratch = try TemporaryDirectory()
    let directory = scratch.file("taken")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let keep = try scratch.write("taken/notes.txt", "mine")
    let refused = try SluiceCommand.run(["init", Self.dump, "shop", "--dir", directory])
    #expect(refused.status == 73, "\(refused.stderr)")
    #expect(refused.stderr.contains("\(directory) is not empty"), "\(refused.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("taken/Package.swift")))
    let forced = try SluiceCommand.run(["init", Self.dump, "shop", "--dir", directory, "--force"])
    #expect(forced.status == 0, "\(forced.stderr)")
    #expect(FileManager.default.fileExists(atPath: scratch.file("taken/Package.swift")))
    #expect(try String(contentsOfFile: keep, encoding: .utf8) == "mine")
  }

  @Test func aDumpWithNothingToInferIsAClearDataError() throws {
    let scratch = try TemporaryDirectory()
    let empty = try scratch.write("empty.json", "[]")
    let emptyResult = try SluiceCommand.run(["init", empty, "empty", "--dir", scratch.file("a")])
    #expect(emptyResult.status == 65, "\(emptyResult.stderr)")
    #expect(emptyResult.stderr.contains("empty.json holds no array of objects"), "\(emptyResult.stderr)")
    #expect(emptyResult.stderr.contains("init needs records that are objects"), "\(emptyResult.stderr)")
    let scalar = try scratch.write("scalar.json", "42")
    let scalarResult = try SluiceCommand.run(["init", scalar, "scalar", "--dir", scratch.file("b")])
    #expect(scalarResult.status == 65, "\(scalarResult.stderr)")
    #expect(scalarResult.stderr.contains("init needs records that are objects"), "\(scalarResult.stderr)")
    let numbers = try scratch.write("numbers.json", "[1, 2, 3]")
    let numbersResult = try SluiceCommand.run(["init", numbers, "numbers", "--dir", scratch.file("c")])
    #expect(numbersResult.status == 65, "\(numbersResult.stderr)")
    #expect(numbersResult.stderr.contains("init needs records that are objects"), "\(numbersResult.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("a")))
    let badName = try SluiceCommand.run(["init", Self.dump, "Shop_Orders"])
    #expect(badName.status == 64 && badName.stderr.contains("NAME must be lower-case letters"), "\(badName.stderr)")
  }

  /// A NAME whose tables would start with `sluice_` declares tables among Sluice's own
  /// (`sluice-runs` declared `sluice_runs`, and the first run failed with SQL text, exit 73/74);
  /// `sqlite_` is SQLite's, `pg_` PostgreSQL's (`pg` made `pg_items`, which `run` refused). Refused before the dump is read, with nothing written.
  @Test(arguments: ["sluice-runs", "sluice", "sluice-x", "sqlite-stat1", "pg", "pg-x"])
  func aNameInAReservedPrefixIsAUsageError(name: String) throws {
    let scratch = try TemporaryDirectory()
    let result = try SluiceCommand.run(["init", Self.dump, name, "--dir", scratch.file("package")])
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("NAME '\(name)' would name the dataset's tables"), "\(result.stderr)")
    #expect(result.stderr.contains("choose another name"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("package")))
    let allowed = try SluiceCommand.run(["init", Self.dump, "sluiceway", "--dir", scratch.file("other")])
    #expect(allowed.status == 0, "\(allowed.stderr)")
  }

  // MARK: - XML dumps

  @Test func anXMLDumpsFixtureIsItsFirstRecordElementsInsideTheRecordPath() throws {
    let scratch = try TemporaryDirectory()
    let directory = scratch.file("osm")
    // No --record-path: init infers osm.node, the element the extract repeats most.
    let result = try SluiceCommand.run(["init", Self.osmDump, "osm-nodes", "--dir", directory])
    try #require(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("osm-nodes: 281 record(s) → osm_nodes, osm_nodes_tag"), "\(result.stdout)")
    let fixture = "Fixtures/osm-nodes/valid/001-first-records.xml"
    let files = try FileManager.default.subpathsOfDirectory(atPath: directory)
    #expect(files.contains(fixture))
    #expect(!files.contains { $0.hasSuffix(".ndjson") })
    func path(_ file: String) -> String { (directory as NSString).appendingPathComponent(file) }
    let spec = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("Pipelines/osm-nodes.json"))))
        as? [String: Any])
    #expect(spec["format"] as? String == "xml")
    #expect(spec["recordPath"] as? [String] == ["osm", "node"])
    let readme = try String(contentsOfFile: path("README.md"), encoding: .utf8).split(separator: "\n")
    #expect(readme.count == 7)
    #expect(
      readme.last
        == "`swift run osm-nodes-sluice validate Pipelines/osm-nodes.json --input \(fixture) --format xml --record-path osm.node` checks the contract fixture."
    )

    // An independent parser (Foundation's) reads the wrapper and three nodes, attribute for
    // attribute the dump's first three.
    let written = try XMLElements(path(fixture))
    #expect(written.elements.map(\.name) == ["osm", "node", "node", "node"])
    #expect(written.elements.first?.attributes.isEmpty == true)
    let first = try XMLElements(Self.osmDump).records(named: "node", limit: 3)
    #expect(first.flatMap { $0 }.count == 3)
    #expect(Array(written.elements.dropFirst()) == first.flatMap { $0 })
    #expect(first.first?.first?.attributes["id"] == "51283125")

    // Sluice reads exactly the dump's first three records from it, at the spec's record path.
    #expect(
      try Self.records(path(fixture), at: ["osm", "node"])
        == Array(try Self.records(Self.osmDump, at: ["osm", "node"]).prefix(3)))
    let inspected = try SluiceCommand.run([
      "inspect", path(fixture), "--format", "xml", "--record-path", "osm.node", "--all", "--json",
    ])
    try #require(inspected.status == 0, "\(inspected.stderr)")
    let inspection = try #require(
      try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any])
    #expect(inspection["records"] as? Int == 3)
    let fields = (inspection["fields"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
    #expect(fields == ["id", "lat", "lon", "version"])

    // Gzip is read as for a run: the same dump compressed gives the same fixture.
    let dump = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.osmDump)))
    let compressed = try scratch.write("osm.osm.gz", Gzip.compress(dump))
    let gzipped = try SluiceCommand.run(["init", compressed, "osm-nodes", "--dir", scratch.file("gz")])
    try #require(gzipped.status == 0, "\(gzipped.stderr)")
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: scratch.file("gz/\(fixture)")))
        == Data(contentsOf: URL(fileURLWithPath: path(fixture))))
  }

  /// A MediaWiki export's pages: nested elements, text with markup escaped, attributes in the
  /// `xml` namespace, and a default namespace declared on the root, which each record carries
  /// in the fixture (libxml2 declares on a copied element the namespaces it uses).
  @Test func anXMLFixtureKeepsChildrenTextAndTheNamespacesItsRecordsUse() throws {
    let scratch = try TemporaryDirectory()
    let directory = scratch.file("wiki")
    let result = try SluiceCommand.run([
      "init", Self.wikiDump, "wiki-pages", "--dir", directory, "--record-path", "mediawiki.page",
    ])
    try #require(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("wiki-pages: 4 record(s)"), "\(result.stdout)")
    let fixture = (directory as NSString).appendingPathComponent("Fixtures/wiki-pages/valid/001-first-records.xml")
    let text = try String(contentsOfFile: fixture, encoding: .utf8)
    #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<mediawiki>\n"))
    #expect(text.components(separatedBy: #"<page xmlns="http://www.mediawiki.org/xml/export-0.11/">"#).count == 4)

    let written = try XMLElements(fixture)
    let first = try XMLElements(Self.wikiDump).records(named: "page", limit: 3)
    #expect(first.count == 3)
    #expect(first.allSatisfy { $0.first?.namespace == "http://www.mediawiki.org/xml/export-0.11/" })
    #expect(Array(written.elements.dropFirst()) == first.flatMap { $0 })
    #expect(written.elements.contains { $0.name == "text" && $0.attributes["xml:space"] == "preserve" })

    // Text, CDATA and entities included: each record is the tape Sluice reads from the dump.
    let records = try Self.records(fixture, at: ["mediawiki", "page"])
    #expect(records.count == 3)
    #expect(records == Array(try Self.records(Self.wikiDump, at: ["mediawiki", "page"]).prefix(3)))
    #expect(records.first?.contains(#""title":"Whiskers the Cat""#) == true)
    let inspected = try SluiceCommand.run([
      "inspect", fixture, "--format", "xml", "--record-path", "mediawiki.page", "--all",
    ])
    #expect(inspected.status == 0 && inspected.stdout.contains("records  3 at mediawiki.page, all of them"))
  }

  /// The records of an XML document at `path`, as Sluice reads them: each one's tape as JSON text.
  static func records(_ file: String, at path: [String]) throws -> [String] {
    let reader = RecordReaders.make(format: .xml, recordPath: path, source: try Input(path: file))
    var records: [String] = []
    while let record = try reader.next() { records.append(String(decoding: record.bytes, as: UTF8.self)) }
    return records
  }
}

/// Every element of an XML document as Foundation's `XMLParser` reads it — a parser independent
/// of Sluice's libxml2 — with its depth, local name, namespace and attributes.
struct XMLElements {
  struct Element: Equatable {
    var depth: Int
    var name: String
    var namespace: String?
    var attributes: [String: String]
  }

  var elements: [Element] = []

  init(_ path: String) throws {
    let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
    parser.shouldProcessNamespaces = true
    let collector = Collector()
    parser.delegate = collector
    guard parser.parse() else { throw ParseFailure(path: path) }
    elements = collector.elements
  }

  /// The elements of the first `limit` elements named `name` below the root, each with its
  /// descendants, depths counted from the record (0).
  func records(named name: String, limit: Int) -> [[Element]] {
    var records: [[Element]] = []
    var inRecord = false
    var recordDepth = 0
    for element in elements {
      if inRecord && element.depth > recordDepth {
        var nested = element
        nested.depth -= recordDepth - 1
        records[records.count - 1].append(nested)
        continue
      }
      inRecord = false
      guard element.name == name, element.depth > 0, records.count < limit else { continue }
      inRecord = true
      recordDepth = element.depth
      var record = element
      record.depth = 1
      records.append([record])
    }
    return records
  }

  struct ParseFailure: Error {
    var path: String
  }

  private final class Collector: NSObject, XMLParserDelegate {
    var elements: [Element] = []
    private var depth = 0

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      elements.append(
        Element(
          depth: depth, name: elementName, namespace: namespaceURI?.isEmpty == true ? nil : namespaceURI,
          attributes: attributes))
      depth += 1
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
      depth -= 1
    }
  }
}

/// `sluice init` in process on nested dumps: child tables of child tables instead of a package
/// that crashes, the outermost records, a natural key it can say why it chose, and a cap on
/// depth. `.ci/run` builds and runs the package of a real one (Shopify's draft orders: line
/// items with tax lines and properties).
@Suite("sluice init: nested dumps, record paths and keys")
struct InitNestingTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  /// `init` of `json` as `name`; the package's files by path.
  func initialize(_ json: String, _ name: String, _ extra: [String] = []) throws -> (
    stdout: String, files: [String: String]
  ) {
    let dump = try scratch.write("\(name).json", json)
    let directory = scratch.file(name)
    let result = try SluiceCommand.run(
      ["init", dump, name, "--dir", directory, "--sluice", Repository.root] + extra)
    try #require(result.status == 0, "\(result.stderr)")
    var files: [String: String] = [:]
    for path in try FileManager.default.subpathsOfDirectory(atPath: directory) {
      let full = (directory as NSString).appendingPathComponent(path)
      if let text = try? String(contentsOfFile: full, encoding: .utf8) { files[path] = text }
    }
    return (result.stdout, files)
  }

  /// One Shopify-shaped order: line items with tax lines (and their rates' sources) inside.
  static let shopOrder = """
    {"orders": [{"id": 450789469, "orderNo": "#1001", "total_price": "598.94",
      "line_items": [
        {"id": 466157049, "sku": "IPOD2008GREEN", "tax_lines": [{"title": "State Tax", "rate": 0.06,
          "sources": [{"name": "NY", "share": 1}]}]},
        {"id": 518995019, "sku": "IPOD2008RED", "tax_lines": []}]}]}
    """

  @Test func aOneOrderDumpIsOrdersWithTheirLineItemsAndTaxLinesAsChildTables() throws {
    let (stdout, files) = try initialize(Self.shopOrder, "shop")
    #expect(stdout.contains("shop: 1 record(s) → shop, shop_line_items, shop_line_items_tax_lines, "), "\(stdout)")
    #expect(stdout.contains("(keyed by id)"))
    let spec = try #require(files["Pipelines/shop.json"])
    #expect(spec.contains(#""recordPath" : ["#) || spec.contains(#""recordPath": ["#), "\(spec)")
    #expect(spec.contains(#""orders""#) && !spec.contains("line_items"), "\(spec)")
    let dataset = try #require(files["Sources/shop-sluice/ShopDataset.swift"])
    #expect(dataset.contains(#"childOf: shop, position: "position", field: "line_items","#), "\(dataset)")
    #expect(dataset.contains(#"childOf: shopLineItems, position: "tax_line_position", field: "tax_lines","#))
    #expect(dataset.contains(#"childOf: shopLineItemsTaxLines, position: "source_position", field: "sources","#))
    let readme = try #require(files["README.md"])
    #expect(
      readme.contains(
        "Records: `orders` (1 record), the outermost array of objects in the dump (the longest of those, where several are equally outer)"
      ), "\(readme)")
    #expect(readme.contains("Also found: `orders[].line_items` (2), "), "\(readme)")
    #expect(readme.contains("run `sluice init` again with `--record-path PATH`"))
    #expect(readme.contains("Key: `id`, present, non-null and unique in every record read"), "\(readme)")
    #expect(readme.contains("Not keys: `orderNo` (the same in two records)") == false)
  }

  /// Dumps nested 1–4 arrays of objects deep (with arrays of scalars at each depth): a table
  /// per depth, each keyed by the one above and a position of its own name.
  @Test(arguments: 1...4)
  func aDumpNestedAtAnyDepthMakesAPackageOfChildTables(depth: Int) throws {
    let names = ["lines", "taxes", "parts", "notes"]
    var element = #"{"code": "x", "tags": ["a", "b"]}"#
    for level in stride(from: depth - 1, through: 1, by: -1) {
      element = #"{"code": "x", "tags": ["a"], "\#(names[level])": [\#(element), \#(element)]}"#
    }
    let records = (1...3).map { #"{"orderNo": "n\#($0)", "tags": ["t"], "lines": [\#(element), \#(element)]}"# }
    let (stdout, files) = try initialize("[" + records.joined(separator: ", ") + "]", "depth\(depth)")
    #expect(stdout.contains("depth\(depth): 3 record(s)"), "\(stdout)")
    #expect(stdout.contains("(keyed by orderNo)"), "\(stdout)")
    let dataset = try #require(files["Sources/depth\(depth)-sluice/Depth\(depth)Dataset.swift"])
    let children = dataset.components(separatedBy: "childOf: ").count - 1
    #expect(children == 2 * depth + 1, "\(dataset)")
    let positions = ["position", "tax_position", "part_position", "note_position"].prefix(depth).dropFirst()
    for position in positions + ["tag_position"] where depth > 1 || position != "tag_position" {
      #expect(dataset.contains(#"position: "\#(position)""#), "\(position)")
    }
    #expect(files["README.md"]?.contains("Key: `orderNo`") == true)
  }

  @Test func aKeyThatRepeatsOrIsSometimesMissingIsNoKeyAndTheReadmeSaysWhy() throws {
    let json =
      #"[{"orderNo": "A", "sku_id": "s1", "n": 1}, {"orderNo": "A", "n": 2}, {"orderNo": "B", "sku_id": "s2", "n": 3}]"#
    let (stdout, files) = try initialize(json, "repeats")
    #expect(stdout.contains("(keyed by the record's input and its position there)"), "\(stdout)")
    let readme = try #require(files["README.md"])
    #expect(
      readme.contains(
        "rows are keyed by the record's input (`record_input`, its path below the spec's folder) and its position there (`record_position`)"
      ), "\(readme)")
    #expect(
      readme.contains("Not keys: `orderNo` (the same in two records), `sku_id` (missing or null in some records)."),
      "\(readme)")
    #expect(readme.contains("change `key:` of `repeats` in `Sources/repeats-sluice/RepeatsDataset.swift`"))
  }

  @Test func aGivenRecordPathIsKeptAndSaidSo() throws {
    let (_, files) = try initialize(Self.shopOrder, "items", ["--record-path", "orders[].line_items"])
    let readme = try #require(files["README.md"])
    #expect(readme.contains("Records: `orders[].line_items` (2 records), as `--record-path` gave."), "\(readme)")
  }

  /// Objects nested deeper than `maximumNesting` with nothing else in them: the struct that
  /// would have held the cut field would have no property, never open its object, and so no run
  /// would report the field; the object is left out of its holder instead, which every run
  /// reports as an unknown field, and the README lists it, as it lists a field of mixed types.
  @Test func anObjectLeftWithNothingToDecodeIsLeftOutOfItsHolderAndListed() throws {
    var object = #"{"leaf": 1}"#
    for level in (1...7).reversed() { object = #"{"l\#(level)": \#(object)}"# }
    let json = #"[{"id": 1, "deep": \#(object), "mixed": 1}, {"id": 2, "deep": \#(object), "mixed": "a"}]"#
    let files = try initialize(json, "cut").files
    let dto = try #require(files["Sources/cut-sluice/CutDTO.swift"])
    #expect(dto.components(separatedBy: "struct ").count - 1 == 1, "\(dto)")
    #expect(dto.contains(#"// "deep" is left out: it nests deeper than the 6 levels this DTO decodes."#), "\(dto)")
    #expect(!dto.contains("let deep"), "\(dto)")
    let readme = try #require(files["README.md"])
    #expect(
      readme.contains(
        "Fields nested deeper than 6 levels of objects are not decoded or loaded (each run reports them as unknown fields): `deep`."
      ), "\(readme)")
    #expect(readme.contains("(each run reports them as unknown fields): `mixed`."), "\(readme)")
    // The field nested too deep, left out of a dataset file, is what its run reports, record by
    // record; the field of mixed types a dataset file keeps, as JSON text (issue 58).
    let directory = scratch.file("cut-file")
    let declared = try SluiceCommand.run([
      "init", scratch.file("cut.json"), "cut", "--declarative", "--dir", directory,
    ])
    try #require(declared.status == 0, "\(declared.stderr)")
    let run = try SluiceCommand.run(["run", "\(directory)/cut.json"])
    #expect(run.status == 0, "\(run.stderr)")
    let report = try RunReport.decode(
      from: Data(contentsOf: URL(fileURLWithPath: "\(directory)/reports/cut.json")))
    let unknown = report.issues.filter { $0.code == .unknownField }
    #expect(unknown.map(\.stage) == [.decode, .decode])
    #expect(unknown.map(\.path) == ["deep", "deep"])
    #expect(unknown.map { $0.location?.ordinal ?? 0 } == [1, 2])
  }

  /// A dump nested 50 deep: init keeps `DatasetScaffold.maximumNesting` levels of tables and
  /// structs (its package built in about a minute, like any other), and lists what it left out.
  @Test func aDumpFiftyLevelsDeepIsCappedAndTheReadmeListsWhatIsLeftOut() throws {
    var object = #"{"leaf": 1}"#
    for level in 0..<50 { object = #"{"v": \#(level), "a": [\#(object)]}"# }
    let records = (1...3).map { #"{"id": "r\#($0)", "a": [\#(object)]}"# }
    let clock = ContinuousClock()
    var result: (stdout: String, files: [String: String])?
    let elapsed = try clock.measure { result = try initialize("[" + records.joined(separator: ", ") + "]", "deep") }
    let files = try #require(result?.files)
    #expect(elapsed < .seconds(10))
    let dataset = try #require(files["Sources/deep-sluice/DeepDataset.swift"])
    #expect(dataset.components(separatedBy: "= Table(").count - 1 == DatasetScaffold.maximumNesting + 1)
    let dto = try #require(files["Sources/deep-sluice/DeepDTO.swift"])
    #expect(dto.components(separatedBy: "struct ").count - 1 == DatasetScaffold.maximumNesting + 1)
    let readme = try #require(files["README.md"])
    #expect(
      readme.contains(
        "Fields nested deeper than 6 levels of objects are not decoded or loaded (each run reports them as unknown fields): `a[].a[].a[].a[].a[].a[].a`."
      ), "\(readme)")
  }
}
