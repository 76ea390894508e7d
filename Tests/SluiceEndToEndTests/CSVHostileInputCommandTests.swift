import Foundation
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// The built binary on the hostile CSV and NDJSON inputs of issue 55: a UTF-8 export with one
/// stray byte is initialized as UTF-8 and loses only that row; a header of 200,000 unknown
/// columns, and NDJSON records of 200,000 unknown keys each, are counted and sampled, not kept
/// one by one, in memory that does not grow with them; an empty `--encoding` and a second byte order mark are
/// refused with a sentence.
@Suite("sluice on hostile CSV and NDJSON input")
struct CSVHostileInputCommandTests {
  /// What a run may take here: the default budget, plus four times the largest record (an NDJSON
  /// line of 200,000 keys is under 3 MB), as docs/operations.md bounds a run.
  static let memoryBound = (64 << 20) + 4 * (3 << 20)

  private func report(_ path: String) throws -> RunReport {
    try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// A spec loading `input` into the devices table, under `policy` (a preset or an object).
  /// `sluice run ARGUMENTS` as a process of its own: what these tests check is the peak RSS the
  /// kernel measured, which only a process has (`LaunchCountTests`).
  private static func measuredRun(_ arguments: [String]) throws -> MeasuredRun {
    try SluiceBinary.measure(["run"] + arguments)
  }

  private func devicesSpec(
    _ input: String, format: String, policy: String = #""lenient""#, in scratch: TemporaryDirectory, name: String
  ) throws -> String {
    try scratch.write(
      "\(name).json",
      #"{"dataset": "devices", "input": "\#(input)", "format": "\#(format)", "policy": \#(policy), "database": "\#(name).sqlite", "report": "\#(name)-report.json"}"#
    )
  }

  // MARK: - Finding 6

  @Test func aUTF8ExportWithOneStrayByteIsInitializedAsUTF8AndOnlyThatRowIsRejected() throws {
    let scratch = try TemporaryDirectory()
    var bytes = Array("id,name\n".utf8)
    for index in 1...199 { bytes += Array("\(index),José Müller \(index)\n".utf8) }
    bytes += Array("200,Jos".utf8) + [0xE9] + Array(" Stray\n".utf8)
    let dump = try scratch.write("people.csv", bytes)

    let inspected = try SluiceCommand.run(["inspect", dump])
    #expect(inspected.status == 0, "\(inspected.stderr)")
    #expect(inspected.stdout.contains("encoding utf-8 (a guess: mostly valid UTF-8"), "\(inspected.stdout)")

    let directory = scratch.file("people")
    let initialized = try SluiceCommand.run(["init", dump, "people", "--declarative", "--dir", directory])
    try #require(initialized.status == 0, "\(initialized.stderr)")
    let spec = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(directory)/people.json")))
        as? [String: Any])
    #expect((spec["dialect"] as? [String: Any])?["encoding"] == nil, "\(spec)")

    let reportPath = scratch.file("report.json")
    let run = try SluiceCommand.run([
      "run", "\(directory)/people.json", "--policy", "lenient", "--report", reportPath,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let rows = try DatabaseSnapshot(of: "\(directory)/people.sqlite", tables: ["people"]).tables["people"] ?? []
    #expect(rows.count == 199)
    #expect(rows.allSatisfy { $0.contains("José Müller") && !$0.contains("Ã") }, "\(rows.prefix(3))")
    let report = try report(reportPath)
    #expect(report.issueCounts == ["syntax": 1])
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .read)
    #expect(issue.code == .syntax)
    #expect(issue.path == "name")
    #expect(issue.location?.ordinal == 200)
    #expect(issue.location?.line == 201)
    #expect(issue.location?.column == 2)
    #expect(issue.location?.byteOffset == Int64(bytes.count - 11))
    #expect(
      issue.message
        == "invalid UTF-8 at byte 3 of the field (a file in another encoding needs dialect.encoding or --encoding; "
        + "sluice inspect sniffs it)")
  }

  // MARK: - Finding 8

  /// The devices dataset knows four columns; the other 65,000 of each row (just under a header's
  /// limit, `CSVHeader.maxColumns`) are unknown fields: every one counted, the first 100 kept
  /// with their places. What a run keeps does not grow with them: 16 rows (1,040,000 warnings)
  /// peak where 4 rows (260,000) do — before, each warning was kept, and 10 rows of 200,000
  /// peaked at 410 MiB — and within the memory budget (56 MiB here, a debug build).
  @Test func aHeaderOfUnknownColumnsIsCountedAndSampledInMemoryThatDoesNotGrowWithThem() throws {
    let scratch = try TemporaryDirectory()
    let extra = 65_000
    let header = "id,name,latitude,longitude," + (0..<extra).map { "x\($0)" }.joined(separator: ",") + "\n"
    func run(rows: Int) throws -> (MeasuredRun, RunReport) {
      var text = header
      for index in 1...rows {
        text += "dev-\(index),Device \(index),1.5,2.5" + String(repeating: ",", count: extra) + "\n"
      }
      let input = try scratch.write("wide-\(rows).csv", text)
      let result = try Self.measuredRun([try devicesSpec(input, format: "csv", in: scratch, name: "w\(rows)")])
      #expect(!result.timedOut)
      #expect(result.status == 0, "\(result.stderr)")
      return (result, try self.report(scratch.file("w\(rows)-report.json")))
    }
    let (few, _) = try run(rows: 4)
    let (many, report) = try run(rows: 16)
    #expect(
      many.peakResidentBytes < few.peakResidentBytes + (8 << 20),
      "peak RSS \(few.peakResidentBytes >> 20) MiB for 4 rows, \(many.peakResidentBytes >> 20) MiB for 16")
    #expect(many.peakResidentBytes < Self.memoryBound, "peak RSS \(many.peakResidentBytes >> 20) MiB")
    #expect(report.issueCounts["unknownField"] == 16 * extra)
    #expect(report.stages.first { $0.stage == .decode }?.warnings == 16 * extra)
    let sampled = report.issues.filter { $0.code == .unknownField }
    #expect(sampled.count == 100)
    let first = try #require(sampled.first)
    #expect(first.stage == .decode && first.severity == .warning)
    #expect(first.path == "x0")
    #expect(first.location?.ordinal == 1 && first.location?.line == 2 && first.location?.column == 5)
    #expect(report.drift.unknownFields.first?.path == "x0")
    #expect(report.drift.unknownFields.reduce(0) { $0 + $1.count } + report.drift.otherCount == 16 * extra)
    #expect(try DatabaseSnapshot(of: scratch.file("w16.sqlite"), tables: ["devices"]).count("devices") == 16)
  }

  /// A header of 200,000 columns — more than any table of any store has — is refused at the
  /// column past the limit (exit 65, nothing written), in the memory of a small run: before, its
  /// names, steps and fields were built, and a million columns took 300 MiB.
  @Test func aHeaderOfMoreColumnsThanTheLimitFailsTheRunAtItsPlaceWithinTheBudget() throws {
    let scratch = try TemporaryDirectory()
    let header = "id,name,latitude,longitude," + (0..<200_000).map { "x\($0)" }.joined(separator: ",") + "\n"
    let input = try scratch.write(
      "wider.csv", header + "dev-1,Device 1,1.5,2.5" + String(repeating: ",", count: 200_000) + "\n")
    let result = try Self.measuredRun([try devicesSpec(input, format: "csv", in: scratch, name: "wider")])
    #expect(!result.timedOut)
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.peakResidentBytes < Self.memoryBound, "peak RSS \(result.peakResidentBytes >> 20) MiB")
    let report = try report(scratch.file("wider-report.json"))
    let issue = try #require(report.issues.first)
    #expect(report.issues.count == 1 && issue.stage == .read && issue.code == .fieldCount)
    #expect(issue.message == "the header: more than \(65_536) fields, the most a CSV row may have")
    #expect(issue.location?.line == 1 && issue.location?.column == 65_537)
    let offset = "id,name,latitude,longitude,".utf8.count + (0..<65_532).map { "x\($0)," }.joined().utf8.count
    #expect(issue.location?.byteOffset == Int64(offset))
  }

  /// NDJSON devices with 200,000 unknown keys each (and one without), under `unknownFields`
  /// `warn`, then `reject`: each wide record's first unknown fields are listed, the rest counted
  /// — as warnings, then as errors of the records they reject.
  @Test func manyUnknownKeysInEachNDJSONRecordAreCountedAndSampledWithinTheMemoryBound() throws {
    let scratch = try TemporaryDirectory()
    let extra = 200_000
    let keys = (0..<extra).map { #""k\#($0)":0"# }.joined(separator: ",")
    var text = ""
    for index in 1...5 {
      text += #"{"id":"dev-\#(index)","name":"n","latitude":1.5,"longitude":2.5,\#(keys)}"# + "\n"
    }
    text += #"{"id":"dev-6","name":"n","latitude":1.5,"longitude":2.5}"# + "\n"
    let input = try scratch.write("wide.ndjson", text)
    let warned = try Self.measuredRun([try devicesSpec(input, format: "ndjson", in: scratch, name: "warn")])
    #expect(!warned.timedOut)
    #expect(warned.status == 0, "\(warned.stderr)")
    #expect(warned.peakResidentBytes < Self.memoryBound, "peak RSS \(warned.peakResidentBytes >> 20) MiB")
    let report = try report(scratch.file("warn-report.json"))
    #expect(report.issueCounts["unknownField"] == 5 * extra)
    let first = try #require(report.issues.first { $0.code == .unknownField })
    #expect(first.path == "k0" && first.location?.line == 1 && first.location?.ordinal == 1)

    let rejectingSpec = try devicesSpec(
      input, format: "ndjson", policy: #"{"preset": "lenient", "unknownFields": "reject"}"#, in: scratch,
      name: "reject")
    let rejected = try Self.measuredRun([rejectingSpec, "--rejects", scratch.file("rejects.ndjson")])
    #expect(rejected.status == 0, "\(rejected.stderr)")
    #expect(rejected.peakResidentBytes < Self.memoryBound, "peak RSS \(rejected.peakResidentBytes >> 20) MiB")
    let rejectedReport = try self.report(scratch.file("reject-report.json"))
    #expect(rejectedReport.issueCounts["unknownField"] == 5 * extra)
    #expect(rejectedReport.stages.first { $0.stage == .decode }?.rejected == 5)
    let sample = try #require(rejectedReport.issues.first)
    #expect(sample.stage == .decode && sample.severity == .error && sample.code == .unknownField)
    #expect(sample.path == "k0" && sample.location?.line == 1)
  }

  // MARK: - Finding 9

  @Test func anEmptyEncodingIsAUsageError() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write("devices.csv", "id,name,latitude,longitude\nd1,a,1,2\n")
    let sentence = "--encoding: an encoding needs a name: utf-8, utf-16, windows-1252, iso-8859-1 (iconv -l lists them)"
    for arguments in [
      ["inspect", input, "--encoding", ""],
      ["init", input, "devices", "--dir", scratch.file("init"), "--encoding", ""],
      ["run", try devicesSpec(input, format: "csv", in: scratch, name: "x"), "--encoding", ""],
    ] {
      let result = try SluiceCommand.run(arguments)
      #expect(result.status == 64, "\(arguments[0]): \(result.stderr)")
      #expect(result.stderr.contains(sentence), "\(arguments[0]): \(result.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.file("x.sqlite")))
    let spec = try scratch.write(
      "spec.json",
      #"{"dataset": "devices", "input": "\#(input)", "format": "csv", "dialect": {"encoding": ""}, "database": "y.sqlite"}"#
    )
    let fromSpec = try SluiceCommand.run(["run", spec])
    #expect(fromSpec.status == 64, "\(fromSpec.stderr)")
    #expect(fromSpec.stderr.contains("'dialect.encoding': an encoding needs a name"), "\(fromSpec.stderr)")
  }

  @Test func aSecondByteOrderMarkFailsTheRunAtTheHeader() throws {
    let scratch = try TemporaryDirectory()
    let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
    let input = try scratch.write("devices.csv", mark + mark + Array("id,name,latitude,longitude\nd1,a,1,2\n".utf8))
    let result = try SluiceCommand.run(["run", try devicesSpec(input, format: "csv", in: scratch, name: "bom")])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "line 1, byte 3: the header: column 1's name starts with a byte order mark (U+FEFF): the file has a second one"
      ),
      "\(result.stderr)")
    let inspected = try SluiceCommand.run(["inspect", input])
    #expect(inspected.status == 65, "\(inspected.stderr)")
    #expect(inspected.stderr.contains("column 1's name starts with a byte order mark"), "\(inspected.stderr)")
  }

  @Test func inspectReadsASingleDeepNDJSONLineAsNDJSON() throws {
    let scratch = try TemporaryDirectory()
    let deep = String(repeating: #"{"a":"#, count: 300) + "1" + String(repeating: "}", count: 300) + "\n"
    let file = try scratch.write("deep.ndjson", deep)
    let result = try SluiceCommand.run(["inspect", file])
    #expect(!result.stderr.contains("holds no array of objects"), "\(result.stderr)")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("format   NDJSON, one record per line (detected)"), "\(result.stdout)")
    #expect(
      result.stdout.contains(
        "records  0, all of them; 1 could not be read, the first at line 1, byte 1280: nesting deeper than 256 levels"),
      "\(result.stdout)")
  }
}
