import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluiceInspect
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice contract`'s JSON Schemas, checked by an independent validator — Python's
/// `jsonschema` (`Draft202012Validator`) — against every contract fixture of every dataset
/// (`Fixtures/contracts.json`): each valid fixture validates; each invalid one fails at the field
/// path Sluice reports, unless its rule is one the schema cannot state, and then the schema
/// lists that rule at that path under `x-sluice-unexpressed`. An XML fixture (Stack Exchange) is
/// validated as the JSON the documented XML conventions make of its record (`convert` in the
/// validator script, from the JSON text Sluice reads the record as).
@Suite("Contract: JSON Schema round trip through Python's jsonschema")
struct ContractSchemaRoundTripTests {
  /// The invalid fixtures a JSON Schema cannot reject, and why: exactly these validate against
  /// their dataset's schema, and each one's rule is listed at its path as not expressed.
  static let notExpressible: [String: String] = [
    "alerts/005-expires-before-created.json": "a cross-field rule (expire later than createdAt)",
    "alerts/006-expires-when-created.json": "a cross-field rule (expire later than createdAt)",
    "alerts/009-orphan-device.json": "a reference to a devices row in the database",
    "fruits/005-malformed.json": "not JSON: the read stage's syntax error",
    "fruits/007-duplicate-recipe-titles.json": "uniqueness of a field across an array's objects",
    "fruits/010-duplicate-key.json": "a repeated key, which a JSON parser merges",
    "fruits/012-invalid-utf8.json": "not UTF-8: the read stage's syntax error",
    "fruits/013-lone-surrogate.json": "a lone surrogate escape, which a JSON parser accepts",
    "messages/016-sender-name-without-sender.json": "a cross-field rule (senderName needs a sender)",
    "profile-patches/005-orphan-profile.json": "a patch names a profiles row in the database",
    "slack-channels/001-created-not-an-integer.json": "a number in a string, parsed by the DTO's own init(from:)",
    "slack-messages/003-file-share-without-file.json": "either file or a non-empty files",
    "slack-messages/006-missing-text.json": "text, or a non-empty files (slackdump's file-only message)",
    "telegram/003-date-unixtime-not-an-integer.json": "a number in a string, parsed by the DTO's own init(from:)",
    "telegram/004-no-date.json": "a cross-field rule (date_unixtime or date)",
    "stackexchange-posts/009-answer-without-parent.xml": "a cross-field rule (ParentId exactly on answers)",
    "stackexchange-posts/010-malformed-tags.xml": "the tag list's syntax, which the mapping parses",
    "stackexchange-posts/011-february-30.xml": "a calendar day a pattern cannot check",
  ]

  /// What one fixture did against its schema: whether it parsed as JSON, and the field paths of
  /// the validator's errors (a missing or unknown key at its own path). For an XML record (a line
  /// of a `.tape.ndjson` file): its line, and the JSON the conventions made of it.
  struct Outcome: Decodable {
    var file: String
    var index: Int?
    var parsed: Bool
    var paths: [String]
    var converted: String?
  }

  static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

  static let jsonschemaImportable: Bool = {
    (try? run(["-c", "from jsonschema import Draft202012Validator"]).status) == 0
  }()

  @Test func pythonJSONSchemaIsImportableWhereCIRuns() throws {
    try #require(
      Self.jsonschemaImportable || !Self.isCI,
      "CI needs python3-jsonschema (.ci/run installs it): the round trip cannot be skipped there")
  }

  @Test(arguments: ContractManifestTests.datasets)
  func everyFixtureRoundTripsThroughTheSchema(dataset name: String) throws {
    guard Self.jsonschemaImportable else {
      try #require(!Self.isCI)
      print("skipped: python3 with jsonschema (Draft202012Validator) is not installed")
      return
    }
    let dataset = try #require(Catalog.dataset(named: name))
    let contract = dataset.contract(DatasetContract.Options())
    let directory = try TemporaryDirectory()
    let schemaURL = URL(fileURLWithPath: try directory.write("\(name).schema.json", contract.json))

    let validFiles = try ContractFixtures.files(ContractManifestTests.folder(name, "valid"))
    let expectations = ContractManifestTests.invalid.filter { $0.dataset == name }
    let files =
      validFiles.map { ContractManifestTests.folder(name, "valid").appendingPathComponent($0).path }
      + expectations.map { ContractManifestTests.folder(name, "invalid").appendingPathComponent($0.file).path }
    let outcomes = try Self.check(schema: schemaURL, files: try files.map { try Self.tapeIfXML($0, in: directory) })

    for file in validFiles {
      let outcome = try #require(outcomes["\(name)/valid/\(file)"])
      #expect(outcome.parsed && outcome.paths.isEmpty, "\(name)/valid/\(file) fails the schema at \(outcome.paths)")
    }
    var counts = (sameFieldPath: 0, notExpressible: 0)
    for expectation in expectations {
      let key = "\(name)/\(expectation.file)"
      let outcome = try #require(outcomes["\(name)/invalid/\(expectation.file)"])
      let report = try ContractFixtures.validate(
        ContractManifestTests.folder(name, "invalid").appendingPathComponent(expectation.file), with: dataset,
        policy: expectation.policy)
      let issue = report.issues.first { $0.severity == .error }
      if let reason = Self.notExpressible[key] {
        counts.notExpressible += 1
        #expect(outcome.paths.isEmpty, "\(key) (\(reason)) fails the schema at \(outcome.paths)")
        #expect(
          Self.lists(contract, expectation, rule: issue?.rule),
          "\(key): no x-sluice-unexpressed entry at \(expectation.path) for its rule (\(reason))")
        continue
      }
      // Unknown fields a strict run only warns about are errors for the schema
      // (additionalProperties: false); any other error is at the path Sluice reports.
      let warned = Set(report.issues.filter { $0.code == .unknownField }.map(\.path))
      #expect(
        outcome.paths.contains(expectation.path),
        "\(key): Sluice fails it at '\(expectation.path)', the schema at \(outcome.paths)")
      #expect(Set(outcome.paths).subtracting([expectation.path]).isSubset(of: warned), "\(key): \(outcome.paths)")
      counts.sameFieldPath += 1
      // A rule the schema states in full is not listed as unexpressed.
      if expectation.stage == .validate, let rule = issue?.rule {
        let ruleDeclaration = dataset.rules.first { $0.name == rule }
        let statesAll = ruleDeclaration?.constraints.allSatisfy {
          if case .unexpressed = $0.requirement { return false } else { return true }
        }
        if statesAll == true {
          #expect(
            !contract.unexpressed.contains { $0.rule.hasPrefix(rule) }, "\(key): \(rule) is listed as unexpressed")
        }
      }
    }
    print(
      "contract round trip \(name): \(validFiles.count) valid fixtures validate, \(counts.sameFieldPath) invalid fail at Sluice's path, \(counts.notExpressible) not expressible"
    )
  }

  @Test func theListOfInexpressibleFixturesNamesOnlyFixturesOfTheManifest() {
    let known = Set(ContractManifestTests.invalid.map { "\($0.dataset)/\($0.file)" })
    #expect(Set(Self.notExpressible.keys).subtracting(known).isEmpty)
  }

  /// Whether the contract lists the rule a fixture (or record) breaks as one it does not state:
  /// an `x-sluice-unexpressed` entry at its path, for its rule when it broke a validation rule.
  static func lists(_ contract: DatasetContract, _ expectation: ContractManifestTests.Expectation, rule: String?)
    -> Bool
  {
    contract.unexpressed.contains { entry in
      guard Self.entry(entry.path, covers: expectation) else { return false }
      guard expectation.stage == .validate, let rule else { return true }
      return entry.rule.hasPrefix(rule)
    }
  }

  /// Whether an `x-sluice-unexpressed` path is the fixture's: the same path with indexes as
  /// `[]`, `*` for any, or the record (`""`) for a read-stage error.
  static func entry(_ path: String, covers expectation: ContractManifestTests.Expectation) -> Bool {
    if path == "*" { return expectation.stage == .decode }
    if path.isEmpty { return expectation.stage == .read }
    return path == expectation.path.replacing(/\[[0-9]+\]/, with: "[]")
  }

  /// Runs the validator over the files; outcomes by `dataset/valid|invalid/file` (an XML
  /// fixture's by its own name, not its tape's).
  static func check(schema: URL, files: [String]) throws -> [String: Outcome] {
    var outcomes: [String: Outcome] = [:]
    for outcome in try validate(schema: schema, files: files) {
      var key = outcome.file.split(separator: "/").suffix(3).joined(separator: "/")
      if key.hasSuffix(".tape.ndjson") { key.removeLast(".tape.ndjson".count) }
      outcomes[key] = outcome
    }
    return outcomes
  }

  /// Runs the validator over the files: one outcome per file, or per line of a `.tape.ndjson`.
  static func validate(schema: URL, files: [String]) throws -> [Outcome] {
    let result = try run(["-c", validatorScript, schema.path] + files)
    try #require(result.status == 0, "python3 failed: \(result.standardError)")
    return try result.standardOutput.split(separator: "\n").map {
      try JSONDecoder().decode(Outcome.self, from: Data($0.utf8))
    }
  }

  /// A fixture's path for the validator: a JSON fixture's own; for an XML fixture, a file in
  /// `directory` (`dataset/kind/file.tape.ndjson`) of the JSON text Sluice reads its record as.
  static func tapeIfXML(_ path: String, in directory: TemporaryDirectory) throws -> String {
    guard path.hasSuffix(".xml") else { return path }
    let records = try xmlRecords(path, at: [])
    try #require(records.count == 1, "\(path) holds \(records.count) records, not one")
    let name = path.split(separator: "/").suffix(3).joined(separator: "/")
    try FileManager.default.createDirectory(
      atPath: (directory.file(name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    return try directory.write(name + ".tape.ndjson", tapeLines(records))
  }

  /// The records of an XML document at `recordPath`, as Sluice's XML reader makes them: each
  /// one's `bytes` the JSON text of its tape, what a rejects file keeps.
  static func xmlRecords(_ path: String, at recordPath: [String]) throws -> [RawRecord] {
    let reader = RecordReaders.make(format: .xml, recordPath: recordPath, source: try Input(path: path))
    var records: [RawRecord] = []
    while let record = try reader.next() { records.append(record) }
    return records
  }

  /// The records' JSON text, one a line (the tape's JSON escapes every line break).
  static func tapeLines(_ records: [RawRecord]) throws -> String {
    let lines = records.map { String(decoding: $0.bytes, as: UTF8.self) }
    try #require(lines.allSatisfy { !$0.contains("\n") && !$0.contains("\r") })
    return lines.map { $0 + "\n" }.joined()
  }

  /// Runs `python3` with the arguments; its exit status, standard output and error.
  static func run(_ arguments: [String]) throws -> (status: Int32, standardOutput: String, standardError: String) {
    let directory = try TemporaryDirectory()
    let output = try directory.write("stdout", "")
    let error = try directory.write("stderr", "")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3"] + arguments
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: error))
    try process.run()
    process.waitUntilExit()
    return (
      process.terminationStatus, try String(contentsOfFile: output, encoding: .utf8),
      try String(contentsOfFile: error, encoding: .utf8)
    )
  }

  /// Validates each file against the schema; prints one JSON line per file. An error's path is
  /// the field's (`items[1].qty`); a missing required key or an unknown key is named at its own
  /// path; of a `oneOf` keyed by `x-sluice-discriminator` only the branch of the record's kind
  /// counts, and of alternatives only those of the value's JSON type.
  static let validatorScript = #"""
    import json, re, sys
    from jsonschema import Draft202012Validator

    def path_text(parts):
        out = ''
        for part in parts:
            out += '[%d]' % part if isinstance(part, int) else ('.' if out else '') + part
        return out

    def join(base, key):
        return base + '.' + key if base else key

    def paths(error):
        base = path_text(error.absolute_path)
        if error.validator in ('oneOf', 'anyOf') and error.context:
            branches = {}
            for sub in error.context:
                branches.setdefault(sub.relative_schema_path[0], []).append(sub)
            kind = error.schema.get('x-sluice-discriminator') if isinstance(error.schema, dict) else None
            if kind is not None and error.validator == 'oneOf':
                if not isinstance(error.instance, dict) or kind not in error.instance:
                    return []
                for index, branch in enumerate(error.validator_value):
                    if branch.get('properties', {}).get(kind, {}).get('const') == error.instance[kind]:
                        return sorted({p for sub in branches.get(index, []) for p in paths(sub)})
                return []
            fitting = [subs for subs in branches.values()
                       if not any(s.validator == 'type' and list(s.absolute_path) == list(error.absolute_path) for s in subs)]
            if not fitting:
                return [base]
            return sorted({p for subs in fitting for sub in subs for p in paths(sub)})
        if error.validator == 'required':
            missing = [k for k in error.validator_value if isinstance(error.instance, dict) and k not in error.instance]
            return [join(base, k) for k in missing] or [base]
        if error.validator == 'additionalProperties':
            known = set(error.schema.get('properties', {}))
            extra = [k for k in error.instance if k not in known] if isinstance(error.instance, dict) else []
            return [join(base, k) for k in extra] or [base]
        return [base]

    # Sluice's XML conventions (docs/reference/commands.md, the contract's XML paragraph), from
    # the JSON text Sluice reads an XML record as: an object of its attributes and child
    # elements by local name, every scalar text. Text becomes the type the property allows.
    BOOLEANS = {'true': True, 'True': True, '1': True, 'false': False, 'False': False, '0': False}
    INTEGER = re.compile(r'-?[0-9]+')
    NUMBER = re.compile(r'-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?')

    def kinds(schema):
        if not isinstance(schema, dict):
            return set()
        declared = schema.get('type', [])
        found = {declared} if isinstance(declared, str) else set(declared)
        for key in ('anyOf', 'oneOf'):
            for branch in schema.get(key, []):
                found |= kinds(branch)
        return found

    def convert(value, schema):
        if value is None:
            return None  # xsi:nil="true"
        if isinstance(value, list):  # an element's members, in document order
            properties = schema.get('properties', {}) if isinstance(schema, dict) else {}
            result = {}
            for key, member in value:
                if key in result:
                    raise ValueError('a repeated element (%s): these records have none' % key)
                result[key] = convert(member, properties.get(key, {}))
            return result
        if not isinstance(value, str):
            raise ValueError('XML text expected, found %r' % (value,))
        allowed = kinds(schema)
        if 'array' in allowed:
            raise ValueError('text for an array: these records have none (the conventions: an array of one)')
        if value == '' and 'null' in allowed:
            return None  # an empty attribute or element is absent
        if 'integer' in allowed and INTEGER.fullmatch(value):
            return int(value)
        if 'number' in allowed and NUMBER.fullmatch(value):
            return float(value)
        if 'boolean' in allowed and value in BOOLEANS:
            return BOOLEANS[value]
        return value

    schema = json.load(open(sys.argv[1]))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for name in sys.argv[2:]:
        if name.endswith('.tape.ndjson'):
            # One XML record a line, as Sluice read it: converted, then validated.
            with open(name, encoding='utf-8') as handle:
                for index, line in enumerate(handle):
                    instance = convert(json.loads(line, object_pairs_hook=list), schema)
                    found = sorted({p for error in validator.iter_errors(instance) for p in paths(error)})
                    print(json.dumps({'file': name, 'index': index, 'parsed': True, 'paths': found,
                                      'converted': json.dumps(instance, ensure_ascii=False)}))
            continue
        try:
            with open(name, 'rb') as handle:
                instance = json.loads(handle.read().decode('utf-8'))
        except (ValueError, UnicodeDecodeError):
            print(json.dumps({'file': name, 'parsed': False, 'paths': []}))
            continue
        found = sorted({p for error in validator.iter_errors(instance) for p in paths(error)})
        print(json.dumps({'file': name, 'parsed': True, 'paths': found}))
    """#
}
