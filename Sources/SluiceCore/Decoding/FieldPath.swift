/// Renders coding paths the way users write them: `recipes[2].title`.
public enum FieldPath {
  public static func render(_ codingPath: [any CodingKey]) -> String {
    var text = ""
    for key in codingPath {
      if let index = key.intValue, key.stringValue.isEmpty || key.stringValue.hasPrefix("Index ") {
        text += "[\(index)]"
      } else {
        if !text.isEmpty { text += "." }
        text += key.stringValue
      }
    }
    return text
  }

  /// Appends a key to a rendered path.
  public static func appending(_ key: String, to path: String) -> String {
    path.isEmpty ? key : path + "." + key
  }
}
