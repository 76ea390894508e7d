import Foundation
@_spi(Internals) import SluiceCore

/// `sluice contract DATASET`: the dataset's records as a JSON Schema (draft 2020-12), derived
/// from the dataset — the DTO walked by `ShapeRecorder`, the rules' and the mapping's
/// `FieldConstraint`s, the tables' references — for the teams that write the dumps.
///
/// What JSON Schema cannot say (a cross-field rule, a row the database must hold, a DTO's own
/// parsing) is listed under `x-sluice-unexpressed` with its field path and rule, so a record the
/// schema accepts may still be rejected by Sluice for exactly those reasons and no other.
public struct DatasetContract: Sendable {
  public struct Options: Sendable {
    /// `additionalProperties: false` (strict: unknown fields are reported) or allowed (lenient).
    public var policy: Policy

    public init(policy: Policy = .strict) {
      self.policy = policy
    }
  }

  /// A rule the schema does not state, at its field path (`*`: any field).
  public struct Unexpressed: Sendable, Hashable {
    public var path: String
    public var rule: String
  }

  public static let schemaURI = "https://json-schema.org/draft/2020-12/schema"
  /// The rules every dataset's records have that are checked before or beside the schema.
  static let alwaysUnexpressed = [
    Unexpressed(
      path: "",
      rule: "the record is well-formed JSON in UTF-8 (a syntax error is the read stage's, before any schema applies)"),
    Unexpressed(path: "*", rule: "a key appears once per object (a repeated key is a duplicateKey error)"),
    Unexpressed(path: "*", rule: "strings are valid Unicode (a lone surrogate escape is an invalidValue error)"),
    Unexpressed(
      path: "*", rule: "integers are written without a fraction or exponent (JSON Schema counts 2.0 as an integer)"),
  ]

  public let document: ContractJSON
  public let unexpressed: [Unexpressed]

  /// The schema as a JSON document, ending with a newline.
  public var json: String { document.text() + "\n" }

  public init<D: Dataset>(_ dataset: D, options: Options = Options()) {
    var constraints: [(constraint: FieldConstraint, rule: String)] = []
    var unexpressed = Self.alwaysUnexpressed
    for rule in dataset.rules {
      if rule.constraints.isEmpty { unexpressed.append(Unexpressed(path: "", rule: rule.name)) }
      constraints += rule.constraints.map { ($0, rule.name) }
    }
    constraints += dataset.recordConstraints.map { ($0, $0.summary) }
    var choices: [String: [String]] = [:]
    for (constraint, _) in constraints where constraint.condition == nil {
      if case .oneOf(let values) = constraint.requirement { choices[constraint.path] = values }
    }
    let shape = ShapeRecorder.shape(of: D.DTO.self, choices: choices, userInfo: dataset.decodingUserInfo)
    var writer = JSONSchemaWriter(
      shape: shape, constraints: constraints, policy: options.policy, tables: dataset.schema.tables)
    writer.unexpressed = unexpressed
    let body = writer.document()
    var document = ContractJSON.object([
      ("$schema", .string(Self.schemaURI)),
      ("title", .string(dataset.name)),
      ("description", .string(dataset.summary)),
      ("x-sluice-dataset", .string(dataset.name)),
      ("x-sluice-policy", .string(options.policy.preset.rawValue)),
      ("x-sluice-date-formats", .array(options.policy.dateFormats.map { .string($0.specName) })),
      (
        "$comment",
        .string(
          "Derived by `sluice contract` from the dataset's DTO and rules; do not edit. From XML (--format xml), the record is the element after Sluice's conventions: attributes and child elements are properties by local name, an element's text is its value, repeated elements are an array, and text is the type its property allows (Score=\"12\" is 12, True/False/1/0 a boolean, empty text null where null is allowed) (docs/reference/commands.md#contract)."
        )
      ),
    ])
    if case .object(let members) = body {
      for member in members { document.set(member.key, member.value) }
    }
    document.set(
      "x-sluice-unexpressed",
      .array(
        writer.unexpressed.map { .object([("path", .string($0.path)), ("rule", .string($0.rule))]) }))
    self.document = document
    self.unexpressed = writer.unexpressed
  }
}

extension AnyDataset {
  /// The dataset's records as a JSON Schema (`sluice contract`): `DatasetContract` of the dataset
  /// it erases.
  public func contract(_ options: DatasetContract.Options = DatasetContract.Options()) -> DatasetContract {
    DatasetContract(base, options: options)
  }
}

extension FieldConstraint {
  /// The constraint in words, for a mapping constraint's entry (it has no rule name).
  var summary: String {
    let field = path.isEmpty ? "the record" : path
    let text: String
    switch requirement {
    case .notBlank: text = "\(field) is not blank"
    case .range(let minimum, let maximum):
      text = "\(field) is within \(minimum.map { "\($0)" } ?? "…")…\(maximum.map { "\($0)" } ?? "…")"
    case .length(let minimum, let maximum):
      text = "\(field) has \(minimum.map { "\($0)" } ?? "0")…\(maximum.map { "\($0)" } ?? "") characters or elements"
    case .pattern(let pattern): text = "\(field) matches \(pattern)"
    case .oneOf(let values): text = "\(field) is one of \(values.joined(separator: ", "))"
    case .present: text = "\(field) is present"
    case .unexpressed(let rule): text = rule
    }
    guard let condition else { return text }
    return "\(text) when \(condition.path) is \(condition.value)"
  }
}
