import Foundation
import Testing

@_spi(Internals) @testable import SluiceCore

/// Settings a run would take and then ignore are refused before it runs, naming both settings:
/// by the Swift API (`PipelineRunner`, `Pipeline`), and for what a spec alone says, by
/// `PipelineSpec`. A run's mode value (`Execution`) carries only what applies to it.
@Suite("Ignored settings")
struct IgnoredSettingTests {
  private struct NotesDataset: Dataset {
    struct Note: Decodable { let id: String }
    var name: String { "notes" }
    var summary: String { "notes → notes" }
    static let notes = Table("notes", key: ["note_id"], columns: [.text("note_id", field: "id")])
    var schema: Schema { Schema([Self.notes]) }
    func validate(_ note: Note, into validation: inout Validation) {}
    func map(_ note: Note, context _: inout MappingContext) throws(MappingError) -> Note { note }
    func rows(for note: Note, into rows: inout RecordRows) { rows.add(Self.notes, note.id) }
  }

  /// One combination a run would ignore, and the sentence that refuses it.
  enum Combination: String, CaseIterable, Sendable {
    case validateWithCheckpoints, validateWithStage, planWithResume, validateWithJobs, planWithJobs
    case planWithLaneCommit, jobsWithCheckpoints, snapshotWithCheckpoints, jobsWithIncremental
    case laneCommitWithoutJobs, baselineOnARun, databaseChecksOnAPlan, failOnWarningsOnAReplay
    case maxChangesOnARun, reloadChangedWithoutIncremental
    case verifyContentWithoutIncremental, maxDeleteRateWithoutSnapshot

    func apply(to configuration: inout PipelineConfiguration) {
      switch self {
      case .validateWithCheckpoints:
        configuration.mode = .validate
        configuration.checkpointing = .init(recordsPerChunk: 10)
      case .validateWithStage:
        configuration.mode = .validate
        configuration.checkpointing = .init(staged: true)
      case .planWithResume:
        configuration.mode = .plan
        configuration.checkpointing = .init(start: .resume)
      case .validateWithJobs:
        configuration.mode = .validate
        configuration.parallelism.jobs = 2
      case .planWithJobs:
        configuration.mode = .plan
        configuration.parallelism.jobs = 4
      case .planWithLaneCommit:
        configuration.mode = .plan
        configuration.parallelism.commit = .ordered
      case .jobsWithCheckpoints:
        configuration.parallelism.jobs = 2
        configuration.checkpointing = .init(recordsPerChunk: 10)
      case .snapshotWithCheckpoints:
        configuration.inputs[0].isSnapshot = true
        configuration.checkpointing = .init(recordsPerChunk: 10)
      case .jobsWithIncremental:
        configuration.parallelism.jobs = 2
        configuration.inputs[0].isIncremental = true
      case .laneCommitWithoutJobs:
        configuration.parallelism.commit = .twoPhase
      case .baselineOnARun:
        configuration.baselinePath = "/tmp/notes-inspection.json"
      case .databaseChecksOnAPlan:
        configuration.mode = .plan
        configuration.checksDatabase = true
      case .failOnWarningsOnAReplay:
        configuration.mode = .replay
        configuration.failsOnWarnings = true
      case .maxChangesOnARun:
        configuration.maxChanges = ChangeLimit("5%")
      case .reloadChangedWithoutIncremental:
        configuration.incremental.reloadsChanged = true
      case .verifyContentWithoutIncremental:
        configuration.incremental.verifiesContent = true
      case .maxDeleteRateWithoutSnapshot:
        configuration.snapshot.maxDeleteRate = 0.5
      }
    }

    var message: String {
      switch self {
      case .validateWithCheckpoints:
        "validate and --checkpoint-every do not go together: validate writes nothing, so it has no chunk to commit; drop --checkpoint-every"
      case .validateWithStage:
        "validate and --stage do not go together: validate writes nothing, so it has no chunk to commit; drop --stage"
      case .planWithResume:
        "plan and --resume do not go together: plan commits nothing, so it has no chunk to commit; drop --resume"
      case .validateWithJobs:
        "validate and --jobs 2 do not go together: validate reads its inputs one after another on one connection; drop --jobs"
      case .planWithJobs:
        "plan and --jobs 4 do not go together: plan reads its inputs one after another on one connection; drop --jobs"
      case .planWithLaneCommit:
        "plan and --lane-commit ordered do not go together: plan commits nothing; drop --lane-commit"
      case .jobsWithCheckpoints:
        "--jobs 2 and --checkpoint-every do not go together: a checkpointed run commits chunk by chunk on one connection, so the inputs would load one after another; drop one"
      case .snapshotWithCheckpoints:
        "--snapshot (/tmp/notes.json) and --checkpoint-every do not go together: a checkpointed run commits in chunks, and a snapshot deletes what the whole run did not see, so it loads in one transaction; drop one"
      case .jobsWithIncremental:
        "--jobs 2 and --incremental (/tmp/notes.json) do not go together: an incremental or snapshot run decides from the tables inside one transaction, so its inputs load one after another; drop one"
      case .laneCommitWithoutJobs:
        "--lane-commit two-phase applies to a run with --jobs 2 or more, and this one has --jobs 1: give --jobs, or drop --lane-commit"
      case .baselineOnARun:
        "run and --baseline do not go together: only validate compares its input with a baseline"
      case .databaseChecksOnAPlan:
        "plan and validate's --db checks do not go together: only validate checks references against a database it reads"
      case .failOnWarningsOnAReplay:
        "replay and --fail-on-warnings do not go together: only validate fails on warnings"
      case .maxChangesOnARun:
        "run and --max-changes 5% do not go together: only plan judges the changes"
      case .reloadChangedWithoutIncremental:
        "--reload-changed applies to an incremental run, and no input is incremental: give --incremental too, or drop --reload-changed"
      case .verifyContentWithoutIncremental:
        "--verify-content applies to an incremental run, and no input is incremental: give --incremental too, or drop --verify-content"
      case .maxDeleteRateWithoutSnapshot:
        "--max-delete-rate applies to a snapshot run, and no input is a snapshot: give --snapshot too, or drop --max-delete-rate"
      }
    }
  }

  static func configuration() -> PipelineConfiguration {
    PipelineConfiguration(
      name: "notes", inputs: [PipelineInput(path: "/tmp/notes.json"), PipelineInput(path: "/tmp/more-notes.json")],
      database: .sqlite("/tmp/notes.sqlite"))
  }

  static let datasets = [AnyDataset(NotesDataset()), AnyDataset(NotesDataset())]

  @Test(arguments: Combination.allCases)
  func aSettingTheRunWouldIgnoreIsRefusedNamingBoth(_ combination: Combination) {
    var configuration = Self.configuration()
    combination.apply(to: &configuration)
    #expect(configuration.ignoredSetting == combination.message)
    #expect {
      _ = try Pipeline(datasets: Self.datasets, configuration: configuration)
    } throws: { error in
      (error as? PipelineError)?.message == combination.message
    }
  }

  @Test func everyModeTakesWhatAppliesToIt() throws {
    var configuration = Self.configuration()
    #expect(configuration.ignoredSetting == nil)
    configuration.checkpointing = .init(recordsPerChunk: 10, start: .resume, staged: true)
    #expect(configuration.ignoredSetting == nil, "a staged run resumes")
    configuration.checkpointing = nil
    configuration.inputs[1].isSnapshot = true
    configuration.snapshot.maxDeleteRate = 0.5
    configuration.inputs[0].isIncremental = true
    configuration.incremental = .init(reloadsChanged: true, verifiesContent: true)
    configuration.countsTableRows = true
    #expect(configuration.ignoredSetting == nil, "a run loads incremental and snapshot inputs in one transaction")
    configuration.mode = .plan
    configuration.maxChanges = ChangeLimit("500")
    #expect(configuration.ignoredSetting == nil, "a plan judges its changes and counts its rows")
    configuration = Self.configuration()
    configuration.mode = .validate
    configuration.checksDatabase = true
    configuration.baselinePath = "/tmp/notes-inspection.json"
    configuration.failsOnWarnings = true
    #expect(configuration.ignoredSetting == nil)
    let runner = try PipelineRunner(configuration: configuration, datasets: Self.datasets)
    guard case .validate(let options) = runner.execution else {
      Issue.record("a validate run's mode is .validate, not \(runner.execution)")
      return
    }
    #expect(options.checksDatabase && options.failsOnWarnings)
    #expect(options.baselinePath == "/tmp/notes-inspection.json")
  }

  @Test func aRunsModeSaysHowItCommits() throws {
    var configuration = Self.configuration()
    configuration.mode = .replay
    configuration.checkpointing = .init(recordsPerChunk: 7, start: .restart)
    let runner = try PipelineRunner(configuration: configuration, datasets: Self.datasets)
    guard case .replay(.chunked(let checkpointing)) = runner.execution else {
      Issue.record("a checkpointed replay commits in chunks, not \(runner.execution)")
      return
    }
    #expect(checkpointing.recordsPerChunk == 7 && checkpointing.restarts)
  }

  // MARK: - A spec's keys

  static func spec(_ keys: String) -> String {
    #"{"inputs": [{"dataset": "notes", "input": "a.json"}, {"dataset": "notes", "input": "b.json"}], "#
      + #""database": "x.sqlite", "# + keys + "}"
  }

  @Test(arguments: [
    (
      #""jobs": 2, "checkpointEvery": 100"#,
      "'jobs' 2 and 'checkpointEvery' do not go together: a checkpointed run commits chunk by chunk on one connection, so the inputs would load one after another; drop one"
    ),
    (
      #""jobs": 3, "stage": true"#,
      "'jobs' 3 and 'stage' do not go together: a checkpointed run commits chunk by chunk on one connection, so the inputs would load one after another; drop one"
    ),
    (
      #""snapshot": true, "checkpointEvery": 100"#,
      "'snapshot' (a.json) and 'checkpointEvery' do not go together: a checkpointed run commits in chunks, and a snapshot deletes what the whole run did not see, so it loads in one transaction; drop one"
    ),
    (
      #""jobs": 2, "incremental": true"#,
      "'jobs' 2 and 'incremental' (a.json) do not go together: an incremental or snapshot run decides from the tables inside one transaction, so its inputs load one after another; drop one"
    ),
    (
      #""maxDeleteRate": 0.2"#,
      "'maxDeleteRate' applies to a snapshot run, and no input is a snapshot: set 'snapshot' too, or drop 'maxDeleteRate'"
    ),
  ])
  func aSpecKeyItsRunWouldIgnoreIsRefusedNamingBoth(keys: String, message: String) {
    #expect {
      _ = try PipelineSpec(data: Data(Self.spec(keys).utf8), path: "/tmp/notes.pipeline.json")
    } throws: { error in
      (error as? SpecError)?.description == "/tmp/notes.pipeline.json: \(message)"
    }
  }

  @Test func aSpecWhoseKeysAllApplyIsRead() throws {
    for keys in [
      #""jobs": 4, "countRows": true"#, #""checkpointEvery": 100, "stage": true, "incremental": true"#,
      #""snapshot": true, "maxDeleteRate": 0.2"#,
    ] {
      _ = try PipelineSpec(data: Data(Self.spec(keys).utf8), path: "/tmp/notes.pipeline.json")
    }
  }
}
