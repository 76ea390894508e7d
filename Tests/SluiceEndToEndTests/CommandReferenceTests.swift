import Foundation
import SluiceCLI
@_spi(Internals) import SluiceTestSupport
import Testing

/// The command reference and every `--help` come from one declaration per subcommand; these
/// catch the committed page, the help and the documentation's command lines drifting from it.
@Suite("Command reference")
struct CommandReferenceTests {
  static let subcommands = [
    "run", "validate", "plan", "replay", "schema", "contract", "runs", "recover", "report", "inspect", "init",
    "version", "completions",
  ]

  @Test func committedReferenceIsTheOneTheDeclarationsMake() throws {
    let committed = try String(contentsOfFile: Repository.path("docs/reference/commands.md"), encoding: .utf8)
    #expect(
      committed == CommandReference.markdown,
      "docs/reference/commands.md is not what the declarations make: swift run sluice-docs > docs/reference/commands.md"
    )
  }

  @Test func committedManPageIsTheOneTheDeclarationsMake() throws {
    let committed = try String(contentsOfFile: Repository.path("docs/reference/sluice.1"), encoding: .utf8)
    #expect(
      committed == CommandReference.manPage,
      "docs/reference/sluice.1 is not what the declarations make: swift run sluice-docs --man > docs/reference/sluice.1"
    )
  }

  /// The man page has a section per subcommand with each option its parser accepts, the exit
  /// codes and the environment, and groff formats it without a warning.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/man"),
      "man is not installed (apt-get install man-db, as .ci/run does)"))
  func manPageDescribesEveryCommandAndFormatsWithoutWarnings() throws {
    let page = CommandReference.manPage
    for name in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "SEE ALSO"] {
      #expect(page.contains("\n.SH \(name)\n"), "no section \(name)")
    }
    for command in Self.subcommands {
      let section = try #require(page.components(separatedBy: "\n.SS \(command)\n").dropFirst().first)
      let options = section.components(separatedBy: "\n.SS ").first ?? ""
      for option in ["help"] + (command == "run" ? ["db", "fail-on-rejects"] : []) {
        let roff = "--\(option)".replacingOccurrences(of: "-", with: "\\-")
        #expect(options.contains("\\fB\(roff)\\fR"), "\(command) lacks --\(option)")
      }
    }
    #expect(page.contains("\n75 the data was committed"))
    #expect(page.contains("\n.B AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN\n"))
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("sluice.1", page)
    let formatted = try Tool.shell("MANWIDTH=80 man --warnings -l '\(file)' | col -b")
    #expect(formatted.status == 0)
    #expect(formatted.stderr == "", "groff warns")
    #expect(formatted.stdout.contains("SLUICE(1)"))
    #expect(formatted.stdout.contains("       --fail-on-rejects"))
  }

  /// The top-level help says what Sluice reads today and where it loads it (issue 60, item 4).
  @Test func topLevelHelpNamesTheFormatsSourcesAndStores() throws {
    let help = try SluiceCommand.run(["--help"])
    #expect(help.status == 0)
    let description = help.stdout.components(separatedBy: "\n\n").first ?? ""
    #expect(
      description.split(separator: "\n").joined(separator: " ")
        == "sluice — stream JSON, NDJSON, XML and CSV/TSV dumps (gzip or plain; files, HTTPS or S3) into "
        + "normalized tables in SQLite, PostgreSQL or Citus, and report per stage what was rejected, where and why.")
    #expect(help.stdout.contains("\n  sluice version | sluice --version"))
    #expect(help.stdout.contains("\n  sluice completions bash|zsh|fish"))
  }

  /// Every option a subcommand's `--help` lists is one its parser accepts, and the reference
  /// lists every one of them in the subcommand's table.
  @Test(arguments: subcommands)
  func helpListsTheOptionsTheParserAccepts(_ command: String) throws {
    let help = try SluiceCommand.run([command, "--help"])
    #expect(help.status == 0)
    // The lines that name options: in the OPTIONS section, indented less than the descriptions.
    let optionLines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
      .drop { !$0.hasPrefix("OPTIONS") }.dropFirst().prefix { !$0.isEmpty }
      .filter { line in line.prefix { $0 == " " }.count <= 4 && line.drop { $0 == " " }.hasPrefix("-") }
    // Each line's title: what comes before the gap to its description.
    let listed = optionLines.flatMap { line in
      let title = line.drop { $0 == " " }.components(separatedBy: "  ").first ?? ""
      return title.split(separator: " ").filter { $0.hasPrefix("--") }.map { String($0.prefix { $0 != "," }) }
    }
    #expect(listed.contains("--help"))
    for option in listed {
      #expect(CommandReference.problem(in: [command, option]) == nil, "\(command) --help lists \(option)")
    }
    let section = CommandReference.markdown.components(separatedBy: "\n## \(command)\n").last ?? ""
    let table = section.components(separatedBy: "\n## ").first ?? ""
    for option in listed {
      #expect(table.contains("`\(option)"), "the reference's \(command) table lacks \(option)")
    }
  }

  @Test func documentedCommandLinesNameOnlyOptionsTheirSubcommandTakes() throws {
    var pages = [Repository.path("README.md")]
    let docs = Repository.path("docs")
    for case let relative as String in FileManager.default.enumerator(atPath: docs) ?? .init()
    where relative.hasSuffix(".md") {
      pages.append(docs + "/" + relative)
    }
    #expect(pages.count > 5)
    for page in pages {
      let text = try String(contentsOfFile: page, encoding: .utf8)
      #expect(CommandReference.commandLineProblems(inMarkdown: text) == [], "\(page)")
    }
  }

  @Test func aCommandLineWithAnOptionItsSubcommandLacksIsReported() throws {
    let page = """
      Replay a fixed file:

      ```sh
      sluice replay Pipelines/fruits.json --rejects fixed.ndjson \\
        --input fruits.json
      swift run sluice run Pipelines/fruits.json --db out.sqlite | tee log
      ```

      Then `sluice plan Pipelines/fruits.json --jobs 4`, or
      `sluice frobnicate x`; `sluice run [--input PATH | --input-dir DIR]` is fine.
      """
    #expect(
      CommandReference.commandLineProblems(inMarkdown: page) == [
        "line 4: sluice replay Pipelines/fruits.json --rejects fixed.ndjson --input fruits.json: replay takes no --input",
        "line 9: sluice plan Pipelines/fruits.json --jobs 4: plan takes no --jobs",
        "line 10: sluice frobnicate x: no subcommand frobnicate",
      ])
    // The parser refuses what the check reports, from the same declaration.
    let replay = try SluiceCommand.run([
      "replay", "Pipelines/fruits.json", "--rejects", "fixed.ndjson", "--input", "fruits.json",
    ])
    #expect(replay.status == 64)
    #expect(replay.stderr.contains("unknown option --input"))
  }
}
