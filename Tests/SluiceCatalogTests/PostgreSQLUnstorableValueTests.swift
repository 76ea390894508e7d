import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// What PostgreSQL cannot store — a NUL character in text, an index entry over the B-tree's
/// limit — is one record's problem, never the run's: a lenient run skips that record and goes
/// on, a strict one fails on its data (65), and the audit tables take the run's row and its
/// issues whatever the record's keys were. Each test loads the same input into SQLite too.
@Suite(
  "PostgreSQL: values it cannot store",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLUnstorableValueTests {
  static let orders = [Catalog.dataset(named: "orders")].compactMap { $0 }

  /// An order as NDJSON: its key, its customer's name (a NUL is written `\u0000`), and `extra`
  /// raw JSON fields before the rest (so a key can hold an escaped NUL).
  static func order(_ number: Int, id: String? = nil, customerName: String = "Ada", extra: String = "") -> String {
    let key = id ?? String(format: "%04d", number)
    let name = customerName.replacingOccurrences(of: "\u{0}", with: "\\u0000")
    return
      #"{\#(extra)"orderId": "\#(key)", "amount": 100, "currency": "EUR", "status": "pending", "createdAt": "2023-01-01T00:00:03Z", "customer": {"id": \#(number), "name": "\#(name)"}, "items": [{"sku": "S-\#(number)", "qty": 1, "priceMinor": 100}]}"#
  }

  static func configuration(_ input: String, policy: Policy) -> PipelineConfiguration {
    PipelineConfiguration(name: "orders", input: input, format: .ndjson, policy: policy, database: .sqlite(""))
  }

  /// Letters and digits no compressor shrinks much: an index entry of about `count` bytes.
  static func incompressibleKey(_ count: Int) -> String {
    var generator = SplitMix(seed: UInt64(count))
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    return String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
  }

  struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  static func text(_ store: PostgreSQLStore, _ sql: String) throws -> [String] {
    let statement = try store.prepare(sql)
    var rows: [String] = []
    while try statement.step() {
      if case .text(let value)? = statement.columnValue(0) { rows.append(value) }
    }
    return rows
  }

  @Test(arguments: [Policy.Preset.lenient, .strict])
  func aKeyWithANulCharacterInAnUnknownFieldIsAuditedEscapedAsInSQLite(preset: Policy.Preset) throws {
    let twin = try TwinStores()
    let lines = [Self.order(1), Self.order(2, extra: #""bad\u0000key": 1, "#), Self.order(3)]
    let input = try twin.directory.write("orders.ndjson", lines.joined(separator: "\n"))
    let reports = try twin.run(Self.configuration(input, policy: Policy(preset: preset)), datasets: Self.orders)
    // An unknown field is a warning under both presets: all three orders load.
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(reports.postgreSQL.tableRows["orders"] == 3)
    let store = try twin.schema.connect()
    #expect(try Self.text(store, "SELECT status FROM sluice_runs") == ["succeeded"])
    #expect(try Self.text(store, "SELECT path FROM sluice_rejects WHERE code = 'unknownField'") == [#"bad\u0000key"#])
    // SQLite's audit row says the same.
    let sqlite = try SQLiteConnection(path: twin.sqlitePath, options: .init(readOnly: true))
    let path = try sqlite.prepare("SELECT path FROM sluice_rejects WHERE code = 'unknownField'")
    #expect(try path.step())
    #expect(path.columnValue(0) == .text(#"bad\u0000key"#))
  }

  @Test func aStrictRunThatRejectsAnUnknownKeyWithANulCharacterFailsOnItsDataAndAuditsItself() throws {
    let twin = try TwinStores()
    let lines = [Self.order(1), Self.order(2, extra: #""bad\u0000key": 1, "#), Self.order(3)]
    let input = try twin.directory.write("orders.ndjson", lines.joined(separator: "\n"))
    var policy = Policy(preset: .strict)
    policy.unknownFields = .reject
    let reports = try twin.run(Self.configuration(input, policy: policy), datasets: Self.orders)
    #expect(reports.sqlite.failure?.kind == .data)
    #expect(reports.postgreSQL.failure?.kind == .data, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.exitCode == 65)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let store = try twin.schema.connect()
    #expect(try Self.text(store, "SELECT status FROM sluice_runs") == ["failed"])
    let failure = try #require(try Self.text(store, "SELECT failure FROM sluice_runs").first)
    #expect(failure.contains(#"bad\u0000key"#), "\(failure)")
    #expect(try Self.text(store, "SELECT path FROM sluice_rejects") == [#"bad\u0000key"#])
    #expect(try twin.schema.rows(of: ["orders"]).count("orders") == 0)
  }

  @Test func aNulCharacterInAValueIsAnInvalidValueAtItsFieldWhereSQLiteStoresIt() throws {
    let twin = try TwinStores()
    let lines = [Self.order(1), Self.order(2, customerName: "Nul\u{0}Secret"), Self.order(3)]
    let input = try twin.directory.write("orders.ndjson", lines.joined(separator: "\n"))
    let lenient = try twin.run(Self.configuration(input, policy: Policy(preset: .lenient)), datasets: Self.orders)
    // SQLite stores the text as it is.
    #expect(lenient.sqlite.status == .succeeded)
    #expect(lenient.sqlite.tableRows["orders"] == 3)
    #expect(lenient.postgreSQL.status == .succeeded, "\(lenient.postgreSQL.failure?.message ?? "")")
    #expect(lenient.postgreSQL.tableRows["orders"] == 2)
    let issue = try #require(lenient.postgreSQL.issues.first)
    #expect(issue.stage == .load)
    #expect(issue.code == .invalidValue)
    #expect(issue.location?.ordinal == 2)
    #expect(issue.location?.line == 2)
    #expect(issue.path == "customer.name")
    #expect(issue.message.contains("customers.name"))
    #expect(!issue.message.contains("Secret"))

    let strictTwin = try TwinStores()
    let strict = try strictTwin.run(Self.configuration(input, policy: .strict), datasets: Self.orders)
    #expect(strict.postgreSQL.failure?.kind == .data)
    #expect(strict.postgreSQL.exitCode == 65)
    #expect(strict.postgreSQL.failure?.message.contains("customer.name: invalidValue") == true)
    #expect(try strictTwin.schema.rows(of: ["orders"]).count("orders") == 0)
  }

  /// 3,000 bytes pass the 2,704 of a B-tree entry; 9,000 pass even the 8,191 of any index row.
  @Test(arguments: [3_000, 9_000])
  func aKeyTooLargeForTheBTreeIsAConstraintIssueOnItsRecord(size: Int) throws {
    let twin = try TwinStores()
    let lines = [Self.order(1), Self.order(2, id: Self.incompressibleKey(size)), Self.order(3)]
    let input = try twin.directory.write("orders.ndjson", lines.joined(separator: "\n"))
    let lenient = try twin.run(Self.configuration(input, policy: Policy(preset: .lenient)), datasets: Self.orders)
    // SQLite has no such limit.
    #expect(lenient.sqlite.tableRows["orders"] == 3)
    #expect(lenient.postgreSQL.status == .succeeded, "\(lenient.postgreSQL.failure?.message ?? "")")
    #expect(lenient.postgreSQL.tableRows["orders"] == 2)
    #expect(lenient.postgreSQL.tableRows["order_items"] == 2)
    let issue = try #require(lenient.postgreSQL.issues.first)
    #expect(issue.stage == .load)
    #expect(issue.code == .constraint)
    #expect(issue.location?.ordinal == 2)
    #expect(issue.path == "orderId")
    #expect(issue.message.hasPrefix("orders: a value of order_id is too large for an index"), "\(issue.message)")
    let store = try twin.schema.connect()
    #expect(try Self.text(store, "SELECT status FROM sluice_runs") == ["succeeded"])
    #expect(try Self.text(store, "SELECT path FROM sluice_rejects") == ["orderId"])

    let strictTwin = try TwinStores()
    let strict = try strictTwin.run(Self.configuration(input, policy: .strict), datasets: Self.orders)
    #expect(strict.postgreSQL.failure?.kind == .data, "\(strict.postgreSQL.failure?.message ?? "")")
    #expect(strict.postgreSQL.exitCode == 65)
    let audit = try strictTwin.schema.connect()
    #expect(try Self.text(audit, "SELECT status FROM sluice_runs") == ["failed"])
    #expect(try strictTwin.schema.rows(of: ["orders"]).count("orders") == 0)
  }

  /// A reference looked up by natural key whose key PostgreSQL cannot even send (a NUL) names
  /// no row: the alert is an orphan, as in SQLite, not a failure of the run.
  @Test func aReferenceWhoseKeyHasANulCharacterIsAnOrphanAsInSQLite() throws {
    let twin = try TwinStores()
    let devices = try twin.directory.write(
      "devices.ndjson", #"{"id": "dev-1", "name": "Pump", "latitude": 1.5, "longitude": 2.5}"#)
    let alerts = try twin.directory.write(
      "alerts.ndjson",
      [
        #"{"id": "a-1", "deviceId": "dev-1", "title": "T", "body": "B", "createdAt": "2026-11-02T00:15:00Z", "expire": "2026-11-03T00:15:00Z", "code": 1}"#,
        #"{"id": "a-2", "deviceId": "dev\u0000-1", "title": "T", "body": "B", "createdAt": "2026-11-02T00:15:00Z", "expire": "2026-11-03T00:15:00Z", "code": 1}"#,
      ].joined(separator: "\n"))
    let inputs = [
      PipelineInput(dataset: "devices", path: devices, format: .ndjson),
      PipelineInput(dataset: "alerts", path: alerts, format: .ndjson),
    ]
    let datasets = ["devices", "alerts"].compactMap { Catalog.dataset(named: $0) }
    let reports = try twin.run(
      PipelineConfiguration(name: "devices", inputs: inputs, policy: Policy(preset: .lenient), database: .sqlite("")),
      datasets: datasets)
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(reports.postgreSQL.issues.map(\.code) == [.orphanReference])
    #expect(reports.postgreSQL.tableRows["alerts"] == 1)
  }

  /// An index on text that is no key: in place (a re-run), each row that breaks its limit is its
  /// record's issue; built after a first load, it belongs to no record, and the run fails on its
  /// data (65) with nothing written — never as an I/O error.
  @Test func tooLargeIndexedTextIsTheRecordsIssueOrTheFirstLoadsDataFailure() throws {
    let schema = PostgreSQLSchema()
    let directory = try TemporaryDirectory()
    let notes = AnyDataset(NotesDataset())
    func run(_ lines: [String], _ policy: Policy) throws -> RunReport {
      let input = try directory.write("notes-\(UUID().uuidString).ndjson", lines.joined(separator: "\n"))
      let configuration = PipelineConfiguration(
        name: "notes", input: input, format: .ndjson, policy: policy, database: .sqlite(""))
      return try notes.run(schema.aim(configuration))
    }
    let long = Self.incompressibleKey(3_000)
    let first = try run([#"{"id": "n1", "tag": "a"}"#, #"{"id": "n2", "tag": "\#(long)"}"#], Policy(preset: .lenient))
    #expect(first.failure?.kind == .data, "\(first.failure?.message ?? "")")
    #expect(first.exitCode == 65)
    #expect(
      first.failure?.message.contains("too large for index notes_by_tag of notes on tag") == true,
      "\(first.failure?.message ?? "")")
    #expect(first.failure?.message.contains(long.prefix(20)) == false)

    let seeded = try run([#"{"id": "n1", "tag": "a"}"#], .strict)
    #expect(seeded.status == .succeeded, "\(seeded.failure?.message ?? "")")
    let again = try run(
      [#"{"id": "n3", "tag": "b"}"#, #"{"id": "n4", "tag": "\#(long)"}"#, #"{"id": "n5", "tag": "c"}"#],
      Policy(preset: .lenient))
    #expect(again.status == .succeeded, "\(again.failure?.message ?? "")")
    let issue = try #require(again.issues.first)
    #expect(issue.code == .constraint)
    #expect(issue.location?.ordinal == 2)
    #expect(issue.path == "tag")
    #expect(issue.message.contains("notes_by_tag"))
    #expect(try schema.connect().scalarInt("SELECT count(*) FROM notes") == 3)
  }
}

/// Notes with a tag that an index covers, and nothing else: the smallest schema with indexed
/// text that is not a key.
private struct NotesDataset: Dataset {
  struct DTO: Decodable { var id: String, tag: String }
  static let notes = Table(
    "notes", key: ["note_id"], columns: [.text("note_id", field: "id"), .text("tag")],
    indexes: [Index("notes_by_tag", on: ["tag"], deferrable: true)])
  var name: String { "notes" }
  var summary: String { "notes with an indexed tag" }
  var schema: Schema { Schema([Self.notes]) }
  func validate(_ dto: DTO, into validation: inout Validation) {}
  func map(_ dto: DTO, context _: inout MappingContext) throws(MappingError) -> DTO { dto }
  func rows(for note: DTO, into rows: inout RecordRows) { rows.add(Self.notes, note.id, note.tag) }
}
