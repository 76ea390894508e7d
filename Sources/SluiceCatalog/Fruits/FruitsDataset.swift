@_spi(Internals) import SluiceCore

/// Fruits with nested recipes (seed 003) → `fruits` and `recipes`, recipes keyed by fruit and
/// position so that re-importing a fruit replaces its recipes instead of adding to them.
public struct FruitsDataset: Dataset {
  public init() {}

  public var name: String { "fruits" }
  public var summary: String { "fruits with nested recipes → fruits, recipes" }

  static let fruits = Table(
    "fruits", key: ["fruit_id"], columns: [.text("fruit_id", field: "fruitID"), .text("name"), .text("color")])
  static let recipes = Table(
    "recipes", childOf: fruits, position: "position", field: "recipes",
    columns: [.text("title"), .text("description"), .text("video_tutorial", field: "videoTutorial")])
  static let schema = Schema([fruits, recipes])
  public var schema: Schema { Self.schema }

  static let idNotBlank = ValidationRule(
    "fruitID is not blank", message: "must not be blank", constraints: [.notBlank(at: "fruitID")])
  static let nameNotBlank = ValidationRule(
    "name is not blank", message: "must not be blank", constraints: [.notBlank(at: "name")])
  static let titleNotBlank = ValidationRule(
    "recipe titles are not blank", message: "must not be blank", constraints: [.notBlank(at: "recipes[].title")])
  static let titlesUnique = ValidationRule(
    "recipe titles are unique within a fruit",
    message: "duplicates the title of an earlier recipe of the same fruit",
    constraints: [.unexpressed("a uniqueness of one field across an array's objects", at: "recipes[].title")])
  /// `WebURL.isWellFormed` as a pattern: scheme, host of letters, digits, dots and hyphens, an
  /// optional port, then a path, query or fragment without spaces or control characters.
  static let videoIsWebURL = ValidationRule(
    "recipe videos are http(s) URLs", message: "must be an absolute http or https URL",
    constraints: [
      .pattern(
        "^[Hh][Tt][Tt][Pp]([Ss])?://[A-Za-z0-9.-]+(:[0-9]{1,5})?([/?#][^\\x00-\\x20\\x7F]*)?$",
        at: "recipes[].videoTutorial")
    ])

  public var rules: [ValidationRule] {
    [Self.idNotBlank, Self.nameNotBlank, Self.titleNotBlank, Self.titlesUnique, Self.videoIsWebURL]
  }

  public func validate(_ fruit: FruitDTO, into validation: inout Validation) {
    validation.checkNotBlank(Self.idNotBlank, fruit.fruitID, at: "fruitID")
    validation.checkNotBlank(Self.nameNotBlank, fruit.name, at: "name")
    var titles = Set<String>()
    for (index, recipe) in fruit.recipes.enumerated() {
      validation.checkNotBlank(Self.titleNotBlank, recipe.title, at: "recipes[\(index)].title")
      validation.check(Self.titlesUnique, titles.insert(recipe.title).inserted, at: "recipes[\(index)].title")
      validation.check(
        Self.videoIsWebURL, WebURL.isWellFormed(recipe.videoTutorial), at: "recipes[\(index)].videoTutorial")
    }
  }

  public func map(_ fruit: FruitDTO, context _: inout MappingContext) throws(MappingError) -> Fruit {
    Fruit(
      id: fruit.fruitID, name: fruit.name, color: fruit.color,
      recipes: fruit.recipes.map {
        Recipe(title: $0.title, description: $0.description, videoTutorial: $0.videoTutorial)
      })
  }

  public func rows(for fruit: Fruit, into rows: inout RecordRows) {
    rows.add(Self.fruits, fruit.id, fruit.name, fruit.color)
    for recipe in fruit.recipes {
      rows.add(Self.recipes, recipe.title, recipe.description, recipe.videoTutorial)
    }
  }
}
