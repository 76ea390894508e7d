import Foundation

/// Where a run's metrics are pushed: a Prometheus Pushgateway, reached through the transport the
/// program registered (SluiceRemote's libcurl one), so the engine and the command line name no
/// network library. A program without one refuses `--metrics-push`.
package protocol MetricsGateway: Sendable {
  /// Sends `body` (Prometheus text) to `url` with `PUT` (`replacing`: the group's metrics are
  /// replaced) or `POST` (only the families in `body` are), trying `tries` times with a short,
  /// doubling back-off; throws `MetricsPushError` naming the last problem.
  func pushMetrics(_ body: String, to url: String, replacing: Bool, tries: Int) throws(MetricsPushError)
}

/// A transport that counts the requests it tried again, for `sluice_remote_retries_total`: the
/// command line reads the count before and after a run.
package protocol RemoteRetryCounting: Sendable {
  /// Requests tried again so far, by every run this transport served.
  var remoteRetries: Int { get }
}

/// A push that did not reach the gateway: its reason, for a warning (never a URL's query).
package struct MetricsPushError: Error, Sendable, CustomStringConvertible {
  package var message: String
  package init(_ message: String) { self.message = message }
  package var description: String { message }
}

/// A Pushgateway's grouping key as URL path: `/metrics/job/<job>/<label>/<value>…`.
package enum PushgatewayPath {
  /// The path under the gateway's URL for the group `job` and `labels` (names checked by the
  /// caller). A value that is empty or holds a `/` is written in the gateway's base64 form
  /// (`<label>@base64/<base64url>`); any other is percent-encoded.
  package static func grouping(job: String, labels: [(String, String)]) -> String {
    var path = "/metrics"
    for (name, value) in [("job", job)] + labels {
      if value.isEmpty || value.contains("/") {
        let encoded = Data(value.utf8).base64EncodedString()
          .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        path += "/\(name)@base64/\(encoded.isEmpty ? "=" : encoded)"
      } else {
        path += "/\(name)/\(percentEncoded(value))"
      }
    }
    return path
  }

  private static func percentEncoded(_ text: String) -> String {
    let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }
}
