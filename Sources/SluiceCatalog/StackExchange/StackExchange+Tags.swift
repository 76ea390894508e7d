@_spi(Internals) import SluiceCore

extension StackExchange {
  /// The tag names of a post's `Tags` attribute, in either form the dumps have written:
  /// `<discussion><on-topic>` (every dump until 2024; the attribute's `&lt;…&gt;` already decoded
  /// by the XML reader) or `|discussion|on-topic|` (the dumps since 2024) → `["discussion",
  /// "on-topic"]`; nil when the text is neither.
  ///
  /// Strict: every name is non-empty and holds none of `<`, `>` or `|`, nothing stands between
  /// or around the delimiters, and an empty attribute is an empty list. Both forms of one post
  /// give the same names in the same order, so a dump and its older twin load the same
  /// `post_tags`. Tags on Stack Exchange are lower-case words joined by `-`, `.`, `#` or `+`;
  /// other characters are kept as they are, since the `tags` table decides which names exist.
  public static func tagNames(from text: String) -> [String]? {
    guard let first = text.first else { return [] }
    return first == "|" ? pipeDelimitedTagNames(text) : bracketedTagNames(text)
  }

  /// `<a><b>`.
  private static func bracketedTagNames(_ text: String) -> [String]? {
    var names: [String] = []
    var rest = Substring(text)
    while !rest.isEmpty {
      guard rest.first == "<", let close = rest.firstIndex(of: ">") else { return nil }
      let name = rest[rest.index(after: rest.startIndex)..<close]
      guard isTagName(name) else { return nil }
      names.append(String(name))
      rest = rest[rest.index(after: close)...]
    }
    return names
  }

  /// `|a|b|`: a bar before, between and after the names (a lone `|` names an empty tag).
  private static func pipeDelimitedTagNames(_ text: String) -> [String]? {
    guard text.count >= 2, text.hasSuffix("|") else { return nil }
    let names = text.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false)
    guard names.allSatisfy(isTagName) else { return nil }
    return names.map(String.init)
  }

  private static func isTagName(_ name: Substring) -> Bool {
    !name.isEmpty && !name.contains(where: { $0 == "<" || $0 == ">" || $0 == "|" })
  }

  /// A post's tags, or the mapping error that says the attribute is not a tag list.
  static func tagNames(_ text: String?, at path: String) throws(MappingError) -> [String] {
    guard let text else { return [] }
    guard let names = tagNames(from: text) else {
      throw MappingError(
        code: .invalidValue, path: path,
        message: "expected a list of tag names, as <a><b> or (dumps since 2024) |a|b|")
    }
    return names
  }
}
