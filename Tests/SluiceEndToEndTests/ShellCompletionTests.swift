import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice completions bash|zsh|fish` (issue 60, item 4), loaded into the real shells and asked
/// to complete a subcommand, an option, an option's value and a path — the scripts are made in
/// process from the declarations; the shells run them as a user's would.
@Suite("Shell completions")
struct ShellCompletionTests {
  /// Whether Debian's package of `shell` is installed (.ci/run installs zsh and fish).
  static func installed(_ shell: String) -> Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/\(shell)") }

  /// The script `sluice completions SHELL` prints, written to `name` in `scratch`.
  static func script(_ shell: String, in scratch: TemporaryDirectory, as name: String) throws -> String {
    let result = try SluiceCommand.run(["completions", shell])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    return try scratch.write(name, result.stdout)
  }

  /// Bash, non-interactive: the script sourced, `_sluice` called with `COMP_WORDS` and
  /// `COMP_CWORD` set as readline sets them, `COMPREPLY` printed sorted, one line per case.
  @Test func bashCompletesSubcommandsOptionsValuesAndPaths() throws {
    let scratch = try TemporaryDirectory()
    let script = try Self.script("bash", in: scratch, as: "sluice.bash")
    let result = try Tool.shell(
      """
      source '\(script)'
      complete -p sluice
      words() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _sluice; printf '%s\\n' "${COMPREPLY[@]}" | sort | paste -sd' '; }
      words sluice re
      words sluice vali
      words sluice run --fail-on
      words sluice schema --di
      words sluice run --policy l
      words sluice run Pipelines/fruits-l
      words sluice completions z
      words sluice inspect --format n
      """)
    #expect(result.stderr == "")
    #expect(
      result.stdout.split(separator: "\n") == [
        "complete -o filenames -F _sluice sluice",
        "recover replay report",
        "validate",
        "--fail-on-rejects",
        "--dialect",
        "lenient",
        "Pipelines/fruits-lenient.json",
        "zsh",
        "ndjson",
      ])
  }

  /// Zsh, interactive on a pseudo-terminal (`Tests/completions/complete-in-zsh.zsh`): the
  /// script installed as `_sluice` in a directory of `fpath`, as the Debian package installs it,
  /// compinit, then TAB after each line.
  @Test(.enabled(if: installed("zsh"), "zsh is not installed (apt-get install zsh, as .ci/run does)"))
  func zshCompletesSubcommandsOptionsValuesAndPaths() throws {
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("functions"), withIntermediateDirectories: true)
    _ = try Self.script("zsh", in: scratch, as: "functions/_sluice")
    let harness = Repository.path("Tests/completions/complete-in-zsh.zsh")
    let result = try Tool.shell(
      """
      zsh -f '\(harness)' '\(scratch.file("functions"))' '\(scratch.file("lines"))' \
        'sluice vali' 'sluice run --fail-on' 'sluice run --policy le' 'sluice run Pipelines/fruits-l' \
        'sluice completions fi'
      """)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try String(contentsOfFile: scratch.file("lines"), encoding: .utf8)
    #expect(
      lines.split(separator: "\n") == [
        "sluice validate ",
        "sluice run --fail-on-rejects ",
        "sluice run --policy lenient ",
        "sluice run Pipelines/fruits-lenient.json ",
        "sluice completions fish ",
      ])
  }

  /// Fish: the script sourced, `complete -C` asked what it completes, as fish's TAB does.
  @Test(.enabled(if: installed("fish"), "fish is not installed (apt-get install fish, as .ci/run does)"))
  func fishCompletesSubcommandsOptionsValuesAndPaths() throws {
    let scratch = try TemporaryDirectory()
    let script = try Self.script("fish", in: scratch, as: "sluice.fish")
    let result = try Tool.shell(
      """
      fish --no-config -c "source '\(script)'
        for line in 'sluice vali' 'sluice run --fail-on' 'sluice run --policy le' 'sluice run Pipelines/fruits-l' 'sluice completions z'
          complete -C \\$line | string split -f1 \\t | string join ' '
        end"
      """)
    #expect(result.stderr == "")
    #expect(
      result.stdout.split(separator: "\n") == [
        "validate",
        "--fail-on-rejects",
        "lenient",
        "Pipelines/fruits-lenient.json",
        "zsh",
      ])
  }

  @Test func anUnknownShellIsAUsageError() throws {
    let result = try SluiceCommand.run(["completions", "tcsh"])
    #expect(result.status == 64)
    #expect(result.stdout == "")
    #expect(
      result.stderr
        == "sluice: no completions for the shell 'tcsh'; known: bash, zsh, fish\nRun 'sluice completions --help' for usage.\n"
    )
  }
}
