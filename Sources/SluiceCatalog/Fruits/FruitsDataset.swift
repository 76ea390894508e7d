import Foundation
import SluiceCore

/// Fruits with nested recipes (seed 003) → `fruits` and `recipes`, recipes keyed by fruit and
/// position so that re-importing a fruit replaces its recipes instead of adding to them.
public struct FruitsDataset: Dataset {
  public init() {}

  public var name: String { "fruits" }
  public var summary: String { "fruits with nested recipes → fruits, recipes" }
  public var tables: [String] { ["fruits", "recipes"] }

  public var migrations: [Migration] {
    [
      Migration(
        "fruits-1-create",
        sql: """
          CREATE TABLE fruits (
            fruit_id TEXT NOT NULL PRIMARY KEY,
            name TEXT NOT NULL,
            color TEXT NOT NULL
          ) STRICT;
          CREATE TABLE recipes (
            fruit_id TEXT NOT NULL REFERENCES fruits (fruit_id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            title TEXT NOT NULL,
            description TEXT NOT NULL,
            video_tutorial TEXT NOT NULL,
            PRIMARY KEY (fruit_id, position)
          ) STRICT, WITHOUT ROWID;
          """)
    ]
  }

  public func validate(_ fruit: FruitDTO, into validation: inout Validation) {
    validation.requireNonEmpty(fruit.fruitID, "fruitID")
    validation.requireNonEmpty(fruit.name, "name")
    var titles = Set<String>()
    for (index, recipe) in fruit.recipes.enumerated() {
      let path = "recipes[\(index)]"
      validation.requireNonEmpty(recipe.title, path + ".title")
      validation.check(
        titles.insert(recipe.title).inserted, path + ".title",
        "duplicates the title of an earlier recipe of the same fruit")
      validation.check(
        Self.isWebURL(recipe.videoTutorial), path + ".videoTutorial",
        "must be an absolute http or https URL")
    }
  }

  public func map(_ fruit: FruitDTO) throws(MappingError) -> Fruit {
    Fruit(
      id: fruit.fruitID, name: fruit.name, color: fruit.color,
      recipes: fruit.recipes.map {
        Recipe(title: $0.title, description: $0.description, videoTutorial: $0.videoTutorial)
      })
  }

  public func makeLoader(connection: SQLiteConnection, conflict: ConflictPolicy) throws -> FruitsLoader {
    try FruitsLoader(connection: connection, conflict: conflict)
  }

  static func isWebURL(_ text: String) -> Bool {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
    else { return false }
    return true
  }
}
