import Foundation
@_spi(Internals) import SluiceCore
import SluiceInspect
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice init` and `sluice inspect` on CSV and TSV: generated exports — a `;`-separated CRLF
/// Windows-1252 one with quoted line breaks, a UTF-8 one with a byte order mark, a TSV, one
/// without a header — made into a dataset file whose spec carries the sniffed dialect, then run
/// strict with no option: every row loaded, zero rejects, each value exactly as written.
@Suite("sluice init and inspect on CSV and TSV")
struct CSVInitTests {
  /// Rows quoted where a field holds the delimiter, a quote or a line break.
  static func delimited(_ rows: [[String]], delimiter: String, lineBreak: String) -> String {
    rows.map { row in
      row.map { field in
        field.contains(delimiter) || field.contains("\"") || field.contains("\n") || field.contains("\r")
          ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
      }.joined(separator: delimiter)
    }.joined(separator: lineBreak) + lineBreak
  }

  /// The legacy export's rows: an id, text with `;`, quotes, line breaks and Windows-1252
  /// characters, a decimal, a boolean, a `dd/MM/yyyy` date, a status, a zero-padded code and a
  /// sometimes-empty note.
  static let legacyRows: [[String]] =
    [["id", "name", "price", "active", "created", "status", "code", "note"]] + (1...40).map(legacyRow)

  static func legacyRow(_ index: Int) -> [String] {
    let name = index % 5 == 0 ? "Line one;\r\nline \"two\" \(index)" : "Café “n°\(index)” – €"
    let price = "\(index * 7 / 3).\(index % 10)\(index % 7)"
    let created = String(format: "%02d/%02d/20%02d", index % 28 + 1, index % 12 + 1, index % 30)
    let status = index % 2 == 0 ? "open" : "closed"
    let note = index % 3 == 0 ? "" : "n\(index)"
    return [
      "\(index)", name, price, index % 2 == 0 ? "true" : "false", created, status,
      String(format: "%05d", index * 3), note,
    ]
  }

  /// Inits `dump` as NAME with `--declarative`, runs the spec strict, and returns the spec and
  /// the database's rows of table NAME.
  func initAndRun(_ dump: String, _ name: String, in scratch: TemporaryDirectory, _ extra: [String] = []) throws -> (
    spec: [String: Any], rows: [String]
  ) {
    let directory = scratch.file(name)
    let initialized = try SluiceCommand.run(["init", dump, name, "--declarative", "--dir", directory] + extra)
    try #require(initialized.status == 0, "\(initialized.stderr)")
    let specFile = "\(directory)/\(name).json"
    let spec = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: specFile))) as? [String: Any])
    let run = try SluiceCommand.run(["run", specFile, "--policy", "strict"])
    try #require(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("\(name): "), "\(run.stdout)")
    let report = try #require(
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: "\(directory)/reports/\(name).json"))) as? [String: Any])
    // Zero rejects and zero warnings (an unknown column would be one) at every stage.
    let stages = try #require(report["stages"] as? [[String: Any]])
    #expect(stages.count == 5)
    for stage in stages {
      #expect(stage["rejected"] as? Int == 0 && stage["warnings"] as? Int == 0, "\(stage)")
    }
    #expect((report["issues"] as? [Any])?.isEmpty == true)
    let snapshot = try DatabaseSnapshot(of: "\(directory)/\(name).sqlite", tables: [name])
    return (spec, snapshot.tables[name] ?? [])
  }

  @Test func aSemicolonCRLFWindows1252ExportLoadsEveryRowExactly() throws {
    let scratch = try TemporaryDirectory()
    let text = Self.delimited(Self.legacyRows, delimiter: ";", lineBreak: "\r\n")
    let dump = try scratch.write("export", Array(try #require(text.data(using: .windowsCP1252))))
    let (spec, rows) = try initAndRun(dump, "legacy", in: scratch)
    #expect(spec["format"] as? String == "csv")
    let dialect = try #require(spec["dialect"] as? [String: Any])
    #expect(dialect["delimiter"] as? String == ";")
    #expect(dialect["encoding"] as? String == "windows-1252")
    #expect(dialect["header"] as? Bool == true)
    #expect(dialect["empty"] as? String == "null")
    let dataset = try #require(
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: scratch.file("legacy/legacy.dataset.json")))) as? [String: Any])
    let fields = try #require(dataset["fields"] as? [[String: Any]])
    let types = Dictionary(
      uniqueKeysWithValues: fields.map { ($0["name"] as? String ?? "", $0["type"] as? String ?? "") })
    #expect(
      types == [
        "id": "integer", "name": "text", "price": "decimal", "active": "boolean", "created": "timestamp",
        "status": "enum", "code": "text", "note": "text",
      ])
    #expect(fields.first { $0["name"] as? String == "created" }?["formats"] as? [String] == ["dd/MM/yyyy"])
    #expect(fields.first { $0["name"] as? String == "price" }?["scale"] as? Int == 2)
    #expect(fields.first { $0["name"] as? String == "note" }?["nullable"] as? Bool == true)
    // Every row, each value as written: the decimal in minor units, the date in UTC ISO 8601.
    let expected = Self.legacyRows.dropFirst().map { row -> String in
      let price = row[2].split(separator: ".")
      let cents = Int(price[0])! * 100 + Int(price[1])!
      let date = row[4].split(separator: "/")
      return [
        row[0], "'\(row[1].replacingOccurrences(of: "'", with: "''"))'", "\(cents)", row[3] == "true" ? "1" : "0",
        "'\(date[2])-\(date[1])-\(date[0])T00:00:00.000Z'", "'\(row[5])'", "'\(row[6])'",
        row[7].isEmpty ? "NULL" : "'\(row[7])'",
      ].joined(separator: "|")
    }
    #expect(rows == expected.sorted())
  }

  @Test func aUTF8ExportWithAByteOrderMarkATSVAndAHeaderlessFileLoadExactly() throws {
    let scratch = try TemporaryDirectory()
    let bom = try scratch.write(
      "bom.csv", [0xEF, 0xBB, 0xBF] + Array("sku,qty,weight\nÅ-001,3,1.5\nZ-2,10,0.25\nß-3,-4,12\n".utf8))
    let (bomSpec, bomRows) = try initAndRun(bom, "bom", in: scratch)
    #expect((bomSpec["dialect"] as? [String: Any])?["encoding"] == nil)
    // No id-like column: keyed by the row's input (as the spec names it) and position.
    #expect(
      bomRows == ["'../bom.csv'|0|'Å-001'|3|150", "'../bom.csv'|1|'Z-2'|10|25", "'../bom.csv'|2|'ß-3'|-4|1200"])

    let tsv = try scratch.write(
      "items-export", "item_id\tlabel\tin_stock\n10\tA\tTrue\n11\tB, b\tFalse\n12\t\"C\"\"\"\ttrue\n")
    let (tsvSpec, tsvRows) = try initAndRun(tsv, "items", in: scratch)
    #expect(tsvSpec["format"] as? String == "tsv")
    #expect((tsvSpec["dialect"] as? [String: Any])?["delimiter"] as? String == "tab")
    #expect(tsvRows == ["10|'A'|1", "11|'B, b'|0", "12|'C\"'|1"])

    let headerless = try scratch.write(
      "readings.txt", "7,2024-03-01T10:00:00Z,0012\n8,2024-03-02T11:30:00+02:00,0013\n")
    let (plainSpec, plainRows) = try initAndRun(headerless, "readings", in: scratch)
    let dialect = try #require(plainSpec["dialect"] as? [String: Any])
    #expect(dialect["header"] as? Bool == false)
    #expect(dialect["columns"] as? [String] == ["column1", "column2", "column3"])
    #expect(
      plainRows == [
        "'../readings.txt'|0|7|'2024-03-01T10:00:00.000Z'|'0012'",
        "'../readings.txt'|1|8|'2024-03-02T09:30:00.000Z'|'0013'",
      ])
  }

  @Test func aUTF16ExportIsSniffedByItsMarkAndLoadsExactly() throws {
    let scratch = try TemporaryDirectory()
    let text = "code;label;amount\r\n001;Crème brûlée 😀;12\r\n002;\"two\r\nlines\";-3\r\n"
    // UTF-16LE with its byte order mark, and no file extension to go by.
    let bytes: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    let dump = try scratch.write("export-utf16", bytes)
    let inspected = try SluiceCommand.run(["inspect", dump])
    #expect(inspected.status == 0, "\(inspected.stderr)")
    #expect(inspected.stdout.contains("utf-16"), "\(inspected.stdout)")
    let (spec, rows) = try initAndRun(dump, "legacy16", in: scratch)
    let dialect = try #require(spec["dialect"] as? [String: Any])
    #expect(dialect["encoding"] as? String == "utf-16")
    #expect(dialect["delimiter"] as? String == ";")
    // Leading zeros keep the code text; no id-like column, so rows are keyed by input and position.
    #expect(
      rows == ["'../export-utf16'|0|'001'|'Crème brûlée 😀'|12", "'../export-utf16'|1|'002'|'two\r\nlines'|-3"])
  }

  @Test func theSwiftPackageRouteWritesTheDialectTheDatesAndARowsFixture() throws {
    let scratch = try TemporaryDirectory()
    let text = Self.delimited(Self.legacyRows, delimiter: ";", lineBreak: "\r\n")
    let dump = try scratch.write("export.csv", Array(try #require(text.data(using: .windowsCP1252))))
    let directory = scratch.file("package")
    let result = try SluiceCommand.run(["init", dump, "legacy", "--dir", directory, "--sluice", Repository.root])
    try #require(result.status == 0, "\(result.stderr)")
    func read(_ path: String) throws -> String {
      try String(contentsOfFile: "\(directory)/\(path)", encoding: .utf8)
    }
    let spec = try #require(
      try JSONSerialization.jsonObject(with: Data(try read("Pipelines/legacy.json").utf8)) as? [String: Any])
    #expect(spec["format"] as? String == "csv")
    let dialect = try #require(spec["dialect"] as? [String: Any])
    #expect(dialect["delimiter"] as? String == ";" && dialect["encoding"] as? String == "windows-1252")
    let policy = try #require(spec["policy"] as? [String: Any])
    #expect(policy["dates"] as? [String] == ["iso8601", "dd/MM/yyyy"])
    let dto = try read("Sources/legacy-sluice/LegacyDTO.swift")
    for line in [
      "let id: Int64", "let name: String", "let price: Double", "let active: Bool", "let created: Date",
      "let status: String", "let code: String", "let note: String?",
    ] {
      #expect(dto.contains(line), "\(line)\n\(dto)")
    }
    let fixture = try read("Fixtures/legacy/valid/001-first-records.csv")
    #expect(fixture.hasPrefix("id;name;price;active;created;status;code;note\r\n1;Café"))
    #expect(try read("README.md").contains("--format csv --encoding utf-8"))
    // The fixture, read as the README says, holds three valid rows.
    let check = try SluiceCommand.run([
      "inspect", "\(directory)/Fixtures/legacy/valid/001-first-records.csv", "--encoding", "utf-8", "--json",
    ])
    #expect(check.status == 0, "\(check.stderr)")
    #expect(check.stdout.contains("\"records\" : 3"), "\(check.stdout)")
  }

  @Test func inspectTakesTheDialectOptionsAndRefusesThemForJSON() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("rows.dat", "1|a\n2|b\n")
    let given = try SluiceCommand.run(["inspect", file, "--format", "csv", "--delimiter", "|", "--columns", "n,letter"])
    #expect(given.status == 0, "\(given.stderr)")
    #expect(given.stdout.contains("dialect  delimiter '|', no header row: columns given"), "\(given.stdout)")
    #expect(given.stdout.contains("n       integer"), "\(given.stdout)")
    let named = try SluiceCommand.run(["inspect", file, "--no-header", "--json"])
    #expect(named.status == 0, "\(named.stderr)")
    #expect(named.stdout.contains("\"columnsNamed\" : true"), "\(named.stdout)")
    let json = try scratch.write("a.json", "[{\"a\": 1}]")
    let refused = try SluiceCommand.run(["inspect", json, "--delimiter", ";"])
    #expect(refused.status == 64, "\(refused.stderr)")
    let badEncoding = try SluiceCommand.run(["inspect", file, "--encoding", "no-such-encoding"])
    #expect(badEncoding.status == 64, "\(badEncoding.stderr)")
  }

  /// The corpus's real CSV and TSV files, when there are any: init, then a run of the spec that
  /// loads every row the reader can read.
  static let corpusFiles: [String] = {
    let root = Repository.path("Tests/Corpus")
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
    return walker.compactMap { $0 as? String }.filter {
      let name = $0.lowercased()
      return [".csv", ".tsv", ".csv.gz", ".tsv.gz"].contains { name.hasSuffix($0) }
    }.sorted().map { "\(root)/\($0)" }
  }()

  @Test(arguments: corpusFiles)
  func aRealCSVFromTheCorpusLoadsEveryReadableRow(_ dump: String) throws {
    let scratch = try TemporaryDirectory()
    let inspection = try Inspector.inspect(path: dump, options: InspectOptions(sampleSize: nil))
    let directory = scratch.file("corpus")
    let initialized = try SluiceCommand.run(["init", dump, "corpus", "--declarative", "--dir", directory])
    try #require(initialized.status == 0, "\(initialized.stderr)")
    let run = try SluiceCommand.run(["run", "\(directory)/corpus.json"])
    try #require(run.status == 0, "\(run.stderr)")
    let snapshot = try DatabaseSnapshot(of: "\(directory)/corpus.sqlite", tables: ["corpus"])
    #expect(snapshot.count("corpus") == inspection.records, "\(dump)")
  }
}
