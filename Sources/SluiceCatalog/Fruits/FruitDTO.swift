/// A fruit as the dump carries it (seed 003): every field required, recipes nested.
public struct FruitDTO: Decodable, Sendable, Hashable {
  public let fruitID: String
  public let name: String
  public let color: String
  public let recipes: [RecipeDTO]

  enum CodingKeys: String, CodingKey {
    case fruitID, name, color, recipes
  }
}

/// One recipe inside a fruit record.
public struct RecipeDTO: Decodable, Sendable, Hashable {
  public let title: String
  public let description: String
  public let videoTutorial: String

  enum CodingKeys: String, CodingKey {
    case title, description, videoTutorial
  }
}
