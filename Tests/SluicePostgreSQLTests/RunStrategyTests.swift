import SluiceCatalog
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluicePostgreSQL

/// Which strategy a run's configuration picks (`PipelineRunner.strategy()`), and the option
/// groups that keep impossible combinations from being built.
@Suite("Run strategies")
struct RunStrategyTests {
  static let independent = ["fruits", "orders"].compactMap { Catalog.dataset(named: $0) }

  static func configuration(_ database: DatabaseTarget = .postgreSQL("postgresql://nobody@/x"))
    -> PipelineConfiguration
  {
    PipelineConfiguration(
      name: "shop", inputs: [PipelineInput(path: "/a.json"), PipelineInput(path: "/b.json")], database: database)
  }

  static func strategy(_ configuration: PipelineConfiguration) throws -> String {
    let strategy = try PipelineRunner(configuration: configuration, datasets: independent).strategy()
    return String(describing: type(of: strategy))
  }

  @Test func eachModePicksItsStrategy() throws {
    var configuration = Self.configuration()
    #expect(try Self.strategy(configuration) == "SerialRun")
    configuration.parallelism.jobs = 2
    #expect(try Self.strategy(configuration) == "ParallelRun")
    configuration.parallelism.jobs = 1
    configuration.checkpointing = .init(recordsPerChunk: 10)
    #expect(try Self.strategy(configuration) == "CheckpointedRun")
    configuration.checkpointing?.staged = true
    #expect(try Self.strategy(configuration) == "StagedRun")
    configuration.checkpointing = nil
    configuration.mode = .plan
    #expect(try Self.strategy(configuration) == "PlanRun")
    configuration.mode = .validate
    #expect(try Self.strategy(configuration) == "ValidateRun")
    configuration.mode = .replay
    configuration.parallelism.jobs = 2
    #expect(try Self.strategy(configuration) == "ParallelRun", "a replay loads as a run does")
  }

  @Test func aDriverWithoutLanesLoadsSeriallyWhateverTheJobs() throws {
    var configuration = Self.configuration(.sqlite("/tmp/shop.sqlite"))
    configuration.parallelism.jobs = 8
    #expect(try Self.strategy(configuration) == "SerialRun")
  }

  @Test func onlyACheckpointedRunIsChunkedOrStaged() {
    var configuration = Self.configuration()
    #expect(!configuration.isChunked && !configuration.isStaged)
    configuration.checkpointing = .init(start: .resume)
    #expect(configuration.isChunked && !configuration.isStaged)
    #expect(configuration.checkpointing?.resumes == true && configuration.checkpointing?.restarts == false)
    configuration.checkpointing?.start = .restart
    #expect(configuration.checkpointing?.resumes == false && configuration.checkpointing?.restarts == true)
    configuration.checkpointing?.staged = true
    #expect(configuration.isStaged)
    configuration.mode = .validate
    #expect(!configuration.isChunked && !configuration.isStaged, "a validate run writes no chunk")
  }

  @Test(arguments: [
    ("500", "500"), ("0", "0"), ("5%", "5%"), ("2.5%", "2.5%"), ("100%", "100%"), ("0.125%", "0.125%"),
    ("05%", "5%"),
  ])
  func aChangeLimitSaysItselfAsGiven(text: String, said: String) throws {
    let limit = try #require(ChangeLimit(text))
    #expect(limit.description == said)
    #expect(ChangeLimit(limit.description) == limit)
  }

  @Test func aChangeLimitRefusesWhatIsNotOne() {
    for text in ["", "-1", "101%", "5 %", "five", "%"] {
      #expect(ChangeLimit(text) == nil, "\(text)")
    }
  }

  @Test func aShareOfTheRowsIsJudgedOnTheRowsBefore() {
    var plan = RunPlan(tables: [], lookupChanges: [:], pendingMigrations: [])
    plan.tables = [
      .init(
        table: "t", existed: true, rowsBefore: 200, inserts: 10, updates: 0, unchanged: 190, deletes: 0,
        columnsUpdated: [:])
    ]
    #expect(ChangeLimit("5%")?.isExceeded(by: plan) == false)
    #expect(ChangeLimit("4.5%")?.isExceeded(by: plan) == true)
    #expect(ChangeLimit("10")?.isExceeded(by: plan) == false)
    #expect(ChangeLimit("9")?.isExceeded(by: plan) == true)
  }
}
