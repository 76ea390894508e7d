import Foundation
@_spi(Internals) import SluiceCore
import Synchronization

/// The retries a transport has made, all its requests together (`RemoteRetryCounting`).
final class RetryCounter: Sendable {
  private let count = Mutex(0)
  func add() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}

/// How long to wait before each retry: exponential backoff with jitter, within the operator's
/// bound of tries, a server's `Retry-After` honoured (both capped by `maximumBackoffSeconds`).
struct RetrySchedule {
  let retries: Int
  let initialSeconds: Double
  let maximumSeconds: Double
  private(set) var attempt = 0
  /// Where each retry is counted, when the transport counts them.
  let counter: RetryCounter?

  init(options: RemoteOptions, counter: RetryCounter? = nil) {
    self.counter = counter
    retries = max(0, options.retries)
    initialSeconds = options.initialBackoffSeconds
    maximumSeconds = options.maximumBackoffSeconds
  }

  /// Waits before the next try after `problem`, or throws the failure that ends the input when
  /// the retries are spent.
  mutating func wait(after problem: String, name: String, retryAfter: Double? = nil) throws {
    guard attempt < retries else {
      throw InputError(
        code: .unreachable, path: name,
        message: "\(problem); gave up after \(retries + 1) \(retries == 0 ? "try" : "tries") (--retries \(retries))")
    }
    let backoff = min(maximumSeconds, initialSeconds * pow(2, Double(attempt))) * Double.random(in: 0.5...1)
    let seconds = retryAfter.map { min(maximumSeconds, max(0, $0)) } ?? backoff
    attempt += 1
    counter?.add()
    if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
  }

  /// The transfer made progress: a later break gets the whole bound of retries again.
  mutating func progressed() { attempt = 0 }
}
