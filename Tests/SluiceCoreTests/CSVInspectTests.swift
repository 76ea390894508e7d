import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluiceInspect

/// `inspect` on CSV and TSV: the dialect sniffed from the first rows (delimiter, header,
/// encoding with its confidence) or given, and each column's type inferred from its text so that
/// the strict decoder reads every value as that type.
@Suite("Inspect: CSV and TSV dialects and column types")
struct CSVInspectTests {
  /// Rows as a `;`-separated, CRLF, Windows-1252 export, with quoted fields holding the
  /// delimiter, quotes and line breaks.
  static func legacyExport() -> [UInt8] {
    var rows = [["id", "name", "price", "created", "status", "code"]]
    for index in 1...30 {
      let name = index % 4 == 0 ? "line one\r\nline \"two\"; \(index)" : "Café “n°\(index)” – ok"
      rows.append([
        "\(index)", name, "\(index * 3).\(index % 10)5",
        String(format: "%02d/%02d/2023", index % 28 + 1, index % 12 + 1),
        ["open", "closed", "pending"][index % 3], String(format: "%05d", index),
      ])
    }
    let text =
      rows.map { row in
        row.map {
          $0.contains(";") || $0.contains("\"") || $0.contains("\n")
            ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0
        }
        .joined(separator: ";")
      }.joined(separator: "\r\n") + "\r\n"
    return windows1252(text)
  }

  /// `text` in Windows-1252 (its characters are all in it).
  static func windows1252(_ text: String) -> [UInt8] {
    Array(text.data(using: .windowsCP1252) ?? Data())
  }

  static func column(_ inspection: Inspection, _ path: String) -> TextColumnType? {
    inspection.fields.first { $0.path == path }?.columnType
  }

  @Test func aSemicolonCRLFWindows1252ExportWithQuotedLineBreaksIsSniffed() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("export", Self.legacyExport())
    let inspection = try Inspector.inspect(path: file)
    #expect(inspection.format == .csv)
    let sniff = try #require(inspection.csv)
    #expect(sniff.dialect.delimiter == UInt8(ascii: ";"))
    #expect(sniff.dialect.hasHeader && sniff.delimiterWasSniffed && sniff.headerWasSniffed)
    #expect(sniff.encodingName == "windows-1252")
    #expect(sniff.encodingConfidence == .guess)
    #expect(sniff.dialect.encoding?.name == "windows-1252")
    #expect(inspection.records == 30)
    #expect(inspection.skippedRecords == 0)
    #expect(Self.column(inspection, "id") == .integer)
    #expect(Self.column(inspection, "name") == .text)
    #expect(Self.column(inspection, "price") == .decimal(scale: 2))
    #expect(Self.column(inspection, "created") == .timestamp(.pattern("dd/MM/yyyy")))
    #expect(Self.column(inspection, "status") == .enumeration(["closed", "open", "pending"]))
    #expect(Self.column(inspection, "code") == .text)
    #expect(inspection.fields.first { $0.path == "code" }?.column?.hasLeadingZeros == true)
    let text = inspection.text()
    #expect(text.contains("delimiter ';' (sniffed), a header row (sniffed), encoding windows-1252 (a guess"))
    #expect(text.contains("timestamp(dd/MM/yyyy)"))
    #expect(text.contains("text (leading zeros)"))
    // No value reaches the report without --show-values: not the enum's either.
    #expect(!text.contains("pending"))
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(inspection.json().utf8)) as? [String: Any])
    let dialect = try #require(json["dialect"] as? [String: Any])
    #expect(dialect["delimiter"] as? String == ";")
    #expect(dialect["encodingConfidence"] as? String == "guess")
    let fields = try #require(json["fields"] as? [[String: Any]])
    let price = try #require(fields.first { $0["path"] as? String == "price" }?["columnType"] as? [String: Any])
    #expect(price["type"] as? String == "decimal")
    #expect(price["scale"] as? Int == 2)
    let status = try #require(fields.first { $0["path"] as? String == "status" }?["columnType"] as? [String: Any])
    #expect(status["valueCount"] as? Int == 3)
    #expect(status["values"] == nil)
  }

  @Test func aByteOrderMarkIsCertainUTF8AndLatin1WithoutPunctuationIsAGuess() throws {
    let scratch = try TemporaryDirectory()
    let bom = try scratch.write("bom.csv", [0xEF, 0xBB, 0xBF] + Array("id,name\n1,Zoë\n2,Åsa\n".utf8))
    let withBOM = try #require(try Inspector.inspect(path: bom).csv)
    #expect((withBOM.encodingName, withBOM.encodingConfidence) == ("utf-8", .certain))
    #expect(withBOM.dialect.encoding == nil)
    let utf8 = try #require(try Inspector.inspect(path: try scratch.write("u.csv", "id,name\n1,Zoë\n")).csv)
    #expect((utf8.encodingName, utf8.encodingConfidence) == ("utf-8", .certain))
    let ascii = try #require(try Inspector.inspect(path: try scratch.write("a.csv", "id,name\n1,Zoe\n")).csv)
    #expect((ascii.encodingName, ascii.encodingConfidence) == ("utf-8", .guess))
    let latin = try scratch.write("l.csv", Array("id,name\n1,Zo".utf8) + [0xEB] + Array("\n".utf8))
    let latin1 = try #require(try Inspector.inspect(path: latin).csv)
    #expect((latin1.encodingName, latin1.encodingConfidence) == ("iso-8859-1", .guess))
    var given = InspectOptions()
    given.dialect.encoding = .some(try CSVEncoding(name: "iso-8859-15"))
    let declared = try #require(try Inspector.inspect(path: latin, options: given).csv)
    #expect((declared.encodingName, declared.encodingConfidence) == ("iso-8859-15", .given))
  }

  @Test func aTSVAndAFileWithoutHeaderAreToldFromTheirContent() throws {
    let scratch = try TemporaryDirectory()
    let tsv = try scratch.write("data", "sku\tqty\tok\nA-1\t3\ttrue\nB-2\t4\tFalse\n")
    let inspection = try Inspector.inspect(path: tsv)
    #expect(inspection.format == .tsv)
    #expect(inspection.csv?.dialect.delimiter == 0x09)
    #expect(inspection.csv?.dialect.hasHeader == true)
    #expect(Self.column(inspection, "qty") == .integer)
    #expect(Self.column(inspection, "ok") == .boolean)
    // Numbers and dates in the first row: data, not names.
    let rows = try scratch.write("rows.txt", "1|Ann|2024-01-05\n2|Bob|2024-02-06\n3|Cy|2024-03-07\n")
    let noHeader = try Inspector.inspect(path: rows)
    #expect(noHeader.format == .csv)
    let sniff = try #require(noHeader.csv)
    #expect(sniff.dialect.delimiter == UInt8(ascii: "|"))
    #expect(!sniff.dialect.hasHeader && sniff.columnsWereNamed)
    #expect(sniff.dialect.columns == ["column1", "column2", "column3"])
    #expect(noHeader.records == 3)
    #expect(Self.column(noHeader, "column3") == .timestamp(.pattern("yyyy-MM-dd")))
    // Given options win over sniffing.
    var options = InspectOptions()
    options.dialect.delimiter = UInt8(ascii: "|")
    options.dialect.columns = ["id", "name", "day"]
    options.dialect.hasHeader = false
    let given = try Inspector.inspect(path: rows, options: options)
    #expect(given.csv?.delimiterWasSniffed == false && given.csv?.headerWasSniffed == false)
    #expect(given.fields.map(\.path) == ["id", "name", "day"])
  }

  @Test func columnTypesAreWhatEveryValueReadsAs() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write(
      "types.csv",
      """
      n,lead,dec,bit,flag,yn,iso,us,amb,stamp,mixed,blank,quotedEmpty,millis
      1,007,1.5,1,true,yes,2024-01-05T10:00:00Z,12/31/2023,01/02/2023,2024-01-05 10:00:00,1,,"",2024-01-05 10:00:00.125
      -2,008,-0.25,0,False,no,2024-01-06T10:00:00+01:00,01/13/2024,03/04/2023,2024-01-06 11:30:00,x,,a,2024-02-29 23:59:59.999
      30,010,12,1,True,yes,2024-01-07T10:00:00.5Z,02/01/2024,05/06/2023,2024-01-07 12:00:00,2.5,,b,2024-01-07 00:00:00.000
      4,011,0.125,0,false,no,2024-01-08T10:00:00Z,03/02/2024,07/08/2023,2024-01-08 13:00:00,3,,c,2024-01-08 13:00:00.500

      """)
    let inspection = try Inspector.inspect(path: file)
    let expected: [String: TextColumnType] = [
      "n": .integer, "lead": .text, "dec": .decimal(scale: 3), "bit": .integer, "flag": .boolean,
      // Four rows of two values are too few to call an enum (`TextColumnProfile.minimumEnumRows`).
      "yn": .text, "iso": .timestamp(.iso8601), "us": .timestamp(.pattern("MM/dd/yyyy")),
      "amb": .text, "stamp": .timestamp(.pattern("yyyy-MM-dd HH:mm:ss")), "mixed": .text, "quotedEmpty": .text,
      "millis": .timestamp(.pattern("yyyy-MM-dd HH:mm:ss.SSS")),
    ]
    for (path, type) in expected {
      #expect(Self.column(inspection, path) == type, "\(path)")
    }
    #expect(inspection.fields.first { $0.path == "amb" }?.column?.isAmbiguousDate == true)
    // Empty unquoted fields are null (the dialect's `empty: null`): no type to infer.
    let blank = try #require(inspection.fields.first { $0.path == "blank" })
    #expect(blank.kinds.null == 4 && blank.columnType == nil)
  }

  @Test func theDelimiterIsTheOneThatSplitsEveryRowAlike() {
    // Decimal commas in a `;` export: the header has none, so `,` is no delimiter.
    let body = Array("id;price;note\n1;2,50;\"a;b\"\n2;3,75;c\n".utf8)[...]
    #expect(
      CSVSniffer.sniffDelimiter(body, quote: UInt8(ascii: "\""), isComplete: true, prefer: nil) == UInt8(ascii: ";"))
    // A legacy export's few stray quotes (a quote inside an unquoted field) do not hide its
    // delimiter; the wrong delimiter's quotes inside fields do not make it one.
    var stray = "id;name;city\n"
    for index in 1...20 { stray += index == 7 ? "\(index);O\"Brien;Rome\n" : "\(index);\"N\";\"C, \(index)\"\n" }
    #expect(
      CSVSniffer.sniffDelimiter(Array(stray.utf8)[...], quote: UInt8(ascii: "\""), isComplete: true, prefer: nil)
        == UInt8(ascii: ";"))
    // A prefix cut mid-row drops that row.
    let cut = Array("a,b\n1,2\n3,".utf8)[...]
    #expect(
      CSVSniffer.rows(cut, delimiter: UInt8(ascii: ","), quote: UInt8(ascii: "\""), isComplete: false).rows.count == 2)
    #expect(CSVSniffer.delimiter(of: Array("just text\nmore text\n".utf8), isComplete: true) == nil)
  }

  @Test func aDecimalWhoseMinorUnitsWouldNotFit64BitsIsText() throws {
    let scratch = try TemporaryDirectory()
    let wide = try scratch.write("wide.csv", "n,m\n123456789012345678,1.5\n0.12,2.25\n")
    let inspection = try Inspector.inspect(path: wide)
    #expect(Self.column(inspection, "n") == .text)
    #expect(Self.column(inspection, "m") == .decimal(scale: 2))
  }

  @Test func dialectOptionsMakeAOneColumnFileCSV() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("names", "name\nAnn\nBob\n")
    var options = InspectOptions()
    options.dialect.delimiter = UInt8(ascii: ";")
    let inspection = try Inspector.inspect(path: file, options: options)
    #expect(inspection.format == .csv)
    #expect(inspection.records == 2)
    #expect(inspection.fields.map(\.path) == ["name"])
    // A `.tsv` name: a one-column file is TSV, its delimiter a tab.
    let tsv = try Inspector.inspect(path: try scratch.write("names.tsv", "name\nAnn\n"))
    #expect(tsv.format == .tsv && tsv.csv?.dialect.delimiter == 0x09)
  }
}
