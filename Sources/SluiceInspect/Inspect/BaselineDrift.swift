import Foundation
@_spi(Internals) import SluiceCore

/// A saved `sluice inspect --json` of a dump — what the producer's dumps looked like when the
/// contract was agreed — or a saved `sluice contract` (what they may look like), read back for
/// `validate --baseline`.
package struct InspectionBaseline: Sendable, Decodable {
  package struct Field: Sendable, Decodable {
    package var path: String
    /// Records (or elements) that could hold the field, and those that did.
    package var holders: Int
    package var present: Int
    package var null: Int
    /// Values per kind: `string`, `integer`, `number`, `boolean`, `null`, `object`, `array`.
    package var types: [String: Int]
  }

  package var inspectVersion: Int
  /// The record path's keys (`recordPathKeys`; a key may hold a dot, so not `recordPath`).
  package var recordPathKeys: [String]
  package var fields: [Field]
  /// Read from a `sluice contract` schema: what the fields *may* be, not what one dump held.
  package var isContract = false
  /// Contract fields of any value (`{}`): nothing below them is drift.
  package var openPaths: [String] = []

  private enum CodingKeys: String, CodingKey { case inspectVersion, recordPathKeys, fields }

  /// Reads a baseline file; an unreadable or corrupt one is a `BaselineError` saying which.
  package static func read(_ path: String) throws(BaselineError) -> InspectionBaseline {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw BaselineError(path: path, message: "cannot read the file")
    }
    if let contract = try ContractBaseline.read(data, path: path) { return contract }
    let baseline: InspectionBaseline
    do {
      baseline = try JSONDecoder().decode(InspectionBaseline.self, from: data)
    } catch {
      throw BaselineError(
        path: path,
        message:
          "not a saved 'sluice inspect --json' or 'sluice contract' (\(Self.reason(error))); save one with: sluice inspect DUMP --all --json"
      )
    }
    guard baseline.inspectVersion <= Inspection.jsonVersion else {
      throw BaselineError(
        path: path,
        message: "inspectVersion \(baseline.inspectVersion) is newer than this sluice reads (\(Inspection.jsonVersion))"
      )
    }
    return baseline
  }

  private static func reason(_ error: any Error) -> String {
    switch error {
    case DecodingError.keyNotFound(let key, _): "missing key '\(key.stringValue)'"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' is not what inspect writes"
    case DecodingError.dataCorrupted: "not valid JSON"
    default: "\(error)"
    }
  }
}

/// A baseline that cannot be used: exit 65, saying which file and why.
package struct BaselineError: Error, Sendable, CustomStringConvertible {
  package var path: String
  package var message: String
  package var description: String { "baseline \(path): \(message)" }
}

extension BaselineComparison {
  /// The input inspected whole, in its format and record path (`Inspector`), against a saved
  /// `sluice inspect --json` or `sluice contract` (`InspectionBaseline`), field by field
  /// (`BaselineDrift`): what `validate --baseline` runs.
  public static let inspection = BaselineComparison { path, input in
    let baseline: InspectionBaseline
    do {
      baseline = try InspectionBaseline.read(path)
    } catch let error as BaselineError {
      throw Failure(message: error.description)
    }
    do {
      let current = try Inspector.inspect(
        path: input.path, options: InspectOptions(format: input.format, recordPath: input.recordPath, sampleSize: nil))
      return BaselineDrift.changes(from: baseline, to: current)
    } catch let error as InspectionError {
      throw Failure(message: "\(input.path) cannot be compared with the baseline: \(error)")
    }
  }
}

/// Compares tonight's inspection with a baseline: every field path of either, by presence,
/// kinds of values and NULLs, and the record path.
package enum BaselineDrift {
  package static func changes(from baseline: InspectionBaseline, to current: Inspection) -> [BaselineChange] {
    var changes: [BaselineChange] = []
    func add(_ impact: BaselineChange.Impact, _ kind: String, _ path: String, _ message: String) {
      changes.append(BaselineChange(impact: impact, kind: kind, path: path, message: message))
    }
    // A contract says nothing of where the records are.
    if !baseline.isContract && baseline.recordPathKeys != current.recordPath {
      add(
        .breaking, "recordPathMoved", "",
        "the records were at \(RecordPathCandidate.text(baseline.recordPathKeys)); tonight they are at \(current.recordPathText)"
      )
    }
    let now = Dictionary(current.fields.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    for field in baseline.fields {
      let wasRequired = field.holders > 0 && field.present == field.holders
      guard let tonight = now[field.path] else {
        if baseline.isContract && !wasRequired { continue }
        if wasRequired {
          add(.breaking, "requiredFieldGone", field.path, "was in all \(field.holders) holders; tonight in none")
        } else {
          add(
            .nonBreaking, "optionalFieldGone", field.path,
            "was in \(field.present) of \(field.holders); tonight in none")
        }
        continue
      }
      if wasRequired && tonight.present < tonight.holders {
        add(
          .breaking, "requiredFieldMissing", field.path,
          "was in all \(field.holders) holders; tonight missing from \(tonight.holders - tonight.present) of \(tonight.holders)"
        )
      }
      let before = Set(field.types.filter { $0.key != "null" && $0.value > 0 }.map(\.key))
      let after = Set(tonight.kinds.nonNull.map(\.name))
      let appeared = after.subtracting(before)
      let gone = before.subtracting(after)
      if baseline.isContract {
        // Any kind the contract allows is fine; any other fails the DTO (a fraction where it
        // asks for an integer too).
        if !before.isEmpty && !appeared.isEmpty {
          add(
            .breaking, "typeChanged", field.path,
            "the contract allows \(Self.list(before)); tonight also \(Self.list(appeared))")
        }
      } else if appeared == ["number"] && before.contains("integer") {
        add(.nonBreaking, "numberWidened", field.path, "was integers; tonight numbers with fractions too")
      } else if !appeared.isEmpty {
        add(
          .breaking, "typeChanged", field.path,
          "was \(Self.list(before)); tonight also \(Self.list(appeared))")
      } else if !gone.isEmpty && !after.isEmpty {
        add(.breaking, "typeNarrowed", field.path, "was \(Self.list(before)); tonight only \(Self.list(after))")
      }
      if field.null == 0 && tonight.kinds.null > 0 {
        add(.breaking, "nullAppeared", field.path, "was never null; tonight null in \(tonight.kinds.null)")
      }
    }
    let known = Set(baseline.fields.map(\.path))
    for field in current.fields where !known.contains(field.path) {
      if baseline.openPaths.contains(where: { field.path.hasPrefix($0 + ".") || field.path.hasPrefix($0 + "[]") }) {
        continue
      }
      add(.nonBreaking, "newField", field.path, "new: in \(field.present) of \(field.holders)")
    }
    return changes
  }

  private static func list(_ kinds: Set<String>) -> String {
    kinds.isEmpty ? "nothing but null" : kinds.sorted().joined(separator: ", ")
  }
}
