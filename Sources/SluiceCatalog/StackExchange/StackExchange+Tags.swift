import SluiceCore

extension StackExchange {
  /// The tag names of a post's `Tags` attribute: `<discussion><on-topic>` (the attribute's
  /// `&lt;…&gt;` already decoded by the XML reader) → `["discussion", "on-topic"]`; nil when the
  /// text is not such a list.
  ///
  /// Strict: every name is non-empty and holds neither `<` nor `>`, nothing stands between or
  /// around the brackets, and an empty attribute is an empty list. Tags on Stack Exchange are
  /// lower-case words joined by `-`, `.`, `#` or `+`; other characters are kept as they are,
  /// since the `tags` table decides which names exist.
  public static func tagNames(from text: String) -> [String]? {
    var names: [String] = []
    var rest = Substring(text)
    while !rest.isEmpty {
      guard rest.first == "<", let close = rest.firstIndex(of: ">") else { return nil }
      let name = rest[rest.index(after: rest.startIndex)..<close]
      guard !name.isEmpty, !name.contains("<") else { return nil }
      names.append(String(name))
      rest = rest[rest.index(after: close)...]
    }
    return names
  }

  /// A post's tags, or the mapping error that says the attribute is not a tag list.
  static func tagNames(_ text: String?, at path: String) throws(MappingError) -> [String] {
    guard let text else { return [] }
    guard let names = tagNames(from: text) else {
      throw MappingError(
        code: .invalidValue, path: path, message: "expected a list of tag names in angle brackets, such as <a><b>")
    }
    return names
  }
}
