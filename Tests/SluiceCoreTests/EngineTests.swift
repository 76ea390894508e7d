import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// A dataset defined here, outside the catalog: the engine runs any dataset that plugs in its
/// types, and its map and load stages report their own failures.
struct ShipmentsDataset: Dataset {
  struct DTO: Decodable {
    var id: String
    var mode: String
    var parcels: [Int]
  }

  enum Mode: String { case air, sea }

  struct Shipment {
    var id: String
    var mode: Mode
    var parcels: [Int]
  }

  static let shipments = Table("shipments", key: ["id"], columns: [.text("id"), .text("mode")])
  static let parcels = Table(
    "parcels", childOf: shipments, position: "position", field: "parcels",
    columns: [.integer("weight", checks: [.atLeast(1)])])

  var name: String { "shipments" }
  var summary: String { "test dataset" }
  var schema: Schema { Schema([Self.shipments, Self.parcels]) }
  static let positiveParcels = ValidationRule("parcels are listed", message: "must list at least one parcel")
  var rules: [ValidationRule] { [Self.positiveParcels] }
  func validate(_ dto: DTO, into validation: inout Validation) {
    validation.check(Self.positiveParcels, !dto.parcels.isEmpty, at: "parcels")
  }

  func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> Shipment {
    guard let mode = Mode(rawValue: dto.mode) else {
      throw MappingError(code: .unsupportedEnumValue, path: "mode", message: "not a supported shipping mode")
    }
    return Shipment(id: dto.id, mode: mode, parcels: dto.parcels)
  }

  func rows(for shipment: Shipment, into rows: inout RecordRows) {
    rows.add(Self.shipments, shipment.id, shipment.mode.rawValue)
    for weight in shipment.parcels { rows.add(Self.parcels, weight) }
  }
}

@Suite("Engine with a dataset of its own")
struct EngineTests {
  private func run(_ lines: [String], policy: Policy) throws -> (RunReport, SQLiteConnection, TemporaryDirectory) {
    let directory = try TemporaryDirectory()
    let input = try directory.write("shipments.ndjson", lines.joined(separator: "\n") + "\n")
    let configuration = PipelineConfiguration(
      name: "shipments", input: input, format: .ndjson, policy: policy, database: .sqlite(directory.file("s.sqlite")))
    let report = try Pipeline(dataset: ShipmentsDataset(), configuration: configuration).run()
    return (report, try SQLiteConnection(path: directory.file("s.sqlite")), directory)
  }

  @Test func mappingErrorsAreIssuesOfTheMapStage() throws {
    let (report, db, directory) = try run(
      [#"{"id": "a", "mode": "air", "parcels": [1]}"#, #"{"id": "b", "mode": "rail", "parcels": [2]}"#],
      policy: .lenient)
    defer { withExtendedLifetime(directory) {} }
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .map)
    #expect(issue.code == .unsupportedEnumValue)
    #expect(issue.path == "mode")
    #expect(issue.location?.line == 2)
    #expect(!issue.message.contains("rail"))
    #expect(report.drift.unsupportedEnumValues == [.init(path: "mode", count: 1, firstRecord: 2)])
    #expect(try db.scalarInt("SELECT count(*) FROM shipments") == 1)
  }

  @Test func recordRejectedHalfWayThroughItsLoadLeavesNoRows() throws {
    // Shipment "b" is inserted, then its second parcel breaks the CHECK constraint: the
    // savepoint must take the shipment row back out too.
    let (report, db, directory) = try run(
      [
        #"{"id": "a", "mode": "air", "parcels": [1, 2]}"#,
        #"{"id": "b", "mode": "sea", "parcels": [3, -4]}"#,
        #"{"id": "c", "mode": "sea", "parcels": [5]}"#,
      ],
      policy: .lenient)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .succeeded)
    #expect(report.issues.map(\.code) == [.constraint])
    #expect(report.issues.first?.stage == .load)
    #expect(report.statistics(for: .load).rejected == 1)
    #expect(try db.scalarInt("SELECT count(*) FROM shipments WHERE id = 'b'") == 0)
    #expect(try db.scalarInt("SELECT count(*) FROM parcels WHERE id = 'b'") == 0)
    #expect(try db.scalarInt("SELECT count(*) FROM parcels") == 3)
  }

  @Test func aChildRowThatBreaksAConstraintIsNamedAmongItsSiblings() throws {
    // The issue names the sibling at fault; a record with many children writes them all.
    let many = (1...40).map(String.init).joined(separator: ", ")
    let (report, db, directory) = try run(
      [
        #"{"id": "a", "mode": "air", "parcels": [1, 2, -3, 4, 5]}"#,
        #"{"id": "b", "mode": "sea", "parcels": [\#(many)]}"#,
      ],
      policy: .lenient)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.status == .succeeded)
    #expect(report.issues.map(\.path) == ["parcels[2].weight"])
    #expect(report.issues.first?.message == "parcels: check weight >= 1 violated")
    #expect(try db.scalarInt("SELECT count(*) FROM parcels WHERE id = 'a'") == 0)
    #expect(try db.scalarInt("SELECT count(*) FROM parcels WHERE id = 'b'") == 40)
    #expect(try db.scalarInt("SELECT sum(weight) FROM parcels WHERE id = 'b'") == 820)
    #expect(try db.scalarInt("SELECT max(position) FROM parcels WHERE id = 'b'") == 39)
    #expect(report.rowsWritten["parcels"] == 40)
  }

  @Test func strictRunStopsAtALoadConstraint() throws {
    let (report, db, directory) = try run(
      [#"{"id": "a", "mode": "air", "parcels": [1]}"#, #"{"id": "b", "mode": "sea", "parcels": [-1]}"#],
      policy: .strict)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.exitCode == 65)
    #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'shipments'") == 0)
  }

  @Test func validationRulesOfAnyDatasetBecomeChecks() throws {
    let (report, _, directory) = try run([#"{"id": "a", "mode": "air", "parcels": []}"#], policy: .lenient)
    defer { withExtendedLifetime(directory) {} }
    #expect(report.issues.first?.rule == "parcels are listed")
    let check = try #require(report.checks.first { $0.rule == "parcels are listed" })
    #expect(check.failures == 1)
    #expect(report.checks.map(\.stage) == [.read, .decode, .validate, .map, .load])
  }
}
