// `sluice-docs`: the documentation made from the code, for `.ci/check-docs` and a maintainer.
//
//   swift run sluice-docs > docs/reference/commands.md     the command reference, regenerated
//   swift run sluice-docs --man > docs/reference/sluice.1  the man page sluice(1), regenerated
//   swift run sluice-docs --check-command-lines FILE.md…   the `sluice` command lines of each page
//                                                          checked against the declarations
//
// Not a product: it lives beside the tests and ships in no binary.
import Foundation
import SluiceCLI

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--check-command-lines" {
  var failed = false
  for path in arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
      FileHandle.standardError.write(Data("sluice-docs: cannot read \(path)\n".utf8))
      exit(66)
    }
    for problem in CommandReference.commandLineProblems(inMarkdown: String(decoding: data, as: UTF8.self)) {
      FileHandle.standardError.write(Data("\(path): \(problem)\n".utf8))
      failed = true
    }
  }
  exit(failed ? 1 : 0)
} else if arguments == ["--man"] {
  FileHandle.standardOutput.write(Data(CommandReference.manPage.utf8))
} else if arguments.isEmpty {
  FileHandle.standardOutput.write(Data(CommandReference.markdown.utf8))
} else {
  FileHandle.standardError.write(
    Data(
      "usage: sluice-docs > docs/reference/commands.md | sluice-docs --man > docs/reference/sluice.1 | sluice-docs --check-command-lines FILE.md…\n"
        .utf8))
  exit(64)
}
