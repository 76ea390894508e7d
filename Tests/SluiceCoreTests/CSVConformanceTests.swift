import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

// The public CSV conformance suites in `Tests/Corpus/csv/` (see its SOURCE.md) through the
// reader: csv-spectrum's every file, and the W3C CSVW tests about parsing plain CSV, each against
// the suite's own expected JSON. Every file is read whole and one byte at a time.

private let corpus = Repository.path("Tests/Corpus/csv")

/// What the reader made of a file: each row as its keys and values (nil for null), and each
/// issue's code and line.
private struct Reading: Equatable {
  var rows: [[String: String?]] = []
  var issues: [String] = []
}

private func read(_ path: String, dialect: CSVDialect = .csv, chunk: Int = .max) throws -> Reading {
  let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  let reader = CSVRecordReader(source: MemoryByteSource(bytes, chunk: chunk), dialect: dialect, bufferSize: 4096)
  var reading = Reading()
  while true {
    do {
      guard let record = try reader.next() else { break }
      let object = try JSONSerialization.jsonObject(with: Data(record.tape?.bytes ?? []))
      let fields = try #require(object as? [String: Any])
      reading.rows.append(fields.mapValues { $0 as? String })
    } catch let error as RecordReadError {
      reading.issues.append("\(error.code) line \(error.location.line)")
      if !error.isRecoverable { break }
    }
  }
  return reading
}

/// A file read whole, and the same reading one byte at a time.
private func readChecked(_ path: String, dialect: CSVDialect = .csv) throws -> Reading {
  let whole = try read(path, dialect: dialect)
  #expect(try read(path, dialect: dialect, chunk: 1) == whole, "\(path)")
  return whole
}

private func json(_ path: String) throws -> Any {
  try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
}

@Suite("CSV conformance suites: csv-spectrum and W3C CSVW")
struct CSVConformanceTests {
  static let spectrumCases = [
    "comma_in_quotes", "empty", "empty_crlf", "escaped_quotes", "json", "newlines", "newlines_crlf",
    "quotes_and_newlines", "simple", "simple_crlf", "utf8",
  ]

  /// Every csv-spectrum case, none out of scope: each row equals the suite's JSON, every value a
  /// string (a quoted empty field is `""`, as the suite expects, under the default dialect).
  @Test(arguments: spectrumCases)
  func csvSpectrum(_ name: String) throws {
    let reading = try readChecked("\(corpus)/csv-spectrum/csvs/\(name).csv")
    let expected = try #require(try json("\(corpus)/csv-spectrum/json/\(name).json") as? [[String: String]])
    #expect(reading.issues.isEmpty, "\(reading.issues)")
    #expect(reading.rows == expected.map { $0.mapValues { Optional($0) } })
  }

  @Test func csvSpectrumHasNoCaseThisTestLeavesOut() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: "\(corpus)/csv-spectrum/csvs")
    #expect(Set(files) == Set(Self.spectrumCases.map { "\($0).csv" }))
  }

  /// The CSVW tests without metadata, read with a header row and `"empty": "null"`: CSVW's
  /// default null is the empty string, and its JSON leaves a null cell out.
  static let csvwCases = [
    "test001", "test002", "test003", "test005", "test006", "test007", "test008", "test009", "test010",
  ]

  @Test(arguments: csvwCases)
  func csvwWithoutMetadata(_ name: String) throws {
    try checkCSVW(csv: "\(name).csv", expected: "\(name).json")
  }

  /// test028: `countries.csv` with its embedded metadata, which is its header row.
  @Test func csvwCountries() throws {
    try checkCSVW(csv: "countries.csv", expected: "test028.json")
  }

  /// test019: no header row (`text/csv;header=absent`), the columns named `_col.1`…: named
  /// `c1`… here, since a dot in a Sluice column name makes a nested field.
  @Test func csvwNoHeader() throws {
    let reading = try readChecked(
      "\(corpus)/csvw/test019.csv", dialect: .init(hasHeader: false, columns: (1...5).map { "c\($0)" }))
    let expected = try expectedCSVW("test019.json").map { row in
      Dictionary(uniqueKeysWithValues: row.map { ("c" + String($0.key.dropFirst("_col.".count)), $0.value) })
    }
    #expect(reading.issues.isEmpty)
    #expect(reading.rows == expected.map { $0.mapValues { Optional($0) } })
  }

  /// test091 (a negative validation test): rows with fewer cells than the header. Sluice makes
  /// each a `fieldCount` issue at its line and reads on.
  @Test func csvwRowsOfTheWrongWidth() throws {
    let reading = try readChecked("\(corpus)/csvw/test091.csv")
    #expect(reading.rows == [["col1": "1", "col2": "2", "col3": "3"]])
    #expect(reading.issues == ["fieldCount line 3", "fieldCount line 4"])
  }

  /// test050 reads `tree-ops.tsv` with `"delimiter": "\t"` from its metadata, which also renames
  /// its columns and reformats its dates: out of scope here. The TSV dialect reads its cells,
  /// checked by position against test050's JSON but for the reformatted date.
  @Test func csvwTabDelimiter() throws {
    let reading = try readChecked("\(corpus)/csvw/tree-ops.tsv", dialect: .tsv)
    let expected = try expectedCSVW("test050.json")
    let columns = ["GID", "On Street", "Species", "Trim Cycle"]
    let renamed = ["GID", "on_street", "species", "trim_cycle"]
    #expect(reading.rows.count == 2 && expected.count == 2)
    for (row, want) in zip(reading.rows, expected) {
      #expect(columns.map { row[$0] ?? nil } == renamed.map { want[$0] })
    }
    #expect(reading.rows.map { $0["Inventory Date"] ?? nil } == ["10/18/2010", "6/2/2010"])
  }

  private func expectedCSVW(_ name: String) throws -> [[String: String]] {
    let document = try #require(try json("\(corpus)/csvw/\(name)") as? [String: Any])
    let tables = try #require(document["tables"] as? [[String: Any]])
    let rows = try #require(tables.first?["row"] as? [[String: Any]])
    return try rows.map { row in
      let describes = try #require(row["describes"] as? [[String: String]])
      return try #require(describes.first)
    }
  }

  private func checkCSVW(csv: String, expected: String) throws {
    var dialect = CSVDialect.csv
    dialect.emptyIsNull = true
    let reading = try readChecked("\(corpus)/csvw/\(csv)", dialect: dialect)
    #expect(reading.issues.isEmpty, "\(reading.issues)")
    let rows = reading.rows.map { $0.compactMapValues { $0 } }
    #expect(rows == (try expectedCSVW(expected)), "\(csv)")
  }
}
