import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

/// The round trip of `sluice inspect --swift NAME`: the DTOs the binary prints for a crafted
/// rich sample and for real files (JSON, gzip NDJSON, XML) are written into a throwaway SwiftPM
/// package that depends on this repository, compiled, and run: it decodes every record of each
/// inspected input with Sluice's own decoder under the strict policy. One package, one build
/// (it compiles SluiceCore, about a minute here), every DTO.
@Suite("sluice inspect --swift: the DTO compiles and decodes every record", .tags(.slow))
struct InspectDTORoundTripTests {
  /// One DTO to check: the input, how to read its records, and what the decode must find.
  struct Case {
    var type: String
    var input: String
    var format: String
    var recordPath: [String]
    var records: Int
    /// Unknown fields every record may report: exactly the fields the DTO leaves out (nil:
    /// any, for an inspection that hit its field path cap).
    var unknownFields: Set<String>?
  }

  /// Records with nested objects, arrays of objects, arrays of arrays, optional and nullable
  /// fields, integers mixed with fractions, an ISO 8601 date, keys that are no Swift identifier
  /// (`created-at`, `123abc`) or are keywords (`class`, `self`), names that collide, a field
  /// always null, an array always empty, and one field no type decodes (`mixed`).
  static func richSample(count: Int) -> String {
    let records = (1...count).map { i -> String in
      let items = (0..<(i % 3)).map { j in
        #"{"sku": "S\#(i)-\#(j)", "qty": \#(j + 1), "price": \#(Double(j) * 1.25), "tags": [\#(Array(repeating: "\"t\"", count: j).joined(separator: ","))], "dims": \#(j == 0 ? "null" : #"{"w": \#(j), "h": 2}"#)}"#
      }
      var fields = [
        #""id": "\#(String(format: "%04d", i))""#, #""created-at": "2024-01-\#(String(format: "%02d", i))T10:00:00Z""#,
        #""class": "\#(i % 2 == 0 ? "gold" : "silver")""#, #""total": \#(i % 3 == 0 ? "\(i * 100).5" : "\(i * 100)")"#,
        #""count": \#(i)"#, #""active": \#(i % 2 == 0)"#,
        #""customer": {"name": "C\#(i)"\#(i % 4 == 0 ? "" : #", "e-mail": "c\#(i)@example.org""#)}"#,
        #""items": [\#(items.joined(separator: ", "))]"#, #""matrix": [[\#(i), \#(i + 1)], [\#(i + 2)]]"#,
        #""always_null": null"#, #""empty_list": []"#, #""mixed": \#(i % 2 == 0 ? "\(i)" : "\"\(i)\"")"#,
        #""123abc": true"#, #""self": "s""#, #""Type": "T""#, #""user_name": "u""#, #""userName": "U""#,
        #""item": {"value": \#(i)}"#,
      ]
      if i % 5 == 0 { fields.append(#""note": null"#) }
      if i % 5 == 1 { fields.append(#""note": "note \#(i)""#) }
      return "{" + fields.joined(separator: ", ") + "}"
    }
    return #"{"meta": {"count": \#(count)}, "data": {"items": [\#n"# + records.joined(separator: ",\n") + "\n]}}\n"
  }

  @Test func everyGeneratedDTODecodesEveryRecordOfItsInput() throws {
    let scratch = try TemporaryDirectory()
    let rich = try scratch.write("rich.json", Self.richSample(count: 12))
    let corpus = Corpus.root
    let cases = [
      Case(
        type: "Rich", input: rich, format: "json", recordPath: ["data", "items"], records: 12, unknownFields: ["mixed"]),
      Case(
        type: "Order", input: Repository.path("SampleData/orders.json.gz"), format: "json", recordPath: [],
        records: 2_000, unknownFields: []),
      Case(
        type: "Post", input: corpus + "/xml-legacy/stackexchange-conlang-meta/Posts.xml", format: "xml",
        recordPath: ["posts", "row"], records: 177, unknownFields: []),
      Case(
        type: "Node", input: corpus + "/xml-legacy/osm/West-Oakland.osm", format: "xml", recordPath: ["osm", "node"],
        records: 446, unknownFields: []),
      Case(
        type: "TelegramMessage", input: corpus + "/messages/telegram/langchain_fork_result_mixed_text.json",
        format: "json", recordPath: ["messages"], records: 6, unknownFields: ["text"]),
      Case(
        type: "Product", input: corpus + "/products-orders/openfoodfacts/openfoodfacts-products-first200.jsonl.gz",
        format: "ndjson", recordPath: [], records: 200, unknownFields: nil),
    ]

    let package = try DTOPackage(in: scratch)
    for check in cases {
      let result = try SluiceCommand.run(["inspect", check.input, "--all", "--swift", check.type])
      #expect(result.status == 0, "\(check.type): \(result.stderr)")
      try package.add(dto: result.stdout, named: check.type)
    }
    #expect(try package.source(of: "Rich").contains(#"  // "mixed" is left out: its values are "#))
    try package.writeMain(cases)

    let build = try package.build()
    try #require(build.status == 0, "the generated DTOs do not compile:\n\(build.output)")
    let run = try package.run()
    try #require(run.status == 0, "decoding failed:\n\(run.output)")

    struct Outcome: Decodable {
      var type: String
      var decoded: Int
      var unknown: [String]
    }
    let outcomes = try run.output.split(separator: "\n").filter { $0.hasPrefix("{") }.map {
      try JSONDecoder().decode(Outcome.self, from: Data($0.utf8))
    }
    #expect(outcomes.map(\.type) == cases.map(\.type))
    for (check, outcome) in zip(cases, outcomes) {
      #expect(outcome.decoded == check.records, "\(check.type)")
      if let expected = check.unknownFields {
        #expect(Set(outcome.unknown) == expected, "\(check.type)")
      } else {
        #expect(!outcome.unknown.isEmpty, "\(check.type): the capped inspection should leave fields out")
      }
    }
  }
}

/// A throwaway SwiftPM package depending on this repository's SluiceCore, with the DTOs and a
/// main that decodes each input with its DTO.
private struct DTOPackage {
  let root: String
  var sources: String { root + "/Sources/dto-check" }

  init(in scratch: TemporaryDirectory) throws {
    root = scratch.file("dto-check")
    try FileManager.default.createDirectory(atPath: root + "/Sources/dto-check", withIntermediateDirectories: true)
    let repository = Repository.root
    // A path dependency's identity is its folder's name.
    let identity = URL(fileURLWithPath: repository).lastPathComponent.lowercased()
    let manifest = """
      // swift-tools-version:6.0
      import PackageDescription

      let package = Package(
        name: "DTOCheck",
        dependencies: [.package(path: "\(repository)")],
        targets: [
          .executableTarget(
            name: "dto-check", dependencies: [.product(name: "SluiceCore", package: "\(identity)")])
        ],
        swiftLanguageModes: [.v6]
      )
      """
    try manifest.write(toFile: root + "/Package.swift", atomically: true, encoding: .utf8)
  }

  func add(dto: String, named name: String) throws {
    try dto.write(toFile: sources + "/\(name).swift", atomically: true, encoding: .utf8)
  }

  func source(of name: String) throws -> String {
    try String(contentsOfFile: sources + "/\(name).swift", encoding: .utf8)
  }

  func writeMain(_ cases: [InspectDTORoundTripTests.Case]) throws {
    func literal(_ text: String) -> String {
      "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
    let calls = cases.map { check in
      "try check(\(check.type).self, \(literal(check.type)), \(literal(check.input)), .\(check.format), [\(check.recordPath.map(literal).joined(separator: ", "))])"
    }
    let main = """
      import Foundation
      @_spi(Internals) import SluiceCore

      /// Decodes every record of `input` as `T` under the strict policy; prints one JSON line.
      func check<T: Decodable>(
        _ type: T.Type, _ name: String, _ input: String, _ format: PipelineConfiguration.Format, _ recordPath: [String]
      ) throws {
        let policy = Policy.strict
        let decoder = SluiceDecoder(options: .init(legacyScalars: policy.legacyScalars, dateFormats: policy.dateFormats))
        let reader = RecordReaders.make(format: format, recordPath: recordPath, source: try Input(path: input))
        var decoded = 0
        var unknown = Set<String>()
        while let record = try reader.next() {
          var diagnostics = DecodeDiagnostics()
          do {
            _ = try decoder.decode(T.self, from: record, diagnostics: &diagnostics)
          } catch {
            print("\\(name): record \\(record.location.ordinal) (line \\(record.location.line)) does not decode: \\(error)")
            exit(1)
          }
          decoded += 1
          unknown.formUnion(diagnostics.unknownFields.map(\\.path))
        }
        let line: [String: Any] = ["type": name, "decoded": decoded, "unknown": unknown.sorted()]
        let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
      }

      \(calls.joined(separator: "\n"))

      """
    try main.write(toFile: sources + "/main.swift", atomically: true, encoding: .utf8)
  }

  struct Outcome {
    var status: Int32
    var output: String
  }

  func build() throws -> Outcome {
    try execute("/usr/bin/env", ["swift", "build", "--package-path", root], timeout: 900)
  }

  func run() throws -> Outcome {
    try execute(root + "/.build/debug/dto-check", [], timeout: 300)
  }

  /// Runs a program with stdout and stderr together in a file; kills it past `timeout`.
  private func execute(_ executable: String, _ arguments: [String], timeout: Double) throws -> Outcome {
    let log = root + "/output-\(UUID().uuidString).txt"
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    defer { try? handle.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: root)
    process.standardOutput = handle
    process.standardError = handle
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(50_000) }
    var timedOut = false
    if process.isRunning {
      timedOut = true
      process.terminate()
    }
    process.waitUntilExit()
    var output = try String(contentsOfFile: log, encoding: .utf8)
    if timedOut { output += "\n(killed after \(Int(timeout)) s)" }
    return Outcome(status: timedOut ? -1 : process.terminationStatus, output: output)
  }
}
