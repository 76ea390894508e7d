/// A fruit in the domain: what the loader writes to `fruits` and `recipes`.
public struct Fruit: Sendable, Hashable {
  public var id: String
  public var name: String
  public var color: String
  /// In the dump's order; a recipe's position is its index, which keys it in the table.
  public var recipes: [Recipe]

  public init(id: String, name: String, color: String, recipes: [Recipe]) {
    self.id = id
    self.name = name
    self.color = color
    self.recipes = recipes
  }
}

public struct Recipe: Sendable, Hashable {
  public var title: String
  public var description: String
  public var videoTutorial: String

  public init(title: String, description: String, videoTutorial: String) {
    self.title = title
    self.description = description
    self.videoTutorial = videoTutorial
  }
}
