/// Builds fruit records as JSON text, one per line, so tests can damage any of them: the catalog's
/// fruits (SluiceCatalogTests) and the declared fruits of `Examples/datasets` read the same text.
package enum FruitsDump {
  package static func fruit(_ index: Int, recipes: Int = 2, name: String? = nil) -> String {
    let list = (0..<recipes).map { position in
      #"{"title": "Recipe \#(position) of \#(index)", "description": "Stir \#(position) times.", "videoTutorial": "https://v.example.com/\#(index)/\#(position)"}"#
    }
    let name = name ?? "Frücht \(index)"
    return
      #"{"fruitID": "F\#(index)", "name": "\#(name)", "color": "red", "recipes": [\#(list.joined(separator: ", "))]}"#
  }

  /// A JSON array with one record per line (record n is on line n + 1).
  package static func array(_ records: [String]) -> String {
    "[\n" + records.joined(separator: ",\n") + "\n]\n"
  }

  package static func ndjson(_ records: [String]) -> String { records.joined(separator: "\n") + "\n" }
}
