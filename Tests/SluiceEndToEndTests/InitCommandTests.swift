import Foundation
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice init DUMP NAME` on the real binary: the package it writes for a real dump (the
/// Shopify orders sample of the corpus), and what it refuses. Building and running the package
/// takes minutes: `.ci/run` does it, on two corpus dumps.
@Suite("sluice init: a dataset package from a dump")
struct InitCommandTests {
  static let dump = Repository.path("Tests/Corpus/products-orders/shopify/orders.json")

  @Test func writesAPackageWhoseDTODatasetSpecAndFixtureComeFromTheDump() throws {
    let scratch = try TemporaryDirectory()
    let directory = scratch.file("shop")
    let result = try SluiceBinary.run(["init", Self.dump, "shopify-orders", "--dir", directory])
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
    let inspected = try SluiceBinary.run(["inspect", Self.dump, "--all", "--swift", "ShopifyOrdersDTO"])
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
    #expect(try read("README.md").split(separator: "\n").count == 5)
    // The spec is one the same sluice reads (its dataset is the package's, not this tool's).
    let validate = try SluiceBinary.run([
      "validate", (directory as NSString).appendingPathComponent("Pipelines/shopify-orders.json"),
    ])
    #expect(validate.status == 64 && validate.stderr.contains("shopify-orders"), "\(validate.stderr)")
  }

  @Test func aDirectoryThatIsNotEmptyIsRefusedUnlessForced() throws {
    let scratch = try TemporaryDirectory()
    let directory = scratch.file("taken")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let keep = try scratch.write("taken/notes.txt", "mine")
    let refused = try SluiceBinary.run(["init", Self.dump, "shop", "--dir", directory])
    #expect(refused.status == 73, "\(refused.stderr)")
    #expect(refused.stderr.contains("\(directory) is not empty"), "\(refused.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("taken/Package.swift")))
    let forced = try SluiceBinary.run(["init", Self.dump, "shop", "--dir", directory, "--force"])
    #expect(forced.status == 0, "\(forced.stderr)")
    #expect(FileManager.default.fileExists(atPath: scratch.file("taken/Package.swift")))
    #expect(try String(contentsOfFile: keep, encoding: .utf8) == "mine")
  }

  @Test func aDumpWithNothingToInferIsAClearDataError() throws {
    let scratch = try TemporaryDirectory()
    let empty = try scratch.write("empty.json", "[]")
    let emptyResult = try SluiceBinary.run(["init", empty, "empty", "--dir", scratch.file("a")])
    #expect(emptyResult.status == 65, "\(emptyResult.stderr)")
    #expect(emptyResult.stderr.contains("empty.json holds no array of objects"), "\(emptyResult.stderr)")
    #expect(emptyResult.stderr.contains("init needs records that are objects"), "\(emptyResult.stderr)")
    let scalar = try scratch.write("scalar.json", "42")
    let scalarResult = try SluiceBinary.run(["init", scalar, "scalar", "--dir", scratch.file("b")])
    #expect(scalarResult.status == 65, "\(scalarResult.stderr)")
    #expect(scalarResult.stderr.contains("init needs records that are objects"), "\(scalarResult.stderr)")
    let numbers = try scratch.write("numbers.json", "[1, 2, 3]")
    let numbersResult = try SluiceBinary.run(["init", numbers, "numbers", "--dir", scratch.file("c")])
    #expect(numbersResult.status == 65, "\(numbersResult.stderr)")
    #expect(numbersResult.stderr.contains("init needs records that are objects"), "\(numbersResult.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("a")))
    let badName = try SluiceBinary.run(["init", Self.dump, "Shop_Orders"])
    #expect(badName.status == 64 && badName.stderr.contains("NAME must be lower-case letters"), "\(badName.stderr)")
  }
}
