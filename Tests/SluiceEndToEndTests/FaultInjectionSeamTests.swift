import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

/// Fault injection lives in the tests' build of the binary (`sluice-faults`, Tests/SluiceFaults),
/// not in the product: the shipped `sluice` refuses `--test-kill-at`, its help and its bytes do
/// not name it, and `sluice-faults` kills a run where asked, as `kill -9` would.
struct FaultInjectionSeamTests {
  @Test func theShippedBinaryKnowsNoTestHook() throws {
    let refused = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--test-kill-at", "chunk-1"])
    #expect(refused.status == 64)
    #expect(refused.stderr.contains("unknown option --test-kill-at"), "\(refused.stderr)")
    let help = try SluiceCommand.run(["run", "--help"])
    #expect(help.status == 0 && !help.stdout.isEmpty)
    #expect(!help.stdout.contains("test-") && !help.stdout.contains("kill-at"))
    let (binary, faults) = try SluiceBinary.contents()
    for word in ["test-kill-at", "late-chunk-"] {
      #expect(binary.range(of: Data(word.utf8)) == nil, "the shipped binary holds '\(word)'")
    }
    #expect(faults.range(of: Data("test-kill-at".utf8)) != nil, "the check above could not fail")
  }

  @Test func theTestsBinaryKillsACheckpointedRunWhereAsked() throws {
    let directory = try TemporaryDirectory()
    let database = directory.file("fruits.sqlite")
    let killed = try SluiceBinary.run([
      "run", "Pipelines/fruits.json", "--db", database, "--checkpoint-every", "1", "--test-kill-at", "chunk-1",
    ])
    #expect(killed.status == SIGKILL, "\(killed.stderr)")
    let resumed = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database, "--resume"])
    #expect(resumed.status == 0, "\(resumed.stderr)")
  }
}
