/// The spec file's wire format.
///
/// Its keys are declared once, in `CodingKeys` (and `InputDocument.CodingKeys`,
/// `DialectDocument.CodingKeys`): the decoder reads by them, and the message for an unknown key
/// lists them (`knownKeys`), in the order they are declared — never a second, hand-kept list.
struct SpecDocument: Decodable {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case description, dataset, input, format, recordPath, dialect, xmlNames, inputs, policy, database, databaseSchema
    case connectTimeout, jobs, onConflict, busyTimeout, memoryBudget, report, junit, html, rejects, countRows
    case incremental, snapshot, maxDeleteRate, checkpointEvery, stage, storage, retries, caBundle, metrics
  }

  static let knownKeys = CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")
  static let knownInputKeys = InputDocument.CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")
  static let knownStorageKeys = StorageDocument.CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")

  var description: String?
  var dataset: String?
  var input: String?
  var format: String?
  var recordPath: RecordPathValue?
  var dialect: DialectDocument?
  /// An XML input's keys: `"local"` (the default) or `"qualified"` (`XMLRecordReader.Naming`).
  var xmlNames: String?
  var inputs: [InputDocument]?
  var policy: PolicyValue?
  var database: String?
  var onConflict: String?
  var report: String?
  var junit: String?
  var html: String?
  var metrics: String?
  var rejects: String?
  var busyTimeout: Double?
  var memoryBudget: MemoryBudgetValue?
  var databaseSchema: String?
  var connectTimeout: Int?
  var jobs: Int?
  var countRows: Bool?
  var incremental: Bool?
  var snapshot: Bool?
  var maxDeleteRate: Double?
  var checkpointEvery: Int?
  var stage: Bool?
  /// Where `s3://` inputs live: an S3-compatible server, its region, path-style addressing.
  var storage: StorageDocument?
  /// How many times a remote input's failed request is tried again.
  var retries: Int?
  /// A PEM file of certificate authorities for `https://` inputs (relative to the spec).
  var caBundle: String?

  struct StorageDocument: Decodable {
    var endpoint: String?
    var region: String?
    var pathStyle: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable {
      case endpoint, region, pathStyle
    }
  }

  /// `"512MiB"`, or a number of MiB (`512`), as `MemoryBudget(text:)` reads it.
  struct MemoryBudgetValue: Decodable {
    var text: String

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      text = try (try? container.decode(Int.self)).map(String.init) ?? container.decode(String.self)
    }
  }

  /// One element of `inputs`.
  struct InputDocument: Decodable {
    var dataset: String
    var input: String
    var format: String?
    var recordPath: RecordPathValue?
    var dialect: DialectDocument?
    var xmlNames: String?
    /// The run may go without this input.
    var optional: Bool?
    /// An incremental run skips this input when the database holds its content.
    var incremental: Bool?
    /// The input is a full snapshot of its dataset.
    var snapshot: Bool?
    /// File names a glob input leaves out, with a warning naming each.
    var exclude: [String]?

    enum CodingKeys: String, CodingKey, CaseIterable {
      case dataset, input, format, recordPath, dialect, xmlNames, optional, incremental, snapshot, exclude
    }
  }

  /// `"data.fruits"` or `["data", "fruits"]` (for keys that contain dots).
  struct RecordPathValue: Decodable {
    var keys: [String]
    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let text = try? container.decode(String.self) {
        keys = PipelineSpec.parseRecordPath(text)
      } else {
        keys = try container.decode([String].self)
      }
    }
  }

  /// `"lenient"` or `{"preset": "lenient", "maxRejects": 100, …}`.
  enum PolicyValue: Decodable {
    case preset(String)
    case detailed(PolicyOverrides)
    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let name = try? container.decode(String.self) {
        self = .preset(name)
      } else {
        self = .detailed(try container.decode(PolicyOverrides.self))
      }
    }
  }

  struct PolicyOverrides: Decodable {
    var preset: String
    var maxRejects: Int?
    var maxRejectRate: Double?
    var unknownFields: String?
    var legacyScalars: Bool?
    var dates: [String]?
    var allowNothingLoaded: Bool?
    var lenientArrays: Bool?
    var duplicateKeys: String?
  }
}
