import Foundation
@_spi(Internals) import SluiceCLI
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The command line refuses what its run would take and then ignore (exit 64, a sentence naming
/// both options), in process: a spec's keys and the options given with it together.
@Suite("Ignored settings on the command line")
struct IgnoredSettingCommandTests {
  let scratch: TemporaryDirectory
  let notes: String

  init() throws {
    scratch = try TemporaryDirectory()
    _ = try scratch.write("notes.json", #"[{"id": "a"}, {"id": "b"}]"#)
    notes = try scratch.write("notes.pipeline.json", Self.spec(""))
  }

  static func spec(_ keys: String) -> String {
    #"{"dataset": "notes", "input": "notes.json", "database": "notes.sqlite""# + (keys.isEmpty ? "" : ", " + keys)
      + "}"
  }

  func sluice(_ arguments: [String]) -> (status: Int32, stderr: String) {
    let io = CommandIO(capturingIn: scratch.path)
    let status = Sluice.run(
      arguments: arguments, datasets: [AnyDataset(SluiceRunTests.NotesDataset())], drivers: [SQLiteDriver()], io: io)
    return (status, io.error)
  }

  @Test(arguments: [
    (
      ["--jobs", "2", "--checkpoint-every", "10"],
      "--jobs 2 and --checkpoint-every do not go together: a checkpointed run commits chunk by chunk on one connection, so the inputs would load one after another; drop one"
    ),
    (
      ["--jobs", "2", "--stage"],
      "--jobs 2 and --stage do not go together: a checkpointed run commits chunk by chunk on one connection, so the inputs would load one after another; drop one"
    ),
    (
      ["--jobs", "3", "--incremental"],
      "--jobs 3 and --incremental (NOTES) do not go together: an incremental or snapshot run decides from the tables inside one transaction, so its inputs load one after another; drop one"
    ),
    (
      ["--lane-commit", "ordered"],
      "--lane-commit ordered applies to a run with --jobs 2 or more, and this one has --jobs 1: give --jobs, or drop --lane-commit"
    ),
  ])
  func aRunsOptionsThatWouldBeIgnoredAreExit64(options: [String], message: String) {
    let result = sluice(["run", notes] + options)
    #expect(result.status == 64)
    #expect(
      result.stderr.contains(message.replacingOccurrences(of: "NOTES", with: scratch.file("notes.json"))),
      "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("notes.sqlite")), "nothing was opened")
  }

  @Test func aSpecsJobsWithAResumeIsExit64NamingBoth() throws {
    let spec = try scratch.write("jobs.pipeline.json", Self.spec(#""jobs": 2"#))
    let result = sluice(["run", spec, "--resume"])
    #expect(result.status == 64)
    #expect(
      result.stderr.contains(
        "--jobs 2 and --resume do not go together: a checkpointed run commits chunk by chunk on one connection, so the inputs would load one after another; drop one"
      ), "\(result.stderr)")
  }

  @Test func aSpecKeyItsRunWouldIgnoreIsExit64NamingBoth() throws {
    let spec = try scratch.write("rate.pipeline.json", Self.spec(#""maxDeleteRate": 0.2"#))
    let result = sluice(["validate", spec])
    #expect(result.status == 64)
    #expect(
      result.stderr.contains(
        "pipeline spec \(spec): 'maxDeleteRate' applies to a snapshot run, and no input is a snapshot: set 'snapshot' too, or drop 'maxDeleteRate'"
      ), "\(result.stderr)")
  }

  @Test(arguments: [["validate", "--checkpoint-every", "10"], ["validate", "--jobs", "2"], ["plan", "--jobs", "2"]])
  func validateAndPlanTakeNoOptionOfHowARunCommits(arguments: [String]) {
    let result = sluice([arguments[0], notes] + arguments.dropFirst())
    #expect(result.status == 64)
    #expect(result.stderr.contains("unknown option \(arguments[1])"), "\(result.stderr)")
  }

  /// A spec's `jobs`, `checkpointEvery` and `stage` say how `run` commits:
  /// validate and plan, which commit nothing, run the same spec without them.
  @Test func validateAndPlanRunASpecThatSaysHowARunCommits() throws {
    let spec = try scratch.write(
      "chunked.pipeline.json", Self.spec(#""jobs": 1, "checkpointEvery": 1, "stage": true, "countRows": true"#))
    let validated = sluice(["validate", spec])
    #expect(validated.status == 0, "\(validated.stderr)")
    let planned = sluice(["plan", spec])
    #expect(planned.status == 0, "\(planned.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("notes.sqlite")), "a plan writes nothing")
  }
}
