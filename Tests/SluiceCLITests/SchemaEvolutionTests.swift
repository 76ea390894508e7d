import Foundation
@_spi(Internals) import SluiceCLI
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
@_spi(Internals) import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Schema evolution of a dataset file (`"evolution": "evolve"`, issue 59), in process through the
/// command line, over generated nightly dumps of orders that change: a field added, a nested
/// object and a nested list added, an integer widened to a decimal, a narrowing refused. On
/// SQLite always, on PostgreSQL and Citus when their servers are there.
@Suite("Schema evolution")
struct SchemaEvolutionTests {
  enum Store: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgreSQL, citus
    var testDescription: String { rawValue }
    var isAvailable: Bool {
      switch self {
      case .sqlite: true
      case .postgreSQL: PostgreSQLServer.isAvailable
      case .citus: CitusCluster.isAvailable
      }
    }
  }

  /// One store, a scratch folder with the dataset file and the spec, and the command line.
  final class Workspace {
    let store: Store
    let scratch: TemporaryDirectory
    let schema: PostgreSQLSchema?
    let datasetFile: String
    let spec: String

    init(
      _ store: Store, evolution: String? = "evolve", format: String = "ndjson", input: String = "orders.ndjson",
      flat: Bool = false
    ) throws {
      self.store = store
      scratch = try TemporaryDirectory()
      switch store {
      case .sqlite: schema = nil
      case .postgreSQL: schema = PostgreSQLSchema()
      case .citus: schema = CitusCluster.schema()
      }
      datasetFile = try scratch.write(
        "orders.dataset.json",
        flat ? Self.flatDatasetText(evolution: evolution) : Self.datasetText(evolution: evolution))
      spec = try scratch.write(
        "orders.json",
        #"{"dataset": "orders.dataset.json", "input": "\#(input)", "format": "\#(format)", "database": "shop.sqlite", "policy": "strict"}"#
      )
    }

    static func datasetText(evolution: String?) -> String {
      """
      {
        "name": "shop_orders",\(evolution.map { "\n  \"evolution\": \"\($0)\"," } ?? "")
        "fields": [
          { "name": "id", "type": "integer" },
          { "name": "customer", "type": "text" },
          { "name": "amount", "type": "integer" },
          {
            "name": "items", "type": "array",
            "items": { "type": "object", "fields": [{ "name": "sku", "type": "text" }, { "name": "qty", "type": "integer" }] }
          }
        ],
        "tables": [
          {
            "name": "orders", "key": ["id"], "onConflict": "upsert",
            "columns": [{ "name": "id" }, { "name": "customer" }, { "name": "amount" }]
          },
          {
            "name": "order_items", "parent": "orders", "field": "items", "position": "position",
            "columns": [{ "name": "sku" }, { "name": "qty" }]
          }
        ]
      }

      """
    }

    /// Orders without items: what a legacy export's CSV rows hold.
    static func flatDatasetText(evolution: String?) -> String {
      """
      {
        "name": "shop_orders",\(evolution.map { "\n  \"evolution\": \"\($0)\"," } ?? "")
        "fields": [{ "name": "id", "type": "integer" }, { "name": "customer", "type": "text" }, { "name": "amount", "type": "integer" }],
        "tables": [
          {
            "name": "orders", "key": ["id"], "onConflict": "upsert",
            "columns": [{ "name": "id" }, { "name": "customer" }, { "name": "amount" }]
          }
        ]
      }

      """
    }

    var databaseArguments: [String] {
      guard let schema else { return [] }
      return ["--db", schema.url, "--db-schema", schema.name]
    }

    func sluice(_ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
      let io = CommandIO(capturingIn: scratch.path)
      let status = Sluice.run(
        arguments: arguments + databaseArguments, datasets: [], drivers: [SQLiteDriver(), PostgreSQLDriver()], io: io)
      return (status, io.output, io.error)
    }

    func run(_ extra: [String] = []) -> (status: Int32, stdout: String, stderr: String) {
      sluice(["run", spec] + extra)
    }

    func rows(_ tables: [String]) throws -> TableRows {
      if let schema { return try schema.rows(of: tables) }
      return try TableRows(sqlite: scratch.file("shop.sqlite"), tables: tables)
    }

    /// The identifiers `sluice_migrations` records.
    func migrations() throws -> Set<String> {
      let rows = try rows(["sluice_migrations"]).tables["sluice_migrations"] ?? []
      return Set(
        rows.dropFirst().map { row in
          let identifier = row.components(separatedBy: " | ")[0]
          return String(identifier.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
        })
    }

    func columns(of table: String) throws -> [String] {
      try rows([table]).tables[table]?.first?.components(separatedBy: ", ") ?? []
    }

    var datasetText: String { (try? String(contentsOfFile: datasetFile, encoding: .utf8)) ?? "" }

    func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() }
  }

  /// Seeded nightly dumps of the same 20 orders, as the producer changes them.
  struct NightlyOrders {
    struct Changes: OptionSet {
      let rawValue: Int
      static let loyaltyTier = Changes(rawValue: 1)
      static let shipping = Changes(rawValue: 2)
      static let discounts = Changes(rawValue: 4)
      /// Orders 1–10 only, with amounts in cents (`12.25`).
      static let decimalAmounts = Changes(rawValue: 8)
      /// `amount` as a string from the third order on.
      static let textAmounts = Changes(rawValue: 16)
    }

    var seed: UInt64

    /// SplitMix64: the same dumps from the same seed, on every machine.
    mutating func next(_ bound: Int) -> Int {
      seed &+= 0x9E37_79B9_7F4A_7C15
      var z = seed
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    /// The night's NDJSON, and each order's amount as the database should hold it (cents once
    /// the amounts have two decimal places).
    mutating func night(_ changes: Changes) -> (text: String, amounts: [Int: Int]) {
      var lines: [String] = []
      var amounts: [Int: Int] = [:]
      let ids = changes.contains(.decimalAmounts) ? 1...10 : 1...20
      for id in ids {
        var fields = [#""id": \#(id)"#, #""customer": "c\#(next(1000))""#]
        let whole = 1 + next(500)
        if changes.contains(.decimalAmounts) {
          let cents = next(100)
          fields.append(#""amount": \#(whole).\#(cents < 10 ? "0" : "")\#(cents)"#)
          amounts[id] = whole * 100 + cents
        } else if changes.contains(.textAmounts) && id >= 3 {
          fields.append(#""amount": "\#(whole)""#)
        } else {
          fields.append(#""amount": \#(whole)"#)
          amounts[id] = whole
        }
        let items = (0..<(1 + next(3))).map { _ in #"{"sku": "s\#(next(50))", "qty": \#(1 + next(9))}"# }
        fields.append(#""items": [\#(items.joined(separator: ", "))]"#)
        if changes.contains(.loyaltyTier) { fields.append(#""loyaltyTier": \#(next(4))"#) }
        if changes.contains(.shipping) {
          fields.append(#""shipping": {"city": "city\#(next(30))", "zip": "\#(10000 + next(80000))"}"#)
        }
        if changes.contains(.discounts) && id % 2 == 0 {
          let discounts = (0..<(1 + next(2))).map { _ in #"{"code": "D\#(next(90))", "percent": \#(5 + next(20))}"# }
          fields.append(#""discounts": [\#(discounts.joined(separator: ", "))]"#)
        }
        lines.append("{" + fields.joined(separator: ", ") + "}")
      }
      return (lines.joined(separator: "\n") + "\n", amounts)
    }
  }

  static let evolvedNight: NightlyOrders.Changes = [.loyaltyTier, .shipping, .discounts, .decimalAmounts]

  static let evolvedChanges: Set<String> = [
    "widen column orders.amount INTEGER to DECIMAL(2)",
    "add column orders.loyalty_tier INTEGER NULL",
    "add column orders.shipping_city TEXT NULL",
    "add column orders.shipping_zip TEXT NULL",
    "create table orders_discounts",
    "add column orders_discounts.code TEXT NULL",
    "add column orders_discounts.percent INTEGER NULL",
  ]

  @Test(
    "A new field, a nested object, a nested list and a wider number evolve in one strict run, as the plan showed",
    arguments: Store.allCases.filter(\.isAvailable))
  func anEvolvingDatasetLoadsNewFieldsAListAndAWiderNumberInOneStrictRun(store: Store) throws {
    let workspace = try Workspace(store)
    var dumps = NightlyOrders(seed: 59)
    let first = dumps.night([])
    _ = try workspace.scratch.write("orders.ndjson", first.text)
    let base = workspace.run()
    #expect(base.status == 0, "\(base.stderr)")
    let before = try workspace.migrations()
    let original = workspace.datasetText

    let night = dumps.night(Self.evolvedNight)
    _ = try workspace.scratch.write("orders.ndjson", night.text)
    let plan = workspace.sluice(["plan", workspace.spec, "--json"])
    #expect(plan.status == 0, "\(plan.stderr)")
    for change in Self.evolvedChanges {
      #expect(plan.stderr.contains("sluice: plan: orders.dataset.json would \(change)\n"), "\(plan.stderr)")
    }
    let planned = try JSONDecoder().decode(RunPlan.self, from: Data(plan.stdout.utf8))
    #expect(workspace.datasetText == original, "a plan rewrites no file")
    #expect(try workspace.migrations() == before, "a plan applies nothing")

    let run = workspace.run()
    #expect(run.status == 0, "\(run.stderr)")
    let applied = try workspace.migrations().subtracting(before)
    #expect(applied == Self.evolvedChanges)
    #expect(Set(planned.pendingMigrations) == applied, "the plan listed exactly what the run applied")

    #expect(
      try workspace.columns(of: "orders") == [
        "id", "customer", "amount", "loyalty_tier", "shipping_city", "shipping_zip",
      ])
    #expect(try workspace.columns(of: "orders_discounts") == ["id", "position", "code", "percent"])
    let rows = try workspace.rows(["orders", "orders_discounts"])
    let orders = rows.tables["orders"] ?? []
    for id in 1...20 {
      let amount = id <= 10 ? night.amounts[id] : first.amounts[id].map { $0 * 100 }
      #expect(
        orders.contains { $0.hasPrefix("\(id) | ") && $0.components(separatedBy: " | ")[2] == "\(amount ?? -1)" },
        "order \(id): \(orders)")
    }
    #expect(rows.count("orders_discounts") > 0)
    #expect(orders.filter { $0.hasSuffix("NULL | NULL | NULL") }.count == 10, "orders 11–20 have no new values")

    // The file says what the database holds, the old one is kept, and the next run is plain.
    let evolved = try DatasetFile.load(workspace.datasetFile)
    #expect(evolved.tables == ["orders", "order_items", "orders_discounts"])
    #expect(
      workspace.datasetText.contains(#"{ "name": "amount", "type": "decimal", "scale": 2 }"#),
      "\(workspace.datasetText)")
    #expect(
      workspace.datasetText.contains(
        #"{ "name": "loyaltyTier", "type": "integer", "optional": true, "nullable": true }"#))
    let kept = try workspace.files().filter { $0.hasPrefix("orders.dataset.json.previous-") }
    #expect(kept.count == 1)
    #expect(try String(contentsOfFile: workspace.scratch.file(kept[0]), encoding: .utf8) == original)
    #expect(!(try workspace.files().contains("orders.dataset.json.evolving")))
    #expect(
      run.stderr.contains("sluice: orders.dataset.json evolved: widen column orders.amount INTEGER to DECIMAL(2); "),
      "\(run.stderr)")
    let again = workspace.run()
    #expect(again.status == 0, "\(again.stderr)")
    #expect(!again.stderr.contains("evolved"), "\(again.stderr)")
    #expect(try workspace.migrations().subtracting(before) == Self.evolvedChanges)
  }

  @Test(
    "Six generated nights: each change evolves the night it appears, as planned; the narrowing is refused",
    arguments: Store.allCases.filter(\.isAvailable))
  func aSequenceOfNightlyDumpsEvolvesNightByNight(store: Store) throws {
    let workspace = try Workspace(store)
    var dumps = NightlyOrders(seed: 2026)
    let nights: [(changes: NightlyOrders.Changes, status: Int32, evolves: Set<String>)] = [
      ([], 0, []),
      ([.loyaltyTier], 0, ["add column orders.loyalty_tier INTEGER NULL"]),
      (
        [.loyaltyTier, .discounts], 0,
        [
          "create table orders_discounts", "add column orders_discounts.code TEXT NULL",
          "add column orders_discounts.percent INTEGER NULL",
        ]
      ),
      ([.loyaltyTier, .discounts, .decimalAmounts], 0, ["widen column orders.amount INTEGER to DECIMAL(2)"]),
      ([.loyaltyTier, .discounts, .textAmounts], 65, []),
      ([.loyaltyTier, .discounts], 0, []),
    ]
    for (number, night) in nights.enumerated() {
      _ = try workspace.scratch.write("orders.ndjson", dumps.night(night.changes).text)
      let before = try number == 0 ? [] : workspace.migrations()
      let plan = workspace.sluice(["plan", workspace.spec, "--json"])
      let run = workspace.run()
      #expect(run.status == night.status, "night \(number + 1): \(run.stderr)")
      let applied = try workspace.migrations().subtracting(before)
      if number > 0 {
        #expect(applied == night.evolves, "night \(number + 1)")
      }
      if night.status == 0 {
        let planned = try JSONDecoder().decode(RunPlan.self, from: Data(plan.stdout.utf8))
        #expect(number == 0 || Set(planned.pendingMigrations) == applied, "night \(number + 1)")
      } else {
        #expect(plan.status == 65, "the plan refuses what the run refuses: \(plan.stderr)")
        #expect(
          run.stderr.hasPrefix(
            "sluice: field 'amount' is declared decimal(2); the input has a string at orders.ndjson record 3 (line 3): "
          ), "\(run.stderr)")
      }
      #expect(run.stderr.contains(" evolved: ") == !night.evolves.isEmpty, "night \(number + 1): \(run.stderr)")
    }
    let kept = try workspace.files().filter { $0.hasPrefix("orders.dataset.json.previous-") }
    #expect(kept.count == 3, "one previous file per night that evolved: \(kept)")
    #expect(try workspace.rows(["orders"]).count("orders") == 20)
  }

  @Test(
    "A narrowing is refused: exit 65 naming the field, both types and the place; nothing written",
    arguments: Store.allCases.filter(\.isAvailable))
  func aNarrowingIsRefusedWithExit65AndNothingWritten(store: Store) throws {
    let workspace = try Workspace(store)
    var dumps = NightlyOrders(seed: 7)
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([]).text)
    #expect(workspace.run().status == 0)
    let before = try workspace.rows(["orders", "order_items", "sluice_migrations"])
    let original = workspace.datasetText

    _ = try workspace.scratch.write("orders.ndjson", dumps.night([.loyaltyTier, .textAmounts]).text)
    let result = workspace.run()
    #expect(result.status == 65)
    #expect(
      result.stderr
        == "sluice: field 'amount' is declared integer; the input has a string at orders.ndjson record 3 (line 3): a narrowing or a change that would lose information, which evolution refuses (exit 65, nothing written): change the dataset file by hand\n",
      "\(result.stderr)")
    #expect(try workspace.rows(["orders", "order_items", "sluice_migrations"]) == before)
    #expect(workspace.datasetText == original)
    #expect(try workspace.files().filter { $0.contains(".evolving") || $0.contains(".previous-") }.isEmpty)
  }

  @Test("A strict run that fails rolls its schema changes back with its rows: no column, no file")
  func aFailedStrictRunRollsItsSchemaChangesBack() throws {
    let workspace = try Workspace(.sqlite)
    var dumps = NightlyOrders(seed: 8)
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([]).text)
    #expect(workspace.run().status == 0)
    let before = try workspace.rows(["orders", "order_items", "sluice_migrations"])
    let original = workspace.datasetText
    // A record without its customer: strict rejects it, and the run with it.
    let broken = #"{"id": 99, "amount": 1, "items": [], "loyaltyTier": 1}"# + "\n"
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([.loyaltyTier, .discounts]).text + broken)
    let result = workspace.run()
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("sluice: the run was rolled back; no data was written to "), "\(result.stderr)")
    #expect(try workspace.rows(["orders", "order_items", "sluice_migrations"]) == before)
    #expect(try workspace.rows(["orders_discounts"]).tables["orders_discounts"] == nil, "no table either")
    #expect(workspace.datasetText == original)
    #expect(try workspace.files().filter { $0.contains(".evolving") || $0.contains(".previous-") }.isEmpty)
  }

  @Test(
    "Freeze, the default, keeps today's behaviour: a new field is an unknownField warning per record, the schema stays")
  func freezeKeepsTheSchemaAndWarnsOfNewFields() throws {
    let workspace = try Workspace(.sqlite, evolution: nil)
    var dumps = NightlyOrders(seed: 3)
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([]).text)
    #expect(workspace.run().status == 0)
    let original = workspace.datasetText
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([.loyaltyTier]).text)
    let result = workspace.run()
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("issues: 20 — unknownField 20\n"), "\(result.stderr)")
    #expect(
      result.stderr.contains("decode record 1 (line 1, byte "), "\(result.stderr)")
    #expect(result.stderr.contains(") loyaltyTier: unknownField: not part of the contract\n"), "\(result.stderr)")
    #expect(try workspace.columns(of: "orders") == ["id", "customer", "amount"])
    #expect(workspace.datasetText == original)
    #expect(try workspace.files().filter { $0.contains(".evolving") || $0.contains(".previous-") }.isEmpty)
  }

  @Test("--evolve evolves a file that says nothing, for that run")
  func theEvolveOptionEvolvesAFileThatSaysNothing() throws {
    let workspace = try Workspace(.sqlite, evolution: nil)
    var dumps = NightlyOrders(seed: 4)
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([.loyaltyTier]).text)
    let result = workspace.run(["--evolve"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try workspace.columns(of: "orders") == ["id", "customer", "amount", "loyalty_tier"])
    #expect(!workspace.datasetText.contains("\"evolution\""), "the file keeps its own mode")
  }

  @Test("What init --declarative writes evolves: its file, rewritten, loads the new fields next time")
  func aDatasetFileInitWroteEvolves() throws {
    let workspace = try Workspace(.sqlite)
    var dumps = NightlyOrders(seed: 21)
    let dump = try workspace.scratch.write("dump.ndjson", dumps.night([]).text)
    let folder = workspace.scratch.file("feed")
    let made = workspace.sluice(["init", dump, "feed", "--declarative", "--dir", folder])
    #expect(made.status == 0, "\(made.stderr)")
    let spec = folder + "/feed.json"
    #expect(workspace.sluice(["run", spec]).status == 0)
    _ = try workspace.scratch.write("dump.ndjson", dumps.night(Self.evolvedNight).text)
    let result = workspace.sluice(["run", spec, "--evolve"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "sluice: feed.dataset.json evolved: widen column feed.amount INTEGER to DECIMAL(2); add column feed.loyalty_tier INTEGER NULL; add column feed.shipping_city TEXT NULL; add column feed.shipping_zip TEXT NULL; create table feed_discounts; add column feed_discounts.code TEXT NULL; add column feed_discounts.percent INTEGER NULL; the file was rewritten"
      ), "\(result.stderr)")
    _ = try workspace.scratch.write("dump.ndjson", dumps.night(Self.evolvedNight).text)
    let again = workspace.sluice(["run", spec])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(!again.stderr.contains("unknownField"), "the rewritten file declares every field: \(again.stderr)")
  }

  @Test("A checkpointed run does not evolve: its chunks are not the one transaction the changes need")
  func aCheckpointedRunThatWouldEvolveIsExit64() throws {
    let workspace = try Workspace(.sqlite)
    var dumps = NightlyOrders(seed: 9)
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([.loyaltyTier]).text)
    let result = workspace.run(["--checkpoint-every", "5"])
    #expect(result.status == 64)
    #expect(
      result.stderr.hasPrefix(
        "sluice: schema evolution changes the tables in the run's one transaction, and a checkpointed or staged run commits in chunks; load the night that evolves without it\n"
      ), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: workspace.scratch.file("shop.sqlite")))
  }

  @Test("A table that keeps its history is not evolved: its history table would have to change alike, exit 64")
  func aTableThatKeepsItsHistoryIsNotEvolved() throws {
    let workspace = try Workspace(.sqlite)
    let text = try String(contentsOfFile: workspace.datasetFile, encoding: .utf8)
    try text.replacingOccurrences(
      of: #""name": "orders", "key": ["id"], "onConflict": "upsert","#,
      with: #""name": "orders", "key": ["id"], "onConflict": "upsert", "history": "scd2","#
    ).write(toFile: workspace.datasetFile, atomically: true, encoding: .utf8)
    var dumps = NightlyOrders(seed: 9)
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([.loyaltyTier]).text)
    let result = workspace.run()
    #expect(result.status == 64)
    #expect(
      result.stderr.hasPrefix(
        "sluice: schema evolution would add column orders.loyalty_tier INTEGER NULL, and orders keeps its history in sluice_history_orders, which evolution does not change alike; declare the field in the dataset file by hand and add it to both tables, or load this night with \"evolution\": \"freeze\"\n"
      ), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: workspace.scratch.file("shop.sqlite")))
    #expect(try String(contentsOfFile: workspace.datasetFile, encoding: .utf8).contains(#""history": "scd2""#))
  }

  @Test("An unknown evolution mode is a mistake in the dataset file, exit 64")
  func anUnknownEvolutionModeIsExit64() throws {
    let workspace = try Workspace(.sqlite, evolution: "grow")
    _ = try workspace.scratch.write("orders.ndjson", "")
    let result = workspace.run()
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "sluice: dataset file \(workspace.datasetFile): 'evolution': 'grow' is not one of: freeze, evolve, discard\n",
      "\(result.stderr)")
  }

  @Test("CSV files of one input whose headers differ load by name: a new column evolves, named by the file")
  func csvFilesWithDifferentHeadersLoadByNameAndANewColumnEvolves() throws {
    let workspace = try Workspace(.sqlite, format: "csv", input: "orders-*.csv", flat: true)
    _ = try workspace.scratch.write("orders-01.csv", "id,customer,amount\n1,c1,10\n2,c2,20\n")
    _ = try workspace.scratch.write(
      "orders-02.csv", "customer,id,amount,loyalty_tier,note\nc3,3,30,2,\nc4,4,40,1,gift\n")
    let result = workspace.run()
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try workspace.columns(of: "orders") == ["id", "customer", "amount", "loyalty_tier", "note"])
    #expect(
      try workspace.rows(["orders"]).tables["orders"] == [
        "id, customer, amount, loyalty_tier, note", "1 | 'c1' | 10 | NULL | NULL", "2 | 'c2' | 20 | NULL | NULL",
        "3 | 'c3' | 30 | 2 | ''", "4 | 'c4' | 40 | 1 | 'gift'",
      ])
    #expect(
      result.stderr.contains(
        "sluice: orders.dataset.json evolved: add column orders.loyalty_tier INTEGER NULL; add column orders.note TEXT NULL;"
      ), "\(result.stderr)")
  }

  @Test("Discard drops new fields and counts them, without a warning per record; the schema stays")
  func discardDropsNewFieldsAndCountsThem() throws {
    let workspace = try Workspace(.sqlite, evolution: "discard")
    var dumps = NightlyOrders(seed: 5)
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([.loyaltyTier, .shipping]).text)
    let original = workspace.datasetText
    let result = workspace.run(["--report", "report.json"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stderr.contains("not part of the contract"), "\(result.stderr)")
    let report =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: workspace.scratch.file("report.json")))) as? [String: Any]
    #expect(
      report?["issueCounts"] as? [String: Int] == ["unknownField": 40],
      "the 20 records' loyaltyTier and shipping, counted")
    #expect((report?["issues"] as? [Any])?.isEmpty == true, "none listed")
    #expect(try workspace.columns(of: "orders") == ["id", "customer", "amount"])
    #expect(workspace.datasetText == original)
  }

  // MARK: - Interrupted runs

  /// What `kill -9` can leave, window by window, since the run writes `<file>.evolving` before
  /// its transaction and renames it over the file after the commit: before the commit, a
  /// `.evolving` file the database never applied; after it, one it did.
  @Test("A run killed before its commit leaves nothing applied: the next run drops its evolved file and evolves anew")
  func aRunKilledBeforeItsCommitIsDroppedByTheNextRun() throws {
    let workspace = try Workspace(.sqlite)
    var dumps = NightlyOrders(seed: 11)
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([]).text)
    #expect(workspace.run().status == 0)
    let original = workspace.datasetText
    // The killed run's evolved file, whose migrations the database never recorded.
    _ = try workspace.scratch.write(
      "orders.dataset.json.evolving", #"["add column orders.loyalty_tier INTEGER NULL"]"# + "\n" + original)
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([]).text)
    let result = workspace.run()
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "sluice: orders.dataset.json: an earlier run that would have evolved it was stopped before its commit: its changes were never applied; dropped orders.dataset.json.evolving\n"
      ), "\(result.stderr)")
    #expect(workspace.datasetText == original)
    #expect(try workspace.columns(of: "orders") == ["id", "customer", "amount"])
    #expect(try workspace.files().filter { $0.contains(".evolving") || $0.contains(".previous-") }.isEmpty)
  }

  @Test("A run killed between its commit and the file's rewrite: the next run rewrites the file first")
  func aRunKilledAfterItsCommitIsFinishedByTheNextRun() throws {
    let workspace = try Workspace(.sqlite)
    var dumps = NightlyOrders(seed: 12)
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([]).text)
    #expect(workspace.run().status == 0)
    let original = workspace.datasetText
    _ = try workspace.scratch.write("orders.ndjson", dumps.night([.loyaltyTier]).text)
    #expect(workspace.run().status == 0)
    let evolved = workspace.datasetText
    // As if killed after the commit: the old file still in place, the evolved one waiting.
    for kept in try workspace.files() where kept.hasPrefix("orders.dataset.json.previous-") {
      try FileManager.default.removeItem(atPath: workspace.scratch.file(kept))
    }
    _ = try workspace.scratch.write("orders.dataset.json", original)
    _ = try workspace.scratch.write(
      "orders.dataset.json.evolving", #"["add column orders.loyalty_tier INTEGER NULL"]"# + "\n" + evolved)
    let result = workspace.run()
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "sluice: orders.dataset.json: an earlier run committed its schema changes (add column orders.loyalty_tier INTEGER NULL) but was stopped before rewriting the file: rewritten now, the previous one kept as orders.dataset.json.previous-"
      ), "\(result.stderr)")
    #expect(workspace.datasetText == evolved)
    #expect(!result.stderr.contains("evolved:"), "the rewritten file declares the field: nothing more to evolve")
    #expect(try workspace.columns(of: "orders") == ["id", "customer", "amount", "loyalty_tier"])
  }
}
