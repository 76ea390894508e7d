import Foundation
@_spi(Internals) import SluiceCore
import SluiceRemote
import SluiceTestSupport
import Testing

/// The servers `.ci/with-remote` starts (Tests/remote/README.md): nginx over TLS, moto's S3 and
/// the fault server. Without their variables the suites here are skipped, and say so.
enum TestServers {
  // The variables are read in one place, the test support's `RemoteServers`, which the
  // end-to-end suites use too (and whose suite "Remote servers in CI" fails under CI=true when one
  // is missing); here they are optionals, for the `.enabled(if:)` traits.
  private static func given(_ value: String) -> String? { value.isEmpty ? nil : value }

  static var httpsURL: String? { given(RemoteServers.httpsURL) }
  static var root: String? { given(RemoteServers.httpsRoot) }
  static var caBundle: String? { given(RemoteServers.caBundle) }
  static var s3Endpoint: String? { given(RemoteServers.s3Endpoint) }
  static var accessKeyID: String? { given(RemoteServers.s3AccessKeyID) }
  static var secretAccessKey: String? { given(RemoteServers.s3SecretAccessKey) }
  static var faultURL: String? { given(RemoteServers.faultURL) }

  static var isAvailable: Bool { RemoteServers.isAvailable }

  static let skipReason: Comment = "no remote test servers: run the tests through .ci/with-remote"

  /// A folder of the test's own under the served root, and its name there.
  static func folder() throws -> (path: String, name: String) {
    let name = "remote-" + UUID().uuidString.lowercased()
    let path = (root ?? NSTemporaryDirectory()) + "/" + name
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return (path, name)
  }

  /// Deterministic bytes that do not compress, so a cut at byte N is a cut in the body.
  static func bytes(_ count: Int, seed: UInt64 = 57) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
  }

  /// Options that reach the test servers: their CA, their S3 key, short waits.
  static func options(retries: Int = 3) -> RemoteOptions {
    var options = RemoteOptions()
    options.retries = retries
    options.caBundle = caBundle
    options.endpoint = s3Endpoint
    options.region = "us-east-1"
    options.initialBackoffSeconds = 0.05
    options.maximumBackoffSeconds = 2
    options.connectTimeoutSeconds = 5
    options.stallTimeoutSeconds = 2
    options.environment = [
      "AWS_ACCESS_KEY_ID": accessKeyID ?? "", "AWS_SECRET_ACCESS_KEY": secretAccessKey ?? "", "HOME": "/nonexistent",
    ]
    return options
  }

  /// Runs `/usr/bin/curl` signed with the test key: the tests' S3 client for setting up buckets
  /// and objects (the transport under test only reads).
  @discardableResult
  static func s3(_ method: String, _ path: String, upload: String? = nil) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    var arguments = [
      "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, "--aws-sigv4", "aws:amz:us-east-1:s3",
      "--user", "\(accessKeyID ?? ""):\(secretAccessKey ?? "")", "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD",
    ]
    if let upload { arguments += ["-T", upload] }
    arguments.append((s3Endpoint ?? "") + encoded(path))
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0, text.hasPrefix("2") else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "curl \(method) \(path): \(text)"])
    }
    return process.terminationStatus
  }

  /// `path` percent-encoded as S3 signs it: every byte but letters, digits, `-._~` and `/`.
  static func encoded(_ path: String) -> String {
    path.utf8.map { byte in
      let character = Character(Unicode.Scalar(byte))
      return (character.isASCII && (character.isLetter || character.isNumber)) || "-._~/".contains(character)
        ? String(character) : String(format: "%%%02X", byte)
    }.joined()
  }

  /// A fresh bucket, named for one test.
  static func bucket() throws -> String {
    let name = "sluice-" + UUID().uuidString.lowercased().prefix(18)
    try s3("PUT", "/" + name)
    return String(name)
  }

  /// What the fault server saw of `id`'s requests (read with the transport under test, which
  /// other tests prove reads plain HTTP).
  static func stats(_ id: String) throws -> [[String: Any]] {
    let stream = try CurlRemoteInputs().open((faultURL ?? "") + "/_stats/" + id, options: options())
    let data = Data(try readAll(stream.source))
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    return object?["requests"] as? [[String: Any]] ?? []
  }
}

/// Reads a byte source to its end.
func readAll(_ source: any ByteSource, chunk: Int = 1 << 16) throws -> [UInt8] {
  var bytes: [UInt8] = []
  let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
  defer { buffer.deallocate() }
  while true {
    let n = try source.read(into: buffer)
    if n == 0 { return bytes }
    bytes += UnsafeRawBufferPointer(rebasing: buffer[0..<n])
  }
}
