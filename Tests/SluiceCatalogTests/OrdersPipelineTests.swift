import Foundation
import OrderSamples
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

extension GeneratedOrder {
  /// The record's JSON with one fragment replaced (it must occur), to damage it.
  func json(replacing fragment: String, with replacement: String) -> String {
    let text = json
    precondition(text.contains(fragment), "\(fragment) is not in \(text)")
    return text.replacingOccurrences(of: fragment, with: replacement)
  }
}

/// Builds order dumps; record n (1-based) of an array is on line n + 1, of NDJSON on line n.
enum OrdersDump {
  static let currencies = ["EUR", "EUR", "USD", "GBP", "JPY", "CHF"]
  static let statuses = ["pending", "completed", "completed", "cancelled"]
  static let names = ["Zoë", "Ana", "李雷", "Søren", "Chloé", "Ngozi", "Émile", "Aiko"]

  /// `count` orders with ids `first`, `first + 1`, … written with ten digits (leading zeros).
  /// Customer names change from order to order, so the last order of a customer names it.
  static func orders(_ count: Int, first: Int = 1, customers: Int = 50, seed: UInt64 = 7) -> [GeneratedOrder] {
    var random = SeededGenerator(seed: seed)
    return (0..<count).map { offset in
      let index = first + offset
      let customer = Int64.random(in: 1...Int64(customers), using: &random)
      let items = (0..<Int.random(in: 1...4, using: &random)).map { _ in
        GeneratedOrder.Item(
          sku: "SKU-\(String(format: "%05d", Int.random(in: 0..<100_000, using: &random)))",
          qty: Int.random(in: 1...9, using: &random),
          // Some prices beyond 2^31, so amounts and sums need 64 bits.
          priceMinor: Bool.random(using: &random)
            ? Int64.random(in: 0...500_000, using: &random)
            : Int64.random(in: 2_000_000_000...5_000_000_000, using: &random))
      }
      let time = String(format: "2023-03-%02dT10:%02d:%02d", 1 + index % 28, index / 60 % 60, index % 60)
      let fraction = index % 3 == 0 ? String(format: ".%03d", index % 1000) : ""
      return GeneratedOrder(
        id: String(format: "%010d", index),
        currency: currencies.randomElement(using: &random) ?? "EUR",
        status: statuses.randomElement(using: &random) ?? "pending",
        createdAt: time + fraction + "Z",
        customerID: customer,
        customerName: "\(names[Int(customer) % names.count]) \(customer)·\(index)",
        items: items)
    }
  }

  static func array(_ records: [String]) -> String { "[\n" + records.joined(separator: ",\n") + "\n]\n" }
  static func array(_ orders: [GeneratedOrder]) -> String { array(orders.map(\.json)) }
  static func ndjson(_ records: [String]) -> String { records.joined(separator: "\n") + "\n" }
}

/// A scratch directory with an orders database, and helpers to run pipelines and query it.
final class OrdersWorkspace {
  let directory: TemporaryDirectory
  let database: String

  init() throws {
    directory = try TemporaryDirectory()
    database = directory.file("orders.sqlite")
  }

  func configuration(
    input: String, format: PipelineConfiguration.Format = .json, policy: Policy = .strict,
    conflict: ConflictPolicy = .upsert
  ) -> PipelineConfiguration {
    PipelineConfiguration(
      name: "orders-test", input: input, format: format, policy: policy, database: .sqlite(database), conflict: conflict
    ).counted
  }

  func run(
    _ text: String, name: String = "orders.json", gzip: Bool = false, format: PipelineConfiguration.Format = .json,
    policy: Policy = .strict, conflict: ConflictPolicy = .upsert
  ) throws -> RunReport {
    let input = try directory.write(name, gzip ? Gzip.compress(text) : Array(text.utf8))
    return try Pipeline(
      dataset: OrdersDataset(),
      configuration: configuration(input: input, format: format, policy: policy, conflict: conflict)
    ).run()
  }

  func run(_ orders: [GeneratedOrder], policy: Policy = .strict, conflict: ConflictPolicy = .upsert) throws -> RunReport
  {
    try run(OrdersDump.array(orders), policy: policy, conflict: conflict)
  }

  /// The first column of every row of a query, as text (queries concatenate what they need).
  func strings(_ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var rows: [String] = []
    while try statement.step() { rows.append(statement.columnText(0) ?? "NULL") }
    return rows
  }

  func count(_ table: String) throws -> Int64? {
    try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt("SELECT count(*) FROM \(table)")
  }

  /// Every row of the dataset's four tables, in key order: equal dumps mean equal tables.
  func dump() throws -> [String] {
    try strings(
      """
      SELECT * FROM (
        SELECT 'status|' || id || '|' || name || '|' || is_final || '|' || retired FROM order_statuses ORDER BY id)
      UNION ALL SELECT * FROM (SELECT 'customer|' || customer_id || '|' || name FROM customers ORDER BY customer_id)
      UNION ALL SELECT * FROM (
        SELECT 'order|' || order_id || '|' || typeof(order_id) || '|' || amount_minor || '|' || currency || '|'
          || status_id || '|' || created_at || '|' || customer_id FROM orders ORDER BY order_id)
      UNION ALL SELECT * FROM (
        SELECT 'item|' || order_id || '|' || line || '|' || sku || '|' || qty || '|' || price_minor
        FROM order_items ORDER BY order_id, line)
      """)
  }

  /// The status of every audited run, oldest first.
  func auditRuns() throws -> [String] {
    try strings("SELECT status FROM sluice_runs ORDER BY run_id")
  }
}

@Suite("Orders pipeline")
struct OrdersPipelineTests {
  private func lenient(_ change: (inout Policy) -> Void = { _ in }) -> Policy {
    var policy = Policy.lenient
    change(&policy)
    return policy
  }

  @Test func sqlOverTheImportAnswersRevenueOrdersAndItemsQuestions() throws {
    // 600 orders, then 40 re-deliveries of earlier ids with new contents: the last copy counts.
    let first = OrdersDump.orders(600, customers: 45, seed: 11)
    let redelivered = OrdersDump.orders(40, customers: 45, seed: 12).enumerated().map { offset, order in
      var copy = order
      copy.id = first[offset * 13].id
      return copy
    }
    let dump = first + redelivered
    let workspace = try OrdersWorkspace()
    let report = try workspace.run(
      OrdersDump.ndjson(dump.map(\.json)), name: "orders.ndjson.gz", gzip: true, format: .ndjson)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")

    // The true answers, from the records themselves.
    var final: [String: GeneratedOrder] = [:]
    var customerNames: [Int64: String] = [:]
    for order in dump {
      final[order.id] = order
      customerNames[order.customerID] = order.customerName
    }
    let orders = final.values.sorted { $0.id < $1.id }

    var revenue: [String: Int64] = [:]
    for order in orders { revenue["\(order.currency)|\(order.status)", default: 0] += order.amount }
    let expectedRevenue = revenue.keys.sorted().map { "\($0)|\(revenue[$0] ?? 0)" }
    #expect(expectedRevenue.count > 8)
    #expect(
      try workspace.strings(
        """
        SELECT o.currency || '|' || s.name || '|' || SUM(o.amount_minor)
        FROM orders o JOIN order_statuses s ON s.id = o.status_id
        GROUP BY o.currency, s.name ORDER BY o.currency, s.name
        """) == expectedRevenue)

    var perCustomer: [Int64: Int] = [:]
    for order in orders { perCustomer[order.customerID, default: 0] += 1 }
    let expectedCustomers = customerNames.keys.sorted().map {
      "\($0)|\(customerNames[$0] ?? "")|\(perCustomer[$0] ?? 0)"
    }
    #expect(
      try workspace.strings(
        """
        SELECT c.customer_id || '|' || c.name || '|' || count(o.order_id)
        FROM customers c LEFT JOIN orders o ON o.customer_id = c.customer_id
        GROUP BY c.customer_id ORDER BY c.customer_id
        """) == expectedCustomers)

    let expectedItems = orders.map { order in
      "\(order.id)|\(order.items.count)|\(order.items.reduce(0) { $0 + $1.qty })|\(order.amount)"
    }
    #expect(
      try workspace.strings(
        """
        SELECT o.order_id || '|' || count(*) || '|' || SUM(i.qty) || '|' || SUM(i.qty * i.price_minor)
        FROM orders o JOIN order_items i ON i.order_id = o.order_id
        GROUP BY o.order_id ORDER BY o.order_id
        """) == expectedItems)

    #expect(try workspace.strings("SELECT order_id FROM orders ORDER BY order_id").first == "0000000001")
    #expect(report.tableRows["orders"] == 600)
    #expect(report.tableRows["customers"] == customerNames.count)
    #expect(report.tableRows["order_items"] == orders.reduce(0) { $0 + $1.items.count })
    #expect(report.rowsWritten["orders"] == 640)
  }

  @Test func reimportingTheSameDumpIsIdempotent() throws {
    let workspace = try OrdersWorkspace()
    let orders = OrdersDump.orders(300)
    let first = try workspace.run(orders)
    #expect(first.status == .succeeded)
    let before = try workspace.dump()
    #expect(before.count == 3 + (first.tableRows["customers"] ?? 0) + 300 + (first.tableRows["order_items"] ?? 0))

    let second = try workspace.run(orders)
    #expect(second.status == .succeeded)
    #expect(try workspace.dump() == before)
    #expect(second.tableRows == first.tableRows)
    // A customer's name changes from order to order: only writes that change a row count.
    var names = Dictionary(orders.map { ($0.customerID, $0.customerName) }, uniquingKeysWith: { $1 })
    var renames = 0
    for order in orders where names.updateValue(order.customerName, forKey: order.customerID) != order.customerName {
      renames += 1
    }
    #expect(second.rowsWritten["customers"] == renames)
    #expect(renames < 300)
    #expect(try workspace.auditRuns() == ["succeeded", "succeeded"])

    // The same orders as gzip NDJSON load the same rows.
    let other = try OrdersWorkspace()
    let ndjson = try other.run(OrdersDump.ndjson(orders.map(\.json)), name: "o.ndjson.gz", gzip: true, format: .ndjson)
    #expect(ndjson.status == .succeeded)
    #expect(try other.dump() == before)
  }

  /// One order imported, then a changed copy of it under each conflict policy.
  private func conflict(_ policy: ConflictPolicy) throws -> (OrdersWorkspace, before: [String], RunReport) {
    var original = OrdersDump.orders(2, customers: 1)
    original[0].items = [.init(sku: "SKU-1", qty: 1, priceMinor: 100), .init(sku: "SKU-2", qty: 2, priceMinor: 200)]
    original[0].status = "pending"
    var changed = original[0]
    changed.status = "cancelled"
    changed.currency = "CHF"
    changed.customerName = "Renamed"
    changed.items = [.init(sku: "SKU-9", qty: 3, priceMinor: 300)]
    let workspace = try OrdersWorkspace()
    #expect(try workspace.run(original).status == .succeeded)
    let before = try workspace.dump()
    return (workspace, before, try workspace.run([changed], conflict: policy))
  }

  @Test func upsertUpdatesTheOrderAndReplacesItsItems() throws {
    let (workspace, _, report) = try conflict(.upsert)
    #expect(report.status == .succeeded)
    let order = """
      SELECT o.amount_minor || o.currency || s.name FROM orders o JOIN order_statuses s ON s.id = o.status_id
      WHERE order_id = '0000000001'
      """
    #expect(try workspace.strings(order) == ["900CHFcancelled"])
    #expect(try workspace.strings("SELECT line || sku FROM order_items WHERE order_id = '0000000001'") == ["1SKU-9"])
    #expect(try workspace.strings("SELECT name FROM customers") == ["Renamed"])
    #expect(try workspace.count("orders") == 2)
  }

  @Test func replaceDeletesTheOrderWithItsItemsAndInsertsItAnew() throws {
    let (workspace, _, report) = try conflict(.replace)
    #expect(report.status == .succeeded)
    #expect(
      try workspace.strings("SELECT amount_minor || currency FROM orders WHERE order_id = '0000000001'") == ["900CHF"])
    #expect(try workspace.strings("SELECT line || sku FROM order_items WHERE order_id = '0000000001'") == ["1SKU-9"])
    #expect(try workspace.count("orders") == 2)
    #expect(try workspace.count("customers") == 1)

    let upserted = try conflict(.upsert).0
    #expect(try workspace.dump() == upserted.dump())
  }

  @Test func ignoreKeepsTheExistingOrderAndItsItems() throws {
    let (workspace, before, report) = try conflict(.ignore)
    #expect(report.status == .succeeded)
    #expect(report.rowsWritten["orders"] == 0)
    #expect(report.rowsWritten["order_items"] == 0)
    let orderRows = { (rows: [String]) in rows.filter { $0.hasPrefix("order|") || $0.hasPrefix("item|") } }
    #expect(orderRows(try workspace.dump()) == orderRows(before))
  }

  @Test func failTurnsAnExistingIDIntoAConstraintIssueAndWritesNothing() throws {
    let (workspace, before, report) = try conflict(.fail)
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .load)
    #expect(issue.code == .constraint)
    #expect(issue.location?.ordinal == 1)
    #expect(try workspace.dump() == before)
    #expect(try workspace.auditRuns() == ["succeeded", "failed"])

    // New ids load under fail; a repeated id within one lenient run is skipped and reported.
    let fresh = OrdersDump.orders(3, first: 10)
    let lenientRun = try workspace.run(fresh + [fresh[1]], policy: lenient(), conflict: .fail)
    #expect(lenientRun.status == .succeeded)
    #expect(lenientRun.issues.map(\.code) == [.constraint])
    #expect(lenientRun.issues.first?.location?.ordinal == 4)
    #expect(try workspace.count("orders") == 5)
    let freshItems = fresh.reduce(0) { $0 + $1.items.count }
    #expect(try workspace.count("order_items WHERE order_id >= '0000000010'") == Int64(freshItems))
  }

  /// 3000 orders, the 1717th with a quantity written as text in its second item.
  private func thousandsWithOneBad() -> (orders: [GeneratedOrder], text: String) {
    var orders = OrdersDump.orders(3000, first: 100, customers: 400)
    orders[1716].items = [.init(sku: "SKU-1", qty: 1, priceMinor: 10), .init(sku: "SKU-2", qty: 7, priceMinor: 20)]
    var records = orders.map(\.json)
    records[1716] = orders[1716].json(replacing: #""qty":7"#, with: #""qty":"7""#)
    return (orders, OrdersDump.array(records))
  }

  @Test func strictRunWithOneBadOrderAmongThousandsLeavesTheDatabaseUnchanged() throws {
    let workspace = try OrdersWorkspace()
    #expect(try workspace.run(OrdersDump.orders(20, first: 1)).status == .succeeded)
    let before = try workspace.dump()

    let report = try workspace.run(thousandsWithOneBad().text)
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    #expect(!report.committed)
    #expect(report.rowsWritten.isEmpty)
    #expect(report.issues.count == 1)
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .decode)
    #expect(issue.code == .typeMismatch)
    #expect(issue.path == "items[1].qty")
    #expect(issue.location?.ordinal == 1717)
    #expect(issue.location?.line == 1718)
    #expect(report.failure?.message.contains("items[1].qty") == true)
    #expect(try workspace.dump() == before)
    #expect(try workspace.auditRuns() == ["succeeded", "failed"])
  }

  @Test func lenientRunImportsTheRestAndReportsTheBadOrderWithItsPath() throws {
    let workspace = try OrdersWorkspace()
    let (orders, text) = thousandsWithOneBad()
    let report = try workspace.run(text, policy: lenient { $0.maxRejects = 10 })
    #expect(report.status == .succeeded)
    #expect(report.exitCode == 0)
    #expect(report.committed)
    #expect(report.issues.map(\.path) == ["items[1].qty"])
    #expect(report.issues.first?.location?.ordinal == 1717)
    #expect(report.statistics(for: .decode).rejected == 1)
    #expect(try workspace.count("orders") == 2999)
    #expect(try workspace.count("orders WHERE order_id = '\(orders[1716].id)'") == 0)
    let items = orders.enumerated().filter { $0.offset != 1716 }.reduce(0) { $0 + $1.element.items.count }
    #expect(try workspace.count("order_items") == Int64(items))
    #expect(try workspace.strings("SELECT records_rejected FROM sluice_runs") == ["1"])
    #expect(try workspace.strings("SELECT path FROM sluice_rejects") == ["items[1].qty"])
  }

  @Test func lenientRunOverItsBudgetRollsBack() throws {
    let workspace = try OrdersWorkspace()
    #expect(try workspace.run(OrdersDump.orders(5, first: 1)).status == .succeeded)
    let before = try workspace.dump()

    let orders = OrdersDump.orders(200, first: 1000)
    var records = orders.map(\.json)
    records[10] = orders[10].json(replacing: #""status":"\#(orders[10].status)""#, with: #""status":"refunded""#)
    records[50] = orders[50].json(replacing: #""currency":"\#(orders[50].currency)""#, with: #""currency":"eur""#)
    records[90] = orders[90].json(replacing: #""amount":\#(orders[90].amount)"#, with: #""amount":1.5"#)
    let text = OrdersDump.ndjson(records)

    let over = try workspace.run(text, name: "o.ndjson", format: .ndjson, policy: lenient { $0.maxRejects = 2 })
    #expect(over.status == .failed)
    #expect(over.exitCode == 65)
    #expect(over.failure?.message.contains("error budget exceeded") == true)
    #expect(over.issues.map(\.path) == ["status", "currency", "amount"])
    #expect(try workspace.dump() == before)

    let rate = try workspace.run(text, name: "o.ndjson", format: .ndjson, policy: lenient { $0.maxRejectRate = 0.01 })
    #expect(rate.status == .failed)
    #expect(rate.exitCode == 65)
    #expect(try workspace.dump() == before)

    let within = try workspace.run(text, name: "o.ndjson", format: .ndjson, policy: lenient { $0.maxRejects = 3 })
    #expect(within.status == .succeeded)
    #expect(within.issues.map(\.code) == [.unsupportedEnumValue, .invalidValue, .typeMismatch])
    #expect(try workspace.count("orders") == 5 + 197)
    #expect(try workspace.auditRuns() == ["succeeded", "failed", "failed", "succeeded"])
  }

  @Test func committedLenientPipelineReportsEveryDamagedOrder() throws {
    let workspace = try OrdersWorkspace()
    let spec = try PipelineSpec(contentsOf: Repository.path("Pipelines/orders-lenient.json"))
    var configuration = try spec.configuration(drivers: .all)
    configuration.database = .sqlite(workspace.database)
    configuration.reportPath = nil
    configuration.rejectsPath = workspace.directory.file("rejects.ndjson")
    #expect(configuration.input == Repository.path("SampleData/orders-broken.ndjson.gz"))
    let report = try Pipeline(dataset: OrdersDataset(), configuration: configuration.counted).run()

    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.exitCode == 0)
    let found = report.issues.map { "\($0.location?.ordinal ?? 0) \($0.stage.rawValue) \($0.code) \($0.path)" }
    #expect(
      found == [
        "18 decode nullValue status",
        "36 decode missingField currency",
        "54 map unsupportedEnumValue status",
        "72 decode outOfRange amount",
        "90 decode typeMismatch amount",
        "126 validate invalidValue items",
        "144 validate outOfRange items[0].qty",
        "162 validate outOfRange items[0].priceMinor",
        "180 validate invalidValue currency",
        "198 decode invalidDate createdAt",
        "216 read syntax ",
      ])
    #expect(report.issues.allSatisfy { $0.location?.line == $0.location?.ordinal })
    #expect(report.coercions == 1)  // record 108's numeric orderId
    #expect(report.quarantined == 11)
    #expect(report.tableRows["orders"] == 229)
    #expect(
      try workspace.strings("SELECT typeof(order_id) || order_id FROM orders WHERE order_id = '108'") == ["text108"])
    #expect(try workspace.count("orders WHERE length(order_id) = 10") == 228)
  }

  @Test func committedStrictPipelineImportsTheNightlySample() throws {
    let workspace = try OrdersWorkspace()
    var configuration = try PipelineSpec(contentsOf: Repository.path("Pipelines/orders.json")).configuration(
      drivers: .all)
    configuration.database = .sqlite(workspace.database)
    configuration.reportPath = nil
    let report = try Pipeline(dataset: OrdersDataset(), configuration: configuration.counted).run()
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.input.gzip)
    #expect(report.tableRows["orders"] == 2000)
    #expect(
      try workspace.count(
        "orders o WHERE amount_minor = (SELECT SUM(qty * price_minor) FROM order_items i WHERE i.order_id = o.order_id)"
      )
        == 2000)
    #expect(try workspace.count("orders o JOIN order_statuses s ON s.id = o.status_id") == 2000)
  }
}
