import SluiceInspect

/// What the README of `sluice init` (both routes) says about how some fields are stored: kept
/// whole as JSON text (values no one type decodes, arrays always empty in the records read), or
/// as decimals in minor units (a CSV column of decimals, with its scale).
enum InitFieldNotes {
  /// The README's lines, each ending in a line break; empty when no field needs one. A dataset
  /// file stores decimals in minor units (`declaresDecimals`); the Swift package's DTO reads them
  /// as `Double`, a `REAL` column, which needs no note.
  static func readme(_ scaffold: DatasetScaffold, declaresDecimals: Bool) -> String {
    var text = ""
    let json = scaffold.jsonTextFields
    if !json.isEmpty {
      text +=
        "Kept as JSON text (a `TEXT` column holding the value as JSON, which `json_extract` reads): \(listed(json)) — values of more than one type (a string in one record, an array in another), or arrays empty in every record read, so that whatever the next dump holds there loads. To load one as a column or a child table, declare the type its values have.\n"
    }
    let decimals = declaresDecimals ? scaffold.decimalColumns : []
    if !decimals.isEmpty {
      let columns = decimals.prefix(5).map { "`\($0.column)` (scale \($0.scale))" }.joined(separator: ", ")
      text +=
        "Decimals are stored exactly, as integers in minor units: \(columns)\(decimals.count > 5 ? " and \(decimals.count - 5) more" : "") — `12.30` with scale 2 is `1230`; divide by 10^scale to read them.\n"
    }
    return text
  }

  /// The line `init` prints when some fields are kept as JSON text, or nil.
  static func summary(_ scaffold: DatasetScaffold) -> String? {
    let json = scaffold.jsonTextFields
    guard !json.isEmpty else { return nil }
    return "kept as JSON text (values of more than one type, or always-empty arrays): \(listed(json))"
  }

  private static func listed(_ paths: [String]) -> String {
    paths.prefix(5).map { "`\($0)`" }.joined(separator: ", ") + (paths.count > 5 ? " and \(paths.count - 5) more" : "")
  }
}
