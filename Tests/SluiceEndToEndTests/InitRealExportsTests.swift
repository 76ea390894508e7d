import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice init --declarative` then `sluice run` on real exports (issue 58, findings 5 and 7):
/// each field kept, named and typed right, and every column of every table holding the values
/// Foundation's own parsers read from the file (`ExportValue`), column by column.
@Suite("sluice init on real exports: every field kept, named and typed right")
struct InitRealExportsTests {
  static let corpus = Repository.path("Tests/Corpus")

  /// What `init --declarative` wrote and what `run` loaded.
  struct Loaded {
    var initOutput: String
    var runOutput: String
    var dataset: [String: Any]
    var spec: [String: Any]
    var readme: String
    var database: String

    var fields: [[String: Any]] { dataset["fields"] as? [[String: Any]] ?? [] }
    var tables: [[String: Any]] { dataset["tables"] as? [[String: Any]] ?? [] }
    func field(_ name: String) -> [String: Any]? { fields.first { $0["name"] as? String == name } }
  }

  /// Inits `dump` as `name` in `scratch`, runs the spec, and checks every table's rows and
  /// every column's values against `ExportValue`'s reading of the dump.
  @discardableResult
  static func load(_ dump: String, _ name: String, _ extra: [String] = [], in scratch: TemporaryDirectory) throws
    -> Loaded
  {
    let directory = scratch.file(name)
    let initialized = try SluiceCommand.run(["init", dump, name, "--declarative", "--dir", directory] + extra)
    try #require(initialized.status == 0, "\(initialized.stderr)")
    func read(_ file: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(file)")) }
    let spec = try #require(try JSONSerialization.jsonObject(with: read("\(name).json")) as? [String: Any])
    let dataset = try #require(
      try JSONSerialization.jsonObject(with: read("\(name).dataset.json")) as? [String: Any])
    let run = try SluiceCommand.run(["run", "\(directory)/\(name).json"])
    try #require(run.status == 0, "\(name): \(run.stderr)")
    let loaded = Loaded(
      initOutput: initialized.stdout, runOutput: run.stderr, dataset: dataset, spec: spec,
      readme: String(decoding: try read("README.md"), as: UTF8.self), database: "\(directory)/\(name).sqlite")
    try checkValues(loaded, dump: dump, name: name)
    return loaded
  }

  /// Each table's columns hold, as a multiset, the values at their fields in the records (or in
  /// the elements of the arrays the table holds).
  static func checkValues(_ loaded: Loaded, dump: String, name: String) throws {
    let connection = try SQLiteConnection(path: loaded.database, options: .init(readOnly: true))
    let records = try ExportValue.records(
      of: dump, format: loaded.spec["format"] as? String ?? "", recordPath: loaded.spec["recordPath"] as? [String] ?? []
    )
    #expect(!records.isEmpty, "\(name): no records")
    var holders: [String: (values: [ExportValue], fields: [[String: Any]])] = [:]
    for table in loaded.tables {
      let tableName = try #require(table["name"] as? String)
      var rows = records
      var fields = loaded.fields
      var prefix = ""
      if let parent = table["parent"] as? String, let holder = holders[parent] {
        let field = table["field"] as? String ?? ""
        if table["position"] == nil {
          rows = holder.values.compactMap { $0.value(at: field) }
          fields = Self.fields(at: field, in: holder.fields)
          prefix = ""
        } else {
          rows = holder.values.flatMap { $0.elements(at: field) }
          fields = Self.elementFields(at: field, in: holder.fields)
        }
      }
      holders[tableName] = (rows, fields)
      let count = try connection.scalarInt("SELECT count(*) FROM \"\(tableName)\"")
      #expect(count == Int64(rows.count), "\(name): \(tableName) rows")
      for column in table["columns"] as? [[String: Any]] ?? [] {
        let columnName = try #require(column["name"] as? String)
        let field = prefix + (column["field"] as? String ?? columnName)
        guard field != "$position" else { continue }
        // A positional key's input: the one dump's name (relative to the spec, or its path) in
        // every row, which keeps another page of the export from replacing these rows.
        if field == "$input" {
          let statement = try connection.prepare("SELECT DISTINCT \"\(columnName)\" FROM \"\(tableName)\"")
          var names: [String] = []
          while try statement.step() { names.append(statement.columnText(0) ?? "NULL") }
          let dumpName = URL(fileURLWithPath: dump).lastPathComponent
          #expect(
            names.count == (rows.isEmpty ? 0 : 1)
              && names.allSatisfy { $0.hasSuffix("/" + dumpName) || $0 == dumpName },
            "\(name): \(tableName).\(columnName) holds \(names), not the one input \(dumpName)")
          continue
        }
        let type = field == "." ? Self.elementType(in: fields) : Self.type(of: field, in: fields)
        var expected: [String] = []
        var compared = true
        for row in rows {
          guard let value = row.value(at: field) else {
            expected.append("NULL")
            continue
          }
          guard let text = value.expected(as: type) else {
            compared = false
            break
          }
          expected.append(text ?? "NULL")
        }
        guard compared else { continue }
        let statement = try connection.prepare("SELECT \"\(columnName)\" FROM \"\(tableName)\"")
        var actual: [String] = []
        while try statement.step() {
          let text = statement.columnText(0)
          switch (text, type) {
          case (nil, _): actual.append("NULL")
          case (let text?, "json"):
            let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            actual.append(parsed.map(ExportValue.canonicalJSON) ?? "unparsable: \(text)")
          case (let text?, "number"): actual.append(Double(text).map(ExportValue.number) ?? text)
          case (let text?, _): actual.append(text)
          }
        }
        #expect(actual.sorted() == expected.sorted(), "\(name): \(tableName).\(columnName) (\(type))")
      }
    }
  }

  /// The declared fields of the object at a dotted field path among `fields`.
  static func fields(at path: String, in fields: [[String: Any]]) -> [[String: Any]] {
    var current = fields
    for key in ExportValue.keys(path) {
      current = current.first { $0["name"] as? String == key }?["fields"] as? [[String: Any]] ?? []
    }
    return current
  }

  /// The declared fields of the elements of the array at a field path (or of the array itself, `.`).
  static func elementFields(at path: String, in fields: [[String: Any]]) -> [[String: Any]] {
    let keys = ExportValue.keys(path)
    var current = fields
    for key in keys.dropLast() {
      current = current.first { $0["name"] as? String == key }?["fields"] as? [[String: Any]] ?? []
    }
    let array = current.first { $0["name"] as? String == keys.last }
    let items = array?["items"] as? [String: Any] ?? [:]
    // A scalar element's one column reads it whole (`.`): its type is the items' type.
    return items["fields"] as? [[String: Any]] ?? [["name": ".", "type": items["type"] ?? "text"]]
  }

  static func type(of path: String, in fields: [[String: Any]]) -> String {
    let keys = ExportValue.keys(path)
    var current = fields
    for key in keys.dropLast() {
      current = current.first { $0["name"] as? String == key }?["fields"] as? [[String: Any]] ?? []
    }
    return current.first { $0["name"] as? String == keys.last }?["type"] as? String ?? "text"
  }

  static func elementType(in fields: [[String: Any]]) -> String {
    fields.first { $0["name"] as? String == "." }?["type"] as? String ?? "text"
  }

  // MARK: - Finding 5

  /// Telegram's `text` is a string in four messages and an array of strings and entities in two:
  /// it is kept as JSON text (a `json` field), said so by `init` and its README, and loaded
  /// for every message — no message loses it, no run warns about it.
  @Test func aFieldThatIsAStringInSomeRecordsAndAnArrayInOthersIsKeptAsJSONText() throws {
    let scratch = try TemporaryDirectory()
    let dump = Self.corpus + "/messages/telegram/langchain_fork_result_mixed_text.json"
    let loaded = try Self.load(dump, "telegram", in: scratch)
    #expect(loaded.field("text")?["type"] as? String == "json")
    #expect(
      loaded.initOutput.contains("kept as JSON text (values of more than one type, or always-empty arrays): `text`"))
    #expect(loaded.readme.contains("Kept as JSON text (a `TEXT` column holding the value as JSON"), "\(loaded.readme)")
    let report = try RunReport.decode(
      from: Data(contentsOf: URL(fileURLWithPath: scratch.file("telegram/reports/telegram.json"))))
    #expect(report.issues.filter { $0.code == .unknownField }.isEmpty, "\(report.issues)")
    let connection = try SQLiteConnection(path: loaded.database, options: .init(readOnly: true))
    let arrays = try connection.scalarInt("SELECT count(*) FROM telegram WHERE json_type(text) = 'array'")
    let strings = try connection.scalarInt("SELECT count(*) FROM telegram WHERE json_type(text) = 'text'")
    #expect(arrays == 2 && strings == 4)
  }

  /// A `json` field's contract accepts any JSON value: `sluice contract` states it as `{}`.
  @Test func theContractOfAJSONFieldAcceptsAnyValue() throws {
    let scratch = try TemporaryDirectory()
    let dump = Self.corpus + "/messages/telegram/langchain_fork_result_mixed_text.json"
    try Self.load(dump, "chat", in: scratch)
    let contract = try SluiceCommand.run(["contract", scratch.file("chat/chat.dataset.json")])
    try #require(contract.status == 0, "\(contract.stderr)")
    let schema = try #require(try JSONSerialization.jsonObject(with: Data(contract.stdout.utf8)) as? [String: Any])
    let properties = try #require(schema["properties"] as? [String: Any])
    #expect((properties["text"] as? [String: Any])?.isEmpty == true, "\(properties["text"] ?? "none")")
  }

  /// A Telegram account export holds 6 contacts and 4 chats; the chats hold the messages, so
  /// they are the records (the messages a child table), not the longer flat list of contacts.
  /// Its `text` is a string or an array there too, its `members` arrays of names.
  @Test func anAccountExportsRecordsAreItsChatsWhichHoldTheMessagesNotItsContacts() throws {
    let scratch = try TemporaryDirectory()
    let dump = Self.corpus + "/messages/telegram/chat-history-manager_account_2020-01.json"
    let loaded = try Self.load(dump, "account", in: scratch)
    #expect(loaded.spec["recordPath"] as? [String] == ["chats", "list"])
    #expect(loaded.readme.contains("`chats.list` (4 records)"), "\(loaded.readme)")
    let messages = try #require(loaded.tables.first { $0["field"] as? String == "messages" })
    #expect(messages["parent"] as? String == "account")
    let connection = try SQLiteConnection(path: loaded.database, options: .init(readOnly: true))
    #expect(try connection.scalarInt("SELECT count(*) FROM \"\(messages["name"] as? String ?? "")\"") == 50)
  }

  /// A Trello board export's shape (no real board under a licence that allows copying it was
  /// found): 2 cards holding their labels beside a log of 3 actions; the cards are the records.
  @Test func aTrelloBoardsRecordsAreItsCardsNotItsLongerLogOfActions() throws {
    let scratch = try TemporaryDirectory()
    let dump = try scratch.write(
      "board.json",
      """
      {"id": "b1", "name": "Board", "actions": [
        {"id": "a1", "type": "createCard", "date": "2024-01-02T10:00:00.000Z", "data": {"card": {"id": "c1"}}},
        {"id": "a2", "type": "createCard", "date": "2024-01-02T10:01:00.000Z", "data": {"card": {"id": "c2"}}},
        {"id": "a3", "type": "updateCard", "date": "2024-01-02T10:02:00.000Z", "data": {"card": {"id": "c1"}}}],
       "cards": [
        {"id": "c1", "name": "Write", "idList": "l1", "pos": 16384, "labels": [{"id": "g", "name": "Doc", "color": "green"}]},
        {"id": "c2", "name": "Ship", "idList": "l1", "pos": 32768.5, "labels": []}],
       "lists": [{"id": "l1", "name": "To do"}]}
      """)
    let loaded = try Self.load(dump, "board", in: scratch)
    #expect(loaded.spec["recordPath"] as? [String] == ["cards"])
    #expect(loaded.tables.map { $0["name"] as? String } == ["board", "board_labels"])
  }

  /// Every DiscordChatExporter file name has `[id]` in it: the spec names it escaped, so `run`
  /// reads that one file rather than taking it for a pattern that matches nothing (exit 66).
  @Test func aDumpWhoseNameHoldsBracketsIsWrittenEscapedSoThatRunFindsIt() throws {
    let scratch = try TemporaryDirectory()
    let dump = Self.corpus + "/messages/discord/Test Server - general - Test Thread [200].json"
    let loaded = try Self.load(dump, "thread", in: scratch)
    let input = try #require(loaded.spec["input"] as? String)
    #expect(input.hasSuffix(#"/Test Server - general - Test Thread \[200\].json"#), "\(input)")
    #expect(PipelineSpec.unescaped(input).hasSuffix("Test Thread [200].json"))
  }

  /// Names with Latin diacritics lose them (`descripción` → `descripcion`), as do letters no
  /// decomposition takes apart (`ß`, `ø`); the fields keep their keys.
  @Test func nonASCIILatinNamesAreTransliterated() throws {
    let scratch = try TemporaryDirectory()
    let dump = try scratch.write(
      "catalogo.json",
      #"{"artículos": [{"código": "A1", "descripción": "Café", "Größe": 2, "Øre": 1, "año": 2024}]}"#)
    let loaded = try Self.load(dump, "catalogo", in: scratch)
    let table = try #require(loaded.tables.first)
    let columns = (table["columns"] as? [[String: Any]] ?? []).map {
      "\($0["name"] as? String ?? "")=\($0["field"] as? String ?? "")"
    }
    #expect(columns.contains("codigo=código") && columns.contains("descripcion=descripción"), "\(columns)")
    #expect(columns.contains("grosse=Größe") && columns.contains("ore=Øre") && columns.contains("ano=año"))
  }

  /// An array empty in every record read is declared `json`, not a table of text values: the
  /// next dump's objects (or numbers) there load, as JSON text, where a text table rejected them.
  @Test func anArrayAlwaysEmptyInTheSampleLoadsWhateverTheNextDumpHoldsThere() throws {
    let scratch = try TemporaryDirectory()
    let dump = try scratch.write(
      "cards.json", #"{"cards": [{"id": "c1", "idMembersVoted": []}, {"id": "c2", "idMembersVoted": []}]}"#)
    let loaded = try Self.load(dump, "cards", in: scratch)
    #expect(loaded.field("idMembersVoted")?["type"] as? String == "json")
    #expect(loaded.tables.count == 1)
    let next = #"{"cards": [{"id": "c3", "idMembersVoted": [{"id": "m1"}, 7]}]}"#
    try Data(next.utf8).write(to: URL(fileURLWithPath: dump))
    let run = try SluiceCommand.run(["run", scratch.file("cards/cards.json"), "--policy", "strict"])
    #expect(run.status == 0, "\(run.stderr)")
    let connection = try SQLiteConnection(path: loaded.database, options: .init(readOnly: true))
    let statement = try connection.prepare("SELECT id_members_voted FROM cards WHERE id = 'c3'")
    #expect(try statement.step())
    #expect(statement.columnText(0) == #"[{"id":"m1"},7]"#)
  }

  /// Whole numbers land in an integer column, numbers with a fraction in a real one.
  @Test func integersLandInAnIntegerColumnAndFractionsInARealOne() throws {
    let scratch = try TemporaryDirectory()
    let dump = Self.corpus + "/messages/telegram/chat-history-manager_account_2020-01.json"
    let loaded = try Self.load(dump, "typed", in: scratch)
    #expect(loaded.field("id")?["type"] as? String == "integer")
    let connection = try SQLiteConnection(path: loaded.database, options: .init(readOnly: true))
    #expect(try connection.scalarInt("SELECT count(*) FROM typed WHERE typeof(id) <> 'integer'") == 0)
  }

  /// Whole numbers past 64 bits (a 20-digit id) are no `integer` and would lose digits as a
  /// `number`: they are kept exact, as JSON text, beside the 64-bit ones of the same field.
  @Test func integersPast64BitsAreKeptExactNotRoundedIntoARealColumn() throws {
    let scratch = try TemporaryDirectory()
    let dump = try scratch.write(
      "ids.json", #"[{"id": 1, "snowflake": 123456789012345678901}, {"id": 2, "snowflake": 7}]"#)
    let loaded = try Self.load(dump, "ids", in: scratch)
    #expect(loaded.field("snowflake")?["type"] as? String == "json")
    #expect(loaded.field("id")?["type"] as? String == "integer")
    let connection = try SQLiteConnection(path: loaded.database, options: .init(readOnly: true))
    let statement = try connection.prepare("SELECT snowflake FROM ids ORDER BY id")
    #expect(try statement.step())
    #expect(statement.columnText(0) == "123456789012345678901")
  }

  /// A CSV column of decimals is a `decimal` field, stored exactly in minor units: the README
  /// names it with its scale, so that `1230` is read as `12.30`.
  @Test func theReadmeNamesEachDecimalColumnStoredInMinorUnitsWithItsScale() throws {
    let scratch = try TemporaryDirectory()
    let dump = try scratch.write("prices.csv", "sku,price\nA1,12.30\nB2,4.5\n")
    let directory = scratch.file("prices")
    let result = try SluiceCommand.run(["init", dump, "prices", "--declarative", "--dir", directory])
    try #require(result.status == 0, "\(result.stderr)")
    let readme = try String(contentsOfFile: directory + "/README.md", encoding: .utf8)
    #expect(
      readme.contains(
        "Decimals are stored exactly, as integers in minor units: `price` (scale 2) — `12.30` with scale 2 is `1230`; divide by 10^scale to read them."
      ), "\(readme)")
  }

  /// A Zotero library's collections are keyed by their 8-character keys, three of which have no
  /// digit: every member is a record, as the reader reads them, not "not an object".
  @Test func inspectCountsEveryMemberOfACollectionKeyedByIdsWithoutDigits() throws {
    let dump = Self.corpus + "/json-xml-exports/zotero/bbt-1092-collections-zotero-keys.json"
    let result = try SluiceCommand.run(["inspect", dump, "--record-path", "collections{id}", "--json"])
    try #require(result.status == 0, "\(result.stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    let candidates = report["candidates"] as? [[String: Any]] ?? []
    let collections = try #require(candidates.first { $0["path"] as? String == "collections{id}" })
    #expect(collections["records"] as? Int == 12, "\(collections)")
    #expect(collections["otherElements"] as? Int == 0)
    #expect(report["records"] as? Int == 12)
  }

  /// A WordPress export (WXR) lists 30 categories beside its 11 posts; the posts hold their
  /// categories and metadata, so they are the records.
  @Test func aWordPressExportsRecordsAreItsPostsNotItsLongerListOfCategories() throws {
    let scratch = try TemporaryDirectory()
    let dump = Self.corpus + "/json-xml-exports/wordpress/small-export.xml"
    let loaded = try Self.load(dump, "blog", in: scratch)
    #expect(loaded.spec["recordPath"] as? [String] == ["rss", "channel", "item"])
  }

  /// Each post has `content:encoded` and `excerpt:encoded`, one local name in two namespaces:
  /// `init` reads and declares them by prefixed name, two text fields and two columns with
  /// distinct names (not one table of `encoded` values), and the spec says `"xmlNames":
  /// "qualified"` so that `run` reads them so; `inspect` says why.
  @Test func xmlElementsThatDifferOnlyByNamespaceAreTwoFieldsWithDistinctNames() throws {
    let scratch = try TemporaryDirectory()
    let dump = Self.corpus + "/json-xml-exports/wordpress/small-export.xml"
    let loaded = try Self.load(dump, "posts", in: scratch)
    #expect(loaded.spec["xmlNames"] as? String == "qualified")
    #expect(loaded.field("content:encoded")?["type"] as? String == "text")
    #expect(loaded.field("excerpt:encoded")?["type"] as? String == "text")
    #expect(loaded.field("encoded") == nil)
    let columns = (loaded.tables.first?["columns"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    #expect(columns.contains("content_encoded") && columns.contains("excerpt_encoded"), "\(columns)")
    #expect(!loaded.tables.contains { ($0["name"] as? String ?? "").hasSuffix("encoded") })
    let inspected = try SluiceCommand.run(["inspect", dump, "--record-path", "rss.channel.item"])
    #expect(
      inspected.stdout.contains(
        #"elements at rss.channel.item.encoded are written with two namespace prefixes: read by local name (the default) they are one field; a spec's "xmlNames": "qualified" names them by prefixed name (content:encoded)"#
      ), "\(inspected.stdout)")
  }

  /// `xmlNames` is an XML input's: a spec that gives it for JSON is refused, with its place.
  @Test func xmlNamesForAJSONInputIsRefused() throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write(
      "spec.json", #"{"dataset": "fruits", "input": "in.json", "format": "json", "xmlNames": "qualified"}"#)
    let result = try SluiceCommand.run(["run", spec, "--db", scratch.file("x.sqlite")])
    #expect(result.status == 64)
    #expect(result.stderr.contains("'xmlNames' applies to format xml, not json"), "\(result.stderr)")
  }

  // MARK: - Finding 7

  struct Export: CustomTestStringConvertible, Sendable {
    var path: String
    var name: String
    var extra: [String] = []
    var testDescription: String { name }
  }

  /// The real JSON and XML exports of the corpus that `init` reads whole: each loads with every
  /// column equal to Foundation's reading of the file.
  static let exports: [Export] = [
    Export(path: "messages/telegram/langchain_fork_result_mixed_text.json", name: "telegram-mixed"),
    Export(path: "messages/telegram/langchain_result.json", name: "telegram-result"),
    Export(path: "messages/telegram/chat-history-manager_account_2020-01.json", name: "telegram-account"),
    Export(path: "messages/telegram/chat-history-manager_2024-08.json", name: "telegram-2024"),
    Export(path: "messages/discord/Test Server - general - Test Thread [200].json", name: "discord-thread"),
    Export(path: "messages/discord/zulip_dce_general_100.json", name: "discord-general"),
    Export(path: "json-xml-exports/zotero/bbt-1092-collections-zotero-keys.json", name: "zotero-items"),
    Export(path: "json-xml-exports/wordpress/small-export.xml", name: "wordpress"),
    Export(path: "json-xml-exports/opml/netnewswire-Subs.opml", name: "opml-subscriptions"),
  ]

  @Test(arguments: exports)
  func everyRecordOfARealExportLoadsWithTheValuesFoundationReads(_ export: Export) throws {
    let scratch = try TemporaryDirectory()
    let dump = Self.corpus + "/" + export.path
    let inspected = try SluiceCommand.run(["inspect", dump])
    #expect(inspected.status == 0, "\(inspected.stderr)")
    try Self.load(dump, export.name, export.extra, in: scratch)
  }
}
