/// A subcommand's options and help, declared once: what the parser accepts, the `--help` text
/// and the command reference (`docs/reference/commands.md`) are all made from it.
///
/// Before, each command listed its options three times — two sets for the parser, a help text
/// and the Markdown page by hand — and the copies drifted. The text of an entry is kept as its
/// `--help` wraps it; the Markdown page joins its lines.
struct CommandHelp: Sendable {
  /// The command line(s) after `USAGE: `; a second line is indented under the first.
  var usage: String
  /// What the command does: paragraphs, as `--help` prints them.
  var summary: String
  var options: OptionList
  /// What follows the options (exit codes, a note on paths), if anything.
  var epilogue: String? = nil
  /// The words the command's argument is one of (`completions bash|zsh|fish`), which the shell
  /// completions offer; nil when it is a path or a name, and they offer files.
  var argumentChoices: [String]? = nil

  /// `sluice COMMAND --help`.
  var text: String {
    var sections = ["USAGE: \(usage)", summary, options.helpText]
    if let epilogue { sections.append(epilogue) }
    return sections.joined(separator: "\n\n")
  }

  /// The parser that accepts exactly the declared options.
  var parser: ArgumentParser { options.parser }
}

/// One option a subcommand accepts: its name without `--`, and the placeholder of its value,
/// or none for a flag.
struct CommandOption: Hashable, Sendable {
  var name: String
  var value: String?

  static func value(_ name: String, _ placeholder: String) -> CommandOption {
    CommandOption(name: name, value: placeholder)
  }

  static func flag(_ name: String) -> CommandOption { CommandOption(name: name, value: nil) }

  /// `--name VALUE`, or `--name`.
  var synopsis: String { value.map { "--\(name) \($0)" } ?? "--\(name)" }

  /// `--help`, which every subcommand takes.
  static let help = flag("help")

  /// What a shell completes after the option: nothing for a flag or a number, files for a path,
  /// the choices a placeholder lists (`strict|lenient`).
  var valueCompletion: ValueCompletion {
    guard let value else { return .none }
    if value == "DIR" { return .directories }
    let words = value.split(separator: "|").map(String.init)
    if words.contains(where: { ["PATH", "FILE", "URL"].contains($0) }) { return .files }
    if words.count > 1, words.allSatisfy({ $0.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" } }) {
      return .choices(words)
    }
    return .none
  }
}

/// What a shell completion offers for an option's value.
enum ValueCompletion: Equatable, Sendable {
  case none
  case files
  case directories
  case choices([String])
}

/// Options described together in a command's list (usually one), and what they do.
struct OptionEntry: Sendable {
  var options: [CommandOption]
  /// How the entry names its options, when not `--a A, --b B` (`-h, --help`).
  var label: String?
  /// What they do, in lines as `--help` wraps them; empty when the label says it all.
  var text: String

  init(_ option: CommandOption, _ text: String) {
    self.init([option], text)
  }

  init(_ options: [CommandOption], label: String? = nil, _ text: String) {
    self.options = options
    self.label = label
    self.text = text
  }

  /// The options' synopses, comma-separated.
  var title: String { label ?? options.map(\.synopsis).joined(separator: ", ") }

  /// `-h, --help`.
  static let help = OptionEntry([.help], label: "-h, --help", "show this help")
}

/// A command's options in the order its help lists them, with the layout of that list.
struct OptionList: Sendable {
  var heading = "OPTIONS:"
  /// Spaces before each option.
  var indent = 2
  /// The column where descriptions start; a longer title puts its description on the next line.
  var column: Int
  /// A title longer than this wraps after a comma.
  var width = 92
  var entries: [OptionEntry]

  /// Every option, each once, in the order listed.
  var accepted: [CommandOption] {
    var seen = Set<String>()
    return entries.flatMap(\.options).filter { seen.insert($0.name).inserted }
  }

  var parser: ArgumentParser {
    ArgumentParser(
      valueOptions: Set(accepted.filter { $0.value != nil }.map(\.name)),
      flags: Set(accepted.filter { $0.value == nil }.map(\.name)))
  }

  var helpText: String {
    let margin = String(repeating: " ", count: indent)
    let hanging = String(repeating: " ", count: column)
    var lines = [heading]
    for entry in entries {
      let title = wrapped(entry.title, width: width - indent)
      let text = entry.text.isEmpty ? [] : entry.text.split(separator: "\n", omittingEmptySubsequences: false)
      if title.count == 1, let only = title.first, let first = text.first, indent + only.count + 1 <= column {
        lines.append(margin + only.padding(toLength: column - indent, withPad: " ", startingAt: 0) + first)
        lines += text.dropFirst().map { hanging + $0 }
      } else {
        lines += title.map { margin + $0 }
        lines += text.map { hanging + $0 }
      }
    }
    return lines.joined(separator: "\n")
  }

  /// `text` in lines of at most `width`, broken after the commas that separate options.
  private func wrapped(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for part in text.split(separator: ", ").map(String.init) {
      let candidate = line.isEmpty ? part : line + ", " + part
      if candidate.count + 1 > width, !line.isEmpty {
        lines.append(line + ",")
        line = part
      } else {
        line = candidate
      }
    }
    lines.append(line)
    return lines
  }
}
