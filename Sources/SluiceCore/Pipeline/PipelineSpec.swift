import Foundation

/// A pipeline spec file (`Pipelines/fruits.json`), read strictly: unknown keys, wrong types and
/// bad names are errors that name the key, so a typo never silently falls back to a default.
///
/// Relative paths in a spec resolve against the directory that holds the spec, so a spec works
/// from any working directory; paths given on the command line resolve against the working
/// directory, as shells expect. `-` as the input means standard input.
public struct PipelineSpec: Sendable, Hashable {
  public var dataset: String
  public var input: String
  public var format: PipelineConfiguration.Format
  public var recordPath: [String]
  public var policy: Policy.Preset
  public var database: String
  public var onConflict: ConflictPolicy
  public var report: String?
  /// The spec file's path, for messages; its directory anchors relative paths.
  public var path: String

  static let knownKeys: Set<String> = [
    "dataset", "input", "format", "recordPath", "policy", "database", "onConflict", "report",
    "description",
  ]

  /// Reads and checks a spec file.
  public init(contentsOf path: String) throws(SpecError) {
    guard let data = FileManager.default.contents(atPath: path) else {
      let exists = FileManager.default.fileExists(atPath: path)
      throw SpecError(path: path, message: exists ? "cannot read the file" : "no such file")
    }
    try self.init(data: data, path: path)
  }

  public init(data: Data, path: String) throws(SpecError) {
    self.path = path
    // Sluice's own reader checks the syntax strictly (Foundation's accepts trailing commas) and
    // says where it broke; Foundation then builds the dictionary.
    do {
      let reader = JSONRecordReader(source: MemoryByteSource(Array(data)), layout: .document)
      _ = try reader.next()
    } catch let error as RecordReadError {
      throw SpecError(path: path, message: "not valid JSON: \(error)")
    } catch {
      throw SpecError(path: path, message: "not valid JSON")
    }
    let object: Any
    do {
      object = try JSONSerialization.jsonObject(with: data)
    } catch {
      throw SpecError(path: path, message: "not valid JSON")
    }
    guard let fields = object as? [String: Any] else {
      throw SpecError(path: path, message: "expected a JSON object at the top level")
    }
    for key in fields.keys.sorted() where !Self.knownKeys.contains(key) {
      throw SpecError(
        path: path,
        message: "unknown key '\(key)'; known keys: \(Self.knownKeys.sorted().joined(separator: ", "))")
    }
    func string(_ key: String, required: Bool) throws(SpecError) -> String? {
      guard let value = fields[key] else {
        if required { throw SpecError(path: path, message: "missing required key '\(key)'") }
        return nil
      }
      guard let text = value as? String else {
        throw SpecError(path: path, message: "'\(key)' must be a string")
      }
      return text
    }
    func choice<T: RawRepresentable & CaseIterable>(_ key: String, default value: T) throws(SpecError) -> T
    where T.RawValue == String {
      guard let text = try string(key, required: false) else { return value }
      guard let parsed = T(rawValue: text) else {
        let names = T.allCases.map(\.rawValue).joined(separator: ", ")
        throw SpecError(path: path, message: "'\(key)' is '\(text)', expected one of: \(names)")
      }
      return parsed
    }
    dataset = try string("dataset", required: true) ?? ""
    input = try string("input", required: true) ?? ""
    database = try string("database", required: true) ?? ""
    report = try string("report", required: false)
    format = try choice("format", default: .json)
    policy = try choice("policy", default: .strict)
    onConflict = try choice("onConflict", default: .upsert)
    switch fields["recordPath"] {
    case nil:
      recordPath = []
    case let text as String:
      recordPath = Self.parseRecordPath(text)
    case let keys as [Any]:
      guard let strings = keys as? [String], !strings.contains(where: \.isEmpty) else {
        throw SpecError(path: path, message: "'recordPath' must be a string or an array of non-empty strings")
      }
      recordPath = strings
    default:
      throw SpecError(path: path, message: "'recordPath' must be a string or an array of strings")
    }
    for (key, value) in [("dataset", dataset), ("input", input), ("database", database)]
    where value.isEmpty {
      throw SpecError(path: path, message: "'\(key)' must not be empty")
    }
    if format == .ndjson && !recordPath.isEmpty {
      throw SpecError(path: path, message: "'recordPath' applies to format json, not ndjson")
    }
  }

  /// `"data.fruits"` → `["data", "fruits"]`; `""` → `[]` (a top-level array).
  public static func parseRecordPath(_ text: String) -> [String] {
    text.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
  }

  /// The spec's name for reports: its file name without the extension.
  public var name: String {
    let file = (path as NSString).lastPathComponent
    return (file as NSString).deletingPathExtension
  }

  /// Resolves a path written in the spec against the spec's directory.
  public func resolve(_ relative: String) -> String {
    if relative == "-" { return relative }
    if relative.hasPrefix("/") { return (relative as NSString).standardizingPath }
    var directory = (path as NSString).deletingLastPathComponent
    if !directory.hasPrefix("/") {
      directory = (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(directory)
    }
    return ((directory as NSString).appendingPathComponent(relative) as NSString).standardizingPath
  }

  /// The run configuration this spec describes, before command-line overrides.
  public func configuration() -> PipelineConfiguration {
    PipelineConfiguration(
      name: name, input: resolve(input), format: format, recordPath: recordPath,
      policy: Policy(preset: policy), database: resolve(database), conflict: onConflict,
      reportPath: report.map(resolve))
  }
}

/// A spec that cannot be used; exit code 64.
public struct SpecError: Error, Sendable, CustomStringConvertible {
  public var path: String
  public var message: String
  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }
  public var description: String { "\(path): \(message)" }
}
