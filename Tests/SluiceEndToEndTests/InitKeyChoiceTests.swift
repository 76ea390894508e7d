import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// How `sluice init --declarative` picks a natural key on real exports (issue 58): a unique id
/// nested in an object every record holds (an NVD CVE API page: `cve.id`), two ids unique
/// together where neither is alone (Northwind's order lines: `orderID` + `productID`) — found
/// where they are, instead of keying by position — and the run that follows loads every record.
@Suite("sluice init: the natural key, nested or composite")
struct InitKeyChoiceTests {
  /// Inits `corpus` (a file of `Tests/Corpus`, copied into `scratch`) as `name`, runs the spec
  /// twice; the dataset file's first table, `init`'s stdout and the database.
  func initAndRun(_ corpus: String, _ name: String, in scratch: TemporaryDirectory) throws -> (
    table: [String: Any], stdout: String, database: String
  ) {
    let dump = scratch.file(FilePaths.lastComponent(of: corpus))
    try FileManager.default.copyItem(atPath: Repository.path("Tests/Corpus/\(corpus)"), toPath: dump)
    let directory = scratch.file(name)
    let initialized = try SluiceCommand.run(["init", dump, name, "--declarative", "--dir", directory])
    try #require(initialized.status == 0, "\(initialized.stderr)")
    for _ in 0..<2 {
      let run = try SluiceCommand.run(["run", "\(directory)/\(name).json"])
      try #require(run.status == 0, "\(run.stderr)")
    }
    let dataset = try #require(
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name).dataset.json"))) as? [String: Any])
    let table = try #require((dataset["tables"] as? [[String: Any]])?.first)
    return (table, initialized.stdout, "\(directory)/\(name).sqlite")
  }

  @Test func anNVDPageIsKeyedByTheIdNestedInEachRecordsCVE() throws {
    let scratch = try TemporaryDirectory()
    let (table, stdout, database) = try initAndRun("nvd/cves-CVE-2021-28378.json", "cves", in: scratch)
    #expect(table["key"] as? [String] == ["cve_id"])
    let columns = try #require(table["columns"] as? [[String: Any]])
    #expect(columns.contains { $0["name"] as? String == "cve_id" && $0["field"] as? String == "cve.id" })
    #expect(stdout.contains("(keyed by cve.id)"), "\(stdout)")
    let rows = try DatabaseSnapshot(of: database, tables: ["cves"])
    #expect(rows.count("cves") == 1)
    #expect(rows.tables["cves"]?.first?.hasPrefix("'CVE-2021-28378'|") == true, "\(rows)")
  }

  @Test func orderLinesAreKeyedByTheirOrderAndProductTogether() throws {
    let lines = try #require(
      try JSONSerialization.jsonObject(
        with: Data(
          contentsOf: URL(fileURLWithPath: Repository.path("Tests/Corpus/products-orders/northwind/order_details.json"))
        ))
        as? [[String: Any]])
    let scratch = try TemporaryDirectory()
    let (table, stdout, database) = try initAndRun(
      "products-orders/northwind/order_details.json", "order-lines", in: scratch)
    #expect(table["key"] as? [String] == ["order_id", "product_id"])
    #expect(stdout.contains("(keyed by orderID + productID)"), "\(stdout)")
    // Every line, once, with its own quantity: none replaced another of its order.
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: true))
    #expect(try connection.scalarInt("SELECT count(*) FROM order_lines") == Int64(lines.count))
    let quantities = lines.reduce(0) { $0 + ($1["quantity"] as? Int ?? 0) }
    #expect(try connection.scalarInt("SELECT sum(quantity) FROM order_lines") == Int64(quantities))
  }
}
