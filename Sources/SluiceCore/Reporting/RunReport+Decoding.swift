import Foundation

/// Reading a JSON run report back, as `sluice report` does.
///
/// `reportVersion` 1 grew keys as Sluice grew — `mode`, `checks`, `drift`, `coercions` and
/// `quarantined` with validate and replay, `outputErrors` with staged outputs, `inputs` with
/// pipelines of several inputs, `parallel` with `--jobs`, `inputsOmitted` with bounded input sections, `duplicateKeys` with repeated keys, `inputsSkipped` and each input's `sha256`, `skipped` and
/// `changedSinceRunId` with incremental loads, `rowsDeleted` with snapshots, `baselineChanges` with `validate --baseline`, `notes` with resumes that found nothing to resume — without a new version, since nothing an older key meant
/// changed. A report written before a key existed decodes as what that run did: mode `run`, no
/// checks, drift, coercions, quarantined records or lost outputs, and one input section with the
/// run's totals (an older Sluice read one input). A report of a later version is refused rather
/// than half understood.
extension RunReport {
  /// The newest `reportVersion` this build reads (and the one it writes).
  public static let currentVersion = 1

  /// Every stored property's key: a property missing here would be dropped from the JSON
  /// (`RunReportDecodingTests` checks them against the type's properties).
  enum CodingKeys: String, CodingKey, CaseIterable {
    case reportVersion, mode, pipeline, dataset, policy, conflict, database, status, failure, startedAt
    case finishedAt, durationSeconds, peakMemoryBytes, input, inputs, stages, issueCounts, issueSampleLimit
    case issues, checks, drift, coercions, skippedByDesign, quarantined, rowsWritten, referenceLookups, tableRows
    case bulkWrites, committed, outputErrors, parallel, inputsOmitted, duplicateKeys, inputsSkipped, rowsDeleted, plan
    case baselineChanges, notes
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    reportVersion = try container.decode(Int.self, forKey: .reportVersion)
    guard reportVersion <= Self.currentVersion else {
      throw DecodingError.dataCorruptedError(
        forKey: .reportVersion, in: container,
        debugDescription: "version \(reportVersion) is newer than this sluice reads (up to \(Self.currentVersion))")
    }
    mode = try container.decodeIfPresent(String.self, forKey: .mode) ?? RunMode.run.rawValue
    pipeline = try container.decode(String.self, forKey: .pipeline)
    dataset = try container.decode(String.self, forKey: .dataset)
    policy = try container.decode(String.self, forKey: .policy)
    conflict = try container.decode(String.self, forKey: .conflict)
    database = try container.decode(String.self, forKey: .database)
    status = try container.decode(Status.self, forKey: .status)
    failure = try container.decodeIfPresent(Failure.self, forKey: .failure)
    startedAt = try container.decode(Date.self, forKey: .startedAt)
    finishedAt = try container.decode(Date.self, forKey: .finishedAt)
    durationSeconds = try container.decode(Double.self, forKey: .durationSeconds)
    peakMemoryBytes = try container.decodeIfPresent(Int64.self, forKey: .peakMemoryBytes)
    input = try container.decode(InputSummary.self, forKey: .input)
    stages = try container.decode([StageStatistics].self, forKey: .stages)
    issueCounts = try container.decode([String: Int].self, forKey: .issueCounts)
    issueSampleLimit = try container.decode(Int.self, forKey: .issueSampleLimit)
    issues = try container.decode([Issue].self, forKey: .issues)
    checks = try container.decodeIfPresent([Check].self, forKey: .checks) ?? []
    drift = try container.decodeIfPresent(DriftSummary.self, forKey: .drift) ?? DriftSummary()
    coercions = try container.decodeIfPresent(Int.self, forKey: .coercions) ?? 0
    skippedByDesign = try container.decodeIfPresent([String: Int].self, forKey: .skippedByDesign)
    quarantined = try container.decodeIfPresent(Int.self, forKey: .quarantined) ?? 0
    duplicateKeys = try container.decodeIfPresent([String: Int].self, forKey: .duplicateKeys)
    rowsWritten = try container.decode([String: Int].self, forKey: .rowsWritten)
    referenceLookups = try container.decodeIfPresent([String: ReferenceLookups].self, forKey: .referenceLookups)
    bulkWrites = try container.decodeIfPresent(BulkWrites.self, forKey: .bulkWrites)
    tableRows = try container.decode([String: Int].self, forKey: .tableRows)
    parallel = try container.decodeIfPresent(Parallelism.self, forKey: .parallel)
    committed = try container.decode(Bool.self, forKey: .committed)
    outputErrors = try container.decodeIfPresent([String].self, forKey: .outputErrors) ?? []
    inputs = []
    inputs = try container.decodeIfPresent([InputSection].self, forKey: .inputs) ?? [singleInputSection]
    inputsOmitted = try container.decodeIfPresent(OmittedInputs.self, forKey: .inputsOmitted)
    inputsSkipped = try container.decodeIfPresent(Int.self, forKey: .inputsSkipped)
    rowsDeleted = try container.decodeIfPresent([String: Int].self, forKey: .rowsDeleted)
    baselineChanges = try container.decodeIfPresent([BaselineChange].self, forKey: .baselineChanges)
    plan = try container.decodeIfPresent(RunPlan.self, forKey: .plan)
    notes = try container.decodeIfPresent([String].self, forKey: .notes)
  }

  /// The one input of a report written before reports had `inputs`: the run's totals.
  var singleInputSection: InputSection {
    InputSection(
      path: input.path, format: input.format, dataset: dataset,
      opened: failure?.kind != .inputMissing, gzip: input.gzip, compressedBytes: input.compressedBytes,
      decompressedBytes: input.decompressedBytes, stages: stages, issueCounts: issueCounts, coercions: coercions,
      rowsWritten: rowsWritten)
  }

  /// Reads a report written by `jsonData()`, by this or an earlier Sluice.
  package static func decode(from data: Data) throws(RunReportDecodingError) -> RunReport {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    do {
      return try decoder.decode(RunReport.self, from: data)
    } catch let error as DecodingError {
      throw RunReportDecodingError(error)
    } catch {
      throw RunReportDecodingError(message: "\(error)")
    }
  }
}

/// Bytes that are not a run report this Sluice can read, said in one line: not JSON, a key
/// missing or of the wrong type (named by its path), or a newer `reportVersion`.
package struct RunReportDecodingError: Error, Sendable, CustomStringConvertible {
  public var message: String

  public init(message: String) { self.message = message }

  init(_ error: DecodingError) {
    switch error {
    case .keyNotFound(let key, let context):
      message = "'\(Self.path(context.codingPath + [key]))': missing required key"
    case .dataCorrupted(let context) where context.codingPath.isEmpty:
      message = "not valid JSON"
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      let place = context.codingPath.isEmpty ? "the top level" : "'\(Self.path(context.codingPath))'"
      message = "\(place): \(context.debugDescription)"
    @unknown default:
      message = "\(error)"
    }
  }

  public var description: String { message }

  /// `inputs[0].stages[2].recordsIn`.
  static func path(_ keys: [any CodingKey]) -> String {
    var text = ""
    for key in keys {
      // Array elements are keys with an integer value, named "Index N" by JSONDecoder.
      if let index = key.intValue, key.stringValue.hasPrefix("Index") {
        text += "[\(index)]"
      } else {
        text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
      }
    }
    return text
  }
}
