import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice run` on the real legacy exports of `Tests/Corpus/csv/real/` (see its SOURCE.md) and
/// on generated ones: a Windows-1252 `;`-separated CRLF export with quoted line breaks (ISTAT's
/// list of Italian municipalities), a UTF-8 export with a byte order mark (a WooCommerce product
/// export), a TSV export (GeoNames' first-level divisions) and a UTF-16 export, each loaded
/// exactly: every row and value in the database equals an independent reading of the file's
/// bytes (`IndependentCSV`), through a dataset file declaring every column.
@Suite("sluice run on real and generated legacy CSV exports, exactly")
struct CSVCorpusRunTests {
  private static let real = Repository.path("Tests/Corpus/csv/real")

  @Test func aWindows1252SemicolonCRLFExportWithQuotedLineBreaksLoadsExactly() throws {
    let bytes = try Self.bytes("istat-comuni-windows-1252.csv")
    #expect(bytes.count(where: { $0 == 0x0D }) == 693 && bytes.contains(0x8A) && bytes.contains(0x9E))
    let rows = IndependentCSV.rows(IndependentCSV.windows1252(bytes), delimiter: ";")
    #expect(rows.count == 693)
    // The header's quoted line breaks (a bare LF inside a CRLF file) are part of its names.
    #expect(rows[0][1] == "Codice dell'Unità territoriale sovracomunale \n(valida a fini statistici)")
    let loaded = try load(
      Self.real + "/istat-comuni-windows-1252.csv", rows: rows, key: 4, format: "csv",
      dialect: #"{"delimiter": ";", "encoding": "windows-1252"}"#)
    // Cells read off the raw bytes: Š (0x8A) and ž (0x9E) are Windows-1252's, not Latin-1's;
    // codes keep their leading zeros and the spaces around them.
    let byCode = Dictionary(uniqueKeysWithValues: loaded.map { ($0[4], $0) })
    #expect(byCode["031019"]?[5] == "San Floriano del Collio-Števerjan")
    #expect(byCode["032001"]?[7] == "Devin Nabrežina")
    #expect(byCode["001001"]?[5] == "Agliè" && byCode["001001"]?[3] == " 001 " && byCode["001001"]?[0] == "01")
    #expect(byCode["021010"]?[5...7] == ["Brennero/Brenner", "Brennero", "Brenner"])
  }

  @Test func aUTF8ExportWithAByteOrderMarkLoadsExactly() throws {
    let bytes = try Self.bytes("woocommerce-registrations-products-bom.csv")
    #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF]))
    let rows = IndependentCSV.rows(String(decoding: bytes.dropFirst(3), as: UTF8.self), delimiter: ",")
    #expect(rows.count == 12 && rows.allSatisfy { $0.count == 46 })
    let loaded = try load(
      Self.real + "/woocommerce-registrations-products-bom.csv", rows: rows, key: 0, format: "csv", dialect: nil)
    // The mark is not part of the first column's name; `\,` is WooCommerce's, kept as written.
    #expect(rows[0][0] == "ID")
    #expect(loaded.first { $0[0] == "65" }?[39] == #"{"type":"single"\,"date":"2020-12-12"}"#)
  }

  @Test func aTSVExportWithoutAHeaderLoadsExactly() throws {
    let bytes = try Self.bytes("geonames-admin1CodesASCII.tsv")
    let columns = ["code", "name", "asciiname", "geonameid"]
    let rows = [columns] + IndependentCSV.rows(String(decoding: bytes, as: UTF8.self), delimiter: "\t")
    #expect(rows.count == 3936 && rows.allSatisfy { $0.count == 4 })
    let loaded = try load(
      Self.real + "/geonames-admin1CodesASCII.tsv", rows: rows, key: 0, format: "tsv",
      dialect: #"{"header": false, "columns": ["code", "name", "asciiname", "geonameid"]}"#)
    #expect(loaded.first { $0[0] == "AD.06" } == ["AD.06", "Sant Julià de Loria", "Sant Julia de Loria", "3039162"])
  }

  /// A real export with unbalanced and unescaped quotes: row 46593's `Gestore` opens a quote
  /// it never closes, which swallows 68 lines up to the quote that opens row 48922's name (line
  /// 103); two later rows have quotes inside unquoted fields (`… LUBRIFICANTI "API"`). A lenient
  /// reader (Python's `csv`, this test's own) keeps such quotes as text; Sluice makes each a
  /// stray-quote issue at its byte, line and column and reads on: strict fails there, lenient
  /// loads every other row exactly.
  @Test func aRealExportWithUnbalancedQuotesHasIssuesAtTheirBytesAndTheOtherRowsLoadExactly() throws {
    let name = "mimit-impianti-unbalanced-quote.csv"
    let bytes = try Self.bytes(name)
    let rows = IndependentCSV.rows(String(decoding: bytes, as: UTF8.self), delimiter: ";")
    #expect(rows.count == 632)
    let swallowed = try #require(rows.first { $0[0] == "46593" })
    #expect(swallowed[1].split(separator: "\n", omittingEmptySubsequences: false).count == 69)
    // Each stray quote's byte and line, found in the raw file.
    // ... and its column, the header's.
    func place(_ text: String, after prefix: Int, in column: String) throws -> String {
      let at = try #require(bytes.indices.first { bytes[$0...].starts(with: Array(text.utf8)) }) + prefix
      let number = try #require(rows[0].firstIndex(of: column)) + 1
      return "line \(bytes[..<at].count(where: { $0 == 0x0A }) + 1), column \(number), byte \(at)"
    }
    let expected = [
      "record 34 (\(try place("48922;\"F.LLI", after: 6, in: "Gestore"))) Gestore: syntax: a stray quote",
      "record 386 (\(try place("LUBRIFICANTI \"API\"", after: 13, in: "Gestore"))) Gestore: syntax: a stray quote",
      "record 456 (\(try place("STAZIONE \"IP\"", after: 9, in: "Nome Impianto"))) Nome Impianto: syntax: a stray quote",
    ]
    #expect(expected[0].hasPrefix("record 34 (line 103, column 2, byte 15880)"))
    let scratch = try TemporaryDirectory()
    let dataset = try Self.datasetFile(header: rows[0], key: 0, in: scratch)
    let strict = try scratch.write(
      "strict.json",
      #"{"dataset": "\#(dataset)", "input": "\#(Self.real)/\#(name)", "format": "csv", "dialect": {"delimiter": ";"}, "database": "s.sqlite"}"#
    )
    let failed = try SluiceCommand.run(["validate", strict])
    #expect(failed.status == 65)
    for issue in expected { #expect(failed.stderr.contains(issue), "\(failed.stderr)") }
    let kept = rows.filter { !["46593", "24895", "19869"].contains($0[0]) }
    try load(Self.real + "/" + name, rows: kept, key: 0, format: "csv", dialect: #"{"delimiter": ";"}"#, lenient: true)
  }

  /// Generated exports of the same rows — quoted line breaks (LF and CRLF), doubled quotes,
  /// delimiters in quotes, empty fields, leading zeros, characters of every width — in each
  /// legacy form, each loaded exactly; the independent reading is checked against the rows too.
  @Test(arguments: GeneratedExport.allCases)
  func aGeneratedExportLoadsExactly(_ form: GeneratedExport) throws {
    let rows = form.rows(count: 300)
    let bytes = form.bytes(rows)
    #expect(IndependentCSV.rows(form.text(bytes), delimiter: form.delimiter) == rows)
    let scratch = try TemporaryDirectory()
    let path = try scratch.write("export.\(form.format)", bytes)
    let loaded = try load(path, rows: rows, key: 0, format: form.format, dialect: form.dialect)
    #expect(loaded.count == 299)
  }

  /// Malformed UTF-16 (an unpaired surrogate) in row 3's `name`: a strict run fails at its line
  /// and header, printing no value; a lenient run loads the other rows and keeps the row, with
  /// U+FFFD in its place, in the rejects file.
  @Test func malformedUTF16FailsAStrictRunAtItsLineAndHeaderAndALenientOneRejectsTheRow() throws {
    let scratch = try TemporaryDirectory()
    func utf16(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
    let bytes =
      [0xFF, 0xFE] + utf16("id,name\r\n1,Zoë\r\n2,\"two\r\nlines\"\r\n3,secret") + [0x3D, 0xD8]
      + utf16("\r\n4,😀\r\n")
    let input = try scratch.write("export.csv", bytes)
    let dataset = try scratch.write(
      "export.dataset.json",
      #"{"name": "export", "fields": [{"name": "id", "type": "integer"}, {"name": "name", "type": "text"}], "tables": [{"name": "entries", "key": ["id"], "columns": [{"name": "id"}, {"name": "name"}]}]}"#
    )
    let strict = try scratch.write(
      "strict.json", #"{"dataset": "\#(dataset)", "input": "\#(input)", "format": "csv", "database": "strict.sqlite"}"#)
    let failed = try SluiceCommand.run(["run", strict])
    #expect(failed.status == 65, "\(failed.stderr)")
    #expect(failed.stderr.contains("line 5") && failed.stderr.contains("name"), "\(failed.stderr)")
    #expect(failed.stderr.contains("malformed UTF-16") && !failed.stderr.contains("secret"), "\(failed.stderr)")
    let lenient = try scratch.write(
      "lenient.json",
      #"{"dataset": "\#(dataset)", "input": "\#(input)", "format": "csv", "database": "lenient.sqlite", "policy": "lenient"}"#
    )
    let rejects = scratch.file("rejects.ndjson")
    let passed = try SluiceCommand.run(["run", lenient, "--rejects", rejects])
    #expect(passed.status == 0, "\(passed.stderr)")
    let loaded = try DatabaseSnapshot(of: scratch.file("lenient.sqlite"), tables: ["entries"])
    #expect(loaded.tables["entries"] == ["1|'Zoë'", "2|'two\r\nlines'", "4|'😀'"], "\(loaded)")
    let rejected = try String(contentsOfFile: rejects, encoding: .utf8)
    // The unpaired surrogate's byte is kept, escaped (never U+FFFD, which a replay would load).
    #expect(
      rejected.contains(#""record":"3,secret\udcff""#) && rejected.contains(#""bytesEscaped":true"#), "\(rejected)")
    #expect(!rejected.contains("\u{FFFD}"), "\(rejected)")
  }

  // MARK: - Helpers

  private static func bytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: real + "/" + name)))
  }

  /// A dataset file whose fields are `header`'s names, all text, and whose one table, `entries`,
  /// has a column `cN` per field and is keyed by column `key`.
  private static func datasetFile(header: [String], key: Int, in scratch: TemporaryDirectory) throws -> String {
    let fields = header.map { ["name": $0, "type": "text"] }
    let columns = header.indices.map { ["name": "c\($0)", "field": header[$0]] }
    let dataset: [String: Any] = [
      "name": "export", "fields": fields, "tables": [["name": "entries", "key": ["c\(key)"], "columns": columns]],
    ]
    return try scratch.write("export.dataset.json", [UInt8](try JSONSerialization.data(withJSONObject: dataset)))
  }

  /// Runs `sluice run` on `input` with a dataset file whose fields are `rows[0]` (all text) and
  /// whose one table keys them by column `key`; checks the table holds exactly `rows[1...]`, and
  /// returns the loaded rows.
  @discardableResult
  private func load(
    _ input: String, rows: [[String]], key: Int, format: String, dialect: String?, lenient: Bool = false
  ) throws -> [[String]] {
    let scratch = try TemporaryDirectory()
    let header = rows[0]
    let datasetPath = try Self.datasetFile(header: header, key: key, in: scratch)
    let database = scratch.file("export.sqlite")
    var spec =
      #"{"dataset": "\#(datasetPath)", "input": "\#(input)", "format": "\#(format)", "database": "\#(database)""#
    if let dialect { spec += #", "dialect": \#(dialect)"# }
    if lenient { spec += #", "policy": "lenient""# }
    let result = try SluiceCommand.run(["run", try scratch.write("spec.json", spec + "}")])
    #expect(result.status == 0, "\(result.stderr)")
    let connection = try SQLiteConnection(path: database, options: .init(readOnly: true, create: false))
    let select = try connection.prepare(
      "SELECT \(header.indices.map { "c\($0)" }.joined(separator: ", ")) FROM entries ORDER BY c\(key)")
    var loaded: [[String]] = []
    while try select.step() {
      loaded.append(header.indices.map { select.columnText(Int32($0)) ?? "<null>" })
    }
    let expected = rows.dropFirst().sorted { $0[key].utf8.lexicographicallyPrecedes($1[key].utf8) }
    #expect(loaded.count == expected.count)
    for (row, want) in zip(loaded, expected) where row != want {
      Issue.record("row \(want[key]): loaded \(row), expected \(want)")
      break
    }
    return loaded
  }
}

/// A reading of CSV written for these tests alone — RFC 4180 over Unicode scalars, rows ending
/// at LF, CRLF or CR outside quotes, blank lines skipped — so that the reader is checked against
/// something that shares none of its code.
enum IndependentCSV {
  static func rows(_ text: String, delimiter: Unicode.Scalar) -> [[String]] {
    var rows: [[String]] = []
    var row: [String] = []
    var field = String.UnicodeScalarView()
    var quoted = false
    var afterQuote = false
    var scalars = Array(text.unicodeScalars)[...]
    func endRow() {
      row.append(String(field))
      if !(row.count == 1 && row[0].isEmpty) { rows.append(row) }
      row = []
      field = String.UnicodeScalarView()
    }
    while let scalar = scalars.popFirst() {
      if quoted {
        if scalar == "\"" {
          if scalars.first == "\"" {
            field.append(scalars.removeFirst())
          } else {
            quoted = false
            afterQuote = true
          }
        } else {
          field.append(scalar)
        }
      } else if scalar == "\"" && field.isEmpty && !afterQuote {
        quoted = true
      } else if scalar == delimiter {
        row.append(String(field))
        field = String.UnicodeScalarView()
        afterQuote = false
      } else if scalar == "\n" || scalar == "\r" {
        if scalar == "\r" && scalars.first == "\n" { scalars.removeFirst() }
        endRow()
        afterQuote = false
      } else {
        field.append(scalar)
      }
    }
    if !field.isEmpty || !row.isEmpty { endRow() }
    return rows
  }

  /// Windows-1252 to Unicode: Latin-1 but for 0x80–0x9F (five of them undefined).
  static func windows1252(_ bytes: [UInt8]) -> String {
    var scalars = String.UnicodeScalarView()
    for byte in bytes {
      let value = (0x80...0x9F).contains(byte) ? cp1252High[Int(byte) - 0x80] : UInt32(byte)
      scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
    }
    return String(scalars)
  }

  static let cp1252High: [UInt32] = [
    0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD,
    0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
    0x0153, 0xFFFD, 0x017E, 0x0178,
  ]
}

/// A legacy export written by the test: its form, and the rows it holds.
enum GeneratedExport: String, CaseIterable, CustomTestStringConvertible, Sendable {
  case windows1252SemicolonCRLF, utf8WithMarkCRLF, tsv, utf16LittleEndianCRLF

  var testDescription: String { rawValue }

  var format: String { self == .tsv ? "tsv" : "csv" }
  var delimiter: Unicode.Scalar { self == .tsv ? "\t" : self == .windows1252SemicolonCRLF ? ";" : "," }

  var dialect: String? {
    switch self {
    case .windows1252SemicolonCRLF: #"{"delimiter": ";", "encoding": "windows-1252"}"#
    case .utf8WithMarkCRLF, .tsv: nil
    case .utf16LittleEndianCRLF: nil  // by its byte order mark
    }
  }

  /// Rows of an id with leading zeros and text of every kind a legacy export holds: characters
  /// Windows-1252 has, and for the Unicode forms some it has not (outside the BMP too).
  func rows(count: Int) -> [[String]] {
    var pieces = [
      "Zoë", "Ærø", "naïve café", "Šárka", "€ 12,50", "5\" pipe", "a;b", "a,b", "tab\there", "two\nlines",
      "crlf\r\ninside", "„quoted“", "", " spaced ", "007", "Œuvre — Ž", "\"\"",
    ]
    if self != .windows1252SemicolonCRLF { pieces += ["😀 grin", "日本語", "Ωmega 𝄞"] }
    var state: UInt64 = 42
    func next() -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(state >> 33) % pieces.count
    }
    var rows = [["id", "name", "note", "extra"]]
    for index in 1..<count {
      rows.append([String(format: "%05d", index), pieces[next()], pieces[next()], index % 7 == 0 ? "" : "x\(index)"])
    }
    return rows
  }

  /// The rows written in this form: fields quoted when they must be (and some when not).
  func bytes(_ rows: [[String]]) -> [UInt8] {
    let separator = String(Character(delimiter))
    let lineBreak = self == .tsv ? "\n" : "\r\n"
    var text = ""
    for (number, row) in rows.enumerated() {
      text +=
        row.enumerated().map { column, field in
          let needsQuotes =
            field.contains(separator) || field.contains("\"") || field.contains("\n") || field.contains("\r")
          let quoted = needsQuotes || (number + column) % 5 == 0
          return quoted ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
        }.joined(separator: separator) + lineBreak
    }
    switch self {
    case .windows1252SemicolonCRLF:
      return text.unicodeScalars.map { scalar in
        if let high = IndependentCSV.cp1252High.firstIndex(of: scalar.value) { return UInt8(0x80 + high) }
        return UInt8(scalar.value)
      }
    case .utf8WithMarkCRLF: return [0xEF, 0xBB, 0xBF] + Array(text.utf8)
    case .tsv: return Array(text.utf8)
    case .utf16LittleEndianCRLF: return [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }
  }

  /// The text of `bytes`, decoded independently.
  func text(_ bytes: [UInt8]) -> String {
    switch self {
    case .windows1252SemicolonCRLF: IndependentCSV.windows1252(bytes)
    case .utf8WithMarkCRLF: String(decoding: bytes.dropFirst(3), as: UTF8.self)
    case .tsv: String(decoding: bytes, as: UTF8.self)
    case .utf16LittleEndianCRLF:
      String(
        decoding: stride(from: 2, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 },
        as: UTF16.self)
    }
  }
}
