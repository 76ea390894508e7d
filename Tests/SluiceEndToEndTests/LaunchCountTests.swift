import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

/// How many places in `Tests/` launch `sluice` or `sluice-faults` as a process of its own (issue
/// 40, item 6). A command line run in process (`SluiceCommand.run`) costs a fraction of a launch
/// of the debug binary and runs beside the other tests; a process is for what only a process
/// has: signals and `kill -9`, `sluice-faults` kills, racing runs, `ulimit`, `umask`, a terminal,
/// standard input, closed or full standard streams, FIFOs behind a `timeout`, another user or
/// environment, the peak RSS the kernel measured. The limit keeps it so: a new launch needs one
/// of those reasons, or another launch to go. Lower the limit as launches go; raise it only
/// with the reason in the commit. The same count by hand:
///
///     grep -rnE --include='*.swift' 'SluiceBinary\.(run|shell|start|measure)\(|SluiceBinary\.(path|faultsPath|executable)\b|\.build/debug/sluice|Tool\.built\("sluice' Tests \
///       | grep -v '^Tests/SluiceEndToEndTests/SluiceBinary.swift:' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//'
@Suite("Launches of the sluice binary from the tests")
struct LaunchCountTests {
  /// Issue 40 asks for at most about 40; 72 are left, each needing a process of its own: 30
  /// `sluice-faults` kills, 3 launched runs timed to aim random kills, 10 runs started to be
  /// SIGKILLed or to race; `ulimit` 5, peak RSS 4 (issue 56: the plain-against-gzip XML orders,
  /// whose peak said nothing, run in process now), `umask` 3, closed or broken streams 3,
  /// `runuser` 4 (two of them copy the binary), another environment 4, shares loaded by
  /// processes at once 2, a terminal, standard input, and the browser check's script; and
  /// peak RSS of the runs over hostile wide CSV and NDJSON (issue 55), from one helper.
  static let limit = 72

  /// What a line that starts a process of `sluice` or `sluice-faults`, or hands one its path, holds.
  static let launch =
    #"SluiceBinary\.(run|shell|start|measure)\(|SluiceBinary\.(path|faultsPath|executable)\b|\.build/debug/sluice|Tool\.built\("sluice"#

  /// `file:line: text` of every launch place under `Tests/`, but for the helper that defines them.
  static func places() throws -> [String] {
    let tests = Repository.path("Tests")
    let helper = "SluiceEndToEndTests/SluiceBinary.swift"
    let launch = try Regex(Self.launch)
    guard let files = FileManager.default.enumerator(atPath: tests) else { return [] }
    var places: [String] = []
    for case let file as String in files where file.hasSuffix(".swift") && file != helper && file != Self.thisFile {
      let text = try String(contentsOfFile: tests + "/" + file, encoding: .utf8)
      for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let code = line.drop { $0 == " " }
        guard !code.hasPrefix("//"), line.contains(launch) else { continue }
        places.append("Tests/\(file):\(index + 1): \(code)")
      }
    }
    return places.sorted()
  }

  /// This file names the patterns it looks for.
  static let thisFile = "SluiceEndToEndTests/LaunchCountTests.swift"

  @Test func theTestsLaunchTheBinaryFromFewPlaces() throws {
    let places = try Self.places()
    #expect(!places.isEmpty, "no launch found: the pattern or the path is wrong")
    #expect(
      places.count <= Self.limit,
      "\(places.count) places launch sluice (at most \(Self.limit)): run it in process (SluiceCommand.run) unless it needs a process of its own\n\(places.joined(separator: "\n"))"
    )
  }
}
