import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice contract`'s JSON Schemas, checked by an independent validator — Python's
/// `jsonschema` (`Draft202012Validator`) — against every contract fixture of every dataset
/// (`Fixtures/contracts.json`): each valid fixture validates; each invalid one fails at the field
/// path Sluice reports, unless its rule is one the schema cannot state, and then the schema
/// lists that rule at that path under `x-sluice-unexpressed`.
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
    "messenger/001-no-content.json": "a cross-field rule (content or a media field)",
    "profile-patches/005-orphan-profile.json": "a patch names a profiles row in the database",
    "slack-channels/001-created-not-an-integer.json": "a number in a string, parsed by the DTO's own init(from:)",
    "slack-messages/003-file-share-without-file.json": "either file or a non-empty files",
    "telegram/003-date-unixtime-not-an-integer.json": "a number in a string, parsed by the DTO's own init(from:)",
    "telegram/004-no-date.json": "a cross-field rule (date_unixtime or date)",
  ]

  /// What one fixture did against its schema: whether it parsed as JSON, and the field paths of
  /// the validator's errors (a missing or unknown key at its own path).
  struct Outcome: Decodable {
    var file: String
    var parsed: Bool
    var paths: [String]
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
    let outcomes = try Self.check(schema: schemaURL, files: files)

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
        let listed = contract.unexpressed.contains { entry in
          guard Self.entry(entry.path, covers: expectation) else { return false }
          guard expectation.stage == .validate, let rule = issue?.rule else { return true }
          return entry.rule.hasPrefix(rule)
        }
        #expect(listed, "\(key): no x-sluice-unexpressed entry at \(expectation.path) for its rule (\(reason))")
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

  /// Whether an `x-sluice-unexpressed` path is the fixture's: the same path with indexes as
  /// `[]`, `*` for any, or the record (`""`) for a read-stage error.
  static func entry(_ path: String, covers expectation: ContractManifestTests.Expectation) -> Bool {
    if path == "*" { return expectation.stage == .decode }
    if path.isEmpty { return expectation.stage == .read }
    return path == expectation.path.replacing(/\[[0-9]+\]/, with: "[]")
  }

  /// Runs the validator over the files; outcomes by `dataset/valid|invalid/file`.
  static func check(schema: URL, files: [String]) throws -> [String: Outcome] {
    let result = try run(["-c", validatorScript, schema.path] + files)
    try #require(result.status == 0, "python3 failed: \(result.standardError)")
    var outcomes: [String: Outcome] = [:]
    for line in result.standardOutput.split(separator: "\n") {
      let outcome = try JSONDecoder().decode(Outcome.self, from: Data(line.utf8))
      let parts = outcome.file.split(separator: "/").suffix(3)
      outcomes[parts.joined(separator: "/")] = outcome
    }
    return outcomes
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
    import json, sys
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

    schema = json.load(open(sys.argv[1]))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for name in sys.argv[2:]:
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
