import Foundation
import OrderSamples
import SluiceCatalog
import SluiceCore
import SluicePostgreSQLTestSupport
import SluiceTestSupport
import Testing

/// A Telegram Desktop export (`result.json` of one chat) whose message ids repeat — the real case
/// of issue 23: an export whose ids were anonymised to one value loaded as one row while the
/// summary said 256 loaded. The file is shaped exactly like the corpus's real export
/// `Tests/Corpus/messages/telegram/langchain_result.json` (langchain-ai/langchain-community @
/// bc87773 : `libs/community/tests/unit_tests/chat_loaders/data/telegram_chat_json/result.json`,
/// MIT; see `Tests/Corpus/messages/SOURCE.md`): its chat's `name`, `type` and `id`, and its four
/// messages, every field as they are, repeated to `count` messages whose `id` is all `1`.
enum AnonymisedTelegramExport {
  static func write(count: Int, into directory: TemporaryDirectory) throws -> String {
    let real = try JSONSerialization.jsonObject(
      with: Data(contentsOf: URL(fileURLWithPath: ChatCorpus.path("telegram/langchain_result.json"))))
    guard var chat = real as? [String: Any], let messages = chat["messages"] as? [[String: Any]] else {
      throw ChatCorpus.NotAnArray(file: "telegram/langchain_result.json")
    }
    chat["messages"] = (0..<count).map { index in
      var message = messages[index % messages.count]
      message["id"] = 1
      return message
    }
    let data = try JSONSerialization.data(withJSONObject: chat, options: [.prettyPrinted, .sortedKeys])
    return try directory.write("result.json", Array(data))
  }

  /// The texts of the real export's messages, in order.
  static let texts = [
    "i refuse to converse with you", "Hi nemesis", "we meet again", "you will not trick me this time",
  ]
}

extension Policy {
  /// This preset with `duplicateKeys` set.
  static func with(_ preset: Preset, duplicateKeys: DuplicateKeyAction) -> Policy {
    var policy = Policy(preset: preset)
    policy.duplicateKeys = duplicateKeys
    return policy
  }
}

@Suite("Repeated natural keys in one run")
struct RepeatedKeyPipelineTests {
  @Test func aTelegramExportWhoseMessageIdsRepeatLoadsOneRowAndSaysSoWithAWarningPerRepeat() throws {
    let workspace = try ChatExportWorkspace()
    let input = try AnonymisedTelegramExport.write(count: 256, into: workspace.directory)
    let report = try workspace.run("telegram", input, recordPath: ["messages"])
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.recordsRead == 256 && report.recordsLoaded == 256)
    #expect(report.statistics(for: .load).warnings == 255)
    #expect(report.issueCounts == ["duplicateKey": 255])
    #expect(report.duplicateKeys == ["messages": 255])
    let first = try #require(report.issues.first)
    #expect(first.stage == .load && first.severity == .warning && first.code == .duplicateKey)
    #expect(first.path == "id")
    #expect(first.location?.ordinal == 2)
    #expect(first.message == "messages: record 1 wrote a row with this key earlier in the run")
    #expect(report.issues.allSatisfy { $0.message == first.message })
    #expect(report.summary().contains("\n  duplicate keys: messages 255\n"))
    // One row: the last message's, as before — the warnings say what happened to the others.
    #expect(try workspace.count("SELECT count(*) FROM messages") == 1)
    #expect(try workspace.rows("SELECT text FROM text_messages") == [AnonymisedTelegramExport.texts[255 % 4]])
  }

  @Test func rejectKeepsTheFirstMessageAndRejectsTheRepeatsOrFailsAStrictRun() throws {
    let workspace = try ChatExportWorkspace()
    let input = try AnonymisedTelegramExport.write(count: 256, into: workspace.directory)
    let lenient = try workspace.run(
      "telegram", input, recordPath: ["messages"], policy: .with(.lenient, duplicateKeys: .reject))
    #expect(lenient.status == .succeeded)
    #expect(lenient.statistics(for: .load).rejected == 255)
    #expect(lenient.recordsLoaded == 1)
    #expect(lenient.duplicateKeys == ["messages": 255])
    #expect(lenient.issues.allSatisfy { $0.severity == .error && $0.stage == .load && $0.path == "id" })
    #expect(lenient.policy == "lenient (duplicateKeys reject)")
    #expect(try workspace.rows("SELECT text FROM text_messages") == [AnonymisedTelegramExport.texts[0]])

    let other = try ChatExportWorkspace()
    let strict = try other.run(
      "telegram", input, recordPath: ["messages"], policy: .with(.strict, duplicateKeys: .reject))
    #expect(strict.status == .failed && strict.exitCode == 65)
    #expect(strict.failure?.message.contains("load rejected record 2 (line ") == true)
    #expect(strict.failure?.message.contains("id: duplicateKey: messages: record 1 wrote") == true)
    #expect(!strict.committed)
    #expect((try? other.count("SELECT count(*) FROM messages")) ?? 0 <= 0)
  }

  /// The real exports load again into the same database: every key is in it, none repeats in
  /// the run.
  @Test func aReRunOfTheSameExportReportsNoRepeats() throws {
    let workspace = try ChatExportWorkspace()
    for _ in 1...2 {
      let report = try workspace.run(
        "telegram", ChatCorpus.path("telegram/langchain_result.json"), recordPath: ["messages"])
      #expect(report.status == .succeeded)
      #expect(report.duplicateKeys == nil)
      #expect(report.issueCounts.isEmpty)
    }
    let orders = try OrdersWorkspace()
    let dump = OrdersDump.array(OrdersDump.orders(600, customers: 20))
    for _ in 1...2 {
      let report = try orders.run(dump, policy: .with(.strict, duplicateKeys: .reject))
      #expect(report.status == .succeeded)
      #expect(report.duplicateKeys == nil)
    }
  }

  /// 600 orders name 20 customers: the customers' rows repeat by design (shared rows, merged),
  /// and so do the orders' item lines numbered from 1 — none of it is a repeated key.
  @Test func sharedRowsAndChildRowsThatRepeatAreNoRepeatedKeys() throws {
    let workspace = try OrdersWorkspace()
    let report = try workspace.run(
      OrdersDump.orders(600, customers: 20), policy: .with(.strict, duplicateKeys: .reject))
    #expect(report.status == .succeeded)
    #expect(report.duplicateKeys == nil)
    #expect(try workspace.count("customers") == 20)
    #expect(try workspace.count("orders") == 600)
  }

  /// Orders whose ids repeat within a batch and across batches (600 records over 450 ids), both
  /// policies, into SQLite and PostgreSQL: the same outcome, issues and rows. On PostgreSQL the
  /// orders go through the bulk writer — a batch with a record `reject` rejects goes row by row
  /// — and the Telegram messages (which name their senders) through the row writer.
  @Test(
    "PostgreSQL reports and rejects the repeats SQLite does",
    .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"),
    arguments: [
      Policy.with(.strict, duplicateKeys: .warn), .with(.lenient, duplicateKeys: .warn),
      .with(.lenient, duplicateKeys: .reject), .with(.strict, duplicateKeys: .reject),
    ])
  func postgreSQLAgreesWithSQLite(policy: Policy) throws {
    let twin = try TwinStores()
    var orders = OrdersDump.orders(600, customers: 30)
    for index in orders.indices { orders[index].id = String(format: "%010d", index % 450) }
    let input = try twin.directory.write("orders.ndjson", OrdersDump.ndjson(orders.map(\.json)))
    let reports = try twin.run(
      PipelineConfiguration(
        name: "orders", input: input, format: .ndjson, policy: policy, database: .sqlite(""), issueSampleLimit: 1000),
      datasets: [Catalog.dataset(named: "orders")].compactMap { $0 })
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(reports.postgreSQL.duplicateKeys == reports.sqlite.duplicateKeys)
    // A strict run that rejects stops at the first repeat.
    let stopsAtFirst = policy.preset == .strict && policy.duplicateKeys == .reject
    #expect(reports.sqlite.duplicateKeys == ["orders": stopsAtFirst ? 1 : 150])
    #expect(reports.sqlite.status == (stopsAtFirst ? .failed : .succeeded))
    let (sqlite, postgreSQL) = try twin.tables(["customers", "orders", "order_items"])
    #expect(postgreSQL == sqlite)
    if policy.duplicateKeys == .reject && policy.preset == .lenient {
      #expect((reports.postgreSQL.bulkWrites?.rowByRow ?? 0) > 0)
    }

    let chat = try TwinStores()
    let export = try AnonymisedTelegramExport.write(count: 40, into: chat.directory)
    let chats = try chat.run(
      PipelineConfiguration(
        name: "telegram", inputs: [PipelineInput(path: export, recordPath: ["messages"])], policy: policy,
        database: .sqlite("")),
      datasets: [Catalog.dataset(named: "telegram")].compactMap { $0 })
    #expect(chats.postgreSQL.outcome == chats.sqlite.outcome)
    #expect(chats.sqlite.duplicateKeys == ["messages": stopsAtFirst ? 1 : 39])
    let tables = try chat.tables(MessageTables.schema.tableNames)
    #expect(tables.postgreSQL == tables.sqlite)
  }

  /// `--jobs 2`: the two order files share their tables, so one lane reads both and finds the
  /// repeats across them; the Telegram export loads in the other lane. The merged report is the
  /// serial run's (SQLite loads serially).
  @Test(
    "PostgreSQL lanes find the repeats across the inputs of a lane",
    .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"))
  func lanesFindRepeatsAcrossTheirInputs() throws {
    let twin = try TwinStores()
    let first = try twin.directory.write("a.ndjson", OrdersDump.ndjson(OrdersDump.orders(300).map(\.json)))
    let second = try twin.directory.write(
      "b.ndjson", OrdersDump.ndjson(OrdersDump.orders(100, first: 251, seed: 9).map(\.json)))
    let export = try AnonymisedTelegramExport.write(count: 40, into: twin.directory)
    var configuration = PipelineConfiguration(
      name: "lanes",
      inputs: [
        PipelineInput(dataset: "orders", path: first, format: .ndjson),
        PipelineInput(dataset: "telegram", path: export, recordPath: ["messages"]),
        PipelineInput(dataset: "orders", path: second, format: .ndjson),
      ],
      database: .sqlite(""), issueSampleLimit: 1000)
    configuration.parallelism.jobs = 2
    let datasets = ["orders", "telegram", "orders"].compactMap { Catalog.dataset(named: $0) }
    let reports = try twin.run(configuration, datasets: datasets)
    #expect(reports.postgreSQL.parallel?.lanes == 2)
    #expect(reports.sqlite.duplicateKeys == ["orders": 50, "messages": 39])
    #expect(reports.postgreSQL.duplicateKeys == reports.sqlite.duplicateKeys)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let repeated = try #require(reports.sqlite.issues.first { $0.input == second })
    #expect(repeated.location?.ordinal == 1)
    #expect(repeated.message == "orders: record 251 of \(first) wrote a row with this key earlier in the run")
  }
}
