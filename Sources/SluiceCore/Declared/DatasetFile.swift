import Foundation

/// Loads a dataset declared in a JSON file (docs/reference/dataset-files.md): what a pipeline
/// spec's `"dataset": "orders.dataset.json"` names, and what `sluice contract FILE` reads.
///
/// Everything is checked before any input is opened: a mistake — malformed JSON, an unknown key
/// or type, a column naming a field that is not declared, a reference to nothing — is a
/// `SpecError` naming the file and the JSON path of the mistake (exit 64 on the command line).
public enum DatasetFile {
  /// Whether a spec's `dataset` value names a file rather than a catalog dataset.
  public static func isFileName(_ dataset: String) -> Bool { dataset.hasSuffix(".json") }

  /// The dataset declared in the file at `path`. A reference to another dataset's table is
  /// resolved among `catalog` or, for a name ending in `.json`, in that file (relative to this
  /// one); `loaded` keeps each file's dataset once, so datasets that share a table share its
  /// declaration, as a run that loads them together requires. Its names must suit each of
  /// `drivers` (their limits and reserved prefixes, `StoreNameRules`): the drivers a program
  /// registered, so a file one of its stores would refuse is refused for all.
  public static func load(_ path: String, catalog: [AnyDataset] = [], drivers: StoreDrivers = StoreDrivers([]))
    throws(SpecError) -> AnyDataset
  {
    try load(path, catalog: catalog, loaded: Loaded(rules: StoreNameRules(drivers)), loading: [])
  }

  /// The dataset as schema evolution made it (`DatasetEvolution`): the evolved file's text in
  /// place of the file's, its changes in the schema (`Schema.evolution`).
  package static func load(
    _ path: String, catalog: [AnyDataset] = [], drivers: StoreDrivers = StoreDrivers([]), evolved: [EvolvedDataset]
  ) throws(SpecError) -> AnyDataset {
    let loaded = Loaded(rules: StoreNameRules(drivers))
    for dataset in evolved { loaded.evolved[dataset.path] = dataset }
    return try load(path, catalog: catalog, loaded: loaded, loading: [])
  }

  /// A key as a path segment: `\` before each `.`, `[`, `]` and `\` (`a.b` → `a\.b`), and before
  /// a whole key that a column's `field` reads otherwise (`$position`; `.` is escaped anyway).
  package static func escapedKey(_ key: String) -> String {
    var text = ""
    for character in key {
      if [".", "[", "]", "\\"].contains(character) { text.append("\\") }
      text.append(character)
    }
    return key.hasPrefix("$") ? "\\" + text : text
  }

  /// The files loaded so far by absolute path, shared by the loads one spec makes.
  final class Loaded {
    var datasets: [String: AnyDataset] = [:]
    /// The files schema evolution changed in this run, by absolute path: read as evolved.
    var evolved: [String: EvolvedDataset] = [:]
    /// The names the program's stores take.
    let rules: StoreNameRules

    init(rules: StoreNameRules) {
      self.rules = rules
    }
  }

  /// The dataset files one file's references read, with theirs.
  private final class Referenced {
    var files: [String] = []
  }

  static func load(_ path: String, catalog: [AnyDataset], loaded: Loaded, loading: [String]) throws(SpecError)
    -> AnyDataset
  {
    let path = FilePaths.absolute(path, in: FileManager.default.currentDirectoryPath)
    if let dataset = loaded.datasets[path] { return dataset }
    guard !loading.contains(path) else {
      throw SpecError(fileAt: path, message: "its tables reference each other's through other files (a cycle)")
    }
    let document = try read(path, text: loaded.evolved[path]?.text)
    var builder = DatasetFileBuilder(document: document, nameRules: loaded.rules)
    let referenced = Referenced()
    builder.resolve = { dataset, table throws(SpecError) in
      let other: AnyDataset
      if isFileName(dataset) {
        other = try load(
          FilePaths.absolute(dataset, in: FilePaths.folder(of: path)), catalog: catalog, loaded: loaded,
          loading: loading + [path])
        referenced.files += other.files
      } else if let known = catalog.first(where: { $0.name == dataset }) {
        other = known
      } else {
        return nil
      }
      return other.schema.tables.first { $0.name == table }
    }
    var dataset: DeclaredDataset
    do {
      dataset = try builder.build()
    } catch let mistake as DatasetFileBuilder.Mistake {
      throw SpecError(fileAt: path, message: "'\(mistake.path)': \(mistake.message)")
    } catch let error as SpecError {
      throw error
    } catch {
      throw SpecError(fileAt: path, message: "\(error)")
    }
    dataset.schema.evolution = loaded.evolved[path]?.changes ?? []
    dataset.discardsNewFields = document.evolution == EvolutionMode.discard.rawValue
    var erased = AnyDataset(dataset)
    var files = [path]
    for file in referenced.files where !files.contains(file) { files.append(file) }
    erased.files = files
    loaded.datasets[path] = erased
    return erased
  }

  private static func read(_ path: String, text: String? = nil) throws(SpecError) -> DatasetFileDocument {
    guard let data = text.map({ Data($0.utf8) }) ?? FileManager.default.contents(atPath: path) else {
      let exists = FileManager.default.fileExists(atPath: path)
      throw SpecError(fileAt: path, message: exists ? "cannot read the dataset file" : "no such dataset file")
    }
    return try StrictDocument.decode(
      DatasetFileDocument.self, from: Array(data), failure: { SpecError(fileAt: path, message: $0) },
      unknownKey: { unknown, record in
        "'\(unknown.path)': unknown key (line \(record.location(at: unknown.byteOffset).line))"
      })
  }
}

extension SpecError {
  /// A mistake in the dataset file at `path`.
  init(fileAt path: String, message: String) {
    self.init(path: path, message: message, subject: "dataset file")
  }
}
