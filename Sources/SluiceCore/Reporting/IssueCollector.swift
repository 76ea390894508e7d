/// Keeps every issue's count but only the first `sampleLimit` issues of each code, so a dump
/// with millions of bad records reports in bounded memory.
package struct IssueCollector: Sendable, Codable {
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

  /// Counts `times` issues of `code` that are kept nowhere (a record's unknown fields past the
  /// ones it lists): they add to the totals as kept ones would, and, coming before the issues
  /// that follow, to the count that decides which of those are sampled.
  public mutating func count(_ code: IssueCode, severity: Severity, times: Int) {
    guard times > 0 else { return }
    counts[code, default: 0] += times
    switch severity {
    case .error: errorCount += times
    case .warning: warningCount += times
    }
  }

  public var total: Int { errorCount + warningCount }
}

extension IssueCollector {
  /// The collector a serial run would have built, from the collectors of runs that each read some
  /// of its inputs: counts summed, and `samples` — every part's samples in the serial order —
  /// kept up to the limit per code again. Each part kept at least what a serial run keeps of its
  /// inputs (fewer issues of a code came before any of them), so nothing a serial run keeps is
  /// missing.
  static func merging(_ parts: [IssueCollector], samplesInOrder samples: [Issue], sampleLimit: Int) -> IssueCollector {
    var merged = IssueCollector(sampleLimit: sampleLimit)
    var sampled: [IssueCode: Int] = [:]
    for issue in samples {
      let count = sampled[issue.code, default: 0] + 1
      sampled[issue.code] = count
      if count <= sampleLimit { merged.samples.append(issue) }
    }
    for part in parts {
      merged.counts.merge(part.counts, uniquingKeysWith: +)
      merged.errorCount += part.errorCount
      merged.warningCount += part.warningCount
    }
    return merged
  }
}
