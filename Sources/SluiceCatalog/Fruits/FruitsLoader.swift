import SluiceCore

/// Writes fruits and their recipes with statements prepared once per run.
///
/// Every conflict policy ends with the fruit's recipes being exactly the record's: `upsert`
/// updates the fruit row and replaces its recipes, `replace` deletes the fruit (its recipes
/// cascade) and inserts it anew, `ignore` keeps an existing fruit and its recipes untouched,
/// `fail` lets the primary key reject a second copy.
public final class FruitsLoader: RecordLoader {
  private let connection: SQLiteConnection
  private let conflict: ConflictPolicy
  private let insertFruit: SQLiteStatement
  private let updateFruit: SQLiteStatement
  private let deleteFruit: SQLiteStatement
  private let deleteRecipes: SQLiteStatement
  private let insertRecipe: SQLiteStatement
  private var fruitRows = 0
  private var recipeRows = 0

  init(connection: SQLiteConnection, conflict: ConflictPolicy) throws {
    self.connection = connection
    self.conflict = conflict
    let insert = "INSERT INTO fruits (fruit_id, name, color) VALUES (?, ?, ?)"
    switch conflict {
    case .upsert, .ignore:
      // Insert first; only a fruit that exists is updated and has its recipes deleted, so a new
      // fruit — the common case — costs one statement.
      insertFruit = try connection.prepare(insert + " ON CONFLICT (fruit_id) DO NOTHING")
    case .replace, .fail:
      insertFruit = try connection.prepare(insert)
    }
    updateFruit = try connection.prepare("UPDATE fruits SET name = ?2, color = ?3 WHERE fruit_id = ?1")
    deleteFruit = try connection.prepare("DELETE FROM fruits WHERE fruit_id = ?")
    deleteRecipes = try connection.prepare("DELETE FROM recipes WHERE fruit_id = ?")
    insertRecipe = try connection.prepare(
      "INSERT INTO recipes (fruit_id, position, title, description, video_tutorial) VALUES (?, ?, ?, ?, ?)")
  }

  public func load(_ fruit: Fruit) throws -> LoadOutcome {
    if conflict == .replace {
      try deleteFruit.bind(fruit.id, at: 1)
      try deleteFruit.execute()
    }
    for statement in [insertFruit, updateFruit] {
      try statement.bind(fruit.id, at: 1)
      try statement.bind(fruit.name, at: 2)
      try statement.bind(fruit.color, at: 3)
    }
    try insertFruit.execute()
    if connection.changes == 0 {
      // The fruit exists (upsert and ignore only: the others fail or deleted it first).
      if conflict == .ignore { return .keptExisting }
      try updateFruit.execute()
      try deleteRecipes.bind(fruit.id, at: 1)
      try deleteRecipes.execute()
    }
    fruitRows += 1
    for (position, recipe) in fruit.recipes.enumerated() {
      try insertRecipe.bind(fruit.id, at: 1)
      try insertRecipe.bind(Int64(position), at: 2)
      try insertRecipe.bind(recipe.title, at: 3)
      try insertRecipe.bind(recipe.description, at: 4)
      try insertRecipe.bind(recipe.videoTutorial, at: 5)
      try insertRecipe.execute()
    }
    recipeRows += fruit.recipes.count
    return .written
  }

  public var rowsWritten: [String: Int] { ["fruits": fruitRows, "recipes": recipeRows] }
}
