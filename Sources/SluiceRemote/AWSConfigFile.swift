import Foundation

/// `~/.aws/credentials` and `~/.aws/config`: INI files of `[section]` headers and
/// `key = value` lines.
///
/// Written here because Foundation has no INI reader and the AWS SDKs, which do, would bring a
/// runtime of their own for a dozen lines' work. Only what Sluice reads is understood: sections,
/// keys and values, `#` and `;` comment lines; an indented line (a nested `s3 =` block) is skipped.
enum AWSConfigFile {
  /// The sections of the file at `path`, each its keys' values; empty when there is no such file.
  static func read(_ path: String?) -> [String: [String: String]] {
    guard let path, let data = FileManager.default.contents(atPath: path) else { return [:] }
    return parse(String(decoding: data, as: UTF8.self))
  }

  static func parse(_ text: String) -> [String: [String: String]] {
    var sections: [String: [String: String]] = [:]
    var current: String?
    for rawLine in text.split(whereSeparator: \.isNewline) {
      if rawLine.first == " " || rawLine.first == "\t" { continue }
      let line = rawLine.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
      if line.hasPrefix("[") && line.hasSuffix("]") {
        let name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
        current = name
        sections[name, default: [:]] = sections[name] ?? [:]
        continue
      }
      guard let current, let equals = line.firstIndex(of: "=") else { continue }
      let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
      let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      sections[current, default: [:]][key] = value
    }
    return sections
  }
}
