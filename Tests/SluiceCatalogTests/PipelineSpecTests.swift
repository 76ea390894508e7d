import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@Suite("Pipeline specs")
struct PipelineSpecTests {
  private func spec(_ text: String, at path: String = "/specs/nightly/fruits.json") throws(SpecError) -> PipelineSpec {
    try PipelineSpec(data: Data(text.utf8), path: path)
  }

  private func specError(_ text: String) -> String {
    do {
      _ = try spec(text)
      return "no error"
    } catch {
      return error.message
    }
  }

  @Test func fullSpecIsReadAndRelativePathsResolveAgainstItsDirectory() throws {
    let parsed = try spec(
      #"{"dataset": "fruits", "input": "../data/fruits.json.gz", "format": "json", "recordPath": "data.fruits", "policy": "lenient", "database": "out/fruits.sqlite", "onConflict": "ignore", "report": "/var/reports/fruits.json"}"#
    )
    let configuration = try parsed.configuration(drivers: .all)
    #expect(configuration.input == "/specs/data/fruits.json.gz")
    #expect(configuration.database.location == "/specs/nightly/out/fruits.sqlite")
    #expect(configuration.reportPath == "/var/reports/fruits.json")
    #expect(configuration.recordPath == ["data", "fruits"])
    #expect(configuration.policy == .lenient)
    #expect(configuration.conflict == .ignore)
    #expect(configuration.name == "fruits")
  }

  @Test func theHTMLReportPathResolvesLikeTheOtherOutputs() throws {
    let parsed = try spec(
      #"{"dataset": "fruits", "input": "i", "database": "d", "report": "../reports/f.json", "html": "../reports/f.html"}"#
    )
    #expect(parsed.html == "../reports/f.html")
    #expect(try parsed.configuration(drivers: .all).htmlPath == "/specs/reports/f.html")
    #expect(try parsed.configuration(drivers: .all).reportPath == "/specs/reports/f.json")
    #expect(
      try spec(#"{"dataset": "fruits", "input": "i", "database": "d"}"#).configuration(drivers: .all).htmlPath == nil)
    #expect(specError(#"{"dataset": "fruits", "input": "i", "database": "d", "html": 3}"#).contains("'html'"))
  }

  @Test func defaultsAreStrictUpsertTopLevelArray() throws {
    let parsed = try spec(#"{"dataset": "fruits", "input": "-", "database": "f.sqlite"}"#)
    #expect(parsed.policy == .strict)
    #expect(parsed.onConflict == .upsert)
    #expect(parsed.format == .json)
    #expect(parsed.recordPath.isEmpty)
    #expect(try parsed.configuration(drivers: .all).input == "-")
  }

  @Test func policyObjectOverridesThePreset() throws {
    let parsed = try spec(
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "lenient", "maxRejects": 10, "maxRejectRate": 0.05, "unknownFields": "reject", "legacyScalars": true, "dates": ["iso8601", "dd/MM/yyyy"]}}"#
    )
    #expect(parsed.policy.preset == .lenient)
    #expect(parsed.policy.invalidRecord == .skip)
    #expect(parsed.policy.maxRejects == 10)
    #expect(parsed.policy.maxRejectRate == 0.05)
    #expect(parsed.policy.unknownFields == .reject)
    #expect(parsed.policy.legacyScalars)
    #expect(parsed.policy.dateFormats == [.iso8601, .pattern("dd/MM/yyyy")])
    #expect(parsed.policy.summary.contains("maxRejects 10"))
  }

  @Test func duplicateKeysIsAPolicyKnobOfEitherPresetWarnByDefault() throws {
    #expect(try spec(#"{"dataset": "fruits", "input": "i", "database": "d"}"#).policy.duplicateKeys == .warn)
    for preset in ["strict", "lenient"] {
      let parsed = try spec(
        #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "\#(preset)", "duplicateKeys": "reject"}}"#
      )
      #expect(parsed.policy.duplicateKeys == .reject)
      #expect(parsed.policy.summary == "\(preset) (duplicateKeys reject)")
    }
  }

  @Test func recordPathMayBeAnArrayOfKeys() throws {
    let parsed = try spec(#"{"dataset": "fruits", "input": "i", "database": "d", "recordPath": ["a.b", "c"]}"#)
    #expect(parsed.recordPath == ["a.b", "c"])
  }

  @Test(arguments: [
    (#"{"input": "i", "database": "d"}"#, "'dataset': missing required key"),
    (#"{"dataset": "fruits", "database": "d"}"#, "'input': missing required key"),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "format": "yaml"}"#,
      "'format' is 'yaml', expected one of: json, ndjson, xml"
    ),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": "loose"}"#,
      "'policy' is 'loose', expected one of: strict, lenient"
    ),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "onConflict": "merge"}"#, "'onConflict' is 'merge'"),
    (#"{"dataset": "fruits", "input": "i", "database": "d", "recordpath": "x"}"#, "unknown key 'recordpath'"),
    (#"{"dataset": 3, "input": "i", "database": "d"}"#, "'dataset': expected a string, found a number"),
    (#"{"dataset": "", "input": "i", "database": "d"}"#, "'dataset' must not be empty"),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "format": "ndjson", "recordPath": "x"}"#,
      "'recordPath' applies to format json"
    ),
    (#"["dataset"]"#, "expected an object, found an array"),
    (#"{"dataset": "fruits",}"#, "not valid JSON"),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "strict", "legacyScalars": true}}"#,
      "legacyScalars needs the lenient preset"
    ),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "strict", "maxRejects": 3}}"#,
      "error budget of 0"
    ),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "strict", "dates": ["iso8601", "epochSeconds"]}}"#,
      "exactly one date format"
    ),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "lenient", "maxRejects": "ten"}}"#,
      "'policy.maxRejects': expected an integer, found a string"
    ),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "lenient", "maxRejectRate": 2}}"#,
      "maxRejectRate must be between 0 and 1"
    ),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "lenient", "unknownFields": "shout"}}"#,
      "'policy.unknownFields' is 'shout'"
    ),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "lenient", "legacyScalar": true}}"#,
      "unknown key 'policy.legacyScalar'"
    ),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"preset": "strict", "duplicateKeys": "fail"}}"#,
      "'policy.duplicateKeys' is 'fail', expected one of: warn, reject, ignore"
    ),
    (
      #"{"dataset": "fruits", "input": "i", "database": "d", "policy": {"maxRejects": 3}}"#,
      "'policy.preset': missing required key"
    ),
  ])
  func badSpecNamesTheProblem(text: String, expected: String) {
    let message = specError(text)
    #expect(message.contains(expected), "\(message)")
  }

  @Test func aCSVInputsDialectIsReadWithTheFormatsDefaults() throws {
    let parsed = try spec(
      #"{"inputs": [{"dataset": "devices", "input": "a.csv", "format": "csv", "dialect": {"delimiter": ";", "empty": "null"}}, {"dataset": "devices", "input": "b.tsv", "format": "tsv", "dialect": {"columns": ["id", "name"]}}, {"dataset": "devices", "input": "c.tsv", "format": "tsv"}], "database": "d"}"#
    )
    #expect(parsed.inputs[0].dialect == CSVDialect(delimiter: UInt8(ascii: ";"), emptyIsNull: true))
    #expect(
      parsed.inputs[1].dialect == CSVDialect(delimiter: UInt8(ascii: "\t"), hasHeader: false, columns: ["id", "name"]))
    #expect(parsed.inputs[2].dialect == nil)
    let configuration = try parsed.configuration(drivers: .all)
    #expect(configuration.inputs.map(\.dialect) == parsed.inputs.map(\.dialect))
  }

  @Test(arguments: [
    (#""format": "json", "dialect": {}"#, "'dialect' applies to format csv or tsv, not json"),
    (#""format": "csv", "dialect": {"delimiter": ";;"}"#, "'dialect.delimiter' must be one ASCII character"),
    (#""format": "csv", "dialect": {"delimiter": "\n"}"#, "'dialect': the delimiter cannot be a line break"),
    (#""format": "csv", "dialect": {"quote": ","}"#, "'dialect': the delimiter and the quote must differ"),
    (#""format": "csv", "dialect": {"header": false}"#, "'dialect.header' is false: name the columns"),
    (#""format": "csv", "dialect": {"columns": []}"#, "'dialect.columns' is empty"),
    (#""format": "csv", "dialect": {"empty": "none"}"#, "'dialect.empty' is 'none', expected one of: text, null"),
    (
      #""format": "csv", "dialect": {"delimeter": ";"}"#,
      "unknown key 'dialect.delimeter'; known keys: delimiter, quote"
    ),
    (#""format": "csv", "recordPath": "a""#, "'recordPath' applies to format json or xml, not csv"),
  ])
  func aBadDialectNamesItsKey(keys: String, expected: String) {
    let message = specError(#"{"dataset": "devices", "input": "i.csv", "database": "d", \#(keys)}"#)
    #expect(message.contains(expected), "\(message)")
  }

  /// `--db` (or no database at all, for `validate` without `--db`) stands in for a spec's
  /// missing `database`; a command that needs one and gets neither says both ways to give it.
  @Test func aSpecWithoutDatabaseTakesItFromTheCommandLineOrNeedsNone() throws {
    let parsed = try spec(#"{"dataset": "fruits", "input": "i"}"#)
    #expect(parsed.database == nil)
    let given = try parsed.configuration(
      drivers: .all, database: DatabaseTarget(location: "/tmp/given.sqlite", driver: SQLiteDriver()))
    #expect(given.database.location == "/tmp/given.sqlite")
    #expect(try parsed.configuration(drivers: .all, needsDatabase: false).database.location == "")
    #expect {
      try parsed.configuration(drivers: .all)
    } throws: { error in
      let message = (error as? SpecError)?.message ?? ""
      return message.contains("'database' in the spec") && message.contains("--db on the command line")
    }
  }

  @Test func inputsAreReadInOrderAndResolveAgainstTheSpecOrTheInputDirectory() throws {
    let parsed = try spec(
      #"""
      {"inputs": [
         {"dataset": "fruits", "input": "fruits.json.gz", "recordPath": "data.fruits"},
         {"dataset": "orders", "input": "/archive/orders.ndjson", "format": "ndjson"},
         {"dataset": "orders", "input": "late/orders.json"}],
       "database": "shop.sqlite", "policy": "lenient"}
      """#)
    #expect(parsed.listsInputs)
    #expect(parsed.inputs.map(\.dataset) == ["fruits", "orders", "orders"])
    #expect(parsed.inputs.map(\.format) == [.json, .ndjson, .json])
    #expect(parsed.inputs.map(\.recordPath) == [["data", "fruits"], [], []])
    let configuration = try parsed.configuration(drivers: .all)
    #expect(configuration.hasSeveralInputs)
    #expect(
      configuration.inputs.map(\.path) == [
        "/specs/nightly/fruits.json.gz", "/archive/orders.ndjson", "/specs/nightly/late/orders.json",
      ])
    #expect(configuration.inputs.map(\.dataset) == ["fruits", "orders", "orders"])
    #expect(configuration.database.location == "/specs/nightly/shop.sqlite")
    #expect(configuration.policy == .lenient)
    // --input-dir replaces the relative inputs' common folder (here the spec's) and keeps what
    // is below it; absolute inputs and the database stay.
    let tonight = try parsed.configuration(inputDirectory: "/dumps/2026-11-30", drivers: .all)
    #expect(
      tonight.inputs.map(\.path) == [
        "/dumps/2026-11-30/fruits.json.gz", "/archive/orders.ndjson", "/dumps/2026-11-30/late/orders.json",
      ])
    #expect(tonight.database.location == "/specs/nightly/shop.sqlite")
  }

  @Test func theInputDirectoryReplacesTheInputsCommonFolder() throws {
    let parsed = try spec(
      #"{"inputs": [{"dataset": "fruits", "input": "../dump/a/Users.xml"}, {"dataset": "fruits", "input": "../dump/a/more/Posts.xml"}, {"dataset": "fruits", "input": "../dump/Tags.xml"}], "database": "d"}"#
    )
    #expect(
      try parsed.configuration(inputDirectory: "/tonight", drivers: .all).inputs.map(\.path) == [
        "/tonight/a/Users.xml", "/tonight/a/more/Posts.xml", "/tonight/Tags.xml",
      ])
    #expect(PipelineSpec.commonFolder(of: ["/x/y/a.xml", "/x/yz/b.xml"]) == "/x")
    #expect(PipelineSpec.commonFolder(of: ["/a.xml"]) == "/")
  }

  /// A glob input is one input per file it matches, sorted (a Slack export's `*/*.json`); with
  /// `--input-dir` the pattern's folder is replaced like any other; a pattern that matches
  /// nothing stays, so the run fails opening it.
  @Test func aGlobInputIsAnInputPerMatchingFile() throws {
    let scratch = try TemporaryDirectory()
    for file in [
      "export/general/2016-01-15.json", "export/general/2016-01-14.json", "export/random/2016-01-14.json",
      "export/users.json", "tonight/random/2026-11-30.json",
    ] {
      let path = scratch.file(file)
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      _ = FileManager.default.createFile(atPath: path, contents: Data("[]".utf8))
    }
    let parsed = try spec(
      #"{"inputs": [{"dataset": "fruits", "input": "export/users.json"}, {"dataset": "fruits", "input": "export/*/*.json"}], "database": "d"}"#,
      at: scratch.file("slack.json"))
    #expect(
      try parsed.configuration(drivers: .all).inputs.map(\.path)
        == [
          "export/users.json", "export/general/2016-01-14.json", "export/general/2016-01-15.json",
          "export/random/2016-01-14.json",
        ].map(scratch.file))
    #expect(
      try parsed.configuration(inputDirectory: scratch.file("tonight"), drivers: .all).inputs.map(\.path) == [
        scratch.file("tonight/users.json"), scratch.file("tonight/random/2026-11-30.json"),
      ])
    let nothing = try spec(
      #"{"dataset": "fruits", "input": "export/*/*.xml", "database": "d"}"#, at: scratch.file("none.json"))
    #expect(try nothing.configuration(drivers: .all).inputs.map(\.path) == [scratch.file("export/*/*.xml")])
    #expect(try nothing.configuration(drivers: .all).inputs.map(\.isUnmatchedPattern) == [true])
    // A pattern is a pattern, even when a file is named like it (issue 21); a file name with
    // pattern characters is written with backslashes.
    for file in ["general [1100].json", "general 1.json"] {
      _ = FileManager.default.createFile(atPath: scratch.file(file), contents: Data("[]".utf8))
    }
    let bracketed = try spec(
      #"{"dataset": "fruits", "input": "general [1100].json", "database": "d"}"#, at: scratch.file("d.json"))
    #expect(try bracketed.configuration(drivers: .all).inputs.map(\.path) == [scratch.file("general 1.json")])
    let escaped = try spec(
      #"{"dataset": "fruits", "input": "general \\[1100\\].json", "database": "d"}"#, at: scratch.file("d.json"))
    #expect(try escaped.configuration(drivers: .all).inputs.map(\.path) == [scratch.file("general [1100].json")])
    #expect(try escaped.configuration(drivers: .all).inputs.map(\.isUnmatchedPattern) == [false])
  }

  @Test func anInputMayBeOptional() throws {
    let parsed = try spec(
      #"{"inputs": [{"dataset": "fruits", "input": "f.json", "optional": true}, {"dataset": "orders", "input": "missing/*.json", "optional": true}, {"dataset": "orders", "input": "o.json"}], "database": "d"}"#
    )
    #expect(parsed.inputs.map(\.isOptional) == [true, true, false])
    let configuration = try parsed.configuration(drivers: .all)
    #expect(configuration.inputs.map(\.isOptional) == [true, true, false])
    #expect(configuration.inputs.map(\.isUnmatchedPattern) == [false, true, false])
    let message = specError(#"{"inputs": [{"dataset": "fruits", "input": "-", "optional": true}], "database": "d"}"#)
    #expect(message.contains("'inputs[0].optional': standard input ('-') is always there"), "\(message)")
    let wrongType = specError(#"{"inputs": [{"dataset": "fruits", "input": "f", "optional": "yes"}], "database": "d"}"#)
    #expect(wrongType.contains("inputs[0].optional"), "\(wrongType)")
  }

  /// `exclude` leaves files of a glob's matches out by name (a Slack channel's
  /// `canvas_in_the_conversation.json` among its day files): they are no inputs, but listed for
  /// the run to name; a match that is all excluded leaves the pattern unmatched.
  @Test func aGlobInputMayExcludeFilesByName() throws {
    let scratch = try TemporaryDirectory()
    for file in [
      "export/general/2025-03-31.json", "export/general/canvas_in_the_conversation.json",
      "export/random/canvas_in_the_conversation.json", "export/random/2025-04-01.json", "export/random/notes.json",
      "only/general/canvas_in_the_conversation.json",
    ] {
      let path = scratch.file(file)
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      _ = FileManager.default.createFile(atPath: path, contents: Data("[]".utf8))
    }
    let parsed = try spec(
      #"{"inputs": [{"dataset": "fruits", "input": "export/*/*.json", "exclude": ["canvas_in_the_conversation.json", "n?tes.*"]}], "database": "d"}"#,
      at: scratch.file("slack.json"))
    #expect(parsed.inputs.map(\.exclusions) == [["canvas_in_the_conversation.json", "n?tes.*"]])
    let configuration = try parsed.configuration(drivers: .all)
    #expect(
      configuration.inputs.map(\.path)
        == ["export/general/2025-03-31.json", "export/random/2025-04-01.json"].map(
          scratch.file))
    #expect(
      configuration.excludedInputs.map { "\($0.path) \($0.exclusion) \($0.dataset)" } == [
        "\(scratch.file("export/general/canvas_in_the_conversation.json")) canvas_in_the_conversation.json fruits",
        "\(scratch.file("export/random/canvas_in_the_conversation.json")) canvas_in_the_conversation.json fruits",
        "\(scratch.file("export/random/notes.json")) n?tes.* fruits",
      ])
    let rebased = try parsed.configuration(inputDirectory: scratch.file("only"), drivers: .all)
    #expect(rebased.inputs.map(\.isUnmatchedPattern) == [true])
    #expect(rebased.excludedInputs.map(\.path) == [scratch.file("only/general/canvas_in_the_conversation.json")])

    let single = specError(
      #"{"inputs": [{"dataset": "fruits", "input": "f.json", "exclude": ["canvas.json"]}], "database": "d"}"#)
    #expect(single.contains("'inputs[0].exclude' applies to a glob input"), "\(single)")
    let folder = specError(
      #"{"inputs": [{"dataset": "fruits", "input": "*/*.json", "exclude": ["a", "general/x.json"]}], "database": "d"}"#)
    #expect(folder.contains("'inputs[0].exclude[1]' must be a file name"), "\(folder)")
    let empty = specError(#"{"inputs": [{"dataset": "fruits", "input": "*.json", "exclude": [""]}], "database": "d"}"#)
    #expect(empty.contains("'inputs[0].exclude[0]'"), "\(empty)")
  }

  @Test func jobsSetsTheConnectionsOfAParallelLoad() throws {
    let parsed = try spec(
      #"{"inputs": [{"dataset": "fruits", "input": "f.json"}, {"dataset": "orders", "input": "o.json"}], "jobs": 3, "database": "postgresql://u@h/d"}"#
    )
    #expect(parsed.jobs == 3)
    #expect(try parsed.configuration(drivers: .all).parallelism.jobs == 3)
    let serial = try spec(#"{"dataset": "fruits", "input": "f.json", "database": "d"}"#)
    #expect(try serial.configuration(drivers: .all).parallelism.jobs == 1)
    for bad in ["0", "65", "-1"] {
      let message = specError(#"{"dataset": "fruits", "input": "f.json", "jobs": "# + bad + #", "database": "d"}"#)
      #expect(message.contains("'jobs' must be a whole number from 1 to 64"), "\(message)")
    }
  }

  @Test func theInputDirectoryRebasesASingleInputToo() throws {
    let parsed = try spec(#"{"dataset": "fruits", "input": "../data/fruits.json.gz", "database": "f.sqlite"}"#)
    #expect(!parsed.listsInputs)
    // The input's folder, ../data, is replaced: tonight's dump holds the file itself.
    #expect(
      try parsed.configuration(inputDirectory: "/dumps/today", drivers: .all).input == "/dumps/today/fruits.json.gz")
    #expect(try parsed.configuration(drivers: .all).input == "/specs/data/fruits.json.gz")
  }

  @Test(arguments: [
    (
      #"{"dataset": "fruits", "inputs": [{"dataset": "fruits", "input": "i"}], "database": "d"}"#,
      "'inputs' and 'dataset' are both given"
    ),
    (
      #"{"input": "i", "inputs": [{"dataset": "fruits", "input": "i"}], "database": "d"}"#,
      "'inputs' and 'input' are both given"
    ),
    (
      #"{"recordPath": "x", "inputs": [{"dataset": "fruits", "input": "i"}], "database": "d"}"#,
      "'inputs' and 'recordPath' are both given"
    ),
    (#"{"inputs": [], "database": "d"}"#, "'inputs' is empty"),
    (#"{"inputs": {"dataset": "fruits"}, "database": "d"}"#, "'inputs': expected an array, found an object"),
    (
      #"{"inputs": [{"dataset": "fruits", "input": "i"}, {"dataset": "orders"}], "database": "d"}"#,
      "'inputs[1].input': missing required key"
    ),
    (
      #"{"inputs": [{"dataset": "fruits", "input": "i", "policy": "lenient"}], "database": "d"}"#,
      "unknown key 'inputs[0].policy'; known keys: dataset, input, format, recordPath"
    ),
    (
      #"{"inputs": [{"dataset": "fruits", "input": "i"}, {"dataset": "orders", "input": "j", "format": "cvs"}], "database": "d"}"#,
      "'inputs[1].format' is 'cvs', expected one of: json, ndjson, xml"
    ),
    (
      #"{"inputs": [{"dataset": "fruits", "input": "i", "format": "ndjson", "recordPath": "x"}], "database": "d"}"#,
      "'inputs[0].recordPath' applies to format json"
    ),
    (#"{"inputs": [{"dataset": "", "input": "i"}], "database": "d"}"#, "'inputs[0].dataset' must not be empty"),
    (
      #"{"inputs": [{"dataset": "fruits", "input": "-"}, {"dataset": "orders", "input": "-"}], "database": "d"}"#,
      "'inputs[1].input': only one input can be standard input"
    ),
    (#"{"database": "d"}"#, "'dataset': missing required key (or list the inputs under 'inputs')"),
  ])
  func badInputsNameTheKey(text: String, expected: String) {
    let message = specError(text)
    #expect(message.contains(expected), "\(message)")
  }

  @Test func anUnknownDatasetIsNamedByItsKey() throws {
    func datasetError(_ text: String) throws -> String {
      do {
        _ = try spec(text).datasets(in: Catalog.datasets)
        return "no error"
      } catch {
        return error.message
      }
    }
    // Every dataset of the catalog, in its order.
    let names = Catalog.datasets.map(\.name).joined(separator: ", ")
    #expect(names.hasPrefix("fruits, orders, "))
    #expect(
      try datasetError(
        #"{"inputs": [{"dataset": "fruits", "input": "i"}, {"dataset": "vegetables", "input": "j"}], "database": "d"}"#)
        == "'inputs[1].dataset': unknown dataset 'vegetables'; known: \(names)")
    #expect(
      try datasetError(#"{"dataset": "vegetables", "input": "i", "database": "d"}"#)
        == "'dataset': unknown dataset 'vegetables'; known: \(names)")
    let known = try spec(
      #"{"inputs": [{"dataset": "fruits", "input": "i"}, {"dataset": "orders", "input": "j"}], "database": "d"}"#)
    #expect(try known.datasets(in: Catalog.datasets).map(\.name) == ["fruits", "orders"])
  }

  @Test func missingSpecFileIsReported() {
    #expect(throws: SpecError.self) { try PipelineSpec(contentsOf: "/nonexistent/spec.json") }
  }

  @Test func committedSpecsAreValidAndPointAtCommittedFiles() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Repository.path("Pipelines")).filter {
      $0.hasSuffix(".json")
    }
    #expect(names.contains("fruits-and-orders.json"))
    for name in names {
      let parsed = try PipelineSpec(contentsOf: Repository.path("Pipelines/\(name)"))
      _ = try parsed.datasets(in: Catalog.datasets)
      for input in try parsed.configuration(drivers: .all).inputs {
        #expect(FileManager.default.fileExists(atPath: input.path), "\(name): \(input.path)")
      }
    }
  }
}
