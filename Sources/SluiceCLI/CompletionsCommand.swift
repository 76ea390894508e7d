/// `sluice completions bash|zsh|fish`: prints the shell's completion script (`ShellCompletions`),
/// which the Debian package installs and a user can also load by hand.
struct CompletionsCommand: Subcommand {
  static let name = "completions"
  static let synopsis = "sluice completions bash|zsh|fish"
  static let abstract = "print a shell's completion script"
  static let help = CommandHelp(
    usage: "sluice completions bash|zsh|fish",
    summary: """
      Prints the completion script for the shell: subcommands, their options, the values of
      options that have a few, and files. The Debian package installs all three; by hand, save
      it where the shell looks for completions (zsh: a file _sluice in a directory of fpath) or
      source it.
      """,
    options: OptionList(column: 19, entries: [.help]),
    argumentChoices: ShellCompletions.shells)

  var script: String

  init(arguments: [String], context: CommandContext) throws {
    let parsed = try Self.help.parser.parse(arguments)
    let shells = ShellCompletions.shells.joined(separator: ", ")
    guard parsed.positionals.count == 1, let shell = parsed.positionals.first else {
      throw UsageError("expected one shell: \(shells)")
    }
    guard let script = ShellCompletions.script(for: shell) else {
      throw UsageError("no completions for the shell '\(shell)'; known: \(shells)")
    }
    self.script = script
  }

  func run() throws -> Int32 {
    CommandIO.current.writeOutput(script)
    return ExitCode.success
  }
}
