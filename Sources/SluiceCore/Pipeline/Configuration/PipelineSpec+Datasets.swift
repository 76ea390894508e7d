import Foundation

// The datasets a spec names: found in the catalog or read from dataset files, and checked to
// load together.
extension PipelineSpec {
  /// The dataset of each input, from `catalog`: an unknown name is an error naming its key, and
  /// so are datasets that cannot load together (different tables of the same name).
  public func datasets(in catalog: [AnyDataset], drivers: StoreDrivers = StoreDrivers([])) throws(SpecError)
    -> [AnyDataset]
  {
    try datasets(in: catalog, drivers: drivers, evolved: [])
  }

  /// The datasets, those of the files in `evolved` as schema evolution made them.
  package func datasets(in catalog: [AnyDataset], drivers: StoreDrivers = StoreDrivers([]), evolved: [EvolvedDataset])
    throws(SpecError) -> [AnyDataset]
  {
    var datasets: [AnyDataset] = []
    let files = DatasetFile.Loaded(rules: StoreNameRules(drivers))
    for dataset in evolved { files.evolved[dataset.path] = dataset }
    for (index, input) in inputs.enumerated() {
      if DatasetFile.isFileName(input.dataset) {
        // A dataset file, relative to the spec; one file named twice is one dataset.
        datasets.append(try DatasetFile.load(resolve(input.dataset), catalog: catalog, loaded: files, loading: []))
        continue
      }
      guard let dataset = catalog.first(where: { $0.name == input.dataset }) else {
        let key = listsInputs ? "inputs[\(index)].dataset" : "dataset"
        throw SpecError(
          path: path,
          message: "'\(key)': unknown dataset '\(input.dataset)'; known: \(catalog.map(\.name).joined(separator: ", "))"
        )
      }
      datasets.append(dataset)
    }
    let schema: Schema
    do {
      schema = try Schema.union(datasets.map(\.schema))
    } catch {
      throw SpecError(path: path, message: "'inputs': \(error)")
    }
    if let clash = Self.nameClash(in: schema) { throw SpecError(path: path, message: "'inputs': \(clash)") }
    return datasets
  }

  /// Two names of the datasets a spec loads together that one database cannot hold both of:
  /// names that differ only in case (SQLite's ignore it), or an index named like a table or
  /// another index. Each dataset file checks its own names (`DatasetFileNames`); this is for
  /// names from different datasets.
  static func nameClash(in schema: Schema) -> String? {
    var taken: [String: (name: String, what: String)] = [:]
    let names =
      schema.lookups.map { ($0.table, "lookup table") } + schema.tables.map { ($0.name, "table") }
      + schema.tables.flatMap { table in table.indexes.map { ($0.name, "index on \(table.name)") } }
    for (name, what) in names {
      let folded = DatasetFileNames.folded(name)
      if let earlier = taken[folded] {
        guard earlier.name != name || earlier.what != what else { continue }
        let relation = earlier.name == name ? "has the name of" : "differs only in case from"
        return
          "the \(what) \(name) of one dataset \(relation) the \(earlier.what) \(earlier.name) of another: one database cannot hold both (SQLite's names ignore case; tables, lookup tables and indexes share one namespace); rename one"
      }
      taken[folded] = (name, what)
    }
    return nil
  }

  /// The dataset of each input of `configuration`, in its order: what `PipelineRunner` takes.
  /// A glob input is one input per file it matches (`configuration()`), each read as its
  /// pattern's dataset, so this has one entry per file, where `datasets(in:)` has one per input
  /// the spec lists.
  public func datasets(for configuration: PipelineConfiguration, in catalog: [AnyDataset]) throws(SpecError)
    -> [AnyDataset]
  {
    try datasets(for: configuration, in: catalog, evolved: [])
  }

  /// The dataset of each input, those of the files in `evolved` as schema evolution made them.
  package func datasets(
    for configuration: PipelineConfiguration, in catalog: [AnyDataset], evolved: [EvolvedDataset]
  ) throws(SpecError) -> [AnyDataset] {
    let declared = try datasets(in: catalog, evolved: evolved)
    var datasets: [AnyDataset] = []
    for input in configuration.inputs {
      // An input names its dataset as the spec does: a catalog name, or a dataset file's.
      guard
        let dataset = zip(inputs, declared).first(where: { $0.0.dataset == input.dataset })?.1
          ?? (declared.count == 1 ? declared.first : nil)
      else {
        throw SpecError(
          path: path, message: "an input names dataset '\(input.dataset ?? "")', which the spec does not list")
      }
      datasets.append(dataset)
    }
    return datasets
  }
}
