/// Renders coding paths the way users write them: `recipes[2].title`.
package enum FieldPath {
  public static func render(_ codingPath: [any CodingKey]) -> String {
    var text = ""
    for key in codingPath { append(key, to: &text) }
    return text
  }

  /// Renders a path that continues a rendered one by one key: `render(path + [key])` when
  /// `prefix` is `render(path)`.
  static func render(prefix: String, _ key: any CodingKey) -> String {
    var text = prefix
    append(key, to: &text)
    return text
  }

  private static func append(_ key: any CodingKey, to text: inout String) {
    if let index = key.intValue, key.stringValue.isEmpty || key.stringValue.hasPrefix("Index ") {
      text += "[\(index)]"
    } else {
      if !text.isEmpty { text += "." }
      text += key.stringValue
    }
  }

  /// Appends a key to a rendered path.
  public static func appending(_ key: String, to path: String) -> String {
    path.isEmpty ? key : path + "." + key
  }
}
