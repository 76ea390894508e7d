import Foundation

/// The command lines a Markdown page shows — in ```sh blocks and in inline code — checked
/// against the subcommands' declarations: each must name a subcommand and only options that
/// subcommand takes. Values are not checked (the files they name need not exist).
extension CommandReference {
  /// What is wrong with the `sluice` command lines in `markdown`, one line each
  /// (`line 12: sluice plan --jobs: plan takes no --jobs`); empty when nothing is.
  package static func commandLineProblems(inMarkdown markdown: String) -> [String] {
    var problems: [String] = []
    var fence: String?
    var pending = ""
    var pendingLine = 0
    // The text outside fences, fenced lines blanked so that line numbers stay: an inline code
    // span may wrap onto the next line.
    var prose: [Substring] = []
    for (offset, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let number = offset + 1
      let trimmed = line.drop { $0 == " " }
      if trimmed.hasPrefix("```") {
        fence = fence == nil ? String(trimmed.dropFirst(3)).lowercased() : nil
        prose.append("")
        continue
      }
      guard let language = fence else {
        prose.append(line)
        continue
      }
      prose.append("")
      guard ["sh", "bash", "shell", "console"].contains(language) else { continue }
      if pending.isEmpty { pendingLine = number }
      if trimmed.hasSuffix("\\") {
        pending += trimmed.dropLast() + " "
        continue
      }
      let text = pending + trimmed
      pending = ""
      problems += commandLines(in: tokens(text)).compactMap { problem(in: $0) }.map { "line \(pendingLine): \($0)" }
    }
    var number = 1
    for (index, part) in prose.joined(separator: "\n").split(separator: "`", omittingEmptySubsequences: false)
      .enumerated()
    {
      if index % 2 == 1 {
        let span = part.replacingOccurrences(of: "\n", with: " ")
        problems += commandLines(in: tokens(span)).compactMap { problem(in: $0) }.map { "line \(number): \($0)" }
      }
      number += part.filter { $0 == "\n" }.count
    }
    return problems
  }

  /// What is wrong with one `sluice` command line (its words after the program), or nil.
  package static func problem(in words: [String]) -> String? {
    let shown = "sluice " + words.joined(separator: " ")
    guard let name = words.first, !isPlaceholder(name), !["--help", "-h", "help", "--version"].contains(name) else {
      return nil
    }
    guard let command = Sluice.subcommands.first(where: { $0.name == name }) else {
      return "\(shown): no subcommand \(name)"
    }
    let accepted = Set(command.help.options.accepted.map(\.name))
    for word in words.dropFirst() where word.hasPrefix("--") && word != "--" {
      let option = String(word.dropFirst(2).prefix { $0 != "=" })
      if !accepted.contains(option) {
        return "\(shown): \(name) takes no --\(option)"
      }
    }
    return nil
  }

  /// Each `sluice` command in `words`, as the words after the program: a word that is `sluice`,
  /// ends in `/sluice` or `-sluice` (a dataset package's tool) starts one; a shell operator, a
  /// redirection or a comment ends it, unless it stands between brackets (`[--a | --b]`).
  private static func commandLines(in words: [String]) -> [[String]] {
    var lines: [[String]] = []
    var current: [String]?
    var depth = 0
    for word in words {
      if current == nil {
        if word == "sluice" || word.hasSuffix("/sluice") || (word.hasSuffix("-sluice") && !word.hasPrefix("-")) {
          current = []
        }
        continue
      }
      let ends =
        word.hasPrefix("#") || ["&&", "||", ";", "&", ">", ">>", "<", "2>", "2>&1", "2>>"].contains(word)
        || word.hasPrefix(">") || word.hasPrefix("2>") || (word == "|" && depth == 0)
      if ends {
        if let line = current { lines.append(line) }
        current = nil
        depth = 0
        continue
      }
      depth += word.filter { $0 == "[" }.count - word.filter { $0 == "]" }.count
      let bare = word.trimmingPrefix { $0 == "[" || $0 == "(" }.filter { $0 != "]" && $0 != ")" }
      let cleaned = bare.hasSuffix(",") ? String(bare.dropLast()) : String(bare)
      if !cleaned.isEmpty, cleaned != "|", cleaned != "…", cleaned != "..." { current?.append(cleaned) }
    }
    if let line = current { lines.append(line) }
    return lines
  }

  /// A word of a synopsis that stands for a subcommand (`COMMAND`), not one.
  private static func isPlaceholder(_ word: String) -> Bool {
    word.allSatisfy { $0.isUppercase || $0 == "_" } || word == "…" || word == "..."
  }

  /// The words of a command line, split as a shell would at blanks outside quotes.
  private static func tokens(_ text: some StringProtocol) -> [String] {
    var words: [String] = []
    var word = ""
    var quote: Character?
    var inWord = false
    for character in text {
      if let open = quote {
        if character == open { quote = nil } else { word.append(character) }
      } else if character == "'" || character == "\"" {
        quote = character
        inWord = true
      } else if character == " " || character == "\t" {
        if inWord { words.append(word) }
        word = ""
        inWord = false
      } else {
        word.append(character)
        inWord = true
      }
    }
    if inWord { words.append(word) }
    return words
  }
}
