import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

/// A strict run that fails late, on every committed pipeline on the real cluster: the last file
/// of the spec's last input is cut short near its end, so the run writes the records before the
/// cut in its transaction — distributed and reference tables alike — then meets a broken document.
/// It fails as the same run on plain PostgreSQL (or, without that server, SQLite) does — exit 65,
/// the same failure, the same counts — its audit row says it failed after loading records, and
/// every table of the pipeline holds exactly the rows it held before (for the profile patches,
/// the profiles loaded first; over loaded orders, under upsert and replace alike).
@Suite(
  "Citus strict failures leave the cluster as it was", .serialized,
  .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct CitusStrictFailureTests {
  let citus: CitusPipelineTests
  var scratch: TemporaryDirectory { citus.scratch }

  init() throws { citus = try CitusPipelineTests() }

  /// A copy of `pipeline`'s spec beside a copy of SampleData in the scratch directory — its
  /// relative inputs resolve to the copies as the committed spec's do to the originals — with the
  /// last file its last input reads (a glob's last match) cut at about 90 % of its text (a gzip
  /// file inflated, cut and compressed again): a syntax error near the end, not a gzip error at
  /// the start. Returns the copy of the spec.
  func cutShort(_ pipeline: String) throws -> String {
    let data = scratch.file("SampleData")
    try FileManager.default.copyItem(atPath: Repository.path("SampleData"), toPath: data)
    try FileManager.default.createDirectory(atPath: scratch.file("Pipelines"), withIntermediateDirectories: true)
    let spec = scratch.file(pipeline)
    try FileManager.default.copyItem(atPath: Repository.path(pipeline), toPath: spec)
    // The files the run reads, as it finds them: globs expanded and sorted, escapes removed.
    let inputs = try PipelineSpec(contentsOf: spec).configuration(drivers: .all).inputs
    let last = try #require(inputs.last?.path)
    try #require(last.hasPrefix(data + "/"), "\(last) is not in the copy")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: last))
    let isGzip = bytes.starts(with: [0x1f, 0x8b])
    let text = isGzip ? try Self.inflated(last) : Array(bytes)
    // Just after an ASCII character that closes nothing (no line, object, array or element
    // ends there): the document, or its last line, is broken, and no UTF-8 sequence is split.
    var end = text.count * 9 / 10
    while end > 0, text[end - 1] >= 0x80 || Array(" \t\r\n}]>".utf8).contains(text[end - 1]) { end -= 1 }
    let cut = Array(text[..<end])
    try Data(isGzip ? Gzip.compress(cut) : cut).write(to: URL(fileURLWithPath: last))
    return spec
  }

  /// The text of a gzip file, inflated as a run reads it.
  static func inflated(_ path: String) throws -> [UInt8] {
    let input = try Input(path: path)
    var text: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
      if count == 0 { return text }
      text += buffer[..<count]
    }
  }

  /// Runs `spec` into `target` with a report, and returns the result and the report.
  func run(_ spec: String, into target: [String], _ extra: [String] = []) throws -> (SluiceBinary.Result, RunReport) {
    let report = scratch.file("report-\(UUID().uuidString).json")
    let result = try SluiceCommand.run(["run", spec, "--report", report] + target + extra)
    return (result, try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report))))
  }

  /// The status and records loaded of the last run `sluice_runs` holds, and how many it holds.
  func lastRun(in schema: PostgreSQLSchema) throws -> (status: String, recordsLoaded: Int64, runs: Int64) {
    let store = try schema.connect()
    let statement = try store.prepare(
      "SELECT status, records_loaded, count(*) OVER () FROM sluice_runs ORDER BY run_id DESC LIMIT 1")
    defer { statement.reset() }
    try #require(try statement.step(), "no run recorded")
    func integer(_ column: Int32) -> Int64 {
      if case .integer(let value)? = statement.columnValue(column) { value } else { -1 }
    }
    let status = if case .text(let text)? = statement.columnValue(0) { text } else { "" }
    return (status, integer(1), integer(2))
  }

  @Test(arguments: try CitusPipelineTests.pipelines())
  func aStrictRunFailingLateLeavesTheClusterAsItWas(pipeline: String) throws {
    let (datasets, tables) = try CitusPipelineTests.schemasToPrint(for: try CitusPipelineTests.datasets(of: pipeline))
    let spec = try cutShort(pipeline)
    let first = CitusPipelineTests.loadedFirst[pipeline]
    let schema = CitusCluster.schema()
    try citus.layOut(datasets, in: schema)
    let target = ["--db", schema.url, "--db-schema", schema.name]
    if let first {
      let loaded = try citus.run(first, into: target)
      try #require(loaded.status == 0, "\(loaded.stderr)")
    }
    let before = try schema.rows(of: tables)

    let (failed, report) = try run(spec, into: target, ["--policy", "strict"])
    #expect(failed.status == 65, "\(failed.stderr)")
    #expect(try schema.rows(of: tables) == before, "\(pipeline): rows of the failed run stayed")
    // Recorded as failed, after records were written in its transaction: a rollback that
    // missed them would have shown above.
    let audit = try lastRun(in: schema)
    #expect(audit.status == "failed")
    #expect(audit.recordsLoaded > 0, "\(pipeline): failed before writing anything")
    #expect(audit.runs == (first == nil ? 1 : 2))

    // The same failure as on plain PostgreSQL: the same record, line and message, and counts.
    let reference: (SluiceBinary.Result, RunReport)
    if PostgreSQLServer.isAvailable {
      let plain = PostgreSQLSchema()
      let target = ["--db", plain.url, "--db-schema", plain.name]
      if let first { try #require(try citus.run(first, into: target).status == 0) }
      reference = try run(spec, into: target, ["--policy", "strict"])
    } else {
      let target = ["--db", scratch.file("reference.sqlite")]
      if let first { try #require(try citus.run(first, into: target).status == 0) }
      reference = try run(spec, into: target, ["--policy", "strict"])
    }
    #expect(reference.0.status == failed.status, "\(reference.0.stderr)")
    #expect(PlanCommandTests.counts(report) == PlanCommandTests.counts(reference.1))
  }

  /// Over rows another load left (the lenient load of the broken orders export: other amounts,
  /// customers and items for the same orders), the strict orders run cut short fails under
  /// upsert and under replace, each after loading more orders than the tables hold — new rows,
  /// updates and deletes a missing rollback would leave — and every row stays as it was.
  @Test func aStrictRunFailingLateOverLoadedRowsLeavesThemAsTheyWere() throws {
    let tables = try CitusPipelineTests.schemasToPrint(for: ["orders"]).tables
    let spec = try cutShort("Pipelines/orders.json")
    let schema = CitusCluster.schema()
    try citus.layOut(["orders"], in: schema)
    let target = ["--db", schema.url, "--db-schema", schema.name]
    let loaded = try citus.run("Pipelines/orders-lenient.json", into: target)
    try #require(loaded.status == 0, "\(loaded.stderr)")
    let before = try schema.rows(of: tables)
    #expect(before.count("orders") > 0)
    for conflict in ["upsert", "replace"] {
      let (failed, _) = try run(spec, into: target, ["--on-conflict", conflict])
      #expect(failed.status == 65, "\(conflict): \(failed.stderr)")
      #expect(try schema.rows(of: tables) == before, "\(conflict): rows of the failed run stayed")
      let audit = try lastRun(in: schema)
      #expect(audit.status == "failed", "\(conflict)")
      #expect(audit.recordsLoaded > Int64(before.count("orders")), "\(conflict)")
    }
  }
}
