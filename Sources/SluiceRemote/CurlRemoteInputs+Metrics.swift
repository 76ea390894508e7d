internal import CCurl
import Foundation
@_spi(Internals) import SluiceCore

/// Pushing a run's metrics to a Prometheus Pushgateway over the same libcurl transport.
extension CurlRemoteInputs: MetricsGateway {
  /// `PUT` (or `POST`) of `body` to `url`, tried up to `tries` times: a connection that fails, a
  /// 5xx or a 429 is tried again after 0.5 s, then 1 s; any other 4xx is final (the gateway
  /// refused the metrics). The messages never show the URL's query or credentials.
  package func pushMetrics(_ body: String, to url: String, replacing: Bool, tries: Int) throws(MetricsPushError) {
    var options = RemoteOptions()
    options.connectTimeoutSeconds = 5
    options.stallTimeoutSeconds = 10
    var problem = "not tried"
    for attempt in 0..<max(1, tries) {
      if attempt > 0 { Thread.sleep(forTimeInterval: 0.5 * pow(2, Double(attempt - 1))) }
      do {
        let transfer = try CurlTransfer(
          url: url, headers: ["Content-Type: \(PrometheusMetrics.contentType)"], options: options, capacity: 1 << 16
        ) { easy in
          // "The data pointed to is copied by the library": the body may go once this returns.
          let codes = [
            sluice_curl_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.utf8.count)),
            sluice_curl_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, body),
            sluice_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, replacing ? "PUT" : "POST"),
            sluice_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0),
          ]
          return codes.first { $0 != CURLE_OK } ?? CURLE_OK
        }
        try transfer.awaitHeaders()
        try? transfer.drain()
        let status = transfer.response.status
        if (200..<300).contains(status) { return }
        problem = "the gateway answered HTTP \(status)"
        if (400..<500).contains(status) && status != 429 { break }
      } catch let failure as CurlTransfer.Failure {
        problem = failure.message
      } catch {
        problem = "\(error)"
      }
    }
    throw MetricsPushError("\(problem) (\(max(1, tries)) \(tries == 1 ? "try" : "tries"))")
  }
}
