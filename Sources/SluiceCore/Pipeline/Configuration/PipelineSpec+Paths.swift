import Foundation

// The spec's paths: record paths, paths resolved against the spec's folder, glob patterns and
// what they match.
extension PipelineSpec {
  /// `"data.fruits"` → `["data", "fruits"]`; `""` → `[]` (a top-level array).
  public static func parseRecordPath(_ text: String) -> [String] {
    text.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
  }

  /// The spec's name for reports: its file name without the extension.
  public var name: String {
    FilePaths.deletingExtension(FilePaths.lastComponent(of: path))
  }

  /// Resolves a path written in the spec against the spec's directory.
  public func resolve(_ relative: String) -> String {
    resolve(relative, against: FilePaths.folder(of: path))
  }

  /// Resolves `relative` against `directory` (itself against the working directory when it is
  /// relative); absolute paths and `-` stay as they are.
  func resolve(_ relative: String, against directory: String) -> String {
    FilePaths.absolute(relative, in: directory)
  }

  /// An input path with glob characters (`*`, `?`, `[`) as the files it matches, sorted, each
  /// an input of its own (a Slack export's `*/*.json`: one day file of one channel folder each).
  ///
  /// A pattern is always a pattern: a file whose name is the pattern's text (a folder named
  /// `*`, a file named `*.json`) is one of its matches like any other, never the only one. A
  /// path with these characters in a file's name is written with each escaped by a backslash,
  /// as glob(3) and the shell take it (`general \[1100\].json`; in a JSON spec
  /// `"general \\[1100\\].json"`). A pattern that matches nothing stays one input, marked, so the run
  /// fails before it opens the database (exit 66), even when a file of that very name exists.
  static func expand(_ path: String) -> [(path: String, isUnmatchedPattern: Bool)] {
    // A URL's pattern is listed by its transport (`PipelineConfiguration.listingRemoteInputs`).
    if RemoteURL.isURL(path) { return [(path, false)] }
    guard isPattern(path) else { return [(unescaped(path), false)] }
    var matches = glob_t()
    defer { globfree(&matches) }
    guard glob(path, 0, nil, &matches) == 0 else { return [(path, true)] }
    let found = (0..<Int(matches.gl_pathc)).compactMap { index in
      matches.gl_pathv[index].map { String(cString: $0) }
    }
    return found.isEmpty ? [(path, true)] : found.sorted().map { ($0, false) }
  }

  /// Whether a file name matches an `exclude` pattern, as glob(3) would match it.
  static func matches(_ name: String, _ pattern: String) -> Bool {
    fnmatch(pattern, name, 0) == 0
  }

  /// Whether `path` holds a glob character that no backslash escapes.
  static func isPattern(_ path: Substring) -> Bool {
    var escaped = false
    for character in path {
      if escaped {
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "*" || character == "?" || character == "[" {
        return true
      }
    }
    return false
  }
  static func isPattern(_ path: String) -> Bool { isPattern(Substring(path)) }

  /// A path's text with the backslashes that escape `*`, `?`, `[`, `]` or a backslash removed:
  /// the file name an escaped path names. Other backslashes are part of the name.
  public static func unescaped(_ path: String) -> String {
    var result = ""
    var escaped = false
    for character in path {
      if escaped {
        if !"*?[]\\".contains(character) { result.append("\\") }
        result.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else {
        result.append(character)
      }
    }
    if escaped { result.append("\\") }
    return result
  }

  /// A file's path as a spec's input names it: `*`, `?`, `[`, `]` and backslashes escaped by a
  /// backslash, so that a name with them (DiscordChatExporter's `general [1100].json`) is that
  /// one file, not a pattern. `unescaped` gives the path back.
  package static func escapedPath(_ path: String) -> String {
    var result = ""
    for character in path {
      if "*?[]\\".contains(character) { result.append("\\") }
      result.append(character)
    }
    return result
  }

  /// The deepest folder that holds every one of these absolute file paths (or patterns: a
  /// folder stops before its first component with glob characters).
  public static func commonFolder(of paths: [String]) -> String {
    let folders = paths.map {
      FilePaths.folder(of: $0).split(separator: "/", omittingEmptySubsequences: true)
        .prefix { !isPattern($0) }.map(String.init)
    }
    guard var common = folders.first else { return "/" }
    for folder in folders.dropFirst() {
      var shared = 0
      while shared < min(common.count, folder.count), common[shared] == folder[shared] { shared += 1 }
      common = Array(common.prefix(shared))
    }
    return "/" + common.joined(separator: "/")
  }
}
