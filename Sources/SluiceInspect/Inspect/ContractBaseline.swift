import Foundation
@_spi(Internals) import SluiceCore

/// A saved `sluice contract` read as a baseline: each property of the schema becomes a field
/// path of `InspectionBaseline` — required ones present in every holder, optional ones in some,
/// their JSON types as the kinds, `null` where the schema allows it — so `validate --baseline`
/// compares tonight's dump with the contract the producer was given.
enum ContractBaseline {
  /// The baseline, or nil when the document is no JSON Schema (it may be an inspection).
  static func read(_ data: Data, path: String) throws(BaselineError) -> InspectionBaseline? {
    guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let uri = document["$schema"] as? String
    else { return nil }
    guard uri == DatasetContract.schemaURI, document["x-sluice-dataset"] is String else {
      throw BaselineError(path: path, message: "a JSON Schema, but not one 'sluice contract' wrote (\(uri))")
    }
    var baseline = InspectionBaseline(inspectVersion: Inspection.jsonVersion, recordPathKeys: [], fields: [])
    baseline.isContract = true
    collect(document, path: "", into: &baseline)
    return baseline
  }

  /// The fields below an object or array schema at `path`.
  private static func collect(_ schema: [String: Any], path: String, into baseline: inout InspectionBaseline) {
    let schemas = [schema] + branches(of: schema)
    if let items = schemas.lazy.compactMap({ $0["items"] as? [String: Any] }).first {
      add(items, path: path + "[]", required: false, into: &baseline)
    }
    let common = Set(schema["required"] as? [String] ?? [])
    for object in schemas {
      guard let properties = object["properties"] as? [String: Any] else { continue }
      let isBranch = object as NSDictionary != schema as NSDictionary
      for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
        guard let property = value as? [String: Any], !property.isEmpty || !isBranch else { continue }
        let fieldPath = path.isEmpty ? key : "\(path).\(key)"
        guard !baseline.fields.contains(where: { $0.path == fieldPath }) else { continue }
        add(property, path: fieldPath, required: !isBranch && common.contains(key), into: &baseline)
      }
    }
  }

  private static func add(
    _ schema: [String: Any], path: String, required: Bool, into baseline: inout InspectionBaseline
  ) {
    var types = Set<String>()
    var allowsNull = false
    var isOpen = true
    for alternative in [schema] + branches(of: schema) {
      let named: [String]
      if let type = alternative["type"] as? String {
        named = [type]
      } else if let list = alternative["type"] as? [String] {
        named = list
      } else if alternative["const"] is String {
        named = ["string"]
      } else {
        continue
      }
      isOpen = false
      for type in named {
        switch type {
        case "null": allowsNull = true
        case "number": types.formUnion(["number", "integer"])
        default: types.insert(type)
        }
      }
    }
    if isOpen && (schema["anyOf"] == nil) { baseline.openPaths.append(path) }
    baseline.fields.append(
      InspectionBaseline.Field(
        path: path, holders: 2, present: required ? 2 : 1, null: allowsNull ? 1 : 0,
        types: Dictionary(uniqueKeysWithValues: types.map { ($0, 1) })))
    collect(schema, path: path, into: &baseline)
  }

  /// A schema's `anyOf` and `oneOf` alternatives.
  private static func branches(of schema: [String: Any]) -> [[String: Any]] {
    ((schema["anyOf"] as? [Any] ?? []) + (schema["oneOf"] as? [Any] ?? [])).compactMap { $0 as? [String: Any] }
  }
}
