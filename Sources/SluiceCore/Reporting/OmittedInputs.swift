/// The inputs a report does not list one by one, summed.
///
/// A glob over a drop folder can match a hundred thousand files. A section for each made a 165 MB
/// report and a gigabyte of memory, so a report lists the first `RunReport.inputSectionLimit`
/// inputs in full and sums the rest here; the run's own counts (`stages`, `issueCounts`) still
/// cover every input, and each issue sample names its input.
public struct OmittedInputs: Sendable, Codable, Hashable {
  /// Inputs past the listed ones.
  public var count = 0
  /// Of those, the ones the run opened (a failed run never opens the inputs after it).
  public var opened = 0
  public var compressedBytes: Int64 = 0
  public var decompressedBytes: Int64 = 0
  /// Their records per stage, summed.
  public var stages: [StageStatistics] = Stage.allCases.map(StageStatistics.init)
  public var issueCounts: [String: Int] = [:]
  public var coercions = 0
  /// Rows their records wrote, per table.
  public var rowsWritten: [String: Int] = [:]

  public init() {}

  public func statistics(for stage: Stage) -> StageStatistics {
    stages.first { $0.stage == stage } ?? StageStatistics(stage: stage)
  }

  /// `sections` and `omitted` summed: what a summary says of the inputs it does not list.
  static func summing(_ sections: some Sequence<RunReport.InputSection>, and omitted: OmittedInputs?) -> OmittedInputs {
    var total = omitted ?? OmittedInputs()
    for section in sections { total.add(section) }
    return total
  }

  /// Adds one input's section.
  mutating func add(_ section: RunReport.InputSection) {
    count += 1
    guard section.opened else { return }
    opened += 1
    compressedBytes += section.compressedBytes
    decompressedBytes += section.decompressedBytes
    for statistics in section.stages { add(statistics) }
    issueCounts.merge(section.issueCounts, uniquingKeysWith: +)
    coercions += section.coercions
    rowsWritten.merge(section.rowsWritten, uniquingKeysWith: +)
  }

  /// Adds what other omitted inputs summed (a run's folded inputs, then the report's rest).
  mutating func add(_ other: OmittedInputs) {
    count += other.count
    opened += other.opened
    compressedBytes += other.compressedBytes
    decompressedBytes += other.decompressedBytes
    for statistics in other.stages { add(statistics) }
    issueCounts.merge(other.issueCounts, uniquingKeysWith: +)
    coercions += other.coercions
    rowsWritten.merge(other.rowsWritten, uniquingKeysWith: +)
  }

  private mutating func add(_ statistics: StageStatistics) {
    guard let index = stages.firstIndex(where: { $0.stage == statistics.stage }) else { return }
    stages[index].recordsIn += statistics.recordsIn
    stages[index].recordsOut += statistics.recordsOut
    stages[index].rejected += statistics.rejected
    stages[index].warnings += statistics.warnings
    stages[index].kept += statistics.kept
    stages[index].skipped += statistics.skipped
    stages[index].seconds += statistics.seconds
  }
}
