import Foundation
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// Issue 58, findings 3 and 4, through `inspect`, `init --declarative` and `run` in process: CSV
/// exports in the legacy CJK encodings (Big5, GBK, Shift_JIS, EUC-JP, EUC-KR) and UTF-16 without
/// a byte order mark, read in their encoding or refused with the encoding to set; title lines and
/// notes around the table; blank and repeated header names; and the error budget `init` writes.
/// Values are checked against an independent reading: iconv's decoding of the same bytes, split.
@Suite("Legacy CSV: encodings, the data region, odd header names, init's error budget")
struct CSVLegacyExportTests {
  private static let corpus = Repository.path("Tests/Corpus/csv/legacy")

  /// The file's text as iconv (the program) decodes it.
  static func iconv(_ path: String, from encoding: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/iconv")
    process.arguments = ["-f", encoding, "-t", "UTF-8", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return String(decoding: data, as: UTF8.self)
  }

  /// Rows of a CSV without quotes, split at its line breaks and commas.
  static func split(_ text: String) -> [[String]] {
    text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }).map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
  }

  /// Inits `dump` as NAME with `--declarative`, then runs the spec under `policy` (the spec's own
  /// when nil).
  static func initAndRun(_ dump: String, _ name: String, in scratch: TemporaryDirectory, policy: String? = "strict")
    throws -> (spec: [String: Any], run: SluiceBinary.Result, directory: String)
  {
    let directory = scratch.file(name)
    let initialized = try SluiceCommand.run(["init", dump, name, "--declarative", "--dir", directory])
    try #require(initialized.status == 0, "\(initialized.stderr)")
    let specFile = "\(directory)/\(name).json"
    let spec = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: specFile))) as? [String: Any])
    let run = try SluiceCommand.run(["run", specFile] + (policy.map { ["--policy", $0] } ?? []))
    return (spec, run, directory)
  }

  /// The table's rows in the database, each as its values (quotes taken off).
  static func loadedRows(_ directory: String, _ name: String) throws -> [[String]] {
    let snapshot = try DatabaseSnapshot(of: "\(directory)/\(name).sqlite", tables: [name])
    return (snapshot.tables[name] ?? []).map { row in
      row.split(separator: "|", omittingEmptySubsequences: false).map { value in
        value.hasPrefix("'") && value.hasSuffix("'") && value.count >= 2
          ? String(value.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'") : String(value)
      }
    }
  }

  /// Every row of `expected` (the header left out) is one loaded row, each value in it.
  static func expectLoaded(_ loaded: [[String]], _ expected: [[String]]) {
    #expect(loaded.count == expected.count - 1)
    for row in expected.dropFirst() {
      #expect(loaded.contains { values in row.allSatisfy(values.contains) }, "\(row) not loaded")
    }
  }

  @Test(arguments: [
    ("tw-population-big5.csv", "big5"), ("cn-population-gbk.csv", "gb18030"),
    ("jp-prefectures-shift_jis.csv", "shift_jis"), ("jp-prefectures-euc-jp.csv", "euc-jp"),
    ("kr-population-euc-kr.csv", "euc-kr"),
  ])
  func aLegacyCJKExportIsReadInItsEncodingByInspectInitAndRun(file: String, encoding: String) throws {
    let path = Self.corpus + "/" + file
    let expected = Self.split(try Self.iconv(path, from: encoding))
    let inspected = try SluiceCommand.run(["inspect", path])
    #expect(inspected.status == 0, "\(inspected.stderr)")
    #expect(
      inspected.stdout.contains("encoding \(encoding) (a guess: not UTF-8; reads as \(encoding): "),
      "\(inspected.stdout)")
    let scratch = try TemporaryDirectory()
    let (spec, run, directory) = try Self.initAndRun(path, "legacy", in: scratch)
    #expect((spec["dialect"] as? [String: Any])?["encoding"] as? String == encoding)
    #expect(run.status == 0, "\(run.stderr)")
    Self.expectLoaded(try Self.loadedRows(directory, "legacy"), expected)
  }

  /// Read as UTF-8, the Big5 export stops at its header, saying what to declare.
  @Test func aLegacyExportReadAsUTF8FailsAtItsHeaderSayingWhatToDeclare() throws {
    let scratch = try TemporaryDirectory()
    let (_, _, directory) = try Self.initAndRun(Self.corpus + "/tw-population-big5.csv", "tw", in: scratch)
    let run = try SluiceCommand.run(["run", "\(directory)/tw.json", "--encoding", "utf-8"])
    #expect(run.status == 65)
    #expect(
      run.stderr.contains(
        "the header: column 1's name is not valid UTF-8 (a file in another encoding needs dialect.encoding or "
          + "--encoding; sluice inspect sniffs it)"), "\(run.stderr)")
  }

  @Test func aFileTooShortToTellItsEncodingIsRefusedWithTheEncodingToSet() throws {
    let scratch = try TemporaryDirectory()
    let bytes: [UInt8] =
      Array("id,".utf8) + [0xA6, 0x57, 0xBA, 0xD9] + Array("\r\n1,".utf8) + [0xA5, 0x78, 0xA5, 0x5F]
      + Array("\r\n".utf8)
    let file = try scratch.write("short.csv", bytes)
    let message =
      "cannot tell the encoding: not UTF-8, and its 4 non-ASCII character(s) are too few to tell big5, gb18030, "
      + "shift_jis apart; give it with --encoding (big5 or gb18030 or shift_jis), or a spec's dialect.encoding"
    let inspected = try SluiceCommand.run(["inspect", file])
    #expect(inspected.status == 65)
    #expect(inspected.stderr == "sluice: \(file): \(message)\n")
    let initialized = try SluiceCommand.run(["init", file, "short", "--declarative", "--dir", scratch.file("short")])
    #expect(initialized.status == 65)
    #expect(initialized.stderr.contains(message), "\(initialized.stderr)")
    // Given, it is read: 名稱 and 台北 in Big5.
    let given = try SluiceCommand.run(["inspect", file, "--encoding", "big5", "--format", "csv"])
    #expect(given.status == 0, "\(given.stderr)")
    #expect(given.stdout.contains("名稱"), "\(given.stdout)")
  }

  /// Cyrillic in Windows-1251 is no Latin-1 text: whole words of bytes 0x80–0xFF.
  @Test func aNonLatinSingleByteExportIsRefusedRatherThanReadAsLatin1() throws {
    let scratch = try TemporaryDirectory()
    let cities = ["Москва", "Санкт-Петербург", "Новосибирск", "Екатеринбург", "Казань"]
    let text = "id,город\n" + cities.enumerated().map { "\($0.offset),\($0.element)\n" }.joined()
    let file = try scratch.write("cities.csv", Array(try #require(text.data(using: .windowsCP1251))))
    let inspected = try SluiceCommand.run(["inspect", file])
    #expect(inspected.status == 65)
    #expect(
      inspected.stderr.contains(
        "cannot tell the encoding: not UTF-8, and most of its bytes 0x80–0xFF come in runs of three or more, as the "
          + "words of a non-Latin script (Cyrillic, Greek) in a single-byte encoding do; give it with --encoding "
          + "(windows-1251 or koi8-r or iso-8859-5 or windows-1253 or iso-8859-7)"), "\(inspected.stderr)")
    let given = try SluiceCommand.run(["inspect", file, "--encoding", "windows-1251"])
    #expect(given.status == 0 && given.stdout.contains("город"), "\(given.stdout)")
  }

  @Test func aUTF16LittleEndianExportWithoutAByteOrderMarkIsSniffedAndLoadsExactly() throws {
    let scratch = try TemporaryDirectory()
    let text = "code,label,amount\r\n001,Crème brûlée,12\r\n002,Ünïcödé,-3\r\n003,plain,7\r\n"
    let file = try scratch.write("export.csv", Array(try #require(text.data(using: .utf16LittleEndian))))
    let inspected = try SluiceCommand.run(["inspect", file])
    #expect(inspected.status == 0, "\(inspected.stderr)")
    #expect(
      inspected.stdout.contains(
        "encoding utf-16le (a guess: no byte order mark, but a NUL byte after each ASCII character: UTF-16)"),
      "\(inspected.stdout)")
    let (spec, run, directory) = try Self.initAndRun(file, "export", in: scratch)
    #expect((spec["dialect"] as? [String: Any])?["encoding"] as? String == "utf-16le")
    #expect(run.status == 0, "\(run.stderr)")
    Self.expectLoaded(try Self.loadedRows(directory, "export"), Self.split(text))
  }

  /// An export shaped as the Australian Bureau of Statistics' TableBuilder writes one: eight
  /// lines of title and filters (one of two fields), the table, then four rows of notes.
  static let tableBuilderExport = """
    Australian Bureau of Statistics

    "2016 Census - Counting Persons, Place of Usual Residence (MB)"
    "AGE5P Age in Five Year Groups by SEXP Sex"
    "Counting: Persons Place of Usual Residence"

    Filters:
    "Default Summation","Persons Place of Usual Residence"
    "AGE5P - Age in Five Year Groups","Male","Female","Total"
    "0-4 years",742,704,1446
    "5-9 years",781,741,1522
    "10-14 years",712,681,1393
    "15-19 years",705,662,1367
    "20-24 years",770,761,1531
    "25-29 years",809,823,1632
    "30-34 years",811,843,1654
    "35-39 years",760,780,1540
    "40-44 years",783,805,1588
    "45-49 years",762,797,1559
    "50-54 years",721,750,1471

    "Data Source: Census of Population and Housing, 2016, TableBuilder"
    "INFO","Cells in this table have been randomly adjusted to avoid the release of confidential data."
    "Copyright Commonwealth of Australia, 2018, see abs.gov.au/copyright"
    "ABS data licensed under Creative Commons, see abs.gov.au/ccby"

    """

  @Test func titleLinesAndNotesAroundTheTableAreFoundSaidWrittenIntoTheSpecAndLeftOut() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("abs.csv", Self.tableBuilderExport.replacingOccurrences(of: "\n", with: "\r\n"))
    let inspected = try SluiceCommand.run(["inspect", file])
    #expect(inspected.status == 0, "\(inspected.stderr)")
    #expect(
      inspected.stdout.contains(
        "header on line 9 (8 line(s) before it skipped: skipLines), data lines 10–20, 4 row(s) of notes after it, left out: footerLines"
      ), "\(inspected.stdout)")
    #expect(inspected.stdout.contains("records  11, all of them"), "\(inspected.stdout)")
    let (spec, run, directory) = try Self.initAndRun(file, "abs", in: scratch)
    let dialect = try #require(spec["dialect"] as? [String: Any])
    #expect(
      dialect["skipLines"] as? Int == 8 && dialect["footerLines"] as? Int == 4 && dialect["header"] as? Bool == true)
    #expect(run.status == 0, "\(run.stderr)")
    let readme = try String(contentsOfFile: "\(directory)/README.md", encoding: .utf8)
    #expect(
      readme.contains(
        "The table starts on line 9: the 8 line(s) before it are skipped (`dialect.skipLines`); at most 4 last row(s) "
          + "of another shape are notes, left out (`dialect.footerLines`)"), "\(readme)")
    let json = try SluiceCommand.run(["inspect", file, "--json"])
    #expect(json.stdout.contains(#""skipLines" : 8"#) && json.stdout.contains(#""footerLines" : 4"#), "\(json.stdout)")
    let rows = Self.tableBuilderExport.split(separator: "\n").dropFirst(6).prefix(12).map {
      $0.split(separator: ",").map { $0.replacingOccurrences(of: "\"", with: "") }
    }
    Self.expectLoaded(try Self.loadedRows(directory, "abs"), rows)
  }

  /// NASA GISS's global temperature table (`Tests/Corpus/csv/real`): a title line, then the
  /// header and 139 years; `***` where a value is missing.
  @Test func aRealTableUnderATitleLineLoadsEveryYear() throws {
    let path = Repository.path("Tests/Corpus/csv/real/nasa-giss-glb-title-line.csv")
    let rows = Self.split(try String(contentsOfFile: path, encoding: .utf8))
    #expect(rows.first == ["Land-Ocean: Global Means"])
    #expect(rows.count == 141 && rows.dropFirst().allSatisfy { $0.count == 19 })
    let inspected = try SluiceCommand.run(["inspect", path])
    #expect(
      inspected.stdout.contains("header on line 2 (1 line(s) before it skipped: skipLines), data lines 3–141,"),
      "\(inspected.stdout)")
    let scratch = try TemporaryDirectory()
    let (spec, run, directory) = try Self.initAndRun(path, "giss", in: scratch)
    let dialect = try #require(spec["dialect"] as? [String: Any])
    #expect(dialect["skipLines"] as? Int == 1 && dialect["footerLines"] == nil)
    #expect(run.status == 0, "\(run.stderr)")
    let loaded = try Self.loadedRows(directory, "giss")
    #expect(loaded.count == 139)
    // Each year once, with its annual mean (J-D) as written where it is text.
    for row in rows.dropFirst(2) {
      #expect(loaded.count { $0.contains(row[0]) && $0.contains(row[13]) } >= 1, "\(row)")
    }
  }

  /// A title line as wide as the table looks like data to the sniffer; `--skip-lines` says
  /// otherwise, and init writes it into the spec.
  @Test func theDataRegionCanBeGivenOnTheCommandLine() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("report.csv", "Report,2024,Q1\nid,name,v\n1,a,2\n2,b,3\n3,c,4\nTotal\n")
    let sniffed = try SluiceCommand.run(["inspect", file])
    #expect(
      sniffed.stdout.contains("no header row (sniffed: column 2 of the first row is integer"), "\(sniffed.stdout)")
    let given = try SluiceCommand.run(["inspect", file, "--skip-lines", "1", "--footer-lines", "1"])
    #expect(
      given.stdout.contains(
        "a header row (sniffed), header on line 2 (1 line(s) before it skipped: skipLines), data lines 3–5, "
          + "1 row(s) of notes after it, left out: footerLines"), "\(given.stdout)")
    let directory = scratch.file("report")
    let initialized = try SluiceCommand.run([
      "init", file, "report", "--declarative", "--dir", directory, "--skip-lines", "1", "--footer-lines", "1",
    ])
    #expect(initialized.status == 0, "\(initialized.stderr)")
    let run = try SluiceCommand.run(["run", "\(directory)/report.json", "--policy", "strict"])
    #expect(run.status == 0, "\(run.stderr)")
    Self.expectLoaded(
      try Self.loadedRows(directory, "report"),
      [["id", "name", "v"], ["1", "a", "2"], ["2", "b", "3"], ["3", "c", "4"]])
    let bad = try SluiceCommand.run(["inspect", file, "--skip-lines", "-1"])
    #expect(bad.status == 64)
    #expect(bad.stderr.contains("--skip-lines must be a number of lines from 0 to 1000, not '-1'"), "\(bad.stderr)")
  }

  @Test func aRunRejectingMostOfItsRecordsUnderTheSpecInitWroteFailsAndSaysWhatToSet() throws {
    let scratch = try TemporaryDirectory()
    let good = "id,name,total\n" + (1...20).map { "\($0),n\($0),\($0 * 3)" }.joined(separator: "\n") + "\n"
    let file = try scratch.write("export.csv", good)
    let (_, first, _) = try Self.initAndRun(file, "export", in: scratch, policy: nil)
    #expect(first.status == 0, "\(first.stderr)")
    // Tomorrow's export has a column more in 15 of its 20 rows: most of them are rejected.
    let bad =
      "id,name,total\n" + (1...20).map { "\($0),n\($0),\($0 * 3)\($0 <= 15 ? ",x" : "")" }.joined(separator: "\n")
      + "\n"
    _ = try scratch.write("export.csv", bad)
    let run = try SluiceCommand.run(["run", scratch.file("export/export.json")])
    #expect(run.status == 65)
    #expect(
      run.stderr.contains(
        "error budget exceeded: 15 of 20 records rejected (75.00% > 10.00%); the run was rolled back. The report's issues say why; a wrong dialect, encoding or data region rejects most rows. If that many rejects are expected, raise the spec's policy.maxRejectRate"
      ), "\(run.stderr)")
  }

  @Test func blankAndRepeatedHeaderNamesAreDistinctColumnsReportedAndLoaded() throws {
    let scratch = try TemporaryDirectory()
    let text =
      "Activity ID,Activity Name,Elapsed Time,Distance,Elapsed Time,Distance,,Commute\n"
      + "101,Morning Ride,3600,25,3540,24,x,yes\n102,Evening Run,1800,5,1795,6,y,no\n"
    let file = try scratch.write("activities.csv", text)
    let summary =
      #"the header's names are not distinct: column 5 repeats "Elapsed Time" (read as Elapsed Time_2), "#
      + #"column 6 repeats "Distance" (read as Distance_2), column 7 is blank (read as column_7)"#
    let inspected = try SluiceCommand.run(["inspect", file])
    #expect(inspected.status == 0, "\(inspected.stderr)")
    #expect(inspected.stdout.contains(summary), "\(inspected.stdout)")
    let (_, run, directory) = try Self.initAndRun(file, "activities", in: scratch)
    #expect(run.status == 0, "\(run.stderr)")
    Self.expectLoaded(try Self.loadedRows(directory, "activities"), Self.split(text))
    let report = try #require(
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: "\(directory)/reports/activities.json"))) as? [String: Any])
    let issues = try #require(report["issues"] as? [[String: Any]])
    #expect(
      issues.contains { $0["code"] as? String == "headerRenamed" && $0["message"] as? String == summary }, "\(issues)")
  }

  @Test func aFileWithoutAHeaderSaysWhy() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("readings.csv", "7,12.5,north\n8,13.25,south\n9,11.0,east\n")
    let inspected = try SluiceCommand.run(["inspect", file])
    #expect(
      inspected.stdout.contains(
        "no header row (sniffed: column 1 of the first row is integer, which a name is not): columns named column1…"
      ), "\(inspected.stdout)")
  }
}
