/// Keeps every issue's count but only the first `sampleLimit` issues of each code, so a dump
/// with millions of bad records reports in bounded memory.
public struct IssueCollector: Sendable {
  public let sampleLimit: Int
  public private(set) var counts: [IssueCode: Int] = [:]
  public private(set) var samples: [Issue] = []
  public private(set) var errorCount = 0
  public private(set) var warningCount = 0

  public init(sampleLimit: Int) { self.sampleLimit = sampleLimit }

  public mutating func add(_ issue: Issue) {
    let count = counts[issue.code, default: 0] + 1
    counts[issue.code] = count
    if count <= sampleLimit { samples.append(issue) }
    switch issue.severity {
    case .error: errorCount += 1
    case .warning: warningCount += 1
    }
  }

  public var total: Int { errorCount + warningCount }
}
