import Foundation

/// Renders a run as JUnit XML for CI test views: one test suite per run, one test case per
/// check — reading, decoding, each validation rule, mapping, loading — and a failure on every
/// check that rejected records, listing the first offending records with their locations.
///
/// A run that failed for a reason that is not a record's (a corrupt stream, a locked database)
/// adds an `<error>` test case, which CI systems show apart from data failures.
package enum JUnitReport {
  /// How many offending records a failure lists.
  public static let listedRecords = 20

  public static func render(_ report: RunReport) -> String {
    var cases: [String] = []
    var failures = 0
    var errors = 0
    for check in report.checks {
      let issues = report.issues.filter { check.matches($0) }
      var element =
        "    <testcase classname=\"\(escape("\(report.dataset).\(check.stage.rawValue)"))\" name=\"\(escape(check.name))\""
      if check.failures == 0 && check.warnings == 0 {
        cases.append(element + "/>")
        continue
      }
      element += ">\n"
      if check.failures > 0 {
        failures += 1
        let codes = Set(issues.filter { $0.severity == .error }.map(\.code.rawValue)).sorted().joined(separator: ",")
        let listed = issues.filter { $0.severity == .error }.prefix(listedRecords)
        var body = listed.map(\.description).joined(separator: "\n")
        if check.failures > listed.count {
          body += "\n… and \(check.failures - listed.count) more"
        }
        body += unknownValues(report, stage: check.stage)
        element +=
          "      <failure message=\"\(escape("\(check.failures) record(s) failed: \(check.name)"))\" type=\"\(escape(codes))\">\(escape(body))</failure>\n"
      }
      if check.warnings > 0 {
        let listed = issues.filter { $0.severity == .warning }.prefix(listedRecords)
        let text = "\(check.warnings) warning(s)\n" + listed.map(\.description).joined(separator: "\n")
        element +=
          "      <system-out>\(escape(text + (check.failures > 0 ? "" : unknownValues(report, stage: check.stage))))</system-out>\n"
      }
      cases.append(element + "    </testcase>")
    }
    if let changes = report.baselineChanges {
      // One test case per difference from the baseline: a breaking one fails, a non-breaking
      // one passes and says what it is; none at all is one passing case.
      let classname = escape("\(report.dataset).baseline")
      if changes.isEmpty {
        cases.append("    <testcase classname=\"\(classname)\" name=\"no drift from the baseline\"/>")
      }
      for change in changes {
        let name = escape("\(change.kind)\(change.path.isEmpty ? "" : " \(change.path)")")
        if change.impact == .breaking {
          failures += 1
          cases.append(
            "    <testcase classname=\"\(classname)\" name=\"\(name)\">\n"
              + "      <failure message=\"\(escape(change.message))\" type=\"breaking\">\(escape(change.description))</failure>\n"
              + "    </testcase>")
        } else {
          cases.append(
            "    <testcase classname=\"\(classname)\" name=\"\(name)\">\n"
              + "      <system-out>\(escape(change.description))</system-out>\n    </testcase>")
        }
      }
    }
    if let failure = report.failure, failure.kind != .data {
      errors += 1
      cases.append(
        "    <testcase classname=\"\(escape(report.dataset)).run\" name=\"the run completes\">\n"
          + "      <error message=\"\(escape(failure.message))\" type=\"\(failure.kind.rawValue)\"/>\n    </testcase>")
    }
    let tests = cases.count
    let time = String(format: "%.3f", report.durationSeconds)
    let timestamp = ISO8601DateFormatter().string(from: RunReport.wholeSeconds(report.startedAt))
    let suiteName = escape("\(report.pipeline) (\(report.dataset), \(report.mode))")
    return """
      <?xml version="1.0" encoding="UTF-8"?>
      <testsuites name="sluice" tests="\(tests)" failures="\(failures)" errors="\(errors)" time="\(time)">
        <testsuite name="\(suiteName)" tests="\(tests)" failures="\(failures)" errors="\(errors)" skipped="0" time="\(time)" timestamp="\(timestamp)">
      \(cases.joined(separator: "\n"))
        </testsuite>
      </testsuites>

      """
  }

  /// The enum values a stage met and does not know, by name and count (`type 'poll': 12`),
  /// from the drift summary.
  static func unknownValues(_ report: RunReport, stage: Stage) -> String {
    guard stage == .map else { return "" }
    let named = report.drift.unsupportedEnumValues.filter { $0.value != nil }
    guard !named.isEmpty else { return "" }
    return "\nunknown values: "
      + named.map { "\($0.path) '\($0.value ?? "")': \($0.count)" }.joined(separator: ", ")
  }

  /// Escapes text for double-quoted XML attributes and content, and drops characters XML 1.0
  /// forbids.
  static func escape(_ text: String) -> String {
    MarkupText.escape(
      text, apostrophe: false, forbids: { $0 < 0x20 || (0xFFFE...0xFFFF).contains($0) }, replacement: nil)
  }
}
