import Foundation
import Testing

/// The servers the remote-input tests read from, which `.ci/with-remote` starts and exports
/// (`.ci/run` always runs the tests through it; `Tests/remote/README.md` says what each serves):
/// nginx over HTTPS with a throwaway CA, moto's S3 server with authentication on, and the tests'
/// fault-injecting HTTP server. Without the variables the remote tests are skipped, and say so;
/// under `CI=true` the suite "Remote servers in CI" fails instead.
public enum RemoteServers {
  /// The variables `.ci/with-remote` exports, all of which the remote tests need.
  public static let variables = [
    "SLUICE_TEST_HTTPS_URL", "SLUICE_TEST_HTTPS_ROOT", "SLUICE_TEST_CA_BUNDLE", "SLUICE_TEST_S3_ENDPOINT",
    "SLUICE_TEST_S3_ACCESS_KEY_ID", "SLUICE_TEST_S3_SECRET_ACCESS_KEY", "SLUICE_TEST_FAULT_URL",
    "SLUICE_TEST_S3_REQUEST_LOG", "SLUICE_TEST_HTTPS_ACCESS_LOG",
  ]

  static func variable(_ name: String) -> String {
    ProcessInfo.processInfo.environment[name] ?? ""
  }

  /// The variables that are unset or empty.
  public static var missing: [String] { variables.filter { variable($0).isEmpty } }

  public static var isAvailable: Bool { missing.isEmpty }

  /// Why the remote tests are skipped, for `.enabled(if:)`.
  public static let skipReason: Comment =
    "no remote-input servers: run the tests through .ci/with-remote (Tests/remote/README.md)"

  /// nginx over HTTPS (`https://127.0.0.1:PORT`), serving `httpsRoot`.
  public static var httpsURL: String { variable("SLUICE_TEST_HTTPS_URL") }
  /// The folder nginx and the fault server serve.
  public static var httpsRoot: String { variable("SLUICE_TEST_HTTPS_ROOT") }
  /// The throwaway CA that signed nginx's certificate (PEM), not in the system's store.
  public static var caBundle: String { variable("SLUICE_TEST_CA_BUNDLE") }
  /// moto's S3 endpoint (`http://127.0.0.1:PORT`), region us-east-1, path-style.
  public static var s3Endpoint: String { variable("SLUICE_TEST_S3_ENDPOINT") }
  public static var s3AccessKeyID: String { variable("SLUICE_TEST_S3_ACCESS_KEY_ID") }
  public static var s3SecretAccessKey: String { variable("SLUICE_TEST_S3_SECRET_ACCESS_KEY") }
  /// The fault server (`http://127.0.0.1:PORT`): `/<id>/<faults>/<path under httpsRoot>`.
  public static var faultURL: String { variable("SLUICE_TEST_FAULT_URL") }
  /// Every request moto received, one JSON object a line (method, URL, headers).
  public static var s3RequestLog: String { variable("SLUICE_TEST_S3_REQUEST_LOG") }

  /// Every request nginx answered, a line each: `METHOD URI STATUS BODY-BYTES "RANGE"`.
  public static var httpsAccessLog: String { variable("SLUICE_TEST_HTTPS_ACCESS_LOG") }

  /// The requests nginx answered for files of `folder` (directly, redirected or gzipped), as
  /// `METHOD URI STATUS BODY-BYTES "RANGE"`, in order.
  public static func httpsRequests(folder: ServedFolder) throws -> [String] {
    let text = try String(contentsOfFile: httpsAccessLog, encoding: .utf8)
    let prefixes = ["/", "/redirect/", "/gzip/"].map { $0 + folder.name + "/" }
    return text.split(separator: "\n").map(String.init).filter { line in
      let uri = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
      return prefixes.contains { uri.hasPrefix($0) }
    }
  }

  /// The environment a run reads S3 credentials from: the test key, and nothing from the
  /// user's own AWS configuration.
  public static var awsEnvironment: [String: String] {
    [
      "AWS_ACCESS_KEY_ID": s3AccessKeyID, "AWS_SECRET_ACCESS_KEY": s3SecretAccessKey, "AWS_REGION": "us-east-1",
      "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    ]
  }

  /// A name no other test uses: lower-case letters, digits and '-', valid as a bucket name
  /// (3–63 characters) and as a fault id.
  public static func uniqueName(_ prefix: String) -> String {
    prefix + "-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
  }

  /// What the fault server saw for `id`: `(method, range, ifMatch, status, bytesSent)` per request.
  public static func faultRequests(id: String) throws -> [FaultRequest] {
    let data = try Curl.get(faultURL + "/_stats/" + id)
    let stats = try JSONDecoder().decode(FaultStats.self, from: data)
    return stats.requests
  }

  /// The requests moto received whose path starts with `/<bucket>`, as `METHOD /bucket/key?query`.
  public static func s3Requests(bucket: String) throws -> [String] {
    let text = try String(contentsOfFile: s3RequestLog, encoding: .utf8)
    var requests: [String] = []
    for line in text.split(separator: "\n") {
      guard let entry = try? JSONDecoder().decode(S3LogEntry.self, from: Data(line.utf8)),
        let url = URLComponents(string: entry.url)
      else { continue }
      let path = url.percentEncodedPath
      guard path == "/" + bucket || path.hasPrefix("/" + bucket + "/") || path.hasPrefix("/" + bucket + "?") else {
        continue
      }
      requests.append(entry.method + " " + path + (url.percentEncodedQuery.map { "?" + $0 } ?? ""))
    }
    return requests
  }

  struct FaultStats: Decodable {
    var requests: [FaultRequest]
  }

  struct S3LogEntry: Decodable {
    var method: String
    var url: String
  }
}

/// One request the fault server answered.
public struct FaultRequest: Decodable, Equatable, Sendable {
  public var method: String
  public var path: String
  public var range: String?
  public var ifMatch: String?
  public var status: Int?
  public var bytesSent: Int
}

/// A folder of its own under the served root, for one test's dumps; removed when the value goes.
public final class ServedFolder {
  /// Its name under the served root.
  public let name: String
  public let path: String

  public init(_ prefix: String = "test") throws {
    name = RemoteServers.uniqueName(prefix)
    path = (RemoteServers.httpsRoot as NSString).appendingPathComponent(name)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// Writes `bytes` at `relative` (subfolders made as needed); returns the file's path.
  @discardableResult
  public func write(_ relative: String, _ bytes: [UInt8]) throws -> String {
    let file = (path as NSString).appendingPathComponent(relative)
    try FileManager.default.createDirectory(
      atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    return file
  }

  /// The file's URL on nginx.
  public func httpsURL(_ relative: String) -> String { RemoteServers.httpsURL + "/" + name + "/" + relative }

  /// The file's URL on the fault server, with the faults (`-` for none) counted under `id`.
  public func faultURL(_ relative: String, id: String, faults: String = "-") -> String {
    RemoteServers.faultURL + "/" + id + "/" + faults + "/" + name + "/" + relative
  }
}

/// A bucket of its own on moto, for one test, made with curl's own SigV4 signing (an independent
/// client, so a test of Sluice's signing does not set up its data with the code under test).
public final class TestBucket {
  public let name: String

  public init(_ prefix: String = "sluice") throws {
    name = RemoteServers.uniqueName(prefix)
    _ = try Curl.s3(method: "PUT", path: "/" + name)
  }

  /// `s3://bucket/key`.
  public func url(_ key: String) -> String { "s3://" + name + "/" + key }

  /// Uploads `bytes` as `key` (one PUT); returns the object's ETag as S3 gives it, quotes included.
  @discardableResult
  public func put(_ key: String, _ bytes: [UInt8]) throws -> String {
    let file = NSTemporaryDirectory() + "sluice-upload-" + UUID().uuidString
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    defer { try? FileManager.default.removeItem(atPath: file) }
    let headers = try Curl.s3(method: "PUT", path: "/" + name + "/" + key, upload: file)
    return headers.first { $0.lowercased().hasPrefix("etag:") }.map {
      String($0.dropFirst(5)).trimmingCharacters(in: .whitespacesAndNewlines)
    } ?? ""
  }

  /// Deletes `key`.
  public func delete(_ key: String) throws {
    _ = try Curl.s3(method: "DELETE", path: "/" + name + "/" + key)
  }
}

/// `/usr/bin/curl`, for the tests' own requests to the servers.
enum Curl {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// The body of a GET that must answer 2xx.
  static func get(_ url: String) throws -> Data {
    let (status, output, error) = try run(["--silent", "--show-error", "--fail", url])
    guard status == 0 else { throw Failure(description: "curl GET \(url) exited \(status): \(error)") }
    return output
  }

  /// A request to moto signed with the test key (curl's `--aws-sigv4`); the response's header
  /// lines. Fails unless the answer is 2xx.
  static func s3(method: String, path: String, upload: String? = nil) throws -> [String] {
    var arguments = [
      "--silent", "--show-error", "--fail", "--dump-header", "-", "--output", "/dev/null",
      "--aws-sigv4", "aws:amz:us-east-1:s3",
      "--user", RemoteServers.s3AccessKeyID + ":" + RemoteServers.s3SecretAccessKey,
      "--header", "x-amz-content-sha256: UNSIGNED-PAYLOAD", "--request", method,
    ]
    if let upload { arguments += ["--upload-file", upload] }
    arguments.append(RemoteServers.s3Endpoint + path)
    let (status, output, error) = try run(arguments)
    guard status == 0 else { throw Failure(description: "curl \(method) \(path) on moto exited \(status): \(error)") }
    return String(decoding: output, as: UTF8.self).components(separatedBy: "\r\n")
  }

  static func run(_ arguments: [String]) throws -> (Int32, Data, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorText = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, data, errorText)
  }
}
