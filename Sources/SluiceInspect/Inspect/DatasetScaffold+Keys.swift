import Foundation
@_spi(Internals) import SluiceCore

/// How `init` keys the records' table: one id-like field, one nested in an object every record
/// holds, two unique together, or else the record's input and position (`docs/guides/inspect.md`,
/// "How init picks a key").
extension DatasetScaffold {
  /// The record's natural key: a field present and non-null in every record, text or an
  /// integer, unique in the records checked (`ShapeCollector.uniquenessSample`) and named like
  /// an id (`FieldShape.looksLikeKey`) — `id` (any case, `_id`, `uuid`, `guid`, `key`) first,
  /// then `<name>Id`, then the first other (`customer_id`, `orderNo`).
  static func idLikeProperty(of dto: SwiftDTOGenerator.DTOStruct, datasetName: String) -> SwiftDTOGenerator.DTOProperty?
  {
    let candidates = dto.properties.filter { keyRefusal($0) == nil }
    let normalized = { (key: String) in key.lowercased().filter { $0.isLetter || $0.isNumber } }
    let own = normalized(SwiftNames.singular(datasetName)) + "id"
    if let exact = candidates.first(where: { ["id", "uuid", "guid", "key"].contains(normalized($0.key)) }) {
      return exact
    }
    if let named = candidates.first(where: {
      normalized($0.key) == own || normalized($0.key) == normalized(datasetName) + "id"
    }) {
      return named
    }
    return candidates.first
  }

  /// The record's natural key as the keys leading to each of its fields, in order of preference: one id-like field of the record (`idLikeProperty`); one of an object
  /// every record holds (`cve.id`: NVD's records hold nothing else); two id-like fields unique
  /// together where neither is alone (an order line's `orderId` + `lineNo`); else none — the
  /// records are keyed by their input and position.
  static func naturalKey(of dto: SwiftDTOGenerator.DTOStruct, datasetName: String) -> [[String]] {
    if let key = idLikeProperty(of: dto, datasetName: datasetName) { return [[key.key]] }
    if let key = nestedKey(of: dto, prefix: [], depth: 0) { return [key] }
    let candidates = Dictionary(
      dto.properties.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    for pair in dto.uniqueKeyPairs where pair.count == 2 {
      let properties = pair.compactMap { candidates[$0] }
      guard properties.count == 2,
        properties.allSatisfy({ property in
          var unique = property
          unique.isUniqueInSample = true
          return keyRefusal(unique) == nil
        })
      else { continue }
      return pair.map { [$0] }
    }
    return []
  }

  /// An id-like field, unique in the sample, of an object every record holds (not optional,
  /// not in an array), two levels down at most: `cve.id`.
  static func nestedKey(of dto: SwiftDTOGenerator.DTOStruct, prefix: [String], depth: Int) -> [String]? {
    guard depth < 2 else { return nil }
    for property in dto.properties where !property.isOptional {
      guard case .object(let nested) = property.type else { continue }
      let path = prefix + [property.key]
      if let key = idLikeProperty(of: nested, datasetName: property.key) { return path + [key.key] }
      if let key = nestedKey(of: nested, prefix: path, depth: depth + 1) { return key }
    }
    return nil
  }

  /// Why a field of the record is not a natural key, or nil when it can be one.
  static func keyRefusal(_ property: SwiftDTOGenerator.DTOProperty) -> String? {
    guard FieldShape.looksLikeKey(property.key) else { return "not named like an id" }
    guard case .scalar(let type) = property.type, type == "String" || type == "Int64" else {
      return "neither text nor an integer"
    }
    if property.isOptional { return "missing or null in some records" }
    guard property.isUniqueInSample == true else { return "the same in two records" }
    return nil
  }

  /// Why the records are keyed as they are, in a sentence for the README; `table` and `file`
  /// name where the key is declared.
  package func keyExplanation(table: String, file: String) -> String {
    let checked = "up to \(ShapeCollector.uniquenessSample)"
    let refused = dto.properties.compactMap { property -> String? in
      guard !keyPaths.contains([property.key]), FieldShape.looksLikeKey(property.key),
        let reason = Self.keyRefusal(property)
      else { return nil }
      return "`\(property.key)` (\(reason))"
    }
    let others = refused.isEmpty ? "" : " Not keys: \(refused.prefix(5).joined(separator: ", "))."
    let change =
      "To key by another field, change `key:` of `\(table)` in `\(file)` to its column (one present, non-null and unique in every record)."
    guard let keyField else {
      return
        "Key: no field is present, non-null and unique in every record and named like an id (`id`, `*_id`, `*Id`, `*No`, `*Num`, `*Number`, `uuid`, `key`…) — in the record or an object it holds — nor two unique together, so rows are keyed by the record's input (`\(Self.inputColumn)`, its path below the spec's folder) and its position there (`\(Self.positionColumn)`): re-running an input replaces its own rows, another input (`page-2.json` beside `page-1.json`) adds its own, and a dump whose records move re-imports them under new keys.\(others) \(change)"
    }
    if keyFields.count == 2 {
      return
        "Key: `\(keyFields[0])` and `\(keyFields[1])` together, present and non-null in every record, named like ids, and unique together in the records read (up to \(ShapeCollector.pairSample) checked) where neither is alone: a re-run updates each record's rows in place.\(others) \(change)"
    }
    return
      "Key: `\(keyField)`, present, non-null and unique in every record read (\(checked) checked) and named like an id\(keyFields[0].contains(".") ? ", in an object every record holds" : ""): a re-run updates each record's rows in place.\(others) \(change)"
  }
}
