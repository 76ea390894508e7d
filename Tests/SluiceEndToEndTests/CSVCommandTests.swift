import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice run` on CSV and TSV: the devices sample written as CSV loads the same rows as its
/// JSON; a `;`-separated CRLF export with a byte order mark and a TSV export read by their
/// dialects; a bad value fails a strict run at its line and column's header, and a lenient run
/// skips the bad rows, counts them and keeps their raw rows in the rejects file.
@Suite("sluice on CSV and TSV, end to end")
struct CSVCommandTests {
  private static let devicesJSON = Repository.path("SampleData/devices/devices.json")

  /// The devices sample as rows of text: id, name, latitude, longitude.
  private static func deviceRows() throws -> [[String]] {
    let data = try Data(contentsOf: URL(fileURLWithPath: devicesJSON))
    let devices = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    return devices.map { device in
      ["id", "name", "latitude", "longitude"].map { "\(device[$0] ?? "")" }
    }
  }

  /// Rows written as CSV: fields quoted when they hold the delimiter or a quote.
  private static func csv(_ rows: [[String]], delimiter: String = ",", lineBreak: String = "\n") -> String {
    rows.map { row in
      row.map { field in
        field.contains(delimiter) || field.contains("\"")
          ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
      }.joined(separator: delimiter)
    }.joined(separator: lineBreak) + lineBreak
  }

  private static let header = ["id", "name", "latitude", "longitude"]

  private func devicesLoadedFromJSON(_ scratch: TemporaryDirectory) throws -> DatabaseSnapshot {
    let database = scratch.file("json.sqlite")
    let spec = try scratch.write(
      "json.json",
      #"{"dataset": "devices", "input": "\#(Self.devicesJSON)", "format": "json", "database": "json.sqlite"}"#)
    let result = try SluiceCommand.run(["run", spec, "--db", database])
    #expect(result.status == 0, "\(result.stderr)")
    return try DatabaseSnapshot(of: database, tables: ["devices"])
  }

  @Test func theDevicesSampleAsCSVLoadsTheSameRowsAsItsJSON() throws {
    let scratch = try TemporaryDirectory()
    let rows = try Self.deviceRows()
    #expect(rows.count == 8)
    let input = try scratch.write("devices.csv", Self.csv([Self.header] + rows))
    let spec = try scratch.write(
      "csv.json", #"{"dataset": "devices", "input": "\#(input)", "format": "csv", "database": "csv.sqlite"}"#)
    let result = try SluiceCommand.run(["run", spec, "--db", scratch.file("csv.sqlite")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("devices: 8 rows"), "\(result.stdout)")
    let loaded = try DatabaseSnapshot(of: scratch.file("csv.sqlite"), tables: ["devices"])
    #expect(loaded == (try devicesLoadedFromJSON(scratch)))
  }

  @Test func aSemicolonCRLFExportWithAByteOrderMarkAndATSVExportReadByTheirDialects() throws {
    let scratch = try TemporaryDirectory()
    let rows = try Self.deviceRows()
    let expected = try devicesLoadedFromJSON(scratch)
    // The dialect in the spec.
    let european = try scratch.write(
      "devices-eu.csv",
      Array("\u{FEFF}".utf8) + Array(Self.csv([Self.header] + rows, delimiter: ";", lineBreak: "\r\n").utf8))
    let spec = try scratch.write(
      "eu.json",
      #"{"dataset": "devices", "input": "\#(european)", "format": "csv", "dialect": {"delimiter": ";"}, "database": "eu.sqlite"}"#
    )
    let fromSpec = try SluiceCommand.run(["run", spec, "--db", scratch.file("eu.sqlite")])
    #expect(fromSpec.status == 0, "\(fromSpec.stderr)")
    #expect(try DatabaseSnapshot(of: scratch.file("eu.sqlite"), tables: ["devices"]) == expected)
    // The same dialect from the command line, over a JSON spec.
    let json = try scratch.write(
      "plain.json",
      #"{"dataset": "devices", "input": "\#(Self.devicesJSON)", "format": "json", "database": "x.sqlite"}"#)
    let fromOptions = try SluiceCommand.run([
      "run", json, "--input", european, "--format", "csv", "--delimiter", ";", "--db", scratch.file("options.sqlite"),
    ])
    #expect(fromOptions.status == 0, "\(fromOptions.stderr)")
    #expect(try DatabaseSnapshot(of: scratch.file("options.sqlite"), tables: ["devices"]) == expected)
    // TSV without a header row, the columns named on the command line.
    let tsv = try scratch.write("devices.tsv", Self.csv(rows, delimiter: "\t"))
    let fromTSV = try SluiceCommand.run([
      "run", json, "--input", tsv, "--format", "tsv", "--no-header", "--columns", Self.header.joined(separator: ","),
      "--db", scratch.file("tsv.sqlite"),
    ])
    #expect(fromTSV.status == 0, "\(fromTSV.stderr)")
    #expect(try DatabaseSnapshot(of: scratch.file("tsv.sqlite"), tables: ["devices"]) == expected)
  }

  /// Row 3's latitude is not a number; row 5 has a field too many; row 6 a stray quote.
  private static func brokenCSV() throws -> String {
    var rows = try deviceRows()
    rows[2][2] = "north"
    rows[4].append("extra")
    rows[5][1] = "Rain gauge 5\" (roof)"
    return csv([header] + rows).replacingOccurrences(of: "\"Rain gauge 5\"\" (roof)\"", with: "Rain gauge 5\" (roof)")
  }

  @Test func aStrictRunFailsAtTheBadValuesLineAndHeaderAndWritesNothing() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write("broken.csv", try Self.brokenCSV())
    let spec = try scratch.write(
      "csv.json", #"{"dataset": "devices", "input": "\#(input)", "format": "csv", "database": "csv.sqlite"}"#)
    let result = try SluiceCommand.run(["run", spec, "--db", scratch.file("csv.sqlite")])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("record 3 (line 4, column 3)"), "\(result.stderr)")
    #expect(result.stderr.contains("latitude"), "\(result.stderr)")
    #expect(try DatabaseSnapshot(of: scratch.file("csv.sqlite"), tables: ["devices"]).count("devices") == 0)
  }

  @Test func aLenientRunSkipsTheBadRowsCountsThemAndKeepsTheirRawRows() throws {
    let scratch = try TemporaryDirectory()
    let text = try Self.brokenCSV()
    let input = try scratch.write("broken.csv", text)
    let spec = try scratch.write(
      "csv.json",
      #"{"dataset": "devices", "input": "\#(input)", "format": "csv", "database": "csv.sqlite", "policy": "lenient"}"#)
    let result = try SluiceCommand.run([
      "run", spec, "--db", scratch.file("csv.sqlite"), "--report", scratch.file("report.json"), "--rejects",
      scratch.file("rejects.ndjson"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try DatabaseSnapshot(of: scratch.file("csv.sqlite"), tables: ["devices"]).count("devices") == 5)
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("report.json"))))
    let places = report.issues.map { "\($0.stage) \($0.code) \($0.path) line \($0.location?.line ?? 0)" }
    #expect(
      places == ["decode typeMismatch latitude line 4", "read fieldCount  line 6", "read syntax name line 7"],
      "\(places)")
    // Each issue's byte offset is its field's (the row's, for a row of the wrong width).
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let rowOffset = { (line: Int) in Int64(lines[..<(line - 1)].reduce(0) { $0 + $1.utf8.count + 1 }) }
    #expect(
      report.issues[0].location?.byteOffset == rowOffset(4)
        + Int64(
          lines[3].utf8.count - "north,".utf8.count
            - lines[3].split(separator: ",").last!.utf8.count))
    #expect(report.issues[1].location?.byteOffset == rowOffset(6))
    // The rejects file keeps each row as it was written.
    let rejects = try String(contentsOfFile: scratch.file("rejects.ndjson"), encoding: .utf8)
    let records = rejects.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }.map { $0["record"] as? String ?? "" }
    #expect(records == [lines[3], lines[5], lines[6]])
  }

  @Test func fixedRejectedRowsReplayIntoTheSameDatabase() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write("broken.csv", try Self.brokenCSV())
    let spec = try scratch.write(
      "csv.json",
      #"{"dataset": "devices", "input": "\#(input)", "format": "csv", "database": "csv.sqlite", "policy": "lenient"}"#)
    let rejects = scratch.file("rejects.ndjson")
    let run = try SluiceCommand.run(["run", spec, "--rejects", rejects])
    #expect(run.status == 0, "\(run.stderr)")
    // Each row fixed in the rejects file, as a person would: the entries keep columns and dialect.
    let fixed = try String(contentsOfFile: rejects, encoding: .utf8)
      .replacingOccurrences(of: ",north,", with: ",-33.8688,")
      .replacingOccurrences(of: ",extra", with: "")
      .replacingOccurrences(of: #"Rain gauge 5\" (roof)"#, with: "Rain gauge 5 (roof)")
    let fixedPath = try scratch.write("fixed.ndjson", fixed)
    let replay = try SluiceCommand.run(["replay", spec, "--rejects", fixedPath])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(try DatabaseSnapshot(of: scratch.file("csv.sqlite"), tables: ["devices"]).count("devices") == 8)
    // Unfixed, they are rejected again for the same reasons, at their entries' lines (and, every
    // record rejected, the run fails).
    let again = try SluiceCommand.run(["replay", spec, "--rejects", rejects, "--report", scratch.file("again.json")])
    #expect(again.status == 65, "\(again.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("again.json"))))
    #expect(report.issues.map(\.code) == [.typeMismatch, .fieldCount, .syntax], "\(report.issues)")
    #expect(report.issues.map { $0.location?.line } == [1, 2, 3])
  }

  /// The most common path: a flat CSV export and a dataset file declaring it, no Swift at all.
  @Test func aCSVExportLoadsThroughADatasetFile() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write(
      "sensors.dataset.json",
      #"""
      {"name": "sensors",
       "fields": [
         {"name": "id", "type": "text"},
         {"name": "installed", "type": "timestamp"},
         {"name": "depth", "type": "decimal", "scale": 2},
         {"name": "active", "type": "boolean"},
         {"name": "note", "type": "text", "nullable": true},
         {"name": "site", "type": "object", "fields": [{"name": "code", "type": "integer"}]}],
       "tables": [{"name": "sensors", "key": ["sensor_id"],
         "columns": [
           {"name": "sensor_id", "field": "id"}, {"name": "installed"}, {"name": "depth"},
           {"name": "active"}, {"name": "note"}, {"name": "site_code", "field": "site.code"}]}]}
      """#)
    _ = try scratch.write(
      "sensors.csv",
      """
      id;installed;depth;active;note;site.code\r
      s-001;2026-01-05T08:00:00Z;12,50;true;;17\r
      s-002;2026-02-01T12:30:00Z;3.25;false;"north; by the ""old"" weir";17\r

      """.replacingOccurrences(of: "12,50", with: "12.50"))
    let spec = try scratch.write(
      "sensors.json",
      #"""
      {"dataset": "sensors.dataset.json", "input": "sensors.csv", "format": "csv",
       "dialect": {"delimiter": ";", "empty": "null"}, "database": "sensors.sqlite"}
      """#)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 0, "\(result.stderr)")
    let rows = try DatabaseSnapshot(of: scratch.file("sensors.sqlite"), tables: ["sensors"]).tables["sensors"] ?? []
    #expect(rows.count == 2, "\(rows)")
    #expect(rows.first?.hasPrefix("'s-001'|'2026-01-05T08:00:00") == true, "\(rows)")
    #expect(rows.first?.hasSuffix("|1250|1|NULL|17") == true, "\(rows)")
    #expect(rows.last?.contains(#"'north; by the "old" weir'"#) == true, "\(rows)")
  }

  @Test func aWindows1252SemicolonCRLFExportWithQuotedLineBreaksLoadsExactly() throws {
    let scratch = try TemporaryDirectory()
    var rows = try Self.deviceRows()
    rows[0][1] = "Station Müller, Straße\r\nNord"
    rows[1][1] = "Wehr «2» – 5 €"
    let text = Self.csv([Self.header] + rows, delimiter: ";", lineBreak: "\r\n")
      .replacingOccurrences(of: "Station Müller, Straße\r\nNord", with: "\"Station Müller, Straße\r\nNord\"")
    let bytes = try #require(text.data(using: .windowsCP1252))
    #expect(bytes.count < text.utf8.count, "the file is not UTF-8")
    let input = try scratch.write("export.csv", Array(bytes))
    let spec = try scratch.write(
      "csv.json",
      #"""
      {"dataset": "devices", "input": "\#(input)", "format": "csv",
       "dialect": {"delimiter": ";", "encoding": "windows-1252"}, "database": "csv.sqlite"}
      """#)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 0, "\(result.stderr)")
    let database = try SQLiteConnection(path: scratch.file("csv.sqlite"), options: .init(readOnly: true))
    let statement = try database.prepare("SELECT name FROM devices ORDER BY device_id LIMIT 2")
    var names: [String] = []
    while try statement.step() { names.append(statement.columnText(0) ?? "") }
    #expect(names == ["Station Müller, Straße\r\nNord", "Wehr «2» – 5 €"])
    // Read as UTF-8, the same file is refused byte by byte, never loaded as other text.
    let asUTF8 = try SluiceCommand.run(["run", spec, "--encoding", "utf-8", "--db", scratch.file("utf8.sqlite")])
    #expect(asUTF8.status == 65, "\(asUTF8.stderr)")
    #expect(asUTF8.stderr.contains("syntax: invalid UTF-8"), "\(asUTF8.stderr)")
  }
}
