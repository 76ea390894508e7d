import Foundation

/// The command reference, `docs/reference/commands.md`, made from the subcommands' declarations
/// (`CommandHelp`), and the check that a command line in the documentation names a subcommand
/// and only options it takes.
///
/// `swift run sluice-docs` prints the page; `.ci/check-docs` and `CommandReferenceTests` fail
/// when the committed page differs from it, so the help, the parser and the page cannot drift.
package enum CommandReference {
  /// The page `docs/reference/commands.md` holds.
  package static var markdown: String {
    var lines = [
      "<!-- Generated from the subcommands' declarations (CommandHelp, Sources/SluiceCLI) by",
      "     `swift run sluice-docs > docs/reference/commands.md`: edit those, not this page.",
      "     .ci/check-docs fails when the committed page differs. -->",
      "",
      "# Commands",
      "",
      "Every subcommand with its options, as `sluice COMMAND --help` prints them. What they do in",
      "depth — `validate --db` and `--baseline`, `plan`, `contract`, `init`, incremental, snapshot,",
      "checkpointed and staged runs, progress — is in [command notes](command-notes.md); what each",
      "exit code means, in [exit codes](exit-codes.md).",
      "",
      "```",
      Sluice.commandList,
      "  sluice --help | sluice COMMAND --help",
      "```",
    ]
    for command in Sluice.subcommands {
      lines += [""] + section(command)
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// One subcommand's section: its usage, what it does, its options in a table.
  private static func section(_ command: any Subcommand.Type) -> [String] {
    let help = command.help
    let usage = help.usage.split(separator: "\n").enumerated().map { index, line in
      // Continuation lines are indented under the first, which follows `USAGE: ` in --help.
      index == 0 ? String(line) : String(line.dropFirst(min(7, line.prefix { $0 == " " }.count)))
    }
    var lines = ["## \(command.name)", "", "```"] + usage + ["```", ""]
    lines += paragraphs(help.summary)
    lines.append("")
    if let note = optionsNote(help.options.heading) { lines += [note, ""] }
    lines += ["| Option | Description |", "| --- | --- |"]
    for entry in help.options.entries {
      let names =
        entry.label.map { $0.split(separator: ", ").map { "`\($0)`" } }
        ?? entry.options.map { "`\($0.synopsis)`" }
      let text = entry.text.split(separator: "\n").joined(separator: " ")
      lines.append("| \(cell(names.joined(separator: ", "))) | \(cell(escaped(text))) |")
    }
    if let epilogue = help.epilogue {
      lines += [""] + paragraphs(epilogue)
    }
    lines += ["", "More: [notes on `\(command.name)`](command-notes.md#\(command.name))."]
    return lines
  }

  /// The part of an options heading in parentheses, as a sentence: what the options are.
  private static func optionsNote(_ heading: String) -> String? {
    guard let open = heading.firstIndex(of: "("), let close = heading.lastIndex(of: ")") else { return nil }
    let note = heading[heading.index(after: open)..<close]
    return "Options " + note + "."
  }

  /// Help paragraphs as Markdown ones: each paragraph's lines joined.
  private static func paragraphs(_ text: String) -> [String] {
    text.components(separatedBy: "\n\n").map { paragraph in
      escaped(paragraph.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))
    }
    .joined(separator: "\n\n").components(separatedBy: "\n")
  }

  /// Text that Markdown would read as HTML (`<run>`) shown as it is.
  private static func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "<", with: "&lt;")
  }

  /// A table cell: a `|` would end it.
  private static func cell(_ text: String) -> String {
    text.replacingOccurrences(of: "|", with: "\\|")
  }
}
