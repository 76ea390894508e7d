import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluiceInspect
@_spi(Internals) import SluiceTestSupport
import Testing

/// The contracts of the XML datasets (the Stack Exchange files) against real records: every row
/// of the committed sample and of the corpus dumps, made JSON by the documented XML conventions
/// (the validator script's `convert`, from the JSON text Sluice reads the row as), is
/// - read by Sluice exactly as the XML is: the same issues (stage, code, field path, severity)
///   for each record, and the same domain values once decoded and mapped;
/// - checked by Python's `jsonschema` against the dataset's contract: a record Sluice accepts
///   validates; one it rejects fails at the field path of Sluice's error, unless the contract
///   lists that rule there under `x-sluice-unexpressed`, and then it validates.
/// Under the strict policy with unknown fields rejected against the strict contract, and under
/// the lenient policy against the lenient one (`sluice contract --policy lenient`).
@Suite("Contract: the XML datasets' real records through the conventions and Python's jsonschema")
struct XMLContractRoundTripTests {
  /// The dump files of a kind this repository holds: the committed sample, the complete conlang
  /// dump, and for Posts.xml the 2014, 2015 and 2024 ones.
  static func dumps(_ file: StackExchangeDump.File) -> [String] {
    var folders = [StackExchangeDump.sampleDirectory, StackExchangeDump.conlangDirectory]
    if file.name == "Posts.xml" {
      folders += [
        (StackExchangeDump.coffeePosts as NSString).deletingLastPathComponent,
        StackExchangeDump.matheducators2014Directory, StackExchangeDump.datascienceMeta2024Directory,
      ]
    }
    return folders.map { ($0 as NSString).appendingPathComponent(file.name) }
  }

  @Test(arguments: StackExchangeDump.files.map(\.name), [true, false])
  func realRecordsRoundTripThroughTheConventionsAndTheSchema(file name: String, strict: Bool) throws {
    guard ContractSchemaRoundTripTests.jsonschemaImportable else {
      try #require(!ContractSchemaRoundTripTests.isCI)
      print("skipped: python3 with jsonschema (Draft202012Validator) is not installed")
      return
    }
    let file = StackExchangeDump.file(name)
    let dataset = try #require(Catalog.dataset(named: file.dataset))
    let policy = strict ? ContractFixtures.strictRejectingUnknownFields : Policy.lenient
    let contract = dataset.contract(DatasetContract.Options(policy: strict ? .strict : .lenient))
    let directory = try TemporaryDirectory()
    let schema = URL(fileURLWithPath: try directory.write("\(file.dataset).schema.json", contract.json))

    var inputs: [(dump: String, records: [RawRecord], tape: String)] = []
    for (index, dump) in Self.dumps(file).enumerated() {
      let records = try ContractSchemaRoundTripTests.xmlRecords(dump, at: file.recordPath)
      try #require(!records.isEmpty, "\(dump) holds no rows")
      if strict {
        // The rows as Foundation's XMLParser, a parser independent of Sluice's, reads them: the
        // JSON text of each is an object of exactly the row's attributes, by name, as text.
        let rows = try DumpRows.read(dump)
        let objects = try records.map {
          try #require(try JSONSerialization.jsonObject(with: Data($0.bytes)) as? [String: String])
        }
        #expect(objects == rows, "\(dump)")
      }
      let tape = try directory.write(
        "\(index)-\(name).tape.ndjson", try ContractSchemaRoundTripTests.tapeLines(records))
      inputs.append((dump, records, tape))
    }
    let outcomes = try ContractSchemaRoundTripTests.validate(schema: schema, files: inputs.map(\.tape))

    var counts = (records: 0, valid: 0, sameFieldPath: 0, notExpressible: 0)
    var reasons: [String: Int] = [:]
    for (index, input) in inputs.enumerated() {
      let converted = outcomes.filter { $0.file == input.tape }
      try #require(converted.map(\.index) == Array(0..<input.records.count), "\(input.dump)")
      let json = try directory.write(
        "\(index)-\(name).ndjson", try converted.map { try #require($0.converted) + "\n" }.joined())

      // Sluice reads the converted JSON as it reads the XML: the same issues, record by record.
      let fromXML = try Self.issues(
        dataset, reading: input.dump, format: .xml, recordPath: file.recordPath, policy: policy,
        records: input.records.count)
      let fromJSON = try Self.issues(
        dataset, reading: json, format: .ndjson, recordPath: [], policy: policy, records: input.records.count)
      #expect(fromXML.map { $0.map(\.summary) } == fromJSON.map { $0.map(\.summary) }, "\(input.dump)")
      if strict {
        // …and decodes and maps it to the same values.
        let jsonRecords = try converted.enumerated().map { position, outcome in
          RawRecord(
            location: RecordLocation(ordinal: position + 1, byteOffset: 0, line: position + 1),
            bytes: Array(try #require(outcome.converted).utf8))
        }
        let xmlValues = try Self.values(file.dataset, input.records)
        let jsonValues = try Self.values(file.dataset, jsonRecords)
        let differing = zip(xmlValues, jsonValues).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(differing.isEmpty, "\(input.dump): \(differing.prefix(3))")
      }

      // The schema accepts what Sluice accepts, and fails the rest where Sluice does.
      for (position, outcome) in converted.enumerated() {
        counts.records += 1
        let issues = fromXML[position]
        let place = "\(input.dump) record \(position + 1)"
        guard let error = issues.first(where: { $0.severity == .error }) else {
          #expect(outcome.paths.isEmpty, "\(place): Sluice accepts it, the schema fails it at \(outcome.paths)")
          counts.valid += 1
          continue
        }
        let expectation = ContractManifestTests.Expectation(
          file: input.dump, stage: error.stage, code: error.code, path: error.path)
        if ContractSchemaRoundTripTests.lists(contract, expectation, rule: error.rule) {
          #expect(outcome.paths.isEmpty, "\(place): \(error.summary) is listed as unexpressed, yet the schema fails it")
          counts.notExpressible += 1
          reasons["\(error.stage) \(error.code) \(error.path)", default: 0] += 1
          continue
        }
        #expect(
          outcome.paths.contains(error.path),
          "\(place): Sluice fails it at '\(error.path)', the schema at \(outcome.paths)")
        #expect(Set(outcome.paths).isSubset(of: issues.map(\.path)), "\(place): \(outcome.paths)")
        counts.sameFieldPath += 1
      }
    }
    #expect(counts.records == inputs.reduce(0) { $0 + $1.records.count })
    print(
      "XML contract round trip \(file.dataset) (\(strict ? "strict" : "lenient")): \(counts.records) records from \(inputs.count) dumps, \(counts.valid) validate, \(counts.sameFieldPath) fail at Sluice's path, \(counts.notExpressible) not expressible \(reasons)"
    )
  }

  /// Every XML contract fixture's converted JSON is read by Sluice with the very issues its XML
  /// has (none, for a valid one): the conversion the round trip validates is the XML's reading.
  @Test(
    arguments: ContractManifestTests.valid.filter { $0.hasSuffix(".xml") }
      + ContractManifestTests.invalid.filter { $0.file.hasSuffix(".xml") }.map { "\($0.dataset)/\($0.file)" })
  func anXMLFixturesConvertedJSONReadsAsItsXML(fixture: String) throws {
    guard ContractSchemaRoundTripTests.jsonschemaImportable else {
      try #require(!ContractSchemaRoundTripTests.isCI)
      return
    }
    let name = String(fixture.prefix { $0 != "/" })
    let file = String(fixture.drop { $0 != "/" }.dropFirst())
    let expectation = ContractManifestTests.invalid.first { $0.dataset == name && $0.file == file }
    let dataset = try #require(Catalog.dataset(named: name))
    let policy = expectation?.policy ?? ContractFixtures.strictRejectingUnknownFields
    let url = ContractManifestTests.folder(name, expectation == nil ? "valid" : "invalid").appendingPathComponent(file)
    let directory = try TemporaryDirectory()
    let schema = URL(fileURLWithPath: try directory.write("schema.json", dataset.contract(.init()).json))
    let tape = try ContractSchemaRoundTripTests.tapeIfXML(url.path, in: directory)
    let outcome = try #require(try ContractSchemaRoundTripTests.validate(schema: schema, files: [tape]).first)
    let converted = try directory.write("converted.json", try #require(outcome.converted))
    let fromXML = try ContractFixtures.validate(url, with: dataset, policy: policy).issues.map(\.summary)
    let fromJSON = try ContractFixtures.validate(URL(fileURLWithPath: converted), with: dataset, policy: policy)
      .issues.map(\.summary)
    #expect(fromXML == fromJSON)
    #expect(fromXML.isEmpty == (expectation == nil))
  }

  /// The issues of each record of an input, in its order, from a validate run (nothing written).
  static func issues(
    _ dataset: AnyDataset, reading input: String, format: PipelineConfiguration.Format, recordPath: [String],
    policy: Policy, records: Int
  ) throws -> [[SluiceCore.Issue]] {
    let directory = try TemporaryDirectory()
    var configuration = PipelineConfiguration(
      name: "xml-contract", input: input, format: format, recordPath: recordPath, policy: policy,
      database: .sqlite(directory.file("unused.sqlite")), issueSampleLimit: 1_000_000)
    configuration.mode = .validate
    let report = try dataset.run(configuration)
    try #require(report.statistics(for: .read).recordsOut == records, "\(input)")
    var issues = Array(repeating: [SluiceCore.Issue](), count: records)
    for issue in report.issues {
      let ordinal = try #require(issue.location?.ordinal, "\(issue)")
      issues[ordinal - 1].append(issue)
    }
    return issues
  }

  /// Each record decoded and mapped to its dataset's domain value (as text), or the stage, code
  /// and path of the error that stopped it.
  static func values(_ name: String, _ records: [RawRecord]) throws -> [String] {
    switch name {
    case "stackexchange-users": return values(StackExchangeUsersDataset(), records)
    case "stackexchange-tags": return values(StackExchangeTagsDataset(), records)
    case "stackexchange-posts": return values(StackExchangePostsDataset(), records)
    case "stackexchange-comments": return values(StackExchangeCommentsDataset(), records)
    case "stackexchange-votes": return values(StackExchangeVotesDataset(), records)
    case "stackexchange-badges": return values(StackExchangeBadgesDataset(), records)
    case "stackexchange-postlinks": return values(StackExchangePostLinksDataset(), records)
    case "stackexchange-posthistory": return values(StackExchangePostHistoryDataset(), records)
    default: throw UnknownDataset(name: name)
    }
  }

  struct UnknownDataset: Error {
    var name: String
  }

  static func values<D: Dataset>(_ dataset: D, _ records: [RawRecord]) -> [String] {
    let decoder = SluiceDecoder()
    return records.map { record in
      var diagnostics = DecodeDiagnostics()
      do {
        let dto = try decoder.decode(D.DTO.self, from: record, diagnostics: &diagnostics)
        return String(reflecting: try dataset.map(dto))
      } catch let error as RecordDecodingError {
        return "decode \(error.code) \(error.path)"
      } catch let error as MappingError {
        return "map \(error.code) \(error.path)"
      } catch {
        return "\(error)"
      }
    }
  }
}

extension SluiceCore.Issue {
  /// What a record's issue says, without its place in the input: the same for XML and its JSON.
  fileprivate var summary: String { "\(stage) \(severity) \(code) \(path) \(rule ?? "")" }
}
