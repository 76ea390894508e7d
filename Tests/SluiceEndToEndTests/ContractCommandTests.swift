import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice contract DATASET` through the command line: a JSON Schema for every dataset, a usage error
/// for a name that is none, and the schema read back by `validate --baseline`.
@Suite("sluice contract: a dataset's records as a JSON Schema")
struct ContractCommandTests {
  static let datasets = Catalog.datasets.map(\.name)

  static func contract(_ arguments: [String]) throws -> [String: Any] {
    let result = try SluiceCommand.run(["contract"] + arguments)
    try #require(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
  }

  @Test(arguments: datasets)
  func everyDatasetPrintsADraft202012SchemaOfItsRecords(dataset: String) throws {
    let schema = try Self.contract([dataset, "--format", "json-schema"])
    #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    #expect(schema["title"] as? String == dataset)
    #expect(schema["type"] as? String == "object")
    #expect(schema["properties"] is [String: Any])
    // Strict by default: every object lists its fields (the variants' branches, for a kind).
    #expect(schema["additionalProperties"] as? Bool == false || schema["oneOf"] is [Any])
    let unexpressed = try #require(schema["x-sluice-unexpressed"] as? [[String: String]])
    #expect(unexpressed.allSatisfy { $0["path"] != nil && !($0["rule"] ?? "").isEmpty })
  }

  @Test func ordersSchemaStatesItsFieldsRulesAndStatuses() throws {
    let schema = try Self.contract(["orders"])
    let properties = try #require(schema["properties"] as? [String: [String: Any]])
    #expect(properties["status"]?["enum"] as? [String] == ["pending", "completed", "cancelled"])
    #expect(properties["currency"]?["pattern"] as? String == "^[A-Z]{3}$")
    #expect(properties["orderId"]?["pattern"] as? String == "\\S")
    #expect(properties["createdAt"]?["format"] as? String == "date-time")
    #expect(properties["items"]?["minItems"] as? Int == 1)
    let item = try #require(
      (properties["items"]?["items"] as? [String: Any])?["properties"] as? [String: [String: Any]])
    #expect(item["qty"]?["minimum"] as? Int == 1)
    #expect(item["priceMinor"]?["minimum"] as? Int == 0)
    #expect(
      schema["required"] as? [String] == ["orderId", "amount", "currency", "status", "createdAt", "customer", "items"])
  }

  @Test func messagesAreOneOfTheirKindsKeyedByType() throws {
    let schema = try Self.contract(["messages"])
    #expect(schema["x-sluice-discriminator"] as? String == "type")
    let kinds = try #require(schema["oneOf"] as? [[String: Any]])
    let consts = kinds.compactMap {
      (($0["properties"] as? [String: Any])?["type"] as? [String: Any])?["const"] as? String
    }
    #expect(consts == ["text", "image", "file", "system"])
    let image = try #require(kinds[1]["required"] as? [String])
    #expect(image == ["type", "url"])
  }

  @Test func aPatchFieldSaysMissingAndNullMeanDifferentThings() throws {
    let properties = try #require(try Self.contract(["profile-patches"])["properties"] as? [String: [String: Any]])
    #expect(properties["introduction"]?["type"] as? [String] == ["string", "null"])
    #expect((properties["introduction"]?["x-sluice-patch"] as? String)?.contains("null: cleared") == true)
    // NOT NULL: null cannot clear the nickname.
    #expect(properties["nickname"]?["type"] as? String == "string")
  }

  @Test func lenientAllowsUnknownFieldsAndDateFormatsChangeTheDates() throws {
    let schema = try Self.contract(["orders", "--policy", "lenient", "--date-formats", "epochSeconds"])
    #expect(schema["additionalProperties"] == nil)
    #expect(schema["x-sluice-policy"] as? String == "lenient")
    let createdAt = (schema["properties"] as? [String: [String: Any]])?["createdAt"]
    #expect(createdAt?["x-sluice-date-format"] as? String == "epochSeconds")
  }

  @Test func aCrossFieldRuleAndAReferenceAreListedAsUnexpressed() throws {
    let unexpressed = try #require(try Self.contract(["alerts"])["x-sluice-unexpressed"] as? [[String: String]])
    #expect(unexpressed.contains { $0["path"] == "expire" && $0["rule"]?.hasPrefix("alerts expire after") == true })
    #expect(unexpressed.contains { $0["path"] == "deviceId" && $0["rule"]?.contains("row of devices") == true })
  }

  @Test func anUnknownDatasetIsAUsageErrorListingTheDatasets() throws {
    let result = try SluiceCommand.run(["contract", "invoices"])
    #expect(result.status == 64)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("unknown dataset 'invoices'; known: fruits, orders, messages"), "\(result.stderr)")
    let format = try SluiceCommand.run(["contract", "orders", "--format", "avro"])
    #expect(format.status == 64 && format.stderr.contains("--format must be json-schema"), "\(format.stderr)")
  }

  // MARK: - As a baseline

  @Test func theSampleMeetsItsContractAsABaseline() throws {
    let scratch = try TemporaryDirectory()
    let contract = try scratch.write("orders.schema.json", try SluiceCommand.run(["contract", "orders"]).stdout)
    let result = try SluiceCommand.run([
      "validate", "Pipelines/orders.json", "--baseline", contract, "--fail-on-drift",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("  baseline: no drift\n"), "\(result.stderr)")
  }

  @Test func driftFromTheContractIsClassified() throws {
    let scratch = try TemporaryDirectory()
    let contract = try scratch.write("fruits.schema.json", try SluiceCommand.run(["contract", "fruits"]).stdout)
    let text = try Tool.shell("zcat SampleData/fruits.json.gz").stdout
    var document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    var fruits = try #require(document["fruits"] as? [[String: Any]])
    fruits[0]["origin"] = "Spain"  // not in the contract: non-breaking
    fruits[1].removeValue(forKey: "color")  // required: breaking
    document["fruits"] = fruits
    let input = try scratch.write(
      "tonight.json", String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self))
    let report = scratch.file("report.json")
    let result = try SluiceCommand.run([
      "validate", "Pipelines/fruits.json", "--input", input, "--policy", "lenient", "--baseline", contract,
      "--report", report,
    ])
    #expect(result.status == 65, "\(result.stderr)")
    let changes = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report))).baselineChanges ?? []
    #expect(
      changes.map { "\($0.impact.rawValue) \($0.kind) \($0.path)" }.sorted() == [
        "breaking requiredFieldMissing color", "non-breaking newField origin",
      ])
  }

  @Test func aJSONSchemaSluiceDidNotWriteIsACorruptBaseline() throws {
    let scratch = try TemporaryDirectory()
    let foreign = try scratch.write("foreign.json", #"{"$schema": "http://json-schema.org/draft-07/schema#"}"#)
    let result = try SluiceCommand.run(["validate", "Pipelines/fruits.json", "--baseline", foreign])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("baseline \(foreign): a JSON Schema, but not one 'sluice contract' wrote"))
  }
}
