import Foundation
import Testing

/// The monitoring programs `.ci/with-monitoring` starts and exports (`.ci/run` always runs the
/// tests through it; `Tests/monitoring/README.md`): a Pushgateway, a Prometheus scraping it and a
/// node_exporter reading a textfile folder, from Debian's packages, and `promtool`. Without the
/// variables the tests that need them are skipped, and say so; under `CI=true` the suite
/// "Monitoring programs in CI" fails instead.
public enum MonitoringPrograms {
  /// The variables `.ci/with-monitoring` exports, all of which the tests need.
  public static let variables = [
    "SLUICE_TEST_PUSHGATEWAY_URL", "SLUICE_TEST_PROMETHEUS_URL", "SLUICE_TEST_NODE_EXPORTER_URL",
    "SLUICE_TEST_TEXTFILE_DIR", "SLUICE_TEST_PROMTOOL",
  ]

  static func variable(_ name: String) -> String { ProcessInfo.processInfo.environment[name] ?? "" }

  /// The variables that are unset or empty.
  public static var missing: [String] { variables.filter { variable($0).isEmpty } }

  public static var isAvailable: Bool { missing.isEmpty }

  /// Why the tests are skipped, for `.enabled(if:)`.
  public static let skipReason: Comment =
    "no monitoring programs: run the tests through .ci/with-monitoring (Tests/monitoring/README.md)"

  /// The Pushgateway (`http://127.0.0.1:PORT`).
  public static var pushgatewayURL: String { variable("SLUICE_TEST_PUSHGATEWAY_URL") }
  /// Prometheus (`http://127.0.0.1:PORT`), scraping the gateway every second (`honor_labels`).
  public static var prometheusURL: String { variable("SLUICE_TEST_PROMETHEUS_URL") }
  /// node_exporter (`http://127.0.0.1:PORT`), with the textfile collector only.
  public static var nodeExporterURL: String { variable("SLUICE_TEST_NODE_EXPORTER_URL") }
  /// The folder node_exporter's textfile collector reads `*.prom` files from.
  public static var textfileDirectory: String { variable("SLUICE_TEST_TEXTFILE_DIR") }
  /// `promtool`.
  public static var promtool: String { variable("SLUICE_TEST_PROMTOOL") }

  /// `promtool check metrics` over `text`: its exit status and what it printed (empty when the
  /// metrics are clean).
  public static func checkMetrics(_ text: String) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: promtool)
    process.arguments = ["check", "metrics"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, printed)
  }

  /// The body of a GET of `url` that must answer 2xx (`/usr/bin/curl`).
  public static func get(_ url: String) throws -> String {
    let (status, output, error) = try Curl.run(["--silent", "--show-error", "--fail", "--globoff", url])
    guard status == 0 else { throw Curl.Failure(description: "curl GET \(url) exited \(status): \(error)") }
    return String(decoding: output, as: UTF8.self)
  }

  /// The result of the PromQL instant query `query` on Prometheus, as `labels → value`, once it
  /// has one (Prometheus scrapes every second; this asks again for up to 30 s, then returns the
  /// last, possibly empty, answer).
  public static func query(_ query: String) throws -> [[String: String]: String] {
    var components = URLComponents(string: prometheusURL + "/api/v1/query")
    components?.queryItems = [URLQueryItem(name: "query", value: query)]
    let url = components?.url?.absoluteString ?? ""
    var result: [[String: String]: String] = [:]
    for _ in 0..<60 {
      let answer = try JSONDecoder().decode(QueryAnswer.self, from: Data(try get(url).utf8))
      result = Dictionary(
        answer.data.result.map { ($0.metric, $0.value.compactMap(\.text).last ?? "") },
        uniquingKeysWith: { first, _ in first })
      if !result.isEmpty { return result }
      Thread.sleep(forTimeInterval: 0.5)
    }
    return result
  }

  struct QueryAnswer: Decodable {
    struct Data: Decodable { var result: [Sample] }
    struct Sample: Decodable {
      var metric: [String: String]
      var value: [Value]
    }
    /// `[1712345678.9, "42"]`: a number, then a string.
    enum Value: Decodable {
      case time(Double)
      case text(String)
      init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
          self = .text(text)
        } else {
          self = .time(try container.decode(Double.self))
        }
      }
      var text: String? {
        if case .text(let text) = self { return text }
        return nil
      }
    }
    var data: Data
  }
}
